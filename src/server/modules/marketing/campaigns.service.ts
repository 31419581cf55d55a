import type { EntityManager } from '@mikro-orm/postgresql';
import { countingOrderSql, type Comparison } from '../../../shared/commerce.ts';
import type { AdPlatform, CampaignRow, CampaignsOutput, CampaignTotals } from '../../../shared/marketing.ts';
import { attributedRoas, cpc, cpm, ctr, delta, platformRoas } from '../../../shared/metrics.ts';
import type { StoreEntity } from '../stores/store.entity.ts';
import { comparisonRange, daysOf, isDayInRange, type DayRange } from '../../../shared/date-ranges.ts';
import { roundMinor, withFxRates, type FxRates } from '../commerce/fx.ts';
import { rangeParameters } from '../commerce/kpis.service.ts';
import { num, sqlRunner } from '../commerce/raw-sql.ts';

// One advertising platform's campaigns: what the platform reports (ad_metrics_daily) beside what we
// attribute to it (channel_daily_rollups for the platform as a whole, and orders whose utm_campaign
// names a campaign). Every row is converted into the display currency at its own day's rate; money is
// rounded to whole minor units once, at the end.

/** The current range and, when comparing, the previous one. */
const RANGES_CONDITION = `((day >= $3::date and day <= $4::date) or (day >= $5::date and day <= $6::date))`;

interface AdMetricRow {
  accountId: string;
  campaignId: string;
  day: string;
  campaignName: string;
  currency: string;
  impressions: number;
  clicks: number;
  spendMinor: number;
  conversions: number;
  conversionValueMinor: number;
}

async function readAdMetrics(em: EntityManager, storeId: number, platform: AdPlatform, ranges: DayRange[]): Promise<AdMetricRow[]> {
  const rows = await sqlRunner(em).rows<Record<string, string | number>>(
    `select account_id, campaign_id, to_char(day, 'YYYY-MM-DD') as day, campaign_name, currency,
            impressions::text as impressions, clicks::text as clicks, spend_minor::text as spend_minor,
            conversions, conversion_value_minor::text as conversion_value_minor
       from ad_metrics_daily
      where store_id = $1 and platform = $2 and ${RANGES_CONDITION}`,
    [storeId, platform, ...rangeParameters(ranges)],
  );
  return rows.map((row) => ({
    accountId: String(row.account_id),
    campaignId: String(row.campaign_id),
    day: String(row.day),
    campaignName: String(row.campaign_name ?? ''),
    currency: String(row.currency),
    impressions: num(row.impressions),
    clicks: num(row.clicks),
    spendMinor: num(row.spend_minor),
    conversions: num(row.conversions),
    conversionValueMinor: num(row.conversion_value_minor),
  }));
}

interface ChannelDayRow {
  day: string;
  currency: string;
  orders: number;
  netSalesMinor: number;
}

/** The platform's channel in the rollups: its orders and their net sales per day (refunds on their own day). */
async function readChannelDays(em: EntityManager, storeId: number, platform: AdPlatform, ranges: DayRange[]): Promise<ChannelDayRow[]> {
  const rows = await sqlRunner(em).rows<Record<string, string | number>>(
    `select to_char(day, 'YYYY-MM-DD') as day, currency, orders_count, net_sales_minor::text as net_sales_minor
       from channel_daily_rollups
      where store_id = $1 and channel = $2 and ${RANGES_CONDITION}`,
    [storeId, platform, ...rangeParameters(ranges)],
  );
  return rows.map((row) => ({ day: String(row.day), currency: String(row.currency), orders: num(row.orders_count), netSalesMinor: num(row.net_sales_minor) }));
}

interface CampaignOrderRow {
  utmCampaign: string | null;
  day: string;
  currency: string;
  orders: number;
  netSalesMinor: number;
}

/**
 * Counting orders of the platform's channel placed in the range, by utm_campaign: the only link an
 * order carries to a campaign. Net sales are after all refunds so far (an order's campaign does not
 * change when it is refunded later).
 */
