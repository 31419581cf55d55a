import type { EntityManager } from '@mikro-orm/postgresql';
import { isAdChannel, isMarketingChannel } from '../../../shared/commerce.ts';
import { addDays, comparisonRange, dayInZone, daysOf, presetRange, type DayRange } from '../../../shared/date-ranges.ts';
import { platformDisplayName } from '../../../shared/platforms.ts';
import {
  emptySums,
  isTimeDimension,
  reportMetricValue,
  type ReportDefinition,
  type ReportDimension,
  type ReportGranularity,
  type ReportMetric,
  type ReportRange,
  type ReportResult,
  type ReportSums,
} from '../../../shared/reports.ts';
import { withFxRates, type FxRates } from '../commerce/fx.ts';
import { rangeParameters } from '../commerce/kpis.service.ts';
import { num, sqlRunner } from '../commerce/raw-sql.ts';
import { COUNTING_ORDER, LINE_TITLE_OF_ROLLUP, PRODUCT_OF_ROLLUP } from '../commerce/rollups.ts';
import type { StoreEntity } from '../stores/store.entity.ts';

// Reports read the rollup tables for time, channel, platform and product dimensions (O(days));
// campaigns and customer types come from their own rows within the range (the platforms' daily
// campaign metrics, orders placed in it). Money is converted at each row's day.

type StoreRef = Pick<StoreEntity, 'id' | 'currency' | 'timezone'>;

/** One source row: its day, currency, dimension value and its additive figures (money not yet converted). */
interface Fact {
  day: string;
  currency: string;
  key: string;
  label: string;
  sums: Partial<ReportSums>;
}

/** The days a report range covers, presets resolved against today in the store's time zone. */
export function resolveRange(range: ReportRange, timezone: string, now = new Date()): DayRange {
  if ('preset' in range) return presetRange(range.preset, dayInZone(now, timezone));
  return { from: range.from, to: range.to };
}

