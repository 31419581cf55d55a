import type { EntityManager } from '@mikro-orm/postgresql';
import { NO_SPEND_BUCKET, PARETO_MAX_POINTS, ROAS_BUCKETS, type DistributionOutput, type ParetoPoint } from '../../../shared/analytics.ts';
import { AD_CHANNELS } from '../../../shared/commerce.ts';
import { platformRoas } from '../../../shared/metrics.ts';
import type { StoreEntity } from '../stores/store.entity.ts';
import { conversionDaySql, roundMinor, withFxRates } from '../commerce/fx.ts';
import { LINE_TITLE_OF_ROLLUP, PRODUCT_OF_ROLLUP } from '../commerce/rollups.ts';
import type { DayRange } from '../../../shared/date-ranges.ts';
import { num, sqlRunner } from '../commerce/raw-sql.ts';

// How spend and revenue spread over campaigns (ad_metrics_daily; revenue as the platforms report it)
// and over products (net line sales of the orders placed in the range): Pareto curves, the share of
// the top 10 %, and a histogram of campaign ROAS.

export interface DistributionItem {
  key: string;
  label: string;
  /** minor units */
  value: number;
}

/** The share of the top 10 % of items (ceil(n / 10), at least one) in the total; null without a total. */
export function topTenPercent(sortedValues: number[], total: number): { count: number; share: number | null } {
  if (sortedValues.length === 0) return { count: 0, share: null };
  const count = Math.ceil(sortedValues.length / 10);
  const top = sortedValues.slice(0, count).reduce((sum, value) => sum + value, 0);
  return { count, share: total > 0 ? top / total : null };
}

/**
 * Items with a positive value, largest first, with their share and the cumulative share of the total.
 * Beyond PARETO_MAX_POINTS points, the smallest items become one "others" point (key '__others__').
 */
export function paretoOf(items: DistributionItem[]): DistributionOutput['products']['revenue'] {
  const sorted = items.filter((item) => item.value > 0).sort((a, b) => b.value - a.value || a.label.localeCompare(b.label) || a.key.localeCompare(b.key));
  const total = sorted.reduce((sum, item) => sum + item.value, 0);
  const shown = sorted.length > PARETO_MAX_POINTS ? sorted.slice(0, PARETO_MAX_POINTS - 1) : sorted;
  const points: ParetoPoint[] = shown.map((item) => ({ ...item, share: 0, cumulativeShare: 0, items: 1 }));
  if (shown.length < sorted.length) {
    const rest = sorted.slice(shown.length);
    points.push({ key: '__others__', label: '', value: rest.reduce((sum, item) => sum + item.value, 0), share: 0, cumulativeShare: 0, items: rest.length });
  }
  let cumulative = 0;
  for (const point of points) {
    cumulative += point.value;
    point.share = total > 0 ? point.value / total : 0;
    point.cumulativeShare = total > 0 ? cumulative / total : 0;
  }
  return { count: sorted.length, total, points, top10: topTenPercent(sorted.map((item) => item.value), total) };
}

/** Campaigns by platform ROAS bucket ([from, to)), those without spend apart, with what each bucket spent. */
export function roasHistogram(campaigns: { spend: number; revenue: number }[]): DistributionOutput['campaigns']['roasHistogram'] {
  const buckets = [...ROAS_BUCKETS.map((bucket) => ({ bucket: bucket.key as string, campaigns: 0, spend: 0 })), { bucket: NO_SPEND_BUCKET, campaigns: 0, spend: 0 }];
  for (const campaign of campaigns) {
    const value = platformRoas({ conversionValueMinor: campaign.revenue, spendMinor: campaign.spend });
    const index = value === null ? buckets.length - 1 : ROAS_BUCKETS.findIndex((bucket) => value >= bucket.from && (bucket.to === null || value < bucket.to));
    const entry = buckets[index === -1 ? 0 : index]!;
    entry.campaigns += 1;
    entry.spend += campaign.spend;
  }
  return buckets;
}

/** The rows of `sql` (each with its `currency`) and the FX rates that convert them, in one round trip. */
function rowsWithFx(em: EntityManager, expected: string[], range: DayRange, sql: string, params: unknown[]) {
  return withFxRates(em, expected, range, sqlRunner(em).rows<Record<string, string>>(sql, params), (rows) => rows.map((row) => row.currency!));
}

interface CampaignSums {
  key: string;
  label: string;
  labelDay: string;
  spend: number;
  revenue: number;
}

