import { MalformedResponseError, type PlatformAccount, type SourceDayTotal } from '../connector.ts';
import { decimalToMinor, microsToMinor } from '../money.ts';
import type { IngestAdMetric } from '../../modules/commerce/ingest.ts';
import type { IngestProductAdMetric } from '../../modules/commerce/product-ad-metrics.ts';
import { knownTimeZone } from '../ads-shared/accounts.ts';
import { fractionalCount, wholeCount } from '../ads-shared/counts.ts';
import { normalizeCustomerId, PLATFORM, type GoogleAdsRow } from './client.ts';

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

/**
 * A shopping_performance_view row -> one product's day. The item id is kept as Google reports it (matching
 * it to the store's products is the optimizer's job); a row without one (traffic Google could not tie to
 * an offer) has no product to show and is left out by the caller.
 */
export function mapProductDay(row: GoogleAdsRow, fallbackCurrency?: string): IngestProductAdMetric {
  const metrics = row.metrics ?? {};
  return {
    productItemId: row.segments?.productItemId ?? '',
    day: dayOf(row),
    currency: currencyOf(row, fallbackCurrency),
    clicks: wholeCount(metrics.clicks, PLATFORM, 'metrics.clicks'),
    impressions: wholeCount(metrics.impressions, PLATFORM, 'metrics.impressions'),
    costMicros: String(BigInt(metrics.costMicros ?? 0)),
    conversions: fractionalCount(metrics.conversions, PLATFORM, 'metrics.conversions'),
    conversionValue: metrics.conversionsValue ?? 0,
  };
}

/** Rows of the customer-level daily cost query -> the platform's own spend per day (of `accountId`, when given). */
export function mapDailyCost(rows: readonly GoogleAdsRow[], fallbackCurrency?: string, accountId?: string): SourceDayTotal[] {
  return rows
    .map((row) => {
      const currency = currencyOf(row, fallbackCurrency);
      return { day: dayOf(row), ...(accountId ? { accountId } : {}), currency, spendMinor: microsToMinor(row.metrics?.costMicros ?? 0, currency, PLATFORM) };
    })
    .sort((a, b) => a.day.localeCompare(b.day));
}

// ---------------------------------------------------------------------------------------------
// Accounts. customer.time_zone is an IANA zone ("America/New_York"): the account's reporting days
// (https://developers.google.com/google-ads/api/docs/query/date-ranges), currency_code its money.

const currencyOrNull = (code: string | undefined) => (code && /^[A-Z]{3}$/.test(code) ? code : null);

/** A customer's own row (CUSTOMER_QUERY), as an account called directly (no login-customer-id). */
export function accountOfCustomer(row: GoogleAdsRow): PlatformAccount {
  const customer = row.customer;
  if (customer?.id === undefined) throw new MalformedResponseError(PLATFORM, 'a customer row without customer.id');
  const accountId = normalizeCustomerId(String(customer.id));
  return {
    accountId,
    name: customer.descriptiveName || `Google Ads ${accountId}`,
    currency: currencyOrNull(customer.currencyCode),
    timezone: knownTimeZone(customer.timeZone),
    isManager: customer.manager === true,
    access: {},
  };
}

/**
 * A manager's customer_client rows (CUSTOMER_CLIENTS_QUERY) -> its clients at every level, reached
 * with the manager as login-customer-id. The manager's own row (level 0) and clients that are not
 * ENABLED (their queries answer CUSTOMER_NOT_ENABLED) are left out.
 */
export function accountsOfClients(rows: readonly GoogleAdsRow[], managerId: string): PlatformAccount[] {
  const accounts: PlatformAccount[] = [];
  for (const row of rows) {
    const client = row.customerClient;
    if (!client || client.id === undefined) throw new MalformedResponseError(PLATFORM, 'a customer_client row without customer_client.id');
    const accountId = normalizeCustomerId(String(client.id));
    if (Number(client.level ?? 0) === 0 || accountId === managerId) continue;
    if (client.status !== undefined && client.status !== 'ENABLED') continue;
    accounts.push({
      accountId,
      name: client.descriptiveName || `Google Ads ${accountId}`,
      currency: currencyOrNull(client.currencyCode),
      timezone: knownTimeZone(client.timeZone),
      isManager: client.manager === true,
      access: { loginCustomerId: managerId },
    });
  }
  return accounts;
}
