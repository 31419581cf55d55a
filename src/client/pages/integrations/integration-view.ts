import type { ConnectionStatus, Integration, SyncRunView } from '../../../shared/integrations.ts';
import { platformDisplayName, type PlatformKey } from '../../../shared/platforms.ts';

// What the integrations screen derives from `integrations.list`: the groups, the status a card shows,
// the progress of a run, when to poll, and the check of a Shopify store address.

type IntegrationGroupKey = Integration['kind'];

/** The screen's sections, in order, with their platforms in the order their cards appear. */
const INTEGRATION_GROUPS: readonly { key: IntegrationGroupKey; platforms: readonly PlatformKey[] }[] = [
  { key: 'store', platforms: ['shopify', 'woocommerce'] },
  { key: 'ads', platforms: ['googleads', 'metaads', 'bingads', 'tiktokads'] },
  { key: 'email', platforms: ['klaviyo', 'omnisend', 'mailchimp', 'email'] },
];

/** How often the list is fetched again while a sync is queued or running (never otherwise). */
export const SYNC_POLL_INTERVAL_MS = 2_000;

/** The cards of each section; a platform missing from the fixed order joins its kind's section at the end. */
export function groupIntegrations(integrations: readonly Integration[]): { key: IntegrationGroupKey; items: Integration[] }[] {
  return INTEGRATION_GROUPS.map((group) => {
    const ofKind = integrations.filter((integration) => integration.kind === group.key);
    const position = (platform: PlatformKey) => {
      const index = group.platforms.indexOf(platform);
      return index === -1 ? group.platforms.length : index;
    };
    return { key: group.key, items: [...ofKind].sort((a, b) => position(a.platform) - position(b.platform)) };
  }).filter((group) => group.items.length > 0);
}

export function isRunActive(run: SyncRunView | null | undefined): run is SyncRunView {
  return run?.status === 'queued' || run?.status === 'running';
}

/** Whether the screen must poll: some platform has a sync queued or running (its comparison with the platform is stored before it ends). */
export function shouldPoll(integrations: readonly Integration[] | undefined): boolean {
  return integrations?.some((integration) => isRunActive(integration.currentRun)) ?? false;
}

/** The badge of a card: a connection whose sync is queued or running shows as syncing. */
export function displayStatus(integration: Pick<Integration, 'status' | 'currentRun'>): ConnectionStatus {
  if (integration.status === 'connected' && isRunActive(integration.currentRun)) return 'syncing';
  return integration.status;
}

/** Percent done (0..100) of a run, or null when the platform gave no total (an indeterminate bar). */
export function runPercent(run: Pick<SyncRunView, 'rowsDone' | 'estimatedTotal'>): number | null {
  if (run.estimatedTotal === null || run.estimatedTotal <= 0) return null;
  return Math.min(100, Math.max(0, Math.round((run.rowsDone / run.estimatedTotal) * 100)));
}

/**
 * The name on a card: the spec's display names where it has one (Bing Ads for `bingads`), otherwise
 * the server's (TikTok Ads, Mailchimp); `fallback` is what the screen calls the generic e-mail import.
 */
export function cardTitle(integration: Pick<Integration, 'platform' | 'displayName'>, emailImportName: string): string {
  if (integration.platform === 'email') return emailImportName;
  const specName = platformDisplayName(integration.platform);
  return specName !== integration.platform ? specName : integration.displayName;
}

const SHOP_HANDLE = /^[a-z0-9][a-z0-9-]*$/;
const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/;

/**
 * The shop domain from what the user typed ("My-Store", "my-store.myshopify.com",
 * "https://my-store.myshopify.com/admin"), or null when it is not a Shopify store address.
 */
export function shopDomainFrom(input: string): string | null {
  const host = input
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .replace(/[/?#].*$/, '');
  if (!host) return null;
  if (SHOP_HANDLE.test(host)) return `${host}.myshopify.com`;
  return SHOP_DOMAIN.test(host) ? host : null;
}

const RELATIVE_UNITS: readonly [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

/** "5 minutes ago", "yesterday", "now" in the given language. */
export function formatRelativeTime(iso: string, locale: string, now: number = Date.now()): string {
  const elapsed = new Date(iso).getTime() - now;
  const format = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  for (const [unit, size] of RELATIVE_UNITS) {
    if (Math.abs(elapsed) >= size) return format.format(Math.round(elapsed / size), unit);
  }
  return format.format(0, 'second');
}

/**
 * Above this many characters the CSV goes to POST /api/integrations/email-csv instead of tRPC: the
 * JSON body of a tRPC call is limited to 1 MB.
 */
export const TRPC_CSV_LIMIT_CHARACTERS = 900_000;
