import type { IngestEmailMetric } from '../../modules/commerce/ingest.ts';
import { decimalToMinor } from '../money.ts';
import { KLAVIYO_PLATFORM, type KlaviyoCampaign, type KlaviyoMetric, type KlaviyoReportResult } from './client.ts';

// Klaviyo's campaign-values-report gives lifetime numbers per campaign message for campaigns sent in
// the timeframe, not per day: each campaign's numbers go to the day it was sent (store timezone).
// Opens and clicks are the unique counts (the ones Klaviyo's own rates use); orders and revenue are
// what Klaviyo attributes to the campaign through the "Placed Order" conversion metric, in the
// account's preferred currency, within the account's attribution window (5 days after an open or a
// click by default), so they grow for days after the send (docs/platform-notes.md "## Klaviyo").

export const CONVERSION_METRIC_NAME = 'Placed Order';

export interface CampaignStats {
  sends: number;
  opens: number;
  clicks: number;
  orders: number;
  revenueMinor: number;
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
