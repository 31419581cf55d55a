import { z } from 'zod';
import { addDays } from '../../../shared/date-ranges.ts';
import type { Connector, ConnectorContext, SyncBatch, SyncWindow } from '../connector.ts';
import { decodeCursor, encodeCursor } from '../email-shared/cursor.ts';
import { instantOfWallClock, isKnownTimezone, localDay, sentInWindow, wallClockIso, windowDays } from '../email-shared/days.ts';
import { FLOWS_FORBIDDEN, isFlowsForbidden, KLAVIYO_BASE_URL, KLAVIYO_PLATFORM, KlaviyoClient } from './client.ts';
import {
  addStats,
  campaignSendTime,
  deletedFlowName,
  emptyStats,
  findConversionMetric,
  flowCampaignId,
  flowName,
  statsByCampaign,
  statsByFlowDay,
  toEmailMetric,
  type CampaignStats,
} from './map.ts';

// A Klaviyo sync of a window of reporting days runs in five phases, one platform page per batch:
//   metrics    -> find the "Placed Order" metric (the conversion metric reports need); the account
//                 (read first) gives the currency and the time zone Klaviyo reads report timeframes in;
//   campaigns  -> list e-mail campaigns, keeping name and send day of those sent in the window;
//   report     -> page through campaign-values-reports (one per year of the window, Klaviyo's limit),
//                 the window written on the account's wall clock, and emit one row per campaign on its
//                 send day (store time zone). A campaign the list did not show (archived campaigns are
//                 not listed) is looked up by id for its name and send time;
//   flows      -> list the account's flows (active, then archived) for their names;
//   flowReport -> page through flow-series-reports (daily, one per 59 days of the window: Klaviyo
//                 allows 60) and emit one row per flow and day of the ACCOUNT's calendar (Klaviyo's
//                 buckets; they cannot be cut into the store's days) under campaign id `flow:<id>`. A
//                 flow the lists did not show is looked up by id; a deleted one (404) keeps its figures
//                 under a placeholder name. A key without flows:read skips the flows with a warning.
// A sync thus spends one campaign report and one flow report on a window of up to 59 days (the
// hourly incremental sync's 29), within the 225 report calls a day per account (docs/platform-notes.md,
// "Report budget"). The cursor carries what the later phases need (currency, time zone, metric id, the
// window's campaigns and flows with the totals emitted so far), so a resumed sync needs nothing but
// the cursor. Totals are cumulative: when a campaign's or flow's messages come back on two report
// pages, the second row carries the sum and replaces the first on ingest (same platform/campaign/day key).

const MAX_REPORT_DAYS = 365;
/**
 * Days per flow-series report. The daily interval allows a timeframe of at most 60 days
 * (query_flow_series, `interval`); 59 whole days stay under 60 even when a daylight-saving change inside
 * them adds an hour to the elapsed time, whichever way Klaviyo measures the length.
 */
export const FLOW_SERIES_DAYS = 59;

