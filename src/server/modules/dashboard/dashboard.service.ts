import type { EntityManager } from '@mikro-orm/postgresql';
import type { Comparison } from '../../../shared/commerce.ts';
import type { AllStoresOutput, DayKpisOutput, TodayVsYesterdayOutput } from '../../../shared/dashboard.ts';
import { comparisonRange, dayInZone } from '../../../shared/date-ranges.ts';
import { delta } from '../../../shared/metrics.ts';
import { roundMinor, withFxRates } from '../commerce/fx.ts';
import { emptyTotals, kpisWithComparison, kpiTotalsByStore, type KpiTotals } from '../commerce/kpis.service.ts';
import { num, sqlRunner } from '../commerce/raw-sql.ts';
import type { StoreEntity } from '../stores/store.entity.ts';
import { storeRoleOf } from '../stores/stores.service.ts';
import { COUNTING_ORDER } from '../commerce/rollups.ts';
import type { UserEntity } from '../users/user.entity.ts';

// --- One day hour by hour, against its comparison day up to the same local time ---

/** One (day, local hour, currency, inside the window) group of the raw rows. */
interface HourRow {
  day: string;
  hour: number;
  currency: string;
  inWindow: boolean;
  orders: number;
  /** gross - discounts of the orders placed, minus the refunds made */
  sales: number;
  shipping: number;
  taxes: number;
  newCustomers: number;
}

interface DayBounds {
  /** 'HH:MM' local time both days stop at, or null for whole days */
  localTime: string | null;
  /** the instant the comparison day stops at (its next midnight for a whole day) */
  compareUntil: string | null;
  /** share of the comparison day (by its real length, DST included) that lies before the cut */
  compareShare: number;
}

function emptyHours() {
  return Array.from({ length: 24 }, () => ({ netSales: 0, orders: 0 }));
}

/**
 * A day of the store (`day`, in its time zone) against `compareDay`, hour by hour and in total.
 *
 * When `day` is today in the store's time zone, both days stop at the store's local time now:
 * today so far is compared with the comparison day up to the same local time (never with the whole
 * of it), in the tiles as in the "Today" card. Net sales (gross - discounts of the orders placed,
 * minus the refunds made), orders, shipping, taxes and new customers come from the raw rows of the
 * two days (index range scans by (store_id, placed_day) and (store_id, refunded_day)), bucketed by
 * local hour. Advertising and e-mail platforms report spend and clicks per day only, so the
 * comparison day's spend and clicks up to the same time are estimated as its whole-day figures times
 * the share of that day before the cut (spent evenly through the day); `compareShare` says which
 * share. LTV has no comparison on a cut day: its customers are hours old. Whole days (any day but
 * today) are compared in full and read their spend, clicks and LTV from the daily rollups.
 */
