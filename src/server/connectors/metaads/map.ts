import { MalformedResponseError, type SourceDayTotal } from '../connector.ts';
import { decimalToMinor } from '../money.ts';
import type { IngestAdMetric } from '../../modules/commerce/ingest.ts';
import { fractionalCount, wholeCount } from '../ads-shared/counts.ts';
import { PLATFORM, type InsightsRow } from './client.ts';

// Insights rows -> ingest rows. A purchase appears under several overlapping action types
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

export function mapInsightsRow(row: InsightsRow, adAccountId: string, currency: string): IngestAdMetric {
  if (!row.campaign_id) throw new MalformedResponseError(PLATFORM, 'a campaign-level insights row without campaign_id');
  if (row.date_stop && row.date_stop !== row.date_start) throw new MalformedResponseError(PLATFORM, `not a daily row: ${row.date_start}..${row.date_stop}`);
  return {
    platform: PLATFORM,
    accountId: adAccountId,
    campaignId: row.campaign_id,
    day: row.date_start,
    campaignName: row.campaign_name || `Campaign ${row.campaign_id}`,
    currency,
    impressions: wholeCount(row.impressions, PLATFORM, 'impressions'),
    clicks: wholeCount(row.clicks, PLATFORM, 'clicks'),
    spendMinor: decimalToMinor(row.spend ?? 0, currency, PLATFORM),
    conversions: fractionalCount(purchaseValue(row.actions), PLATFORM, 'actions'),
    conversionValueMinor: decimalToMinor(purchaseValue(row.action_values) ?? 0, currency, PLATFORM),
  };
}

/** Account-level daily rows -> the platform's own spend per day. */
export function mapAccountSpend(rows: readonly InsightsRow[], currency: string): SourceDayTotal[] {
  return rows.map((row) => ({ day: row.date_start, currency, spendMinor: decimalToMinor(row.spend ?? 0, currency, PLATFORM) }));
}
