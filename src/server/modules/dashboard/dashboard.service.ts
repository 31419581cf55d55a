import type { EntityManager } from '@mikro-orm/postgresql';
import type { Comparison } from '../../../shared/commerce.ts';
import type { AllStoresOutput, TodayVsYesterdayOutput } from '../../../shared/dashboard.ts';
import { addDays, comparisonRange, dayInZone } from '../../../shared/date-ranges.ts';
import { delta } from '../../../shared/metrics.ts';
import { roundMinor, withFxRates } from '../commerce/fx.ts';
import { emptyTotals, kpisWithComparison, kpiTotalsByStore, type KpiTotals } from '../commerce/kpis.service.ts';
import { num, sqlRunner } from '../commerce/raw-sql.ts';
import type { StoreEntity } from '../stores/store.entity.ts';
import { storeRoleOf } from '../stores/stores.service.ts';
import { COUNTING_ORDER } from '../commerce/rollups.ts';
import type { UserEntity } from '../users/user.entity.ts';

// --- Today so far against yesterday up to the same local time ---

/** An order counts unless cancelled or a test (as in the rollups). */

interface Window {
  period: 'today' | 'yesterday';
  currency: string;
  orders: number;
  salesMinor: number;
}

/**
 * Net sales and orders of today until now and of yesterday until the same local time, in the
 * store's time zone. The rollups hold whole days, so this reads raw rows: two small range scans
 * (orders by (store_id, placed_at), refunds by (store_id, refunded_day)). A refund lowers the window
 * it was made in, as it lowers the day it was made in everywhere else.
 */
export async function todayVsYesterday(
  em: EntityManager,
  store: Pick<StoreEntity, 'id' | 'currency' | 'timezone'>,
  input: { currency?: string } = {},
  now: Date = new Date(),
): Promise<TodayVsYesterdayOutput> {
  const currency = input.currency ?? store.currency;
  const q = sqlRunner(em);
  const today = dayInZone(now, store.timezone);
  const yesterday = addDays(today, -1);

  // Local midnight of both days and "the same time yesterday" as instants; PostgreSQL knows the zone rules (DST).
  const [bounds] = await q.rows<{ today_start: string; yesterday_start: string; yesterday_until: string; local_time: string }>(
    `select to_json(($2::date)::timestamp at time zone $4)#>>'{}' as today_start,
            to_json(($3::date)::timestamp at time zone $4)#>>'{}' as yesterday_start,
            to_json((($3::date)::timestamp + ($1::timestamptz at time zone $4)::time) at time zone $4)#>>'{}' as yesterday_until,
            to_char($1::timestamptz at time zone $4, 'HH24:MI') as local_time`,
    [now.toISOString(), today, yesterday, store.timezone],
  );
  const { today_start: todayStart, yesterday_start: yesterdayStart, yesterday_until: yesterdayUntil, local_time: localTime } = bounds!;
  const windowParameters = [store.id, yesterdayStart, now.toISOString(), todayStart, yesterdayUntil];
  const inWindows = (column: string) => `${column} >= $2::timestamptz and ${column} <= $3::timestamptz and (${column} >= $4::timestamptz or ${column} <= $5::timestamptz)`;
  const periodOf = (column: string) => `case when ${column} >= $4::timestamptz then 'today' else 'yesterday' end`;

  const [[orderRows, refundRows], fx] = await withFxRates(
    em,
    [currency, store.currency],
    { from: yesterday, to: today },
    Promise.all([
      q.rows<{ period: Window['period']; currency: string; orders: string; sales: string }>(
        `select ${periodOf('o.placed_at')} as period, o.currency, count(*)::text as orders,
                sum(o.gross_minor - o.discounts_minor)::text as sales
           from orders o
          where o.store_id = $1 and ${inWindows('o.placed_at')} and ${COUNTING_ORDER}
          group by 1, 2`,
        windowParameters,
      ),
      q.rows<{ period: Window['period']; currency: string; refunds: string }>(
        `select ${periodOf('r.refunded_at')} as period, r.currency, sum(r.amount_minor)::text as refunds
           from refunds r
           join orders o on o.store_id = r.store_id and o.id = r.order_id
          where r.store_id = $1 and r.refunded_day between $6::date and $7::date and ${inWindows('r.refunded_at')} and ${COUNTING_ORDER}
          group by 1, 2`,
        [...windowParameters, yesterday, today],
      ),
    ]),
    ([orderRows, refundRows]) => [...orderRows.map((row) => row.currency), ...refundRows.map((row) => row.currency)],
  );

  const windows: Window[] = [
    ...orderRows.map((row) => ({ period: row.period, currency: row.currency, orders: num(row.orders), salesMinor: num(row.sales) })),
    ...refundRows.map((row) => ({ period: row.period, currency: row.currency, orders: 0, salesMinor: -num(row.refunds) })),
  ];
  const figures = { today: { netSales: 0, orders: 0 }, yesterday: { netSales: 0, orders: 0 } };
  for (const window of windows) {
    const day = window.period === 'today' ? today : yesterday;
    figures[window.period].netSales += fx.convertExact(window.salesMinor, window.currency, currency, day);
    figures[window.period].orders += window.orders;
  }
  const todayNet = roundMinor(figures.today.netSales);
  const yesterdayNet = roundMinor(figures.yesterday.netSales);

  return {
    storeId: store.id,
    currency,
    timezone: store.timezone,
    localTime,
    today: { day: today, netSales: todayNet, orders: figures.today.orders, until: now.toISOString() },
    yesterday: { day: yesterday, netSales: yesterdayNet, orders: figures.yesterday.orders, until: new Date(yesterdayUntil).toISOString() },
    delta: { netSales: delta(todayNet, yesterdayNet), orders: delta(figures.today.orders, figures.yesterday.orders) },
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
