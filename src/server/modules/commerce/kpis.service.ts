import type { EntityManager } from '@mikro-orm/postgresql';
import { EMAIL_CHANNELS, isAdChannel, type Comparison, type DataStatusOutput, type KpisOutput, type LtvCohortsOutput } from '../../../shared/commerce.ts';
import { aov, attributedRoas, cac, delta, LTV_HORIZONS, ltv, mer, platformRoas, ratio, roas, totalRevenue, type LtvHorizon } from '../../../shared/metrics.ts';
import type { StoreEntity } from '../stores/store.entity.ts';
import { addDays, comparisonRange, dayInZone, daysOf, isDayInRange, type DayRange } from '../../../shared/date-ranges.ts';
import { addMonths, lastDayOfMonth, monthOf } from './days.ts';
import { FxRateMissingError, type FxRates, rateSql, roundMinor, withFxRates } from './fx.ts';
import { num, preparedRows, sqlRunner } from './raw-sql.ts';

// Dashboard KPIs, read from the rollup tables only (their cost grows with days, not orders). Every
// (day, currency) row is converted into the display currency at that day's rate, then summed; money
// is rounded to whole minor units once, at the end.

/** The current range and, when comparing, the previous one: two index range scans. */
const RANGES_CONDITION = `((day >= $2::date and day <= $3::date) or (day >= $4::date and day <= $5::date))`;

/** $2..$5 of RANGES_CONDITION: the first range twice when there is no second. */
export function rangeParameters(ranges: DayRange[]): string[] {
  const [first, second = first] = ranges as [DayRange, DayRange?];
  return [first.from, first.to, second!.from, second!.to];
}

/** A day's daily-rollup figures (converted ones carry no currency). */
interface DailyFigures {
  day: string;
  ordersCount: number;
  netSalesMinor: number;
  shippingMinor: number;
  taxesMinor: number;
  newCustomers: number;
  ltvNet90Minor: number;
}

/** A rollup row as stored: one store's figures in one currency. */
interface StoredRow {
  storeId: number;
  currency: string;
}

type DailyRow = DailyFigures & SpendFigures & StoredRow;

/** What a day's channel rows add to the totals: all marketing spend, the advertising part of it, clicks. */
interface SpendFigures {
  day: string;
  spendMinor: number;
  /** spend of advertising platforms (AD_CHANNELS) only */
  adSpendMinor: number;
  clicks: number;
}

interface ChannelRow extends SpendFigures, StoredRow {
  channel: string;
  ordersCount: number;
  netSalesMinor: number;
  newCustomers: number;
  impressions: number;
  clicks: number;
  platformConversions: number;
  platformConversionValueMinor: number;
}

async function readDailyRows(em: EntityManager, storeIds: number[], ranges: DayRange[]): Promise<DailyRow[]> {
  const rows = await sqlRunner(em).rows<Record<string, string | number>>(
    `select store_id, to_char(day, 'YYYY-MM-DD') as day, currency, orders_count, net_sales_minor::text as net_sales_minor,
            shipping_minor::text as shipping_minor, taxes_minor::text as taxes_minor,
            new_customers, ltv_net_90_minor::text as ltv_net_90_minor,
            spend_minor::text as spend_minor, ad_spend_minor::text as ad_spend_minor, clicks::text as clicks
       from daily_rollups
      where store_id = any($1::int[]) and ${RANGES_CONDITION}`,
    [storeIds, ...rangeParameters(ranges)],
  );
  return rows.map((row) => ({
    storeId: num(row.store_id),
    day: String(row.day),
    currency: String(row.currency),
    ordersCount: num(row.orders_count),
    netSalesMinor: num(row.net_sales_minor),
    shippingMinor: num(row.shipping_minor),
    taxesMinor: num(row.taxes_minor),
    newCustomers: num(row.new_customers),
    ltvNet90Minor: num(row.ltv_net_90_minor),
    spendMinor: num(row.spend_minor),
    adSpendMinor: num(row.ad_spend_minor),
    clicks: num(row.clicks),
  }));
}

