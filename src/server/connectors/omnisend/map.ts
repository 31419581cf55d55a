import type { IngestEmailMetric } from '../../modules/commerce/ingest.ts';
import { localDay } from '../email-shared/days.ts';
import { OMNISEND_PLATFORM, type OmnisendCampaign } from './client.ts';

// An Omnisend v3 campaign carries its lifetime counts (reference: "sent: Sent emails count",
// "opened: Open emails count", "clicked: Clicked links in emails count" — it does not say whether
// opens and clicks are per person, as Klaviyo's and Mailchimp's unique figures are): they go to the
// day it started sending (store timezone). v3 gives no orders or revenue per campaign, and the
// 2026-03-15 Analytics API that has revenue groups by send day, channel and activity only (no campaign
// dimension), so orders and revenue stay zero here.

/**
 * When the campaign went out (v3 statuses: draft, scheduled, paused, inProgress, sent). Drafts and
 * scheduled campaigns have not sent; a paused or in-progress one has, and its counts grow.
 */
export function campaignSendTime(campaign: OmnisendCampaign): string | null {
  if (campaign.status === 'draft' || campaign.status === 'scheduled') return null;
  return campaign.startDate || null;
}

export function campaignToEmailMetric(campaign: OmnisendCampaign, options: { timezone: string; currency: string }): IngestEmailMetric | null {
  const sendTime = campaignSendTime(campaign);
  if (!sendTime) return null;
  return {
    platform: OMNISEND_PLATFORM,
    campaignId: campaign.campaignID,
    day: localDay(sendTime, options.timezone),
    campaignName: campaign.name?.trim() || campaign.subject?.trim() || `Omnisend campaign ${campaign.campaignID}`,
    currency: options.currency,
    sends: Math.round(campaign.sent ?? 0),
    opens: Math.round(campaign.opened ?? 0),
    clicks: Math.round(campaign.clicked ?? 0),
    attributedOrders: 0,
    attributedRevenueMinor: 0,
    spendMinor: 0,
  };
}
