import { z } from 'zod';
import type { Connector, ConnectorContext, SyncBatch, SyncWindow } from '../connector.ts';
import { decodeCursor, encodeCursor } from '../email-shared/cursor.ts';
import { localDay, sentInWindow } from '../email-shared/days.ts';
import { KLAVIYO_BASE_URL, KLAVIYO_PLATFORM, KlaviyoClient } from './client.ts';
import { addStats, campaignSendDay, campaignSendTime, emptyStats, findConversionMetric, statsByCampaign, toEmailMetric, type CampaignStats } from './map.ts';

// A Klaviyo sync of a window of reporting days runs in three phases, one platform page per batch:
//   metrics   -> find the "Placed Order" metric (the conversion metric reports need) and the currency;
//   campaigns -> list e-mail campaigns, keeping name and send day of those sent in the window;
//   report    -> page through campaign-values-reports (one per year of the window, Klaviyo's limit)
//                and emit one row per campaign on its send day.
// The cursor carries what the later phases need (currency, metric id, the window's campaigns with the
// totals emitted so far), so a resumed sync needs nothing but the cursor. Totals are cumulative: when
// a campaign's messages come back on two report pages, the second row carries the sum and replaces the
// first on ingest (same platform/campaign/day key).

const MAX_REPORT_DAYS = 365;

const stats = z.object({ sends: z.number(), opens: z.number(), clicks: z.number(), orders: z.number(), revenueMinor: z.number() });
const campaignEntry = z.object({ name: z.string(), day: z.string(), emitted: stats.optional() });
const common = { currency: z.string() };
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

/** The window cut into report timeframes of at most a year, as Klaviyo's inclusive start/end instants. */
export function reportTimeframes(window: SyncWindow): { start: string; end: string; since: Date }[] {
  const frames: { start: string; end: string; since: Date }[] = [];
  const step = MAX_REPORT_DAYS * 86_400_000;
  for (let since = window.since.getTime(); since < window.until.getTime(); since += step) {
    const until = Math.min(since + step, window.until.getTime());
    frames.push({ start: isoSeconds(since), end: isoSeconds(until - 1000), since: new Date(since) });
  }
  return frames;
}

function isoSeconds(time: number): string {
  return new Date(Math.floor(time / 1000) * 1000).toISOString().replace('.000Z', '+00:00');
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
  return batch({ phase: 'campaigns', currency: cursor.currency, metricId, withConversions: Boolean(conversion), page: null, campaigns: {} });
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
    if (!sentInWindow(campaignSendTime(campaign), window)) continue;
    kept[campaign.id] = { name: campaign.attributes.name, day: campaignSendDay(campaign, ctx.store.timezone)! };
  }
  const estimatedTotal = Object.keys(kept).length;
  if (nextPageCursor) return batch({ ...cursor, page: nextPageCursor, campaigns: kept }, { estimatedTotal });
  return batch({ ...cursor, phase: 'report', chunk: 0, page: null, campaigns: kept }, { estimatedTotal });
}

async function reportStep(
  client: KlaviyoClient,
  ctx: ConnectorContext,
  window: SyncWindow,
  cursor: Extract<KlaviyoCursor, { phase: 'report' }>,
): Promise<SyncBatch> {
  const frames = reportTimeframes(window);
  const frame = frames[cursor.chunk];
  if (!frame) return batch(null);
  const { results, nextPageCursor } = await client.campaignValuesPage(
    { start: frame.start, end: frame.end, conversionMetricId: cursor.metricId },
    cursor.page,
  );
  const campaigns: Record<string, CampaignEntry> = { ...cursor.campaigns };
  const emailMetrics = [];
  for (const [id, pageStats] of statsByCampaign(results, cursor.currency, cursor.withConversions)) {
    // A campaign the list did not show (archived, or sent just across the window's edge in Klaviyo's
    // account timezone) still counts: on the timeframe's first day, under its id.
    const entry = campaigns[id] ?? { name: `Klaviyo campaign ${id}`, day: localDay(frame.since, ctx.store.timezone) };
    const total: CampaignStats = addStats(entry.emitted ?? emptyStats(), pageStats);
    campaigns[id] = { ...entry, emitted: total };
    emailMetrics.push(toEmailMetric({ id, name: entry.name, day: entry.day }, total, cursor.currency));
  }
  const estimatedTotal = Object.keys(campaigns).length;
  let next: KlaviyoCursor | null = null;
  if (nextPageCursor) next = { ...cursor, page: nextPageCursor, campaigns };
  else if (cursor.chunk + 1 < frames.length) next = { ...cursor, chunk: cursor.chunk + 1, page: null, campaigns };
  return batch(next, { emailMetrics, estimatedTotal });
}

export const klaviyoConnector: Connector = {
  platform: KLAVIYO_PLATFORM,
  kind: 'email',
  authKind: 'credentials',
  credentialFields: ['apiKey'],
  defaultBaseUrl: () => KLAVIYO_BASE_URL,

  async verify(ctx) {
    const account = await new KlaviyoClient(ctx).account();
    return {
      accountId: account.id,
      accountName: account.attributes.contact_information?.organization_name || `Klaviyo account ${account.id}`,
      currency: account.attributes.preferred_currency ?? undefined,
    };
  },

  async fetchBatch(ctx, window, cursorText) {
    if (window.since.getTime() >= window.until.getTime()) return batch(null);
    const client = new KlaviyoClient(ctx);
    let cursor: KlaviyoCursor;
    if (cursorText === null) {
      const account = await client.account();
      cursor = { phase: 'metrics', currency: account.attributes.preferred_currency || ctx.store.currency, page: null, fallbackMetricId: null };
    } else {
      cursor = decodeCursor(KLAVIYO_PLATFORM, cursorText, cursorSchema);
    }
    if (cursor.phase === 'metrics') return metricsStep(client, cursor);
    if (cursor.phase === 'campaigns') return campaignsStep(client, ctx, window, cursor);
    return reportStep(client, ctx, window, cursor);
  },
  // No sourceTotals: Klaviyo has no per-day order counts or spend to reconcile against.
};