export async function dayKpis(
  em: EntityManager,
  store: Pick<StoreEntity, 'id' | 'currency' | 'timezone'>,
  input: { day: string; compare: Comparison; currency?: string },
  now: Date = new Date(),
): Promise<DayKpisOutput> {
  const currency = input.currency ?? store.currency;
  const q = sqlRunner(em);
  const today = dayInZone(now, store.timezone);
  const cut = input.day === today;
  const compareDay = comparisonRange({ from: input.day, to: input.day }, input.compare)?.from ?? null;
  const days = compareDay ? [input.day, compareDay] : [input.day];

  // Local midnights and the cut as instants; PostgreSQL knows the zone rules (DST).
  const [bounds] = await q.rows<{ local_time: string | null; compare_until: string | null; compare_share: number | null }>(
    `select case when $4 then to_char($1::timestamptz at time zone $2, 'HH24:MI:SS.US') end as local_time,
            case when $3::date is not null then to_json(case when $4 then (($3::date)::timestamp + ($1::timestamptz at time zone $2)::time) at time zone $2
                                                         else ($3::date + 1)::timestamp at time zone $2 end)#>>'{}' end as compare_until,
            case when $3::date is not null and $4
                 then extract(epoch from ((($3::date)::timestamp + ($1::timestamptz at time zone $2)::time) at time zone $2) - (($3::date)::timestamp at time zone $2))
                      / extract(epoch from ((($3::date + 1)::timestamp at time zone $2) - (($3::date)::timestamp at time zone $2))) end::float8 as compare_share`,
    [now.toISOString(), store.timezone, compareDay, cut],
  );
  const { local_time: cutTime, compare_until: compareUntil } = bounds!;
  const compareShare = cut ? Number(bounds!.compare_share) : 1;
  const inWindow = (column: string) => `($3::time is null or (${column} at time zone $4)::time <= $3::time)`;
  const hourOf = (column: string) => `extract(hour from ${column} at time zone $4)::int`;
  const parameters = [store.id, days, cutTime, store.timezone];

  const [[hourRows, rollupRows], fx] = await withFxRates(
    em,
    [currency, store.currency],
    { from: days.at(-1)!, to: input.day },
    Promise.all([
      q.rows<Record<string, string | number | boolean>>(
        `select to_char(o.placed_day, 'YYYY-MM-DD') as day, ${hourOf('o.placed_at')} as hour, o.currency, ${inWindow('o.placed_at')} as in_window,
                count(*)::text as orders, sum(o.gross_minor - o.discounts_minor)::text as sales,
                sum(o.shipping_minor)::text as shipping, sum(o.taxes_minor)::text as taxes,
                count(*) filter (where o.is_new_customer and o.customer_id is not null)::text as new_customers
           from orders o
          where o.store_id = $1 and o.placed_day = any($2::date[]) and ${COUNTING_ORDER}
          group by 1, 2, 3, 4
         union all
         select to_char(r.refunded_day, 'YYYY-MM-DD'), ${hourOf('r.refunded_at')}, r.currency, ${inWindow('r.refunded_at')},
                '0', (-sum(r.amount_minor))::text, (-sum(r.shipping_minor))::text, (-sum(r.taxes_minor))::text, '0'
           from refunds r
           join orders o on o.store_id = r.store_id and o.id = r.order_id
          where r.store_id = $1 and r.refunded_day = any($2::date[]) and ${COUNTING_ORDER}
          group by 1, 2, 3, 4`,
        parameters,
      ),
      q.rows<{ day: string; currency: string; ltv: string; spend: string; ad_spend: string; clicks: string }>(
        `select to_char(day, 'YYYY-MM-DD') as day, currency, ltv_net_90_minor::text as ltv, spend_minor::text as spend,
                ad_spend_minor::text as ad_spend, clicks::text as clicks
           from daily_rollups where store_id = $1 and day = any($2::date[])`,
        [store.id, days],
      ),
    ]),
    ([hours, rollups]) => [...hours.map((row) => String(row.currency)), ...rollups.map((row) => row.currency)],
  );

  const rows: HourRow[] = hourRows.map((row) => ({
    day: String(row.day),
    hour: num(row.hour as string),
    currency: String(row.currency),
    inWindow: row.in_window === true,
    orders: num(row.orders as string),
    sales: num(row.sales as string),
    shipping: num(row.shipping as string),
    taxes: num(row.taxes as string),
    newCustomers: num(row.new_customers as string),
  }));
  const totals = new Map(days.map((day) => [day, emptyTotals()]));
  const hours = new Map(days.map((day) => [day, emptyHours()]));
  for (const row of rows) {
    const factor = fx.factor(row.currency, currency, row.day);
    const hour = hours.get(row.day)![row.hour]!;
    hour.netSales += row.sales * factor;
    hour.orders += row.orders;
    if (!row.inWindow) continue;
    const total = totals.get(row.day)!;
    total.netSales += row.sales * factor;
    total.shipping += row.shipping * factor;
    total.taxes += row.taxes * factor;
    total.orders += row.orders;
    total.newCustomers += row.newCustomers;
  }
  for (const row of rollupRows) {
    const factor = fx.factor(row.currency, currency, row.day);
    // The day itself is read as it stands (today: so far); the comparison day in its share.
    const share = row.day === input.day ? 1 : compareShare;
    const total = totals.get(row.day)!;
    total.ltvNet90 += num(row.ltv) * factor;
    total.spend += num(row.spend) * factor * share;
    total.adSpend += num(row.ad_spend) * factor * share;
    total.clicks += num(row.clicks) * share;
  }
  const previous = compareDay ? totals.get(compareDay)! : null;
  // An estimated share of a day's clicks is still a whole number of clicks.
  if (previous) previous.clicks = Math.round(previous.clicks);
  const kpis = kpisWithComparison(totals.get(input.day)!, previous);
  if (cut) kpis.ltv = { ...kpis.ltv, previous: null, delta: delta(kpis.ltv.current, null) };

  const currentHour = cut ? Number(cutTime!.slice(0, 2)) : 23;
  const dayHours = hours.get(input.day)!;
  const compareHours = compareDay ? hours.get(compareDay)! : null;
  return {
    storeId: store.id,
    currency,
    timezone: store.timezone,
    day: input.day,
    compareDay,
    localTime: cutTime ? cutTime.slice(0, 5) : null,
    compareUntil: compareUntil ? new Date(compareUntil).toISOString() : null,
    compareShare,
    kpis,
    hours: dayHours.map((hour, index) => ({
      hour: index,
      // Hours still to come today have no figures yet (a gap in the chart, not a fall to zero).
      netSales: index <= currentHour ? roundMinor(hour.netSales) : null,
      orders: index <= currentHour ? hour.orders : null,
      previousNetSales: compareHours ? roundMinor(compareHours[index]!.netSales) : null,
      previousOrders: compareHours ? compareHours[index]!.orders : null,
    })),
  };
}