async function readChannelRows(em: EntityManager, storeIds: number[], ranges: DayRange[]): Promise<ChannelRow[]> {
  const rows = await sqlRunner(em).rows<Record<string, string | number>>(
    `select store_id, to_char(day, 'YYYY-MM-DD') as day, channel, currency, orders_count, net_sales_minor::text as net_sales_minor,
            new_customers, spend_minor::text as spend_minor, impressions::text as impressions, clicks::text as clicks,
            platform_conversions::text as platform_conversions,
            platform_conversion_value_minor::text as platform_conversion_value_minor
       from channel_daily_rollups
      where store_id = any($1::int[]) and ${RANGES_CONDITION}`,
    [storeIds, ...rangeParameters(ranges)],
  );
  return rows.map((row) => ({
    storeId: num(row.store_id),
    day: String(row.day),
    channel: String(row.channel),
    currency: String(row.currency),
    ordersCount: num(row.orders_count),
    netSalesMinor: num(row.net_sales_minor),
    newCustomers: num(row.new_customers),
    spendMinor: num(row.spend_minor),
    adSpendMinor: isAdChannel(String(row.channel)) ? num(row.spend_minor) : 0,
    impressions: num(row.impressions),
    clicks: num(row.clicks),
    platformConversions: num(row.platform_conversions),
    platformConversionValueMinor: num(row.platform_conversion_value_minor),
  }));
}

interface Totals {
  netSales: number;
  shipping: number;
  taxes: number;
  orders: number;
  newCustomers: number;
  ltvNet90: number;
  /** ads + e-mail */
  spend: number;
  /** advertising platforms only (ROAS's denominator) */
  adSpend: number;
  clicks: number;
}

function emptyTotals(): Totals {
  return { netSales: 0, shipping: 0, taxes: 0, orders: 0, newCustomers: 0, ltvNet90: 0, spend: 0, adSpend: 0, clicks: 0 };
}

function addDaily(totals: Totals, row: DailyFigures, factor: number): void {
  totals.netSales += row.netSalesMinor * factor;
  totals.shipping += row.shippingMinor * factor;
  totals.taxes += row.taxesMinor * factor;
  totals.orders += row.ordersCount;
  totals.newCustomers += row.newCustomers;
  totals.ltvNet90 += row.ltvNet90Minor * factor;
}

function addChannel(totals: Totals, row: SpendFigures, factor: number): void {
  totals.spend += row.spendMinor * factor;
  totals.adSpend += row.adSpendMinor * factor;
  totals.clicks += row.clicks;
}

/** The factor that converts a stored row into the display currency. */
function rowFactor(fx: FxRates, currency: string) {
  return (row: StoredRow & { day: string }) => fx.factor(row.currency, currency, row.day);
}

/** Money totals are converted (by `factor`; rows already in the display currency need none) but not yet rounded. */
function totalsOf<D extends DailyFigures, S extends SpendFigures>(
  range: DayRange,
  daily: readonly D[],
  channels: readonly S[],
  factor: (row: D | S) => number = () => 1,
): Totals {
  const totals = emptyTotals();
  for (const row of daily) if (isDayInRange(row.day, range)) addDaily(totals, row, factor(row));
  for (const row of channels) if (isDayInRange(row.day, range)) addChannel(totals, row, factor(row));
  return totals;
}

