import { MalformedResponseError, type PlatformAccount, type SourceDayTotal } from '../connector.ts';
import { decimalToMinor } from '../money.ts';
import type { IngestAdMetric } from '../../modules/commerce/ingest.ts';
import { knownTimeZone } from '../ads-shared/accounts.ts';
import { fractionalCount, wholeCount } from '../ads-shared/counts.ts';
import { PLATFORM, type AdvertiserInfo, type ReportRow } from './client.ts';

// Integrated report rows -> ingest rows. Conversions are purchases (complete_payment) and their value
// is total_complete_payment_rate (a total despite its name), not the optimisation-event `conversion`.
// Unavailable values come as "-".

function amount(value: string | number | null | undefined, currency: string): number {
  return value === '-' || value === null || value === undefined ? 0 : decimalToMinor(value, currency, PLATFORM);
}

const dayOf = (row: ReportRow) => row.dimensions.stat_time_day.slice(0, 10);

export function mapReportRow(row: ReportRow, advertiserId: string, currency: string): IngestAdMetric {
  const campaignId = row.dimensions.campaign_id;
  if (!campaignId) throw new MalformedResponseError(PLATFORM, 'a campaign report row without campaign_id');
  const { metrics } = row;
  return {
    platform: PLATFORM,
    accountId: advertiserId,
    campaignId,
    day: dayOf(row),
    campaignName: metrics.campaign_name && metrics.campaign_name !== '-' ? metrics.campaign_name : `Campaign ${campaignId}`,
    currency,
    impressions: wholeCount(metrics.impressions, PLATFORM, 'impressions'),
    clicks: wholeCount(metrics.clicks, PLATFORM, 'clicks'),
    spendMinor: amount(metrics.spend, currency),
    conversions: fractionalCount(metrics.complete_payment, PLATFORM, 'complete_payment'),
    conversionValueMinor: amount(metrics.total_complete_payment_rate, currency),
  };
}

/** Advertiser-level daily rows -> the platform's own spend per day (of `accountId`, when given). */
export function mapAdvertiserSpend(rows: readonly ReportRow[], currency: string, accountId?: string): SourceDayTotal[] {
  return rows.map((row) => ({ day: dayOf(row), ...(accountId ? { accountId } : {}), currency, spendMinor: amount(row.metrics.spend, currency) }));
}

/**
 * advertiser/info -> an account to choose. Spend is in the advertiser's `currency`; report dates are
 * the advertiser's days, in its `timezone` ("Ad account time zone including GMT offset").
 */
export function accountOfAdvertiser(info: AdvertiserInfo): PlatformAccount {
  return { accountId: info.advertiser_id, name: info.name || `Advertiser ${info.advertiser_id}`, currency: info.currency, timezone: knownTimeZone(info.timezone), isManager: false, access: {} };
}