const stats = z.object({ sends: z.number(), opens: z.number(), clicks: z.number(), orders: z.number(), revenueMinor: z.number() });
/** A campaign of the window (name, send day), or one the report named that was not sent in the window (`outside`). */
const campaignEntry = z.object({ name: z.string(), day: z.string(), emitted: stats.optional(), outside: z.boolean().optional() });
const common = { currency: z.string(), timezone: z.string() };
/** Figures emitted so far for a flow's day in this report frame: sends, opens, clicks, orders, revenue (minor). */
const statsTuple = z.tuple([z.number(), z.number(), z.number(), z.number(), z.number()]);
const flowPhases = { ...common, metricId: z.string(), withConversions: z.boolean(), campaignRows: z.number().int().nonnegative(), flows: z.record(z.string(), z.string()) };
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
  z.object({ phase: z.literal('flows'), ...flowPhases, archived: z.boolean(), page: z.string().nullable() }),
  z.object({
    phase: z.literal('flowReport'),
    ...flowPhases,
    chunk: z.number().int().nonnegative(),
    page: z.string().nullable(),
    /** This frame's flow days emitted so far (flow id -> day -> figures). */
    emitted: z.record(z.string(), z.record(z.string(), statsTuple)),
    /** Flow rows (flow and day) emitted by this sync so far, for the progress total. */
    flowRows: z.number().int().nonnegative(),
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

/** A flow-series report's days: the first and last day (the account's calendar) and its timeframe on the account's wall clock. */
export interface FlowFrame {
  firstDay: string;
  lastDay: string;
  start: string;
  end: string;
}

/**
 * The window's days cut into flow-series timeframes of at most FLOW_SERIES_DAYS days. The days are the
 * window's reporting days, read on the account's calendar (Klaviyo's daily buckets); each timeframe runs
 * from the first day's midnight to the last day's 23:59:59, written on the account's wall clock with
 * its offset (the bounds are inclusive and their offset is ignored, as for campaign reports).
 */
export function flowTimeframes(window: SyncWindow, accountTimezone: string): FlowFrame[] {
  const { firstDay, lastDay } = windowDays(window);
  const frames: FlowFrame[] = [];
  const onWallClock = (wall: string) => wallClockIso(instantOfWallClock(wall, accountTimezone)!, accountTimezone);
  for (let day = firstDay; day <= lastDay; day = addDays(day, FLOW_SERIES_DAYS)) {
    const last = addDays(day, FLOW_SERIES_DAYS - 1) < lastDay ? addDays(day, FLOW_SERIES_DAYS - 1) : lastDay;
    frames.push({ firstDay: day, lastDay: last, start: onWallClock(`${day}T00:00:00`), end: onWallClock(`${last}T23:59:59`) });
  }
  return frames;
}

/** The report calls a sync of `window` makes when every report fits one page: campaign-values and flow-series. */
export function reportCallsFor(window: SyncWindow, accountTimezone: string): { campaignReports: number; flowReports: number } {
  return { campaignReports: reportTimeframes(window, accountTimezone).length, flowReports: flowTimeframes(window, accountTimezone).length };
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
  let next: KlaviyoCursor;
  if (nextPageCursor) next = { ...cursor, page: nextPageCursor, campaigns };
  else if (cursor.chunk + 1 < frames.length) next = { ...cursor, chunk: cursor.chunk + 1, page: null, campaigns };
  else next = startFlows(cursor, estimatedTotal);
  return batch(next, { emailMetrics, estimatedTotal, ...(warnings.length ? { warnings } : {}) });
}

function startFlows(cursor: Extract<KlaviyoCursor, { phase: 'report' }>, campaignRows: number): KlaviyoCursor {
  const { currency, timezone, metricId, withConversions } = cursor;
  return { phase: 'flows', currency, timezone, metricId, withConversions, campaignRows, flows: {}, archived: false, page: null };
}

/** Shown beside the connection while the key cannot read flows; the campaigns are synced. */
export const FLOWS_FORBIDDEN_WARNING = `${FLOWS_FORBIDDEN}: flow figures (welcome series, abandoned cart and other automations) are not synced. Give the key read access to flows (flows:read) to add them.`;

/** The sync ends without flows when the key may not read them (campaigns are already stored). */
async function unlessFlowsForbidden(campaignRows: number, step: () => Promise<SyncBatch>): Promise<SyncBatch> {
  try {
    return await step();
  } catch (error) {
    if (!isFlowsForbidden(error)) throw error;
    return batch(null, { warnings: [FLOWS_FORBIDDEN_WARNING], estimatedTotal: campaignRows });
  }
}

async function flowsStep(client: KlaviyoClient, cursor: Extract<KlaviyoCursor, { phase: 'flows' }>): Promise<SyncBatch> {
  const { flows: listed, nextPageCursor } = await client.flowsPage(cursor.page, cursor.archived);
  const flows = { ...cursor.flows };
  for (const flow of listed) flows[flow.id] = flowName(flow);
  if (nextPageCursor) return batch({ ...cursor, page: nextPageCursor, flows }, { estimatedTotal: cursor.campaignRows });
  if (!cursor.archived) return batch({ ...cursor, archived: true, page: null, flows }, { estimatedTotal: cursor.campaignRows });
  const { currency, timezone, metricId, withConversions, campaignRows } = cursor;
  return batch(
    { phase: 'flowReport', currency, timezone, metricId, withConversions, campaignRows, flows, chunk: 0, page: null, emitted: {}, flowRows: 0 },
    { estimatedTotal: campaignRows },
  );
}

async function flowReportStep(client: KlaviyoClient, window: SyncWindow, cursor: Extract<KlaviyoCursor, { phase: 'flowReport' }>): Promise<SyncBatch> {
  const frames = flowTimeframes(window, cursor.timezone);
  const frame = frames[cursor.chunk];
  if (!frame) return batch(null, { estimatedTotal: cursor.campaignRows + cursor.flowRows });
  const page = await client.flowSeriesPage({ start: frame.start, end: frame.end, conversionMetricId: cursor.metricId }, cursor.page);
  const byFlow = statsByFlowDay(page.results, page.dateTimes, cursor.timezone, cursor.currency, cursor.withConversions);
  const flows = { ...cursor.flows };
  for (const id of byFlow.keys()) {
    if (flows[id] !== undefined) continue;
    const flow = await client.flow(id);
    flows[id] = flow ? flowName(flow) : deletedFlowName(id);
  }
  const emitted = { ...cursor.emitted };
  let flowRows = cursor.flowRows;
  const emailMetrics = [];
  for (const [id, days] of byFlow) {
    const flowEmitted = { ...emitted[id] };
    for (const [day, stats] of days) {
      // Only the frame's own days (a bucket outside them would belong to another frame's rows).
      if (day < frame.firstDay || day > frame.lastDay) continue;
      const before = flowEmitted[day];
      if (!before) flowRows++;
      const total = addStats(before ? { sends: before[0], opens: before[1], clicks: before[2], orders: before[3], revenueMinor: before[4] } : emptyStats(), stats);
      flowEmitted[day] = [total.sends, total.opens, total.clicks, total.orders, total.revenueMinor];
      emailMetrics.push(toEmailMetric({ id: flowCampaignId(id), name: flows[id]!, day }, total, cursor.currency));
    }
    emitted[id] = flowEmitted;
  }
  let next: KlaviyoCursor | null = null;
  if (page.nextPageCursor) next = { ...cursor, page: page.nextPageCursor, flows, emitted, flowRows };
  // The next frame's days are others: nothing emitted so far can come back in it.
  else if (cursor.chunk + 1 < frames.length) next = { ...cursor, chunk: cursor.chunk + 1, page: null, flows, emitted: {}, flowRows };
  return batch(next, { emailMetrics, estimatedTotal: cursor.campaignRows + flowRows });
}

export const klaviyoConnector: Connector = {
  platform: KLAVIYO_PLATFORM,
  kind: 'email',
  authKind: 'credentials',
  credentialFields: ['apiKey'],
  defaultBaseUrl: () => KLAVIYO_BASE_URL,
  // Reporting endpoints allow 225 calls a day per account, shared with every app on the key
  // (docs/platform-notes.md, Klaviyo): an hourly sync spends 24 a day per report kind (one campaign and
  // one flow report each), 48 in all; a 15-minute one would spend 96 per kind.
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
    if (cursor.phase === 'report') return reportStep(client, ctx, window, cursor);
    const flowCursor = cursor;
    if (flowCursor.phase === 'flows') return unlessFlowsForbidden(flowCursor.campaignRows, () => flowsStep(client, flowCursor));
    return unlessFlowsForbidden(flowCursor.campaignRows, () => flowReportStep(client, window, flowCursor));
  },
  // No sourceTotals: Klaviyo has no per-day order counts or spend to reconcile against.
};
