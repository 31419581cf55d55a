import { z } from 'zod';
import type { Connector, ConnectorContext, SyncBatch, SyncWindow } from '../connector.ts';
import { decodeCursor, encodeCursor } from '../email-shared/cursor.ts';
import { isKnownTimezone, localDay, sentInWindow, wallClockIso } from '../email-shared/days.ts';
import { KLAVIYO_BASE_URL, KLAVIYO_PLATFORM, KlaviyoClient } from './client.ts';
import { addStats, campaignSendTime, emptyStats, findConversionMetric, statsByCampaign, toEmailMetric, type CampaignStats } from './map.ts';

// A Klaviyo sync of a window of reporting days runs in three phases, one platform page per batch:
//   metrics   -> find the "Placed Order" metric (the conversion metric reports need); the account
//                (read first) gives the currency and the time zone Klaviyo reads report timeframes in;
//   campaigns -> list e-mail campaigns, keeping name and send day of those sent in the window;
//   report    -> page through campaign-values-reports (one per year of the window, Klaviyo's limit),
//                the window written on the account's wall clock, and emit one row per campaign on its
//                send day (store time zone). A campaign the list did not show (archived campaigns are
//                not listed) is looked up by id for its name and send time.
// The cursor carries what the later phases need (currency, time zone, metric id, the window's campaigns
// with the totals emitted so far), so a resumed sync needs nothing but the cursor. Totals are
// cumulative: when a campaign's messages come back on two report pages, the second row carries the sum
// and replaces the first on ingest (same platform/campaign/day key).

const MAX_REPORT_DAYS = 365;

const stats = z.object({ sends: z.number(), opens: z.number(), clicks: z.number(), orders: z.number(), revenueMinor: z.number() });
/** A campaign of the window (name, send day), or one the report named that was not sent in the window (`outside`). */
const campaignEntry = z.object({ name: z.string(), day: z.string(), emitted: stats.optional(), outside: z.boolean().optional() });
const common = { currency: z.string(), timezone: z.string() };
const cursorSchema = z.discriminatedUnion('phase', [
  z.object({ phase: z.literal('metrics'), ...common, page: z.string().nullable(), fallbackMetricId: z.string().nullable() }),
  z.object({
    phase: z.literal('campaigns'),
    ...common,
    metricId: z.string(),
    withConversions: z.boolean(),
    page: z.string().nullable(),
    campaigns: z.record(z.string(), campaignEntry),
  }),
  z.object({
    phase: z.literal('report'),
    ...common,
    metricId: z.string(),
    withConversions: z.boolean(),
    chunk: z.number().int().nonnegative(),
    page: z.string().nullable(),
    campaigns: z.record(z.string(), campaignEntry),
  }),
]);
type KlaviyoCursor = z.infer<typeof cursorSchema>;
type CampaignEntry = z.infer<typeof campaignEntry>;

/**
 * The window cut into report timeframes of at most a year. Klaviyo ignores a timeframe's offset and
 * reads its wall clock in the account's time zone, so each bound is written as the account's wall
 * clock with that zone's offset (right whether the offset is read or not); start and end are both
 * inclusive, so the end is the last second before the window's end.
 */
export function reportTimeframes(window: SyncWindow, accountTimezone: string): { start: string; end: string }[] {
  const frames: { start: string; end: string }[] = [];
  const step = MAX_REPORT_DAYS * 86_400_000;
  for (let since = window.since.getTime(); since < window.until.getTime(); since += step) {
    const until = Math.min(since + step, window.until.getTime());
    frames.push({ start: wallClockIso(new Date(since), accountTimezone), end: wallClockIso(new Date(until - 1000), accountTimezone) });
  }
  return frames;
}

function batch(next: KlaviyoCursor | null, extra: Partial<SyncBatch> = {}): SyncBatch {
  return { nextCursor: next ? encodeCursor(next) : null, ...extra };
}

async function metricsStep(client: KlaviyoClient, cursor: Extract<KlaviyoCursor, { phase: 'metrics' }>): Promise<SyncBatch> {
  const { metrics, nextPageCursor } = await client.metricsPage(cursor.page);
  const conversion = findConversionMetric(metrics);
  const fallbackMetricId = cursor.fallbackMetricId ?? metrics[0]?.id ?? null;
  if (!conversion && nextPageCursor) return batch({ ...cursor, page: nextPageCursor, fallbackMetricId });
  // Reports need some metric id; without "Placed Order" (no store connected to Klaviyo) any metric
  // gives the send statistics, and orders/revenue stay zero.
  const metricId = conversion?.id ?? fallbackMetricId;
  if (!metricId) return batch(null);
  const { currency, timezone } = cursor;
  return batch({ phase: 'campaigns', currency, timezone, metricId, withConversions: Boolean(conversion), page: null, campaigns: {} });
}

function windowCampaignCount(campaigns: Record<string, CampaignEntry>): number {
  return Object.values(campaigns).filter((entry) => !entry.outside).length;
}