function kpiValuesOf(totals: Totals) {
  const netSales = roundMinor(totals.netSales);
  const spend = roundMinor(totals.spend);
  const roundOrNull = (value: number | null) => (value === null ? null : roundMinor(value));
  return {
    netSales,
    spend,
    clicks: totals.clicks,
    orders: totals.orders,
    roas: roas({ netSalesMinor: totals.netSales, adSpendMinor: totals.adSpend }),
    cac: roundOrNull(cac({ spendMinor: totals.spend, newCustomers: totals.newCustomers })),
    mer: mer({ totalRevenueMinor: totalRevenue({ netSalesMinor: totals.netSales, shippingMinor: totals.shipping, taxesMinor: totals.taxes }), totalSpendMinor: totals.spend }),
    aov: roundOrNull(aov({ netSalesMinor: totals.netSales, orders: totals.orders })),
    ltv: roundOrNull(ratio(totals.ltvNet90, totals.newCustomers)),
  };
}

/** The daily and channel rollup rows of the stores over the ranges, with the FX rates that convert them into `currency`. */
async function readRollupsWithFx(
  em: EntityManager,
  stores: readonly Pick<StoreEntity, 'id' | 'currency'>[],
  currency: string,
  ranges: DayRange[],
  options: { channels: boolean } = { channels: true },
) {
  const storeIds = stores.map((store) => store.id);
  const from = ranges.map((r) => r.from).sort()[0]!;
  const to = ranges.map((r) => r.to).sort().at(-1)!;
  const [[daily, channels], fx] = await withFxRates(
    em,
    [currency, ...stores.map((store) => store.currency)],
    { from, to },
    Promise.all([readDailyRows(em, storeIds, ranges), options.channels ? readChannelRows(em, storeIds, ranges) : ([] as ChannelRow[])]),
    ([daily, channels]) => [...daily.map((row) => row.currency), ...channels.map((row) => row.currency)],
  );
  return { daily, channels, fx };
}

/** 1 for a row already in the display currency, else its (day, currency) factor from `factors f`. */
const ROW_FACTOR = `(case when r.currency = $6 then 1::float8 else f.factor end)`;

/**
 * Everything the dashboard KPIs read, converted into the display currency ($6) by the database in one
 * statement: per day of the current range the daily rollups (with the day's spend and clicks), the
 * previous range's totals, and per channel the current range's sums, read in one pass without
 * holding the channel rows in a CTE (17 % of the statement's time on the 1M-order store). Rows in
 * another currency take their day's rate, looked up once per distinct (day, currency): joined where
 * the day has its own rate, searched backwards only where it has none. A year with its comparison
 * reads about 2 x 365 daily rows per currency and the current year's channel rows, returns 365 + 10
 * rows, and the server converts nothing. Integer columns are summed as float8 (exact below 2^53,
 * and cheaper than numeric sums). `missing` names a currency and day without a rate.
 */
