import { MalformedResponseError, type SourceDayTotal } from '../connector.ts';
import { decimalToMinor } from '../money.ts';
import type { IngestAdMetric } from '../../modules/commerce/ingest.ts';
import { fractionalCount, wholeCount } from '../ads-shared/counts.ts';
import { PLATFORM, type InsightsRow } from './client.ts';

// Insights rows -> ingest rows. Money: `spend` and the action values are decimal strings in the ad
// account's currency (the row's account_currency), turned into minor units exactly. Days: the row's
// date_start is the account's reporting day (its timezone_name), kept as it is.
//
// A "conversion" for us is a purchase: the count and value of the purchase action, as each ad set's
// attribution setting counts it. A purchase appears under several overlapping action types
// (omni_purchase, purchase, offsite_conversion.fb_pixel_purchase...): exactly one is taken, the first
// present in this order, never their sum.

export const PURCHASE_ACTION_TYPES = ['omni_purchase', 'purchase', 'offsite_conversion.fb_pixel_purchase'] as const;

type ActionList = InsightsRow['actions'];

export function purchaseValue(actions: ActionList): string | number | undefined {
  for (const type of PURCHASE_ACTION_TYPES) {
    const action = actions?.find((entry) => entry.action_type === type);
    if (action) return action.value;
  }
  return undefined;
}

function dailyRow(row: InsightsRow): string {
  if (row.date_stop && row.date_stop !== row.date_start) throw new MalformedResponseError(PLATFORM, `not a daily row: ${row.date_start}..${row.date_stop}`);
  return row.date_start;
}

/** `accountCurrency` is what the account is known to use; the row's own account_currency wins when present. */
export function mapInsightsRow(row: InsightsRow, adAccountId: string, accountCurrency: string): IngestAdMetric {
  if (!row.campaign_id) throw new MalformedResponseError(PLATFORM, 'a campaign-level insights row without campaign_id');
  const currency = row.account_currency ?? accountCurrency;
  return {
    platform: PLATFORM,
    accountId: adAccountId,
    campaignId: row.campaign_id,
    day: dailyRow(row),
    campaignName: row.campaign_name || `Campaign ${row.campaign_id}`,
    currency,
    impressions: wholeCount(row.impressions, PLATFORM, 'impressions'),
    clicks: wholeCount(row.clicks, PLATFORM, 'clicks'),
    spendMinor: decimalToMinor(row.spend ?? 0, currency, PLATFORM),
    conversions: fractionalCount(purchaseValue(row.actions), PLATFORM, 'actions'),
    conversionValueMinor: decimalToMinor(purchaseValue(row.action_values) ?? 0, currency, PLATFORM),
  };
}

/** Account-level daily rows -> the platform's own spend per day of that account. */
export function mapAccountSpend(rows: readonly InsightsRow[], adAccountId: string, accountCurrency: string): SourceDayTotal[] {
  return rows.map((row) => {
    const currency = row.account_currency ?? accountCurrency;
    return { day: dailyRow(row), accountId: adAccountId, currency, spendMinor: decimalToMinor(row.spend ?? 0, currency, PLATFORM) };
  });
}
