import type { EntityManager } from '@mikro-orm/postgresql';
import { countingOrderSql } from '../../../shared/commerce.ts';
import { rateSql } from '../commerce/fx.ts';
import { num, sqlRunner } from '../commerce/raw-sql.ts';
import type { CustomerHistory } from './scoring.ts';
import { seasonalIndex } from './statistics/seasonal-index.ts';

// Each known customer's counted orders summed per store day (the rollups' rules: countingOrderSql
// for the statuses, test and cancelled orders; net sales after refunds, converted into the store's
// currency at each order's own day as customers.total_spent_minor is), then per customer: orders,
// order days, first and last day, spent, and what the first day spent. One set-based statement.

const COUNTING = countingOrderSql('o');

/** Days since 1970-01-01 of a 'YYYY-MM-DD' day. */
export function dayNumber(day: string): number {
  return Math.round(Date.parse(`${day}T00:00:00Z`) / 86_400_000);
}

export function dayOfNumber(day: number): string {
  return new Date(day * 86_400_000).toISOString().slice(0, 10);
}

const HISTORIES_SQL = `
  with per_day as (
    select o.customer_id, o.placed_day, count(*)::int as orders, min(o.placed_at) as first_at, max(o.placed_at) as last_at,
           sum(case when o.currency = $2 then o.net_sales_minor
                    else round(o.net_sales_minor * ${rateSql('$2::text', 'o.placed_day')} / ${rateSql('o.currency', 'o.placed_day')}) end) as value
      from orders o
     where o.store_id = $1 and o.customer_id is not null and ${COUNTING} and o.placed_day <= $3::date + $4::int
     group by o.customer_id, o.placed_day
  )
  select customer_id::text as customer_id,
         (count(*) filter (where placed_day <= $3::date))::int as order_days,
         (sum(orders) filter (where placed_day <= $3::date))::int as orders,
         (min(placed_day) - date '1970-01-01')::int as first_day,
         (max(placed_day) filter (where placed_day <= $3::date) - date '1970-01-01')::int as last_day,
         min(first_at) as first_order_at,
         max(last_at) filter (where placed_day <= $3::date) as last_order_at,
         coalesce(sum(value) filter (where placed_day <= $3::date), 0)::text as spent,
         (array_agg(value order by placed_day))[1]::text as first_day_spent,
         (count(*) filter (where placed_day > $3::date))::int as later_days
    from per_day
   group by customer_id
  having min(placed_day) <= $3::date
   order by customer_id`;

export interface HistoriesAt {
  histories: CustomerHistory[];
  /** Per history: its order days in (endDay, endDay + laterDays]. */
  laterDays: number[];
}

/**
 * The histories of the customers whose first counted order is on or before `endDay` (a store day),
 * observed up to that day; with `laterDays` > 0 also how many order days each had in the days after.
 */
export async function customerHistories(em: EntityManager, store: { id: number; currency: string }, endDay: string, laterDays = 0): Promise<HistoriesAt> {
  const rows = await sqlRunner(em).rows<{
    customer_id: string; order_days: number; orders: number; first_day: number; last_day: number; first_order_at: Date; last_order_at: Date;
    spent: string; first_day_spent: string; later_days: number;
  }>(HISTORIES_SQL, [store.id, store.currency, endDay, laterDays]);
  const histories: CustomerHistory[] = [];
  const later: number[] = [];
  for (const row of rows) {
    histories.push({
      customerId: num(row.customer_id),
      orders: row.orders,
      orderDays: row.order_days,
      firstDay: row.first_day,
      lastDay: row.last_day,
      firstOrderAt: new Date(row.first_order_at),
      lastOrderAt: new Date(row.last_order_at),
      spentMinor: num(row.spent),
      firstDaySpentMinor: num(row.first_day_spent),
    });
    later.push(row.later_days);
  }
  return { histories, laterDays: later };
}

/** The store's last day with a counted order of a known customer, or null. */
export async function lastOrderDay(em: EntityManager, storeId: number): Promise<string | null> {
  const [row] = await sqlRunner(em).rows<{ day: string | null }>(
    `select to_char(max(o.placed_day), 'YYYY-MM-DD') as day from orders o where o.store_id = $1 and o.customer_id is not null and ${COUNTING}`,
    [storeId],
  );
  return row?.day ?? null;
}

/** The store's counted orders per store day (day numbers) up to some day, guests included: the store's season, not only its known customers'. */
export interface StoreDailyOrders {
  perDay: Map<number, number>;
  /** The first day with an order; null when there is none. */
  firstDay: number | null;
}

export async function storeDailyOrders(em: EntityManager, storeId: number, endDay: string): Promise<StoreDailyOrders> {
  const rows = await sqlRunner(em).rows<{ day: number; orders: number }>(
    `select (o.placed_day - date '1970-01-01')::int as day, count(*)::int as orders
       from orders o
      where o.store_id = $1 and ${COUNTING} and o.placed_day <= $2::date
      group by o.placed_day`,
    [storeId, endDay],
  );
  const perDay = new Map(rows.map((row) => [row.day, row.orders]));
  return { perDay, firstDay: rows.reduce<number | null>((first, row) => (first === null || row.day < first ? row.day : first), null) };
}

/**
 * The store's seasonal index over the `horizon` days after `endDay` (statistics/seasonal-index.ts).
 * `daily` may reach past `endDay`: the index reads only days up to it. Null when the history is too short.
 */
export function seasonalIndexAt(daily: StoreDailyOrders, endDay: string, horizon: number): number | null {
  if (daily.firstDay === null) return null;
  return seasonalIndex((day) => daily.perDay.get(day) ?? 0, daily.firstDay, dayNumber(endDay), horizon);
}

/** The store's seasonal index over the `horizon` days after `endDay`, read from its orders up to `endDay`. */
export async function storeSeasonalIndex(em: EntityManager, storeId: number, endDay: string, horizon: number): Promise<number | null> {
  return seasonalIndexAt(await storeDailyOrders(em, storeId, endDay), endDay, horizon);
}