async function campaignSums(em: EntityManager, store: Pick<StoreEntity, 'id' | 'currency'>, range: DayRange, currency: string): Promise<CampaignSums[]> {
  const [rows, fx] = await rowsWithFx(
    em,
    [currency, store.currency],
    range,
    // Rows in the display currency need no day's rate: one row per campaign for them, with the
    // campaign's latest name.
    `select platform, account_id, campaign_id, currency,
            to_char(${conversionDaySql('currency', 'day', '$5', '$3')}, 'YYYY-MM-DD') as day,
            (array_agg(campaign_name order by day desc) filter (where campaign_name ~ '\\S'))[1] as campaign_name,
            to_char(max(day) filter (where campaign_name ~ '\\S'), 'YYYY-MM-DD') as label_day,
            sum(spend_minor)::text as spend_minor, sum(conversion_value_minor)::text as conversion_value_minor
       from ad_metrics_daily
      where store_id = $1 and platform = any($2::text[]) and day >= $3::date and day <= $4::date
      group by platform, account_id, campaign_id, currency, ${conversionDaySql('currency', 'day', '$5', '$3')}`,
    [store.id, [...AD_CHANNELS], range.from, range.to, currency],
  );
  const byCampaign = new Map<string, CampaignSums>();
  for (const row of rows) {
    const key = `${row.platform}:${row.account_id}:${row.campaign_id}`;
    let entry = byCampaign.get(key);
    if (!entry) byCampaign.set(key, (entry = { key, label: '', labelDay: '', spend: 0, revenue: 0 }));
    const factor = fx.factor(row.currency!, currency, row.day!);
    entry.spend += num(row.spend_minor) * factor;
    entry.revenue += num(row.conversion_value_minor) * factor;
    if (row.label_day && row.label_day >= entry.labelDay) {
      entry.label = row.campaign_name!.trim();
      entry.labelDay = row.label_day;
    }
  }
  return [...byCampaign.values()].map((entry) => ({ ...entry, label: entry.label || entry.key.split(':')[2]!, spend: roundMinor(entry.spend), revenue: roundMinor(entry.revenue) }));
}

/** Net line sales by product of the counting orders placed in the range; lines without a product count under their title. */
async function productSales(em: EntityManager, store: Pick<StoreEntity, 'id' | 'currency'>, range: DayRange, currency: string): Promise<DistributionItem[]> {
  const [rows, fx] = await rowsWithFx(
    em,
    [currency, store.currency],
    range,
    // Rows in the display currency need no day's rate: one row per product for them.
    `select r.product_key as key, min(coalesce(p.title, ${LINE_TITLE_OF_ROLLUP})) as label, r.currency,
            to_char(${conversionDaySql('r.currency', 'r.day', '$4', '$2')}, 'YYYY-MM-DD') as day, sum(r.net_sales_minor)::text as value
       from product_daily_rollups r
       ${PRODUCT_OF_ROLLUP}
      where r.store_id = $1 and r.day >= $2::date and r.day <= $3::date
      group by r.product_key, r.currency, ${conversionDaySql('r.currency', 'r.day', '$4', '$2')}`,
    [store.id, range.from, range.to, currency],
  );
  const byProduct = new Map<string, DistributionItem>();
  for (const row of rows) {
    let entry = byProduct.get(row.key!);
    if (!entry) byProduct.set(row.key!, (entry = { key: row.key!, label: row.label!, value: 0 }));
    entry.value += num(row.value) * fx.factor(row.currency!, currency, row.day!);
  }
  return [...byProduct.values()].map((entry) => ({ ...entry, value: roundMinor(entry.value) }));
}

export async function distribution(
  em: EntityManager,
  store: Pick<StoreEntity, 'id' | 'currency'>,
  input: { from: string; to: string; currency?: string },
): Promise<DistributionOutput> {
  const currency = input.currency ?? store.currency;
  const range = { from: input.from, to: input.to };
  const [campaigns, products] = await Promise.all([campaignSums(em, store, range, currency), productSales(em, store, range, currency)]);
  return {
    storeId: store.id,
    currency,
    range,
    campaigns: {
      count: campaigns.length,
      totalSpend: campaigns.reduce((sum, campaign) => sum + campaign.spend, 0),
      totalRevenue: campaigns.reduce((sum, campaign) => sum + campaign.revenue, 0),
      revenue: paretoOf(campaigns.map((campaign) => ({ key: campaign.key, label: campaign.label, value: campaign.revenue }))),
      spend: paretoOf(campaigns.map((campaign) => ({ key: campaign.key, label: campaign.label, value: campaign.spend }))),
      roasHistogram: roasHistogram(campaigns),
    },
    products: { revenue: paretoOf(products) },
  };
}
