import { recordClickInput } from '../../shared/affiliates.ts';
import type { TrpcClient } from './trpc.ts';

/**
 * A page opened through a referral link (`/?ref=<code>`): the server counts the click and sets the
 * referral cookie that a later sign-up is attributed by. The parameter then leaves the address bar,
 * so a reload or a shared address does not count again.
 */
export function recordReferralVisit(client: TrpcClient, location: Location = window.location): void {
  const url = new URL(location.href);
  const parsed = recordClickInput.safeParse({ code: url.searchParams.get('ref') ?? '' });
  if (!url.searchParams.has('ref')) return;
  url.searchParams.delete('ref');
  window.history.replaceState(window.history.state, '', `${url.pathname}${url.search}${url.hash}`);
  // A bad or unknown code is ignored: the visitor is not a referral, nothing else changes.
  if (parsed.success) client.affiliates.recordClick.mutate(parsed.data).catch(() => undefined);
}