const CONVERTED_KPI_ROWS_SQL = `
  with dl as materialized (
         select day, currency, orders_count, net_sales_minor, shipping_minor, taxes_minor, new_customers, ltv_net_90_minor,
                spend_minor, ad_spend_minor, clicks
           from daily_rollups where store_id = $1 and ${RANGES_CONDITION}),
       factors as materialized (
         select n.day, n.currency,
                (${rateSql('$6::text', 'n.day', 'display_rate.rate')}::float8 / ${rateSql('n.currency::text', 'n.day', 'own_rate.rate')}::float8) as factor
           from (select day, currency from dl where currency <> $6 union select day, currency from channel_daily_rollups where store_id = $1 and day >= $2::date and day <= $3::date and currency <> $6) n
           left join fx_rates own_rate on own_rate.currency = n.currency and own_rate.day = n.day
           left join fx_rates display_rate on display_rate.currency = $6::bpchar and display_rate.day = n.day),
       missing as (
         select min(n.currency || ' ' || to_char(n.day, 'YYYY-MM-DD')) as missing from factors n where n.factor is null),
       daily as (
         select r.day, sum(r.orders_count)::float8 as "ordersCount",
                sum(r.net_sales_minor * ${ROW_FACTOR}) as "netSalesMinor", sum(r.shipping_minor * ${ROW_FACTOR}) as "shippingMinor",
                sum(r.taxes_minor * ${ROW_FACTOR}) as "taxesMinor", sum(r.new_customers)::float8 as "newCustomers",
                sum(r.ltv_net_90_minor * ${ROW_FACTOR}) as "ltvNet90Minor",
                sum(r.spend_minor * ${ROW_FACTOR}) as "spendMinor", sum(r.ad_spend_minor * ${ROW_FACTOR}) as "adSpendMinor",
                sum(r.clicks::float8) as clicks
           from dl r left join factors f on f.day = r.day and f.currency = r.currency
          group by r.day),
       channels as (
         select r.channel, sum(r.orders_count)::float8 as "ordersCount", sum(r.net_sales_minor * ${ROW_FACTOR}) as "netSalesMinor",
                sum(r.new_customers)::float8 as "newCustomers", sum(r.spend_minor * ${ROW_FACTOR}) as "spendMinor",
                sum(r.impressions)::float8 as impressions, sum(r.clicks)::float8 as clicks,
                sum(r.platform_conversions)::float8 as "platformConversions", sum(r.platform_conversion_value_minor * ${ROW_FACTOR}) as "platformConversionValueMinor"
           from channel_daily_rollups r left join factors f on f.day = r.day and f.currency = r.currency
          where r.store_id = $1 and r.day >= $2::date and r.day <= $3::date
          group by r.channel),
       previous as (
         select json_build_object('netSales', coalesce(sum("netSalesMinor"), 0), 'shipping', coalesce(sum("shippingMinor"), 0),
                                  'taxes', coalesce(sum("taxesMinor"), 0), 'orders', coalesce(sum("ordersCount"), 0),
                                  'newCustomers', coalesce(sum("newCustomers"), 0), 'ltvNet90', coalesce(sum("ltvNet90Minor"), 0),
                                  'spend', coalesce(sum("spendMinor"), 0), 'adSpend', coalesce(sum("adSpendMinor"), 0),
                                  'clicks', coalesce(sum(clicks), 0)) as totals
           from daily where day >= $4::date and day <= $5::date)
  select (select missing from missing) as missing,
         coalesce((select json_agg(json_build_object(
                     'day', to_char(d.day, 'YYYY-MM-DD'), 'ordersCount', d."ordersCount", 'netSalesMinor', d."netSalesMinor",
                     'shippingMinor', d."shippingMinor", 'taxesMinor', d."taxesMinor", 'newCustomers', d."newCustomers",
                     'ltvNet90Minor', d."ltvNet90Minor", 'spendMinor', d."spendMinor", 'adSpendMinor', d."adSpendMinor", 'clicks', d.clicks))
                     from daily d where d.day >= $2::date and d.day <= $3::date), '[]') as days,
         (select totals from previous) as previous,
         coalesce((select json_agg(channels) from channels), '[]') as channels`;

/**
 * The rollup rows the dashboard KPIs need, already in `currency` (see CONVERTED_KPI_ROWS_SQL): the
 * current range's days, the previous range's totals (null without one) and the channels.
 */
async function readConvertedRollups(em: EntityManager, storeId: number, currency: string, ranges: DayRange[]) {
  const [row] = await preparedRows<{
    missing: string | null;
    days: (DailyFigures & SpendFigures)[];
    previous: Totals;
    channels: Omit<ChannelRow, keyof StoredRow | 'day' | 'adSpendMinor'>[];
  }>(em, 'commerce.kpis', CONVERTED_KPI_ROWS_SQL, [storeId, ...rangeParameters(ranges), currency]);
  if (row!.missing) {
    const [missingCurrency, day] = row!.missing.split(' ');
    throw new FxRateMissingError(missingCurrency!, day!);
  }
  return { days: row!.days, previous: ranges.length > 1 ? row!.previous : null, channels: row!.channels };
}

