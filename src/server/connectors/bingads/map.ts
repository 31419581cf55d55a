import { MalformedResponseError, type PlatformAccount, type SourceDayTotal } from '../connector.ts';
import { decimalToMinor } from '../money.ts';
import type { IngestAdMetric } from '../../modules/commerce/ingest.ts';
import { fractionalCount, wholeCount } from '../ads-shared/counts.ts';
import { PLATFORM, type AdvertiserAccount } from './client.ts';
import { ianaZoneOf } from './time-zones.ts';

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

/** Account performance report rows -> the platform's own spend per day of that account. */
export function mapAccountSpend(rows: readonly ReportRow[], accountId?: string): SourceDayTotal[] {
  return rows
    .map((row) => {
      const currency = currencyOf(row);
      return { day: dayOf(row), ...(accountId ? { accountId } : {}), currency, spendMinor: decimalToMinor(row.Spend || '0', currency, PLATFORM) };
    })
    .sort((a, b) => a.day.localeCompare(b.day));
}

/**
 * An AdvertiserAccount -> an account to choose: its CurrencyCode, its TimeZone as an IANA zone, and
 * the customer that owns it (ParentCustomerId), which every reporting call sends as CustomerId. The
 * TimeZone value itself is kept too: the report request names the account's zone with it.
 */
export function accountOf(account: AdvertiserAccount, fallbackCustomerId?: string): PlatformAccount {
  const customerId = account.ParentCustomerId ?? fallbackCustomerId;
  if (!customerId) throw new MalformedResponseError(PLATFORM, `account ${account.Id} without ParentCustomerId`);
  return {
    accountId: account.Id,
    name: account.Name || `Account ${account.Number ?? account.Id}`,
    currency: account.CurrencyCode && /^[A-Z]{3}$/.test(account.CurrencyCode) ? account.CurrencyCode : null,
    timezone: ianaZoneOf(account.TimeZone),
    isManager: false,
    access: { customerId, ...(account.TimeZone ? { timeZone: account.TimeZone } : {}) },
  };
}
