import type { IngestEmailMetric } from '../../modules/commerce/ingest.ts';
import { MalformedResponseError } from '../connector.ts';
import { localDay } from '../email-shared/days.ts';
import { decimalToMinor } from '../money.ts';
import { KLAVIYO_PLATFORM, type KlaviyoCampaign, type KlaviyoFlow, type KlaviyoFlowSeriesResult, type KlaviyoMetric, type KlaviyoReportResult } from './client.ts';

// Klaviyo's campaign-values-report gives lifetime numbers per campaign message for campaigns sent in
// the timeframe, not per day: each campaign's numbers go to the day it was sent (store timezone).
// Opens and clicks are the unique counts (the ones Klaviyo's own rates use); orders and revenue are
// what Klaviyo attributes to the campaign through the "Placed Order" conversion metric, in the
// account's preferred currency, within the account's attribution window (5 days after an open or a
// click by default), so they grow for days after the send (docs/platform-notes.md "## Klaviyo").
//
// Flows (welcome series, abandoned cart...) come from the flow-series-report instead: one value per
// flow message and day of the account's calendar (Klaviyo buckets report days in the account's time
// zone), summed per flow into one row per flow and day under campaign id `flow:<flow id>`. Klaviyo
// attributes each conversion to one message (last touch), so campaign and flow rows add up to
// Klaviyo's own total without counting an order twice.

export const CONVERSION_METRIC_NAME = 'Placed Order';

export interface CampaignStats {
  sends: number;
  opens: number;
  clicks: number;
  orders: number;
  revenueMinor: number;
}

export function isEmptyStats(stats: CampaignStats): boolean {
  return stats.sends === 0 && stats.opens === 0 && stats.clicks === 0 && stats.orders === 0 && stats.revenueMinor === 0;
}

export function emptyStats(): CampaignStats {
  return { sends: 0, opens: 0, clicks: 0, orders: 0, revenueMinor: 0 };
}

export function addStats(a: CampaignStats, b: CampaignStats): CampaignStats {
  return {
    sends: a.sends + b.sends,
    opens: a.opens + b.opens,
    clicks: a.clicks + b.clicks,
    orders: a.orders + b.orders,
    revenueMinor: a.revenueMinor + b.revenueMinor,
  };
}

/** The "Placed Order" metric among a page of metrics (Klaviyo cannot filter metrics by name). */
export function findConversionMetric(metrics: KlaviyoMetric[]): KlaviyoMetric | undefined {
  return metrics.find((metric) => metric.attributes.name === CONVERSION_METRIC_NAME);
}

/**
 * When the campaign went out: its send_time ("when the campaign will be / was sent or None if not yet
 * scheduled by a send_job"). A draft has none, whatever else it carries.
 */
export function campaignSendTime(campaign: KlaviyoCampaign): string | null {
  return campaign.attributes.send_time ?? null;
}

/**
 * Report rows summed per campaign: a campaign has one row per message (A/B variants), all sent the
 * same day. Without a conversion metric, orders and revenue stay zero.
 */
export function statsByCampaign(results: KlaviyoReportResult[], currency: string, withConversions = true): Map<string, CampaignStats> {
  const byCampaign = new Map<string, CampaignStats>();
  for (const result of results) {
    const s = result.statistics;
    const stats: CampaignStats = {
      sends: Math.round(s.recipients ?? 0),
      opens: Math.round(s.opens_unique ?? 0),
      clicks: Math.round(s.clicks_unique ?? 0),
      orders: withConversions ? Math.round(s.conversions ?? 0) : 0,
      revenueMinor: withConversions ? decimalToMinor(s.conversion_value ?? 0, currency, KLAVIYO_PLATFORM) : 0,
    };
    const id = result.groupings.campaign_id;
    byCampaign.set(id, addStats(byCampaign.get(id) ?? emptyStats(), stats));
  }
  return byCampaign;
}

export function toEmailMetric(campaign: { id: string; name: string; day: string }, stats: CampaignStats, currency: string): IngestEmailMetric {
  return {
    platform: KLAVIYO_PLATFORM,
    campaignId: campaign.id,
    day: campaign.day,
    campaignName: campaign.name,
    currency,
    sends: stats.sends,
    opens: stats.opens,
    clicks: stats.clicks,
    attributedOrders: stats.orders,
    attributedRevenueMinor: stats.revenueMinor,
    // Klaviyo bills per plan, not per campaign: no spend per campaign.
    spendMinor: 0,
  };
}

