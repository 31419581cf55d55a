import type { TrpcClient } from './trpc.ts';

/**
 * A page opened through a referral link (`/?ref=<code>`): the server counts the click and sets the
 * referral cookie that a later sign-up is attributed by. The parameter then leaves the address bar,
 * so a reload or a shared address does not count again.
 */
export function recordReferralVisit(client: TrpcClient, location: Location = window.location): void {
  const url = new URL(location.href);
  const code = url.searchParams.get('ref');
  if (code === null) return;
  url.searchParams.delete('ref');
  window.history.replaceState(window.history.state, '', `${url.pathname}${url.search}${url.hash}`);
  // The server checks the code (recordClickInput, shared/affiliates.ts; zod stays off the first load):
  // a bad or unknown code is ignored, the visitor is not a referral and nothing else changes.
  if (code.trim() !== '') client.affiliates.recordClick.mutate({ code }).catch(() => undefined);
}