/** The bucket a day falls in: the day, the Monday starting its week, or its month. */
export function periodOf(day: string, granularity: Exclude<ReportGranularity, 'total'>): string {
  if (granularity === 'day') return day;
  if (granularity === 'month') return day.slice(0, 7);
  const weekday = (new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7; // Monday = 0
  return addDays(day, -weekday);
}

const MONEY_FIELDS: (keyof ReportSums)[] = ['netSales', 'attributedNetSales', 'shipping', 'taxes', 'refunds', 'spend', 'adSpend'];

function rows<T extends object>(em: EntityManager, sql: string, params: unknown[]) {
  return sqlRunner(em).rows<T>(sql, params);
}

/**
 * The facts of the ranges (a report's range and its comparison), each query run once for both: a
 * fact's day tells which range it belongs to.
 */
async function readFacts(em: EntityManager, storeId: number, dimension: ReportDimension, ranges: DayRange[]): Promise<Fact[]> {
  const params = [storeId, ...rangeParameters(ranges)];
  const inRanges = (column: string) => `(${column} between $2::date and $3::date or ${column} between $4::date and $5::date)`;
  const dayInRanges = inRanges('day');
  if (isTimeDimension(dimension)) {
    const [daily, channel] = await Promise.all([
      rows<Record<string, string>>(
        em,
        `select to_char(day, 'YYYY-MM-DD') as day, currency, net_sales_minor::text as net, orders_count::text as orders, units::text as units,
                refunds_minor::text as refunds, new_customers::text as new_customers,
                shipping_minor::text as shipping, taxes_minor::text as taxes
           from daily_rollups where store_id = $1 and ${dayInRanges}`,
        params,
      ),
      rows<Record<string, string>>(
        em,
        `select to_char(day, 'YYYY-MM-DD') as day, channel, currency, net_sales_minor::text as net, spend_minor::text as spend,
                clicks::text as clicks, impressions::text as impressions, platform_conversions::text as conversions
           from channel_daily_rollups where store_id = $1 and ${dayInRanges}`,
        params,
      ),
    ]);
    return [
      ...daily.map((r) => ({
        day: r.day!,
        currency: r.currency!,
        key: r.day!,
        label: r.day!,
        sums: { netSales: num(r.net), orders: num(r.orders), units: num(r.units), refunds: num(r.refunds), newCustomers: num(r.new_customers), shipping: num(r.shipping), taxes: num(r.taxes) },
      })),
      ...channel.map((r) => ({
        day: r.day!,
        currency: r.currency!,
        key: r.day!,
        label: r.day!,
        sums: {
          spend: num(r.spend),
          adSpend: isAdChannel(r.channel!) ? num(r.spend) : 0,
          clicks: num(r.clicks),
          impressions: num(r.impressions),
          conversions: num(r.conversions),
        },
      })),
    ];
  }
  if (dimension === 'channel' || dimension === 'platform') {
    const channel = await rows<Record<string, string>>(
      em,
      `select to_char(day, 'YYYY-MM-DD') as day, channel, currency, net_sales_minor::text as net, orders_count::text as orders,
              new_customers::text as new_customers, spend_minor::text as spend, clicks::text as clicks,
              impressions::text as impressions, platform_conversions::text as conversions
         from channel_daily_rollups where store_id = $1 and ${dayInRanges}`,
      params,
    );
    return channel
      .filter((r) => dimension === 'channel' || isMarketingChannel(r.channel!))
      .map((r) => ({
        day: r.day!,
        currency: r.currency!,
        key: r.channel!,
        label: r.channel!,
        sums: {
          netSales: num(r.net),
          attributedNetSales: isMarketingChannel(r.channel!) ? num(r.net) : 0,
          orders: num(r.orders),
          newCustomers: num(r.new_customers),
          spend: num(r.spend),
          adSpend: isAdChannel(r.channel!) ? num(r.spend) : 0,
          clicks: num(r.clicks),
          impressions: num(r.impressions),
          conversions: num(r.conversions),
        },
      }));
  }
  if (dimension === 'product') {
    const lines = await rows<Record<string, string | null>>(
      em,
      `select to_char(r.day, 'YYYY-MM-DD') as day, r.currency, coalesce(p.id::text, 'line:' || ${LINE_TITLE_OF_ROLLUP}) as key,
              coalesce(p.title, ${LINE_TITLE_OF_ROLLUP}) as label, r.orders_count::text as orders, r.units::text as units,
              r.net_sales_minor::text as net
         from product_daily_rollups r
         ${PRODUCT_OF_ROLLUP}
        where r.store_id = $1 and ${inRanges('r.day')}`,
      params,
    );
    return lines.map((r) => ({ day: r.day!, currency: r.currency!, key: r.key!, label: r.label!, sums: { netSales: num(r.net), orders: num(r.orders), units: num(r.units) } }));
  }
  if (dimension === 'campaign') {
    const campaigns = await rows<Record<string, string>>(
      em,
      `select to_char(day, 'YYYY-MM-DD') as day, currency, platform || ':' || campaign_id as key, platform, max(campaign_name) as name,
              sum(spend_minor)::text as spend, sum(clicks)::text as clicks, sum(impressions)::text as impressions, sum(conversions)::text as conversions
         from ad_metrics_daily where store_id = $1 and ${dayInRanges} group by day, currency, platform, campaign_id
       union all
       select to_char(day, 'YYYY-MM-DD'), currency, platform || ':' || campaign_id, platform, max(campaign_name),
              sum(spend_minor)::text, sum(clicks)::text, '0', sum(attributed_orders)::text
         from email_metrics_daily where store_id = $1 and ${dayInRanges} group by day, currency, platform, campaign_id`,
      params,
    );
    return campaigns.map((r) => ({
      day: r.day!,
      currency: r.currency!,
      key: r.key!,
      label: `${platformDisplayName(r.platform!)} · ${r.name}`,
      sums: { spend: num(r.spend), clicks: num(r.clicks), impressions: num(r.impressions), conversions: Number(r.conversions) },
    }));
  }
  // customer_type: orders on their placed day, refunds on theirs, by the order's new/returning flag.
  const customerRows = await rows<Record<string, string>>(
    em,
    `select to_char(o.placed_day, 'YYYY-MM-DD') as day, o.currency, case when o.is_new_customer then 'new' else 'returning' end as key,
            count(*)::text as orders, sum(o.gross_minor - o.discounts_minor)::text as net, '0' as refunds
       from orders o where o.store_id = $1 and ${inRanges('o.placed_day')} and ${COUNTING_ORDER}
      group by o.placed_day, o.currency, o.is_new_customer
     union all
     select to_char(r.refunded_day, 'YYYY-MM-DD'), o.currency, case when o.is_new_customer then 'new' else 'returning' end,
            '0', (-sum(r.amount_minor))::text, sum(r.amount_minor)::text
       from refunds r join orders o on o.store_id = r.store_id and o.id = r.order_id
      where r.store_id = $1 and ${inRanges('r.refunded_day')} and ${COUNTING_ORDER}
      group by r.refunded_day, o.currency, o.is_new_customer`,
    params,
  );
  return customerRows.map((r) => ({ day: r.day!, currency: r.currency!, key: r.key!, label: r.key!, sums: { orders: num(r.orders), netSales: num(r.net), refunds: num(r.refunds) } }));
}

interface Bucket {
  key: string;
  label: string;
  period: string | null;
  sums: ReportSums;
}

/** Sums facts into a total, money converted into the display currency at each fact's day. */
function addFact(sums: ReportSums, fact: Fact, fx: FxRates, currency: string): void {
  const factor = fx.factor(fact.currency, currency, fact.day);
  for (const [field, value] of Object.entries(fact.sums) as [keyof ReportSums, number][]) {
    sums[field] += MONEY_FIELDS.includes(field) ? value * factor : value;
  }
}

function bucketsOf(facts: Fact[], definition: ReportDefinition, fx: FxRates, currency: string): Map<string, Bucket> {
  const buckets = new Map<string, Bucket>();
  const timeDimension = isTimeDimension(definition.dimension) ? definition.dimension : null;
  const periodGranularity = timeDimension ? null : definition.granularity === 'total' ? null : definition.granularity;
  for (const fact of facts) {
    const key = timeDimension ? periodOf(fact.day, timeDimension) : fact.key;
    const period = periodGranularity ? periodOf(fact.day, periodGranularity) : null;
    const bucketKey = `${period ?? ''}|${key}`;
    let bucket = buckets.get(bucketKey);
    if (!bucket) buckets.set(bucketKey, (bucket = { key, label: timeDimension ? key : fact.label, period, sums: emptySums() }));
    addFact(bucket.sums, fact, fx, currency);
  }
  return buckets;
}

/**
 * The Total row, defined once whatever the grouping: the whole store over the range, from the day
 * rollups (every order and every spend counted once; an order with several products, a refund no
 * product carries, a campaign-less spend all count exactly once). Ratios (ROAS, MER, AOV, CAC) come
 * from these summed components through metrics.ts, with the store-wide definitions (blended ROAS),
 * never from the rows' ratios. So a report grouped by day, channel or campaign has the same Total.
 */
function storeTotal(storeFacts: Fact[], metrics: readonly ReportMetric[], fx: FxRates, currency: string): Record<string, number | null> {
  const sums = emptySums();
  for (const fact of storeFacts) addFact(sums, fact, fx, currency);
  return Object.fromEntries(metrics.map((metric) => [metric, reportMetricValue(metric, sums, STORE_DIMENSION)]));
}

/** The dimension whose facts are the store's own days (daily and channel rollups), and whose metric definitions are store-wide. */
const STORE_DIMENSION = 'day' satisfies ReportDimension;

function valuesOf(definition: ReportDefinition, sums: ReportSums): Record<string, number | null> {
  return Object.fromEntries(definition.metrics.map((metric) => [metric, reportMetricValue(metric, sums, definition.dimension)]));
}

/** Every period of a time dimension in the range, so days without data show as zero rows. */
function allPeriods(range: DayRange, dimension: 'day' | 'week' | 'month'): string[] {
  const periods: string[] = [];
  for (const day of daysOf(range)) {
    const period = periodOf(day, dimension);
    if (periods.at(-1) !== period) periods.push(period);
  }
  return periods;
}

/** Runs a report definition for a store: one row per dimension value (and period), totals, and the comparison. */
export async function runReport(
  em: EntityManager,
  store: StoreRef,
  definition: ReportDefinition & { currency?: string },
  now = new Date(),
): Promise<ReportResult> {
  const currency = definition.currency ?? store.currency;
  const range = resolveRange(definition.range, store.timezone, now);
  const previousRange = comparisonRange(range, definition.compare);
  const spanFrom = previousRange && previousRange.from < range.from ? previousRange.from : range.from;
  const ranges = previousRange ? [range, previousRange] : [range];
  const timeDimension = isTimeDimension(definition.dimension) ? definition.dimension : null;
  const [[allFacts, allStoreFacts], fx] = await withFxRates(
    em,
    [currency, store.currency],
    { from: spanFrom, to: range.to },
    Promise.all([
      readFacts(em, store.id, definition.dimension, ranges),
      // The Total row's facts: the time dimensions' own (the store's days), read once more for other groupings.
      timeDimension ? null : readFacts(em, store.id, STORE_DIMENSION, ranges),
    ]),
    ([facts, storeFacts]) => [...facts, ...(storeFacts ?? [])].map((fact) => fact.currency),
  );
  const storeFacts = allStoreFacts ?? allFacts;
  const within = (facts: Fact[], span: DayRange) => facts.filter((fact) => fact.day >= span.from && fact.day <= span.to);

  const current = bucketsOf(within(allFacts, range), definition, fx, currency);
  const previous = previousRange ? bucketsOf(within(allFacts, previousRange), definition, fx, currency) : null;

  let ordered: Bucket[];
  if (timeDimension) {
    ordered = allPeriods(range, timeDimension).map((period) => current.get(`|${period}`) ?? { key: period, label: period, period: null, sums: emptySums() });
  } else {
    const first = definition.metrics[0]!;
    ordered = [...current.values()].sort((a, b) => {
      if (a.period !== b.period) return (a.period ?? '') < (b.period ?? '') ? -1 : 1;
      const difference = (reportMetricValue(first, b.sums, definition.dimension) ?? -Infinity) - (reportMetricValue(first, a.sums, definition.dimension) ?? -Infinity);
      return difference || a.label.localeCompare(b.label);
    });
  }

  // The previous period's row: the same position for time buckets, the same value (and period position) otherwise.
  const periodUnit = timeDimension ?? (definition.granularity === 'total' ? null : definition.granularity);
  const currentPeriods = periodUnit ? allPeriods(range, periodUnit) : [];
  const previousPeriods = periodUnit && previousRange ? allPeriods(previousRange, periodUnit) : [];
  const previousOf = (bucket: Bucket, index: number): ReportSums | null => {
    if (!previous) return null;
    if (timeDimension) return previous.get(`|${previousPeriods[index]}`)?.sums ?? emptySums();
    const period = bucket.period === null ? '' : (previousPeriods[currentPeriods.indexOf(bucket.period)] ?? '-');
    return previous.get(`${period}|${bucket.key}`)?.sums ?? emptySums();
  };

  return {
    currency,
    range,
    previousRange,
    dimension: definition.dimension,
    granularity: timeDimension ?? definition.granularity,
    metrics: definition.metrics,
    hasPeriod: !timeDimension && definition.granularity !== 'total',
    rows: ordered.map((bucket, index) => {
      const previousSums = previousOf(bucket, index);
      return { key: bucket.key, label: bucket.label, period: bucket.period, values: valuesOf(definition, bucket.sums), previous: previousSums ? valuesOf(definition, previousSums) : null };
    }),
    totals: {
      values: storeTotal(within(storeFacts, range), definition.metrics, fx, currency),
      previous: previousRange ? storeTotal(within(storeFacts, previousRange), definition.metrics, fx, currency) : null,
    },
  };
}