async function readCampaignOrders(em: EntityManager, storeId: number, platform: AdPlatform, range: DayRange): Promise<CampaignOrderRow[]> {
  const rows = await sqlRunner(em).rows<Record<string, string | number | null>>(
    `select utm_campaign, to_char(placed_day, 'YYYY-MM-DD') as day, currency, count(*)::int as orders, sum(net_sales_minor)::text as net_sales_minor
       from orders
      where store_id = $1 and placed_day >= $3::date and placed_day <= $4::date
        and channel = $2 and ${countingOrderSql()}
      group by utm_campaign, placed_day, currency`,
    [storeId, platform, range.from, range.to],
  );
  return rows.map((row) => ({
    utmCampaign: row.utm_campaign === null ? null : String(row.utm_campaign),
    day: String(row.day),
    currency: String(row.currency),
    orders: num(row.orders),
    netSalesMinor: num(row.net_sales_minor),
  }));
}

/** Unrounded sums of what a platform reports, converted into the display currency. */
interface PlatformSums {
  spend: number;
  impressions: number;
  clicks: number;
  conversions: number;
  conversionValue: number;
}

function emptySums(): PlatformSums {
  return { spend: 0, impressions: 0, clicks: 0, conversions: 0, conversionValue: 0 };
}

function addMetric(sums: PlatformSums, row: AdMetricRow, factor: number): void {
  sums.spend += row.spendMinor * factor;
  sums.impressions += row.impressions;
  sums.clicks += row.clicks;
  sums.conversions += row.conversions;
  sums.conversionValue += row.conversionValueMinor * factor;
}

function roundOrNull(value: number | null): number | null {
  return value === null ? null : roundMinor(value);
}

function platformFigures(sums: PlatformSums) {
  return {
    spend: roundMinor(sums.spend),
    impressions: sums.impressions,
    clicks: sums.clicks,
    ctr: ctr({ clicks: sums.clicks, impressions: sums.impressions }),
    cpc: roundOrNull(cpc({ spendMinor: sums.spend, clicks: sums.clicks })),
    cpm: roundOrNull(cpm({ spendMinor: sums.spend, impressions: sums.impressions })),
    conversions: Number(sums.conversions.toFixed(6)),
    conversionValue: roundMinor(sums.conversionValue),
    platformRoas: platformRoas({ conversionValueMinor: sums.conversionValue, spendMinor: sums.spend }),
  };
}

function totalsOf(range: DayRange, metrics: AdMetricRow[], channelDays: ChannelDayRow[], fx: FxRates, currency: string): CampaignTotals {
  const sums = emptySums();
  for (const row of metrics) if (isDayInRange(row.day, range)) addMetric(sums, row, fx.factor(row.currency, currency, row.day));
  let orders = 0;
  let netSales = 0;
  for (const row of channelDays) {
    if (!isDayInRange(row.day, range)) continue;
    orders += row.orders;
    netSales += row.netSalesMinor * fx.factor(row.currency, currency, row.day);
  }
  return {
    ...platformFigures(sums),
    orders,
    netSales: roundMinor(netSales),
    roas: attributedRoas({ attributedNetSalesMinor: netSales, spendMinor: sums.spend }),
  };
}

const TOTAL_KEYS = ['spend', 'impressions', 'clicks', 'ctr', 'cpc', 'cpm', 'conversions', 'conversionValue', 'platformRoas', 'orders', 'netSales', 'roas'] as const satisfies readonly (keyof CampaignTotals)[];

function campaignKey(accountId: string, campaignId: string): string {
  return `${accountId}\u0000${campaignId}`;
}