/** Today's net sales and orders so far against yesterday's up to the same local time of the store (the "Today" card). */
export async function todayVsYesterday(
  em: EntityManager,
  store: Pick<StoreEntity, 'id' | 'currency' | 'timezone'>,
  input: { currency?: string } = {},
  now: Date = new Date(),
): Promise<TodayVsYesterdayOutput> {
  const today = dayInZone(now, store.timezone);
  const result = await dayKpis(em, store, { day: today, compare: 'previous_period', currency: input.currency }, now);
  const { netSales, orders } = result.kpis;
  return {
    storeId: store.id,
    currency: result.currency,
    timezone: store.timezone,
    localTime: result.localTime!,
    today: { day: today, netSales: netSales.current!, orders: orders.current!, until: now.toISOString() },
    yesterday: { day: result.compareDay!, netSales: netSales.previous!, orders: orders.previous!, until: result.compareUntil! },
    delta: { netSales: netSales.delta, orders: orders.delta },
  };
}

// --- Every store of the user side by side ---

function sumTotals(list: KpiTotals[]): KpiTotals {
  const sum = emptyTotals();
  for (const totals of list) for (const key of Object.keys(sum) as (keyof KpiTotals)[]) sum[key] += totals[key];
  return sum;
}

/**
 * The KPIs of each store the viewer may see (own, then shared with them), all in one display
 * currency at each day's rate, and a total row: money and counts summed across stores before the
 * ratios (ROAS, MER, AOV, CAC, LTV) are taken from those sums.
 */
export async function allStoresKpis(
  em: EntityManager,
  viewer: Pick<UserEntity, 'id' | 'username'>,
  stores: StoreEntity[],
  input: { from: string; to: string; compare: Comparison; currency: string },
  activeStoreId: number | null,
): Promise<AllStoresOutput> {
  const totalsByStore = await kpiTotalsByStore(em, stores, input);
  const perStore = stores.map((store) => ({ store, totals: totalsByStore.get(store.id)! }));
  const range = { from: input.from, to: input.to };
  const previousRange = comparisonRange(range, input.compare);
  return {
    currency: input.currency,
    range,
    previousRange,
    activeStoreId,
    stores: perStore.map(({ store, totals }) => ({
      storeId: store.id,
      name: store.name,
      storeCurrency: store.currency,
      role: storeRoleOf(store, viewer),
      ownerUsername: store.owner.id === viewer.id ? viewer.username : store.owner.username,
      kpis: kpisWithComparison(totals.current, totals.previous),
    })),
    total: kpisWithComparison(
      sumTotals(perStore.map(({ totals }) => totals.current)),
      previousRange ? sumTotals(perStore.map(({ totals }) => totals.previous ?? emptyTotals())) : null,
    ),
  };
}
