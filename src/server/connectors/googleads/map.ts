import { MalformedResponseError, type SourceDayTotal } from '../connector.ts';
import { decimalToMinor, microsToMinor } from '../money.ts';
import type { IngestAdMetric } from '../../modules/commerce/ingest.ts';
import { fractionalCount, wholeCount } from '../ads-shared/counts.ts';
import { PLATFORM, type GoogleAdsRow } from './client.ts';

// searchStream rows -> ingest rows. Cost comes in micros of the customer's currency; the conversion
// value is a double in that currency, turned into minor units by exact decimal rounding.

function currencyOf(row: GoogleAdsRow, fallback: string | undefined): string {
  const currency = row.customer?.currencyCode ?? fallback;
  if (!currency) throw new MalformedResponseError(PLATFORM, 'a row without customer.currencyCode');
  return currency;
}

function dayOf(row: GoogleAdsRow): string {
  const day = row.segments?.date;
  if (!day) throw new MalformedResponseError(PLATFORM, 'a row without segments.date');
  return day;
}

export function mapCampaignDay(row: GoogleAdsRow, customerId: string, fallbackCurrency?: string): IngestAdMetric {
  if (!row.campaign) throw new MalformedResponseError(PLATFORM, 'a row without campaign');
  const currency = currencyOf(row, fallbackCurrency);
  const metrics = row.metrics ?? {};
  const campaignId = String(row.campaign.id);
  return {
    platform: PLATFORM,
    accountId: customerId,
    campaignId,
    day: dayOf(row),
    campaignName: row.campaign.name || `Campaign ${campaignId}`,
    currency,
    impressions: wholeCount(metrics.impressions, PLATFORM, 'metrics.impressions'),
    clicks: wholeCount(metrics.clicks, PLATFORM, 'metrics.clicks'),
    spendMinor: microsToMinor(metrics.costMicros ?? 0, currency, PLATFORM),
    conversions: fractionalCount(metrics.conversions, PLATFORM, 'metrics.conversions'),
    conversionValueMinor: decimalToMinor(metrics.conversionsValue ?? 0, currency, PLATFORM),
  };
}

/** Rows of the customer-level daily cost query -> the platform's own spend per day. */
export function mapDailyCost(rows: readonly GoogleAdsRow[], fallbackCurrency?: string): SourceDayTotal[] {
  return rows
    .map((row) => {
      const currency = currencyOf(row, fallbackCurrency);
      return { day: dayOf(row), currency, spendMinor: microsToMinor(row.metrics?.costMicros ?? 0, currency, PLATFORM) };
    })
    .sort((a, b) => a.day.localeCompare(b.day));
}
