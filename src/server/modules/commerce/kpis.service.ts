import type { EntityManager } from '@mikro-orm/postgresql';
import { isMarketingChannel, type Comparison, type KpisOutput, type LtvCohortsOutput } from '../../../shared/commerce.ts';
import { aov, cac, delta, LTV_HORIZONS, ltv, mer, platformRoas, ratio, roas, type LtvHorizon } from '../../../shared/metrics.ts';
import type { StoreEntity } from '../stores/store.entity.ts';
import { addDays, addMonths, dayInZone, daysBetween, lastDayOfMonth, monthOf, sameDayLastYear } from './days.ts';
import { loadFxRates, roundMinor, type FxRates } from './fx.ts';
import { num, sqlRunner } from './raw-sql.ts';

// Dashboard KPIs, read from the rollup tables only (their cost grows with days, not orders). Every
// (day, currency) row is converted into the display currency at that day's rate, then summed; money
// is rounded to whole minor units once, at the end.

export interface DayRange {
  from: string;
  to: string;
}

export function daysInRange(range: DayRange): number {
  return daysBetween(range.from, range.to) + 1;
}

/** The period a range is compared with: the same number of days just before it, or the same dates a year earlier. */
export function comparisonRange(range: DayRange, compare: Comparison): DayRange | null {
  if (compare === 'none') return null;
  if (compare === 'previous_year') return { from: sameDayLastYear(range.from), to: sameDayLastYear(range.to) };
  const length = daysInRange(range);
  return { from: addDays(range.from, -length), to: addDays(range.from, -1) };
}

/** The current range and, when comparing, the previous one: two index range scans. */
const RANGES_CONDITION = `((day >= $2::date and day <= $3::date) or (day >= $4::date and day <= $5::date))`;

function rangeParameters(ranges: DayRange[]): string[] {
  const [first, second = first] = ranges as [DayRange, DayRange?];
  return [first.from, first.to, second!.from, second!.to];
}

interface DailyRow {
  day: string;
  currency: string;
  ordersCount: number;
  netSalesMinor: number;
  newCustomers: number;
  ltvNet90Minor: number;
}

interface ChannelRow {
  day: string;
  channel: string;
  currency: string;
  ordersCount: number;
  netSalesMinor: number;
  newCustomers: number;
  spendMinor: number;
  impressions: number;
  clicks: number;
  platformConversions: number;
  platformConversionValueMinor: number;
}

async function readDailyRows(em: EntityManager, storeId: number, ranges: DayRange[]): Promise<DailyRow[]> {
  const rows = await sqlRunner(em).rows<Record<string, string | number>>(
    `select to_char(day, 'YYYY-MM-DD') as day, currency, orders_count, net_sales_minor::text as net_sales_minor,
            new_customers, ltv_net_90_minor::text as ltv_net_90_minor
       from daily_rollups
      where store_id = $1 and ${RANGES_CONDITION}`,
    [storeId, ...rangeParameters(ranges)],
  );
  return rows
    .map((row) => ({
      day: String(row.day),
      currency: String(row.currency),
      ordersCount: num(row.orders_count),
      netSalesMinor: num(row.net_sales_minor),
      newCustomers: num(row.new_customers),
      ltvNet90Minor: num(row.ltv_net_90_minor),
    }))
}

async function readChannelRows(em: EntityManager, storeId: number, ranges: DayRange[]): Promise<ChannelRow[]> {
  const rows = await sqlRunner(em).rows<Record<string, string | number>>(
    `select to_char(day, 'YYYY-MM-DD') as day, channel, currency, orders_count, net_sales_minor::text as net_sales_minor,
            new_customers, spend_minor::text as spend_minor, impressions::text as impressions, clicks::text as clicks,
            platform_conversions::text as platform_conversions,
            platform_conversion_value_minor::text as platform_conversion_value_minor
       from channel_daily_rollups
      where store_id = $1 and ${RANGES_CONDITION}`,
    [storeId, ...rangeParameters(ranges)],
  );
  return rows
    .map((row) => ({
      day: String(row.day),
      channel: String(row.channel),
      currency: String(row.currency),
      ordersCount: num(row.orders_count),
      netSalesMinor: num(row.net_sales_minor),
      newCustomers: num(row.new_customers),
      spendMinor: num(row.spend_minor),
      impressions: num(row.impressions),
      clicks: num(row.clicks),
      platformConversions: num(row.platform_conversions),
      platformConversionValueMinor: num(row.platform_conversion_value_minor),
    }))
}

interface Totals {
  netSales: number;
  orders: number;
  newCustomers: number;
  ltvNet90: number;
  spend: number;
  clicks: number;
  attributedNetSales: number;
}

function emptyTotals(): Totals {
  return { netSales: 0, orders: 0, newCustomers: 0, ltvNet90: 0, spend: 0, clicks: 0, attributedNetSales: 0 };
}

function inRange(day: string, range: DayRange): boolean {
  return day >= range.from && day <= range.to;
}

function addDaily(totals: Totals, row: DailyRow, factor: number): void {
  totals.netSales += row.netSalesMinor * factor;
  totals.orders += row.ordersCount;
  totals.newCustomers += row.newCustomers;
  totals.ltvNet90 += row.ltvNet90Minor * factor;
}

