import { MalformedResponseError, type SourceDayTotal } from '../connector.ts';
import { decimalToMinor } from '../money.ts';
import type { IngestAdMetric } from '../../modules/commerce/ingest.ts';
import { fractionalCount, wholeCount } from '../ads-shared/counts.ts';
import { PLATFORM } from './client.ts';

// Report CSV rows (column name -> text) -> ingest rows. FormatVersion 2.0 writes amounts without
// thousands separators, in the account's currency (CurrencyCode column).

type ReportRow = Record<string, string>;

function dayOf(row: ReportRow): string {
  const period = row.TimePeriod ?? '';
  if (!/^\d{4}-\d{2}-\d{2}$/.test(period)) throw new MalformedResponseError(PLATFORM, `TimePeriod is not a day: ${JSON.stringify(period)}`);
  return period;
}

function currencyOf(row: ReportRow): string {
  const currency = row.CurrencyCode ?? '';
  if (!/^[A-Z]{3}$/.test(currency)) throw new MalformedResponseError(PLATFORM, `CurrencyCode is not a currency: ${JSON.stringify(currency)}`);
  return currency;
}

export function mapCampaignRow(row: ReportRow): IngestAdMetric {
  const currency = currencyOf(row);
  if (!row.CampaignId || !row.AccountId) throw new MalformedResponseError(PLATFORM, 'a report row without AccountId or CampaignId');
  return {
    platform: PLATFORM,
    accountId: row.AccountId,
    campaignId: row.CampaignId,
    day: dayOf(row),
    campaignName: row.CampaignName || `Campaign ${row.CampaignId}`,
    currency,
    impressions: wholeCount(row.Impressions, PLATFORM, 'Impressions'),
    clicks: wholeCount(row.Clicks, PLATFORM, 'Clicks'),
    spendMinor: decimalToMinor(row.Spend || '0', currency, PLATFORM),
    conversions: fractionalCount(row.Conversions, PLATFORM, 'Conversions'),
    conversionValueMinor: decimalToMinor(row.Revenue || '0', currency, PLATFORM),
  };
}

/** Account performance report rows -> the platform's own spend per day. */
export function mapAccountSpend(rows: readonly ReportRow[]): SourceDayTotal[] {
  return rows
    .map((row) => {
      const currency = currencyOf(row);
      return { day: dayOf(row), currency, spendMinor: decimalToMinor(row.Spend || '0', currency, PLATFORM) };
    })
    .sort((a, b) => a.day.localeCompare(b.day));
}