export async function campaigns(
  em: EntityManager,
  store: Pick<StoreEntity, 'id' | 'currency'>,
  input: { platform: AdPlatform; from: string; to: string; compare: Comparison; currency?: string },
): Promise<CampaignsOutput> {
  const currency = input.currency ?? store.currency;
  const range = { from: input.from, to: input.to };
  const previousRange = comparisonRange(range, input.compare);
  const ranges = previousRange ? [range, previousRange] : [range];
  const span = ranges.flatMap((r) => [r.from, r.to]).sort();
  const [[metrics, channelDays, campaignOrders], fx] = await withFxRates(
    em,
    [currency, store.currency],
    { from: span[0]!, to: span.at(-1)! },
    Promise.all([
      readAdMetrics(em, store.id, input.platform, ranges),
      readChannelDays(em, store.id, input.platform, ranges),
      readCampaignOrders(em, store.id, input.platform, range),
    ]),
    (read) => read.flatMap((rows) => rows.map((row) => row.currency)),
  );

  // Campaigns of the current range, named after their latest day.
  const byCampaign = new Map<string, { accountId: string; campaignId: string; name: string; nameDay: string; sums: PlatformSums; orders: number; netSales: number }>();
  for (const row of metrics) {
    if (!isDayInRange(row.day, range)) continue;
    const key = campaignKey(row.accountId, row.campaignId);
    let entry = byCampaign.get(key);
    if (!entry) byCampaign.set(key, (entry = { accountId: row.accountId, campaignId: row.campaignId, name: '', nameDay: '', sums: emptySums(), orders: 0, netSales: 0 }));
    addMetric(entry.sums, row, fx.factor(row.currency, currency, row.day));
    if (row.day >= entry.nameDay && row.campaignName.trim()) {
      entry.name = row.campaignName.trim();
      entry.nameDay = row.day;
    }
  }

  // An order's utm_campaign may carry the campaign's id or its name (case-insensitive).
  const campaignByTag = new Map<string, string>();
  for (const [key, entry] of byCampaign) campaignByTag.set(entry.campaignId.toLowerCase(), key);
  for (const [key, entry] of byCampaign) if (entry.name && !campaignByTag.has(entry.name.toLowerCase())) campaignByTag.set(entry.name.toLowerCase(), key);
  const unmatched = { orders: 0, netSales: 0 };
  let matchedOrders = 0;
  for (const row of campaignOrders) {
    const netSales = row.netSalesMinor * fx.factor(row.currency, currency, row.day);
    const key = row.utmCampaign ? campaignByTag.get(row.utmCampaign.trim().toLowerCase()) : undefined;
    const entry = key ? byCampaign.get(key) : undefined;
    if (entry) {
      entry.orders += row.orders;
      entry.netSales += netSales;
      matchedOrders += row.orders;
    } else {
      unmatched.orders += row.orders;
      unmatched.netSales += netSales;
    }
  }

  const campaignRows: CampaignRow[] = [...byCampaign.values()]
    .map((entry) => ({
      accountId: entry.accountId,
      campaignId: entry.campaignId,
      name: entry.name || entry.campaignId,
      ...platformFigures(entry.sums),
      orders: entry.orders,
      netSales: roundMinor(entry.netSales),
      roas: attributedRoas({ attributedNetSalesMinor: entry.netSales, spendMinor: entry.sums.spend }),
    }))
    .sort((a, b) => b.spend - a.spend || a.name.localeCompare(b.name) || a.campaignId.localeCompare(b.campaignId));

  const totals = totalsOf(range, metrics, channelDays, fx, currency);
  const previousTotals = previousRange ? totalsOf(previousRange, metrics, channelDays, fx, currency) : null;
  const deltas = Object.fromEntries(TOTAL_KEYS.map((key) => [key, delta(totals[key], previousTotals ? previousTotals[key] : null)]));

  // Per day of the current range.
  const days = new Map<string, { sums: PlatformSums; netSales: number }>();
  for (const day of daysOf(range)) days.set(day, { sums: emptySums(), netSales: 0 });
  for (const row of metrics) {
    const entry = days.get(row.day);
    if (entry) addMetric(entry.sums, row, fx.factor(row.currency, currency, row.day));
  }
  for (const row of channelDays) {
    const entry = days.get(row.day);
    if (entry) entry.netSales += row.netSalesMinor * fx.factor(row.currency, currency, row.day);
  }
  const series = [...days.entries()].map(([day, { sums, netSales }]) => ({
    day,
    spend: roundMinor(sums.spend),
    clicks: sums.clicks,
    conversions: Number(sums.conversions.toFixed(6)),
    netSales: roundMinor(netSales),
    platformRoas: platformRoas({ conversionValueMinor: sums.conversionValue, spendMinor: sums.spend }),
    roas: attributedRoas({ attributedNetSalesMinor: netSales, spendMinor: sums.spend }),
  }));

  return {
    storeId: store.id,
    platform: input.platform,
    currency,
    range,
    previousRange,
    campaigns: campaignRows,
    totals,
    previousTotals,
    deltas,
    attribution: matchedOrders > 0 ? 'campaign' : 'platform',
    unmatched: { orders: unmatched.orders, netSales: roundMinor(unmatched.netSales) },
    series,
  };
}
