import type { IngestEmailMetric } from '../../modules/commerce/ingest.ts';
import { localDay } from '../email-shared/days.ts';
import { decimalToMinor } from '../money.ts';
import { MAILCHIMP_PLATFORM, type MailchimpReport } from './client.ts';

// A Mailchimp report holds a campaign's lifetime numbers, not per day: they go to the day the
// campaign was sent (store timezone). Opens and clicks are unique (people, as Mailchimp's own rates
// count them); revenue is ecommerce.total_revenue (orders minus shipping and tax), in the connected
// store's currency, or the store's own currency when Mailchimp has no store connected.

export function reportToEmailMetric(report: MailchimpReport, options: { timezone: string; fallbackCurrency: string }): IngestEmailMetric {
  const currency = report.ecommerce?.currency_code?.trim().toUpperCase() || options.fallbackCurrency;
  return {
    platform: MAILCHIMP_PLATFORM,
    campaignId: report.id,
    day: localDay(report.send_time, options.timezone),
    campaignName: report.campaign_title?.trim() || report.subject_line?.trim() || `Mailchimp campaign ${report.id}`,
    currency,
    sends: Math.round(report.emails_sent ?? 0),
    opens: Math.round(report.opens?.unique_opens ?? 0),
    clicks: Math.round(report.clicks?.unique_subscriber_clicks ?? report.clicks?.unique_clicks ?? 0),
    attributedOrders: Math.round(report.ecommerce?.total_orders ?? 0),
    attributedRevenueMinor: decimalToMinor(report.ecommerce?.total_revenue ?? 0, currency, MAILCHIMP_PLATFORM),
    // Mailchimp bills per plan, not per campaign.
    spendMinor: 0,
  };
}