/** The KPIs of a range with their comparison and delta (commerce.kpis, and each store of dashboard.allStores). */
export function kpisWithComparison(current: Totals, previous: Totals | null): KpisOutput['kpis'] {
  const now = kpiValuesOf(current);
  const before = previous ? kpiValuesOf(previous) : null;
  return Object.fromEntries(
    (Object.keys(now) as (keyof typeof now)[]).map((key) => {
      const previousValue = before ? before[key] : null;
      return [key, { current: now[key], previous: previousValue, delta: delta(now[key], previousValue) }];
    }),
  ) as KpisOutput['kpis'];
}

export async function kpis(
  em: EntityManager,
  store: Pick<StoreEntity, 'id' | 'currency'>,
  input: { from: string; to: string; compare: Comparison; currency?: string },
): Promise<KpisOutput> {
  const currency = input.currency ?? store.currency;
  const range = { from: input.from, to: input.to };
  const previousRange = comparisonRange(range, input.compare);
  const ranges = previousRange ? [range, previousRange] : [range];
  // Every row is already in the display currency.
  const { days, previous, channels } = await readConvertedRollups(em, store.id, currency, ranges);
  const kpiEntries = kpisWithComparison(totalsOf(range, days, days), previous);

  // Per day, for sparklines.
  const byDay = new Map<string, Totals>();
  for (const day of daysOf(range)) byDay.set(day, emptyTotals());
  for (const row of days) {
    const totals = byDay.get(row.day);
    if (!totals) continue;
    addDaily(totals, row, 1);
    addChannel(totals, row, 1);
  }
  const series = [...byDay.entries()].map(([day, totals]) => {
    const values = kpiValuesOf(totals);
    return {
      day,
      netSales: values.netSales,
      spend: values.spend,
      clicks: values.clicks,
      orders: values.orders,
      newCustomers: totals.newCustomers,
      roas: values.roas,
      cac: values.cac,
      mer: values.mer,
      aov: values.aov,
    };
  });

  // Per channel over the range (one row per channel).
  const channelList = channels
    .map((row) => {
      const cacValue = cac({ spendMinor: row.spendMinor, newCustomers: row.newCustomers });
      return {
        channel: row.channel,
        spend: roundMinor(row.spendMinor),
        netSales: roundMinor(row.netSalesMinor),
        orders: row.ordersCount,
        newCustomers: row.newCustomers,
        impressions: row.impressions,
        clicks: row.clicks,
        platformConversions: Number(row.platformConversions.toFixed(6)),
        platformConversionValue: roundMinor(row.platformConversionValueMinor),
        roas: attributedRoas({ attributedNetSalesMinor: row.netSalesMinor, spendMinor: row.spendMinor }),
        platformRoas: platformRoas({ conversionValueMinor: row.platformConversionValueMinor, spendMinor: row.spendMinor }),
        cac: cacValue === null ? null : roundMinor(cacValue),
      };
    })
    .sort((a, b) => b.spend - a.spend || b.netSales - a.netSales || a.channel.localeCompare(b.channel));

  return { storeId: store.id, currency, range, previousRange, kpis: kpiEntries, series, channels: channelList };
}

/**
 * LTV by monthly cohort (customers grouped by the month of their first order): average net sales
 * per customer within 30..365 days of their first order. A horizon is `complete` once the cohort's
 * last customer has had that many days (its month's last day + N <= today in the store's time zone).
 */