/** Our campaign id for a Klaviyo flow's rows (campaign ids are Klaviyo's own, so the prefix keeps them apart). */
export function flowCampaignId(flowId: string): string {
  return `flow:${flowId}`;
}

/** A flow's name as listed (names are nullable in Klaviyo's schema). */
export function flowName(flow: KlaviyoFlow): string {
  return flow.attributes.name?.trim() || `Klaviyo flow ${flow.id}`;
}

/** The name of a flow the report names but Klaviyo no longer returns (GET /api/flows/{id}: 404). */
export function deletedFlowName(flowId: string): string {
  return `Klaviyo flow ${flowId} (deleted)`;
}

const MIDNIGHT = /^(\d{4}-\d{2}-\d{2})T00:00:00(?:\.0+)?(?:Z|[+-]\d{2}:?\d{2})?$/;

/**
 * The account's calendar day a series `date_times` entry starts. Daily buckets start at midnight on
 * the account's clock, which Klaviyo's example writes as "2024-01-05T00:00:00+00:00" without saying
 * whether that is the wall clock or an instant: a midnight is read as its date, any other time as the
 * instant it names, on the account's clock (a New York midnight written as 05:00:00+00:00). Null when
 * it is not a date-time.
 */
export function seriesDay(dateTime: string, accountTimezone: string): string | null {
  const midnight = MIDNIGHT.exec(dateTime);
  if (midnight) return midnight[1]!;
  const instant = new Date(dateTime);
  return Number.isNaN(instant.getTime()) ? null : localDay(instant, accountTimezone);
}

type SeriesName = keyof KlaviyoFlowSeriesResult['statistics'];

/**
 * A series page summed per flow and account day: sends = recipients, opens = opens_unique, clicks =
 * clicks_unique, orders = conversions, revenue = conversion_value (exact decimal to minor units, per
 * message and day). Days whose figures are all zero and other channels' rows are left out. Every
 * series must have one value per date_times entry.
 */
export function statsByFlowDay(
  results: KlaviyoFlowSeriesResult[],
  dateTimes: string[],
  accountTimezone: string,
  currency: string,
  withConversions = true,
): Map<string, Map<string, CampaignStats>> {
  const days = dateTimes.map((dateTime) => {
    const day = seriesDay(dateTime, accountTimezone);
    if (!day) throw new MalformedResponseError(KLAVIYO_PLATFORM, `flow series date_times holds "${dateTime}", not a date-time`);
    return day;
  });
  const byFlow = new Map<string, Map<string, CampaignStats>>();
  for (const result of results) {
    // The report is filtered to e-mail; a row of another channel (SMS, push) is not ours to count.
    if (result.groupings.send_channel && result.groupings.send_channel !== 'email') continue;
    const values = (name: SeriesName) => {
      const series = result.statistics[name] ?? [];
      if (series.length !== 0 && series.length !== days.length) {
        throw new MalformedResponseError(KLAVIYO_PLATFORM, `flow series ${name} of flow ${result.groupings.flow_id} has ${series.length} values for ${days.length} days`);
      }
      return series;
    };
    const [recipients, opens, clicks, conversions, value] = (['recipients', 'opens_unique', 'clicks_unique', 'conversions', 'conversion_value'] as const).map(values);
    const flowDays = byFlow.get(result.groupings.flow_id) ?? new Map<string, CampaignStats>();
    days.forEach((day, index) => {
      const stats: CampaignStats = {
        sends: Math.round(recipients![index] ?? 0),
        opens: Math.round(opens![index] ?? 0),
        clicks: Math.round(clicks![index] ?? 0),
        orders: withConversions ? Math.round(conversions![index] ?? 0) : 0,
        revenueMinor: withConversions ? decimalToMinor(value![index] ?? 0, currency, KLAVIYO_PLATFORM) : 0,
      };
      if (isEmptyStats(stats)) return;
      flowDays.set(day, addStats(flowDays.get(day) ?? emptyStats(), stats));
    });
    if (flowDays.size > 0) byFlow.set(result.groupings.flow_id, flowDays);
  }
  return byFlow;
}