function addChannel(totals: Totals, row: ChannelRow, factor: number): void {
  totals.spend += row.spendMinor * factor;
  totals.clicks += row.clicks;
  if (isMarketingChannel(row.channel)) totals.attributedNetSales += row.netSalesMinor * factor;
}

/** Money totals are converted but not yet rounded. */
function totalsOf(range: DayRange, daily: DailyRow[], channels: ChannelRow[], fx: FxRates, currency: string): Totals {
  const totals = emptyTotals();
  for (const row of daily) if (inRange(row.day, range)) addDaily(totals, row, fx.factor(row.currency, currency, row.day));
  for (const row of channels) if (inRange(row.day, range)) addChannel(totals, row, fx.factor(row.currency, currency, row.day));
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
    roas: roas({ attributedNetSalesMinor: totals.attributedNetSales, spendMinor: totals.spend }),
    cac: roundOrNull(cac({ spendMinor: totals.spend, newCustomers: totals.newCustomers })),
    mer: mer({ totalRevenueMinor: totals.netSales, totalSpendMinor: totals.spend }),
    aov: roundOrNull(aov({ netSalesMinor: totals.netSales, orders: totals.orders })),
    ltv: roundOrNull(ratio(totals.ltvNet90, totals.newCustomers)),
  };
}

/** Currencies and span whose rates the conversion of these rows needs. */
async function fxFor(em: EntityManager, currency: string, rows: { currency: string; day: string }[], ranges: DayRange[]): Promise<FxRates> {
  const currencies = new Set([currency, ...rows.map((row) => row.currency)]);
  const from = ranges.map((r) => r.from).sort()[0]!;
  const to = ranges.map((r) => r.to).sort().at(-1)!;
  return loadFxRates(em, currencies, from, to);
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
  const [daily, channels] = await Promise.all([readDailyRows(em, store.id, ranges), readChannelRows(em, store.id, ranges)]);
  const fx = await fxFor(em, currency, [...daily, ...channels], ranges);

  const current = kpiValuesOf(totalsOf(range, daily, channels, fx, currency));
  const previous = previousRange ? kpiValuesOf(totalsOf(previousRange, daily, channels, fx, currency)) : null;
  const kpiEntries = Object.fromEntries(
    (Object.keys(current) as (keyof typeof current)[]).map((key) => {
      const previousValue = previous ? previous[key] : null;
      return [key, { current: current[key], previous: previousValue, delta: delta(current[key], previousValue) }];
    }),
  ) as KpisOutput['kpis'];

  // Per day, for sparklines.
  const byDay = new Map<string, Totals>();
  for (let day = range.from; day <= range.to; day = addDays(day, 1)) byDay.set(day, emptyTotals());
  for (const row of daily) {
    const totals = byDay.get(row.day);
    if (totals) addDaily(totals, row, fx.factor(row.currency, currency, row.day));
  }
  for (const row of channels) {
    const totals = byDay.get(row.day);
    if (totals) addChannel(totals, row, fx.factor(row.currency, currency, row.day));
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

  // Per channel over the range.
  const byChannel = new Map<string, { spend: number; netSales: number; orders: number; newCustomers: number; impressions: number; clicks: number; conversions: number; conversionValue: number }>();
  for (const row of channels) {
    if (!inRange(row.day, range)) continue;
    const factor = fx.factor(row.currency, currency, row.day);
    let entry = byChannel.get(row.channel);
    if (!entry) byChannel.set(row.channel, (entry = { spend: 0, netSales: 0, orders: 0, newCustomers: 0, impressions: 0, clicks: 0, conversions: 0, conversionValue: 0 }));
    entry.spend += row.spendMinor * factor;
    entry.netSales += row.netSalesMinor * factor;
    entry.orders += row.ordersCount;
    entry.newCustomers += row.newCustomers;
    entry.impressions += row.impressions;
    entry.clicks += row.clicks;
    entry.conversions += row.platformConversions;
    entry.conversionValue += row.platformConversionValueMinor * factor;
  }
  const channelList = [...byChannel.entries()]
    .map(([channel, entry]) => {
      const cacValue = cac({ spendMinor: entry.spend, newCustomers: entry.newCustomers });
      return {
        channel,
        spend: roundMinor(entry.spend),
        netSales: roundMinor(entry.netSales),
        orders: entry.orders,
        newCustomers: entry.newCustomers,
        impressions: entry.impressions,
        clicks: entry.clicks,
        platformConversions: Number(entry.conversions.toFixed(6)),
        platformConversionValue: roundMinor(entry.conversionValue),
        roas: roas({ attributedNetSalesMinor: entry.netSales, spendMinor: entry.spend }),
        platformRoas: platformRoas({ conversionValueMinor: entry.conversionValue, spendMinor: entry.spend }),
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
  const rows = await sqlRunner(em).rows<Record<string, string | number>>(
    `select to_char(day, 'YYYY-MM-DD') as day, currency, new_customers,
            ${LTV_HORIZONS.map((n) => `ltv_net_${n}_minor::text as ltv_${n}`).join(', ')}
       from daily_rollups
      where store_id = $1 and day >= $2::date and day <= $3::date`,
    [store.id, range.from, range.to],
  );
  const fx = await loadFxRates(em, new Set([currency, ...rows.map((row) => String(row.currency))]), range.from, range.to);
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