export async function ltvCohorts(
  em: EntityManager,
  store: Pick<StoreEntity, 'id' | 'currency' | 'timezone'>,
  input: { months: number; currency?: string },
  now: Date = new Date(),
): Promise<LtvCohortsOutput> {
  const currency = input.currency ?? store.currency;
  const today = dayInZone(now, store.timezone);
  const firstMonth = addMonths(monthOf(today), -(input.months - 1));
  const range = { from: `${firstMonth}-01`, to: today };
  const [rows, fx] = await withFxRates(
    em,
    [currency, store.currency],
    range,
    sqlRunner(em).rows<Record<string, string | number>>(
      `select to_char(day, 'YYYY-MM-DD') as day, currency, new_customers,
              ${LTV_HORIZONS.map((n) => `ltv_net_${n}_minor::text as ltv_${n}`).join(', ')}
         from daily_rollups
        where store_id = $1 and day >= $2::date and day <= $3::date`,
      [store.id, range.from, range.to],
    ),
    (rows) => rows.map((row) => String(row.currency)),
  );
  const cohorts = new Map<string, { customers: number; sums: Record<LtvHorizon, number> }>();
  for (let month = firstMonth; month <= monthOf(today); month = addMonths(month, 1)) {
    cohorts.set(month, { customers: 0, sums: { 30: 0, 60: 0, 90: 0, 180: 0, 365: 0 } });
  }
  for (const row of rows) {
    const cohort = cohorts.get(monthOf(String(row.day)));
    if (!cohort) continue;
    const factor = fx.factor(String(row.currency), currency, String(row.day));
    cohort.customers += num(row.new_customers);
    for (const horizon of LTV_HORIZONS) cohort.sums[horizon] += num(row[`ltv_${horizon}`]) * factor;
  }
  return {
    storeId: store.id,
    currency,
    cohorts: [...cohorts.entries()].map(([month, cohort]) => ({
      month,
      customers: cohort.customers,
      ltv: Object.fromEntries(
        LTV_HORIZONS.map((horizon) => {
          const value = ltv({ customers: cohort.customers, netSalesWithinMinor: cohort.sums }, horizon);
          return [String(horizon), value === null ? null : roundMinor(value)];
        }),
      ),
      complete: Object.fromEntries(LTV_HORIZONS.map((horizon) => [String(horizon), addDays(lastDayOfMonth(month), horizon) <= today])),
    })),
  };
}

/**
 * Whether the store has data yet and what kind, from the rollups only: a sum over its days, so it
 * stays cheap at a million orders. A platform counts once it has reported spend, impressions,
 * clicks or conversions (orders merely attributed to a channel through UTM tags do not count).
 */
export async function dataStatus(em: EntityManager, store: Pick<StoreEntity, 'id'>): Promise<DataStatusOutput> {
  const q = sqlRunner(em);
  const [[daily], channels] = await Promise.all([
    q.rows<{ orders: string | null; first_day: string | null; last_day: string | null }>(
      `select sum(orders_count)::text as orders, to_char(min(day), 'YYYY-MM-DD') as first_day, to_char(max(day), 'YYYY-MM-DD') as last_day
         from daily_rollups where store_id = $1`,
      [store.id],
    ),
    q.rows<{ channel: string; first_day: string; last_day: string }>(
      `select channel, to_char(min(day), 'YYYY-MM-DD') as first_day, to_char(max(day), 'YYYY-MM-DD') as last_day
         from channel_daily_rollups
        where store_id = $1 and (spend_minor <> 0 or impressions <> 0 or clicks <> 0 or platform_conversions <> 0 or platform_conversion_value_minor <> 0)
        group by channel
        order by channel`,
      [store.id],
    ),
  ]);
  const orders = num(daily?.orders);
  const days = [daily?.first_day, daily?.last_day, ...channels.flatMap((row) => [row.first_day, row.last_day])].filter((day): day is string => !!day).sort();
  return {
    storeId: store.id,
    hasData: orders > 0 || channels.length > 0,
    orders,
    firstDay: days[0] ?? null,
    lastDay: days.at(-1) ?? null,
    adPlatforms: channels.map((row) => row.channel).filter(isAdChannel),
    emailPlatforms: channels.map((row) => row.channel).filter((channel) => (EMAIL_CHANNELS as readonly string[]).includes(channel)),
  };
}

// --- Trend charts (analytics.trend; added by the marketing/analytics screens) ---

export type KpiValues = ReturnType<typeof kpiValuesOf>;