async function campaignsStep(
  client: KlaviyoClient,
  ctx: ConnectorContext,
  window: SyncWindow,
  cursor: Extract<KlaviyoCursor, { phase: 'campaigns' }>,
): Promise<SyncBatch> {
  const { campaigns, nextPageCursor } = await client.campaignsPage(cursor.page);
  const kept = { ...cursor.campaigns };
  for (const campaign of campaigns) {
    const sendTime = campaignSendTime(campaign);
    if (!sentInWindow(sendTime, window)) continue;
    kept[campaign.id] = { name: campaign.attributes.name, day: localDay(sendTime!, ctx.store.timezone) };
  }
  const estimatedTotal = windowCampaignCount(kept);
  if (nextPageCursor) return batch({ ...cursor, page: nextPageCursor, campaigns: kept }, { estimatedTotal });
  return batch({ ...cursor, phase: 'report', chunk: 0, page: null, campaigns: kept }, { estimatedTotal });
}

/** Name and send day of report campaigns the list did not show, from GET /api/campaigns/{id}. */
async function lookUpUnlisted(client: KlaviyoClient, ctx: ConnectorContext, window: SyncWindow, ids: string[], campaigns: Record<string, CampaignEntry>) {
  const warnings: string[] = [];
  for (const id of ids) {
    const campaign = await client.campaign(id);
    const sendTime = campaign ? campaignSendTime(campaign) : null;
    if (!campaign || !sendTime) {
      campaigns[id] = { name: `Klaviyo campaign ${id}`, day: '', outside: true };
      warnings.push(`Klaviyo reported statistics for campaign ${id}, which it no longer returns: its figures are left out.`);
    } else if (!sentInWindow(sendTime, window)) {
      campaigns[id] = { name: campaign.attributes.name, day: localDay(sendTime, ctx.store.timezone), outside: true };
    } else {
      campaigns[id] = { name: campaign.attributes.name, day: localDay(sendTime, ctx.store.timezone) };
    }
  }
  return warnings;
}

async function reportStep(
  client: KlaviyoClient,
  ctx: ConnectorContext,
  window: SyncWindow,
  cursor: Extract<KlaviyoCursor, { phase: 'report' }>,
): Promise<SyncBatch> {
  const frames = reportTimeframes(window, cursor.timezone);
  const frame = frames[cursor.chunk];
  if (!frame) return batch(null);
  const { results, nextPageCursor } = await client.campaignValuesPage({ start: frame.start, end: frame.end, conversionMetricId: cursor.metricId }, cursor.page);
  const campaigns: Record<string, CampaignEntry> = { ...cursor.campaigns };
  const pageStats = statsByCampaign(results, cursor.currency, cursor.withConversions);
  const warnings = await lookUpUnlisted(client, ctx, window, [...pageStats.keys()].filter((id) => !campaigns[id]), campaigns);
  const emailMetrics = [];
  for (const [id, stats] of pageStats) {
    const entry = campaigns[id]!;
    if (entry.outside) continue;
    const total: CampaignStats = addStats(entry.emitted ?? emptyStats(), stats);
    campaigns[id] = { ...entry, emitted: total };
    emailMetrics.push(toEmailMetric({ id, name: entry.name, day: entry.day }, total, cursor.currency));
  }
  const estimatedTotal = windowCampaignCount(campaigns);
  let next: KlaviyoCursor | null = null;
  if (nextPageCursor) next = { ...cursor, page: nextPageCursor, campaigns };
  else if (cursor.chunk + 1 < frames.length) next = { ...cursor, chunk: cursor.chunk + 1, page: null, campaigns };
  return batch(next, { emailMetrics, estimatedTotal, ...(warnings.length ? { warnings } : {}) });
}

export const klaviyoConnector: Connector = {
  platform: KLAVIYO_PLATFORM,
  kind: 'email',
  authKind: 'credentials',
  credentialFields: ['apiKey'],
  defaultBaseUrl: () => KLAVIYO_BASE_URL,
  // Reporting endpoints allow 225 calls a day per account, shared with every app on the key
  // (docs/platform-notes.md, Klaviyo): an hourly sync spends 24 a day per report kind, a 15-minute one 96.
  minSyncIntervalMinutes: 60,

  async verify(ctx) {
    const account = await new KlaviyoClient(ctx).account();
    return {
      accountId: account.id,
      accountName: account.attributes.contact_information?.organization_name || `Klaviyo account ${account.id}`,
      currency: account.attributes.preferred_currency ?? undefined,
      timezone: isKnownTimezone(account.attributes.timezone) ? account.attributes.timezone : undefined,
    };
  },

  async fetchBatch(ctx, window, cursorText) {
    if (window.since.getTime() >= window.until.getTime()) return batch(null);
    const client = new KlaviyoClient(ctx);
    let cursor: KlaviyoCursor;
    if (cursorText === null) {
      const account = await client.account();
      // An account whose zone this runtime does not know is read as UTC; the days may then be off by the offset.
      const timezone = isKnownTimezone(account.attributes.timezone) ? account.attributes.timezone : 'UTC';
      cursor = { phase: 'metrics', currency: account.attributes.preferred_currency || ctx.store.currency, timezone, page: null, fallbackMetricId: null };
    } else {
      cursor = decodeCursor(KLAVIYO_PLATFORM, cursorText, cursorSchema);
    }
    if (cursor.phase === 'metrics') return metricsStep(client, cursor);
    if (cursor.phase === 'campaigns') return campaignsStep(client, ctx, window, cursor);
    return reportStep(client, ctx, window, cursor);
  },
  // No sourceTotals: Klaviyo has no per-day order counts or spend to reconcile against.
};