/** What a channel contributed to one bucket: orders and their net sales, its platform's spend and clicks. */
export interface ChannelBucketValues {
  netSales: number;
  orders: number;
  spend: number;
  clicks: number;
}

/**
 * The KPI values of sub-ranges (the weeks or months of a trend chart) of at most two spans (a range
 * and its comparison), from one read of the rollups, with each bucket's figures per channel.
 */
export async function kpisByBucket(
  em: EntityManager,
  store: Pick<StoreEntity, 'id' | 'currency'>,
  input: { spans: DayRange[]; buckets: DayRange[]; currency?: string },
): Promise<{ currency: string; buckets: { kpis: KpiValues; channels: Record<string, ChannelBucketValues> }[] }> {
  const currency = input.currency ?? store.currency;
  const { daily, channels, fx } = await readRollupsWithFx(em, [store], currency, input.spans);
  const factor = rowFactor(fx, currency);
  // Rows by day, so each bucket reads only its own days (a 365-day chart by day has 730 buckets).
  const byDay = new Map<string, { daily: DailyRow[]; channels: ChannelRow[] }>();
  const rowsOfDay = (day: string) => byDay.get(day) ?? byDay.set(day, { daily: [], channels: [] }).get(day)!;
  for (const row of daily) rowsOfDay(row.day).daily.push(row);
  for (const row of channels) rowsOfDay(row.day).channels.push(row);
  return {
    currency,
    buckets: input.buckets.map((bucket) => {
      const bucketDaily: DailyRow[] = [];
      const bucketChannels: ChannelRow[] = [];
      for (const day of daysOf(bucket)) {
        const rows = byDay.get(day);
        if (rows) {
          bucketDaily.push(...rows.daily);
          bucketChannels.push(...rows.channels);
        }
      }
      const byChannel: Record<string, ChannelBucketValues> = {};
      for (const row of bucketChannels) {
        const entry = (byChannel[row.channel] ??= { netSales: 0, orders: 0, spend: 0, clicks: 0 });
        entry.netSales += row.netSalesMinor * factor(row);
        entry.orders += row.ordersCount;
        entry.spend += row.spendMinor * factor(row);
        entry.clicks += row.clicks;
      }
      for (const entry of Object.values(byChannel)) {
        entry.netSales = roundMinor(entry.netSales);
        entry.spend = roundMinor(entry.spend);
      }
      return { kpis: kpiValuesOf(totalsOf(bucket, bucketDaily, bucketChannels, factor)), channels: byChannel };
    }),
  };
}

// --- Totals across stores (dashboard.allStores; added by the dashboard screens) ---

export type KpiTotals = Totals;
export { emptyTotals };

/**
 * Each store's totals of a range and of its comparison, converted into one currency but not rounded
 * (several stores' totals can then be summed before the ratios are taken, never averaged), from one
 * read of all the stores' rollups.
 */
export async function kpiTotalsByStore(
  em: EntityManager,
  stores: readonly Pick<StoreEntity, 'id' | 'currency'>[],
  input: { from: string; to: string; compare: Comparison; currency: string },
): Promise<Map<number, { current: KpiTotals; previous: KpiTotals | null }>> {
  const range = { from: input.from, to: input.to };
  const previousRange = comparisonRange(range, input.compare);
  const ranges = previousRange ? [range, previousRange] : [range];
  // A day's row carries its spend and clicks: no channel rows needed.
  const { daily, fx } = await readRollupsWithFx(em, stores, input.currency, ranges, { channels: false });
  const factor = rowFactor(fx, input.currency);
  const rowsByStore = new Map(stores.map((store) => [store.id, [] as DailyRow[]]));
  for (const row of daily) rowsByStore.get(row.storeId)!.push(row);
  return new Map(
    [...rowsByStore].map(([storeId, rows]) => [
      storeId,
      {
        current: totalsOf(range, rows, rows, factor),
        previous: previousRange ? totalsOf(previousRange, rows, rows, factor) : null,
      },
    ]),
  );
}
