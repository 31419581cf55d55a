import type { EntityManager } from '@mikro-orm/postgresql';
import { countingOrderSql, isAdChannel } from '../../../shared/commerce.ts';
import { AppError } from '../../errors.ts';
import { num, sqlRunner, type SqlRunner } from './raw-sql.ts';

// What each raw row contributes to the rollup tables, and how a change is applied.
//
// Ingest computes the contribution of every order whose numbers a batch can change (the batch's
// orders and all orders of their customers, old and new) before and after writing the batch, and
// adds the difference to the rollups (INSERT ... ON CONFLICT DO UPDATE SET x = x + excluded.x). The
// rebuild computes the contribution of every row of the store. Both use the same queries below, so
// "incremental == rebuild" holds exactly when ingest picks the right orders; rollups.test.ts checks it.
//
// An order counts unless it is cancelled, unpaid or a test. A counting order contributes, in its currency:
// - on its placed day (and its channel): 1 order, gross, discounts, shipping, taxes, net sales
//   (gross - discounts), new- or returning-customer order, units, COGS of costed lines, and the net
//   value of lines without cost; 1 new customer when it is a known customer's first counting order;
// - on the day of each of its refunds (and its channel): the refund, and minus the refund in net sales;
//   minus the refund's shipping and tax in shipping and taxes (a day's shipping and taxes are net of
//   what was refunded that day, so total revenue is what the shop kept);
// - on its customer's first-order day (the cohort day): its net sales after all refunds, in the
//   LTV column of every horizon N (30..365) with placed day < cohort day + N.
// "First" is by placed_at, then id. An order without a customer (guest checkout) is a new-customer
// order but adds no new customer. Ad metric rows add spend, impressions, clicks and the platform's
// conversions and conversion value to their platform's channel row; e-mail rows add their spend,
// clicks, attributed orders (as conversions) and attributed revenue (as conversion value). Both add
// their spend and clicks to the day's row too (ad rows also as advertising spend).

const INGEST_LOCK = 'storepulse.commerce.ingest';

/**
 * Serialises every writer of one store's commerce rows (ingest batches, rebuilds) until the end of
 * the transaction, so a batch reads rows no concurrent batch is changing. Different stores never wait.
 *
 * It also lets the transaction skip PostgreSQL's per-row foreign-key checks when the connected role
 * may (a superuser, as with the embedded server): they were half of the time of writing orders and
 * lines. What those checks would guarantee holds by construction: every id an ingest statement writes
 * comes from a row this transaction has just written or read under a lock (orders and customers by
 * their upserts, products by the join of the same statement), and the store row is held FOR KEY SHARE
 * here, exactly the lock a check takes, so the store cannot be deleted (cascading to its rows) until
 * the batch commits. Products are only ever deleted with their store. Ingest never deletes a parent
 * row, so no cascade is skipped. Every other writer keeps the checks (the setting is transaction-local).
 */
export async function lockStoreForIngest(q: SqlRunner, storeId: number): Promise<{ timezone: string; currency: string }> {
  await q.run(`select pg_advisory_xact_lock(hashtext($1), $2::int)`, [INGEST_LOCK, storeId]);
  // Batches are many short statements: compiling them to machine code costs more than it saves.
  await q.run(
    `select set_config('jit', 'off', true),
            set_config('session_replication_role', case when current_setting('is_superuser') = 'on' then 'replica' else current_setting('session_replication_role') end, true)`,
  );
  const [store] = await q.rows<{ timezone: string; currency: string }>(`select timezone, currency from stores where id = $1 for key share`, [storeId]);
  if (!store) throw new AppError('NOT_FOUND', 'Store not found');
  return store;
}

/**
 * What the planner was last told of a (table, store): its row estimate for the store when this
 * process last looked, and the rows this process has written for the store since. (An ANALYZE in a
 * transaction that rolls back is undone; this is not: the store is then analyzed later than due.)
 */
const plannerKnowledge = new Map<string, { known: number; writtenSince: number }>();

/**
 * Once the planner knows a store has this many rows, a lookup by key (one row) is far cheaper to it
 * than a scan of the store by any other index, however many rows the store has since: analyzing
 * again would only cost (each ANALYZE of a large table reads 30,000 rows).
 */
const STORE_ROWS_PLANNED_RIGHT = 10_000;

/** The planner's row estimate for `store_id = storeId` in the table. */
export async function plannerStoreRows(q: SqlRunner, table: string, storeId: number): Promise<number> {
  const [row] = await q.rows<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(`explain (format json) select 1 from "${table}" where store_id = $1`, [storeId]);
  return row!['QUERY PLAN'][0].Plan['Plan Rows'];
}

/**
 * Gives the planner statistics for a store whose rows are filling up a table: a first sync, the
 * demo generator, or any store after the first. A table is analyzed when a batch wrote at least 100
 * rows to it and either the table's statistics know of fewer rows than that, or the planner thinks
 * the store small (under STORE_ROWS_PLANNED_RIGHT rows) and it has at least quadrupled since.
 * Without this the planner takes a new store for empty (its id is in no statistics) and may look
 * its rows up by any index that starts with store_id: a second store's 100,000-order backfill probed
 * orders through the placed_day index, reading every order of the store once per order looked up
 * (92 s instead of 51 s). ANALYZE inside the batch's transaction also counts the rows the batch just
 * wrote. A 100,000-order backfill into a second store is analyzed at 2,000 and 10,000 orders.
 */
export async function analyzeGrownTables(q: SqlRunner, storeId: number, written: Record<string, number>): Promise<void> {
  const candidates = Object.entries(written).filter(([, count]) => count >= 100);
  if (candidates.length === 0) return;
  const tablesKnowing = new Map(
    (
      await q.rows<{ name: string; reltuples: number }>(
        `select t.name, c.reltuples::float8 as reltuples from unnest($1::text[]) as t(name) join pg_class c on c.oid = to_regclass(t.name)`,
        [candidates.map(([name]) => name)],
      )
    ).map((row) => [row.name, Number(row.reltuples)]),
  );
  const stale: string[] = [];
  for (const [table, count] of candidates) {
    const key = `${table}:${storeId}`;
    let knowledge = plannerKnowledge.get(key);
    if (!knowledge) plannerKnowledge.set(key, (knowledge = { known: await plannerStoreRows(q, table, storeId), writtenSince: 0 }));
    knowledge.writtenSince += count;
    const storeLooksSmall = knowledge.known < STORE_ROWS_PLANNED_RIGHT && knowledge.writtenSince > 3 * knowledge.known;
    if ((tablesKnowing.get(table) ?? 0) < count || storeLooksSmall) stale.push(table);
  }
  if (stale.length === 0) return;
  await q.run(`analyze ${stale.map((table) => `"${table}"`).join(', ')}`);
  for (const table of stale) {
    const knowledge = plannerKnowledge.get(`${table}:${storeId}`)!;
    // At least what it knew plus what was written since: a store too small to stand out in the
    // statistics' sample must not be analyzed again with every batch.
    knowledge.known = Math.max(await plannerStoreRows(q, table, storeId), knowledge.known + knowledge.writtenSince);
    knowledge.writtenSince = 0;
  }
}

/** daily_rollups value columns: property name -> column. */
export const DAILY_COLUMNS = {
  ordersCount: 'orders_count',
  grossMinor: 'gross_minor',
  discountsMinor: 'discounts_minor',
  refundsMinor: 'refunds_minor',
  shippingMinor: 'shipping_minor',
  taxesMinor: 'taxes_minor',
  netSalesMinor: 'net_sales_minor',
  newCustomerOrders: 'new_customer_orders',
  returningCustomerOrders: 'returning_customer_orders',
  newCustomerNetMinor: 'new_customer_net_minor',
  returningCustomerNetMinor: 'returning_customer_net_minor',
  newCustomers: 'new_customers',
  units: 'units',
  cogsMinor: 'cogs_minor',
  uncostedSalesMinor: 'uncosted_sales_minor',
  ltvNet30Minor: 'ltv_net_30_minor',
  ltvNet60Minor: 'ltv_net_60_minor',
  ltvNet90Minor: 'ltv_net_90_minor',
  ltvNet180Minor: 'ltv_net_180_minor',
  ltvNet365Minor: 'ltv_net_365_minor',
  // The sums of the day's channel rows in the currency (see RollupDelta.add).
  spendMinor: 'spend_minor',
  adSpendMinor: 'ad_spend_minor',
  clicks: 'clicks',
} as const;

/** channel_daily_rollups value columns. platformConversions is numeric(20,6), carried as integer millionths. */
export const CHANNEL_COLUMNS = {
  ordersCount: 'orders_count',
  netSalesMinor: 'net_sales_minor',
  newCustomers: 'new_customers',
  spendMinor: 'spend_minor',
  impressions: 'impressions',
  clicks: 'clicks',
  platformConversions: 'platform_conversions',
  platformConversionValueMinor: 'platform_conversion_value_minor',
} as const;

/** product_daily_rollups value columns. */
export const PRODUCT_COLUMNS = {
  ordersCount: 'orders_count',
  units: 'units',
  netSalesMinor: 'net_sales_minor',
  cogsMinor: 'cogs_minor',
  costedNetMinor: 'costed_net_minor',
  costedLines: 'costed_lines',
} as const;

export type DailyField = keyof typeof DAILY_COLUMNS;
export type ChannelField = keyof typeof CHANNEL_COLUMNS;
export type ProductField = keyof typeof PRODUCT_COLUMNS;
export type ProductValues = Record<ProductField, number>;
export type DailyValues = Record<DailyField, number>;
/** platformConversions in millionths, so that adding and subtracting stays exact. */
export type ChannelValues = Record<ChannelField, number>;

const DAILY_FIELDS = Object.keys(DAILY_COLUMNS) as DailyField[];
const CHANNEL_FIELDS = Object.keys(CHANNEL_COLUMNS) as ChannelField[];
const PRODUCT_FIELDS = Object.keys(PRODUCT_COLUMNS) as ProductField[];
const SQL_TYPES: Record<string, string> = {
  orders_count: 'int',
  new_customer_orders: 'int',
  returning_customer_orders: 'int',
  new_customers: 'int',
  units: 'int',
  costed_lines: 'int',
  platform_conversions: 'numeric',
};

/** "12.345678" (numeric with up to 6 decimals) -> 12345678, exactly. */
export function parseMillionths(value: string | number | null | undefined): number {
  if (value === null || value === undefined) return 0;
  const text = String(value).trim();
  const negative = text.startsWith('-');
  const [whole = '0', fraction = ''] = text.replace(/^[-+]/, '').split('.');
  const result = Number(whole) * 1_000_000 + Number(fraction.padEnd(6, '0').slice(0, 6));
  return negative ? -result : result;
}

export function formatMillionths(value: number): string {
  const sign = value < 0 ? '-' : '';
  const magnitude = Math.abs(value);
  return `${sign}${Math.floor(magnitude / 1_000_000)}.${String(magnitude % 1_000_000).padStart(6, '0')}`;
}

function zeroDaily(): DailyValues {
  return Object.fromEntries(DAILY_FIELDS.map((field) => [field, 0])) as DailyValues;
}
function zeroChannel(): ChannelValues {
  return Object.fromEntries(CHANNEL_FIELDS.map((field) => [field, 0])) as ChannelValues;
}
function zeroProduct(): ProductValues {
  return Object.fromEntries(PRODUCT_FIELDS.map((field) => [field, 0])) as ProductValues;
}

/** One (day, channel, currency) group of contributions; channel is null for cohort (LTV) parts. */
export interface ContributionRow extends Partial<DailyValues> {
  day: string;
  channel: string | null;
  currency: string;
  impressions?: number;
  /** millionths */
  platformConversions?: number;
  platformConversionValueMinor?: number;
}

/** One (day, product, currency) group of an order's lines: product is 'product:<id>' or 'title:<title>'. */
export interface ProductContributionRow extends ProductValues {
  day: string;
  product: string;
  currency: string;
}

/** Pending changes to the rollup tables, keyed by their primary keys (store implied). */
export class RollupDelta {
  readonly daily = new Map<string, DailyValues>();
  readonly channel = new Map<string, ChannelValues>();
  readonly product = new Map<string, ProductValues>();

  add(rows: (ContributionRow | ProductContributionRow)[], sign: 1 | -1): this {
    for (const row of rows) {
      if ('product' in row) {
        // The day and currency come first in the key: a product key may contain any character.
        const productKey = `${row.day}|${row.currency}|${row.product}`;
        let product = this.product.get(productKey);
        if (!product) this.product.set(productKey, (product = zeroProduct()));
        for (const field of PRODUCT_FIELDS) product[field] += sign * row[field];
        continue;
      }
      const dailyKey = `${row.day}|${row.currency}`;
      let daily = this.daily.get(dailyKey);
      if (!daily) this.daily.set(dailyKey, (daily = zeroDaily()));
      for (const field of DAILY_FIELDS) daily[field] += sign * (row[field] ?? 0);
      if (row.channel === null) continue;
      const channelKey = `${row.day}|${row.channel}|${row.currency}`;
      let channel = this.channel.get(channelKey);
      if (!channel) this.channel.set(channelKey, (channel = zeroChannel()));
      for (const field of CHANNEL_FIELDS) channel[field] += sign * (row[field] ?? 0);
    }
    return this;
  }
}

function nonZero(values: Record<string, number>): boolean {
  return Object.values(values).some((value) => value !== 0);
}

/** The orders that count (in every figure): not cancelled or unpaid, not a test. SQL over an `orders` alias `o`. */
export const COUNTING_ORDER = countingOrderSql('o');

const ORDER_COLUMNS = `o.id, o.customer_id, o.placed_at, o.placed_day, o.currency, o.channel,
              o.gross_minor, o.discounts_minor, o.shipping_minor, o.taxes_minor`;

// Per counting order: its columns and its refunds' total; its refunds one by one; its lines one by
// one (with the order's day, channel and currency). For a batch, every lookup is an index probe
// driven by the ids (LATERAL subqueries with LIMIT, OFFSET or an aggregate are never flattened into
// joins), so the plan stays right even when the statistics of a store that is filling up are stale.
// For the whole store, plain joins (rebuildRollups analyzes the tables first); the lines join orders
// directly rather than per_order, which lets PostgreSQL scan and join them in parallel.
const SCOPED_ORDERS = `
     per_order as materialized (
       select ${ORDER_COLUMNS}, coalesce(rt.total, 0) as refunds_total
         from unnest($2::bigint[]) as k(id)
         join lateral (select ${ORDER_COLUMNS} from orders o where o.store_id = $1 and o.id = k.id and ${COUNTING_ORDER} limit 1) o on true
         left join lateral (select sum(r.amount_minor) as total from refunds r where r.store_id = $1 and r.order_id = o.id) rt on true
     ),
     refund_rows as (
       select r.refunded_day, p.channel, p.currency, r.amount_minor, r.shipping_minor, r.taxes_minor
         from per_order p
         join lateral (select r.refunded_day, r.amount_minor, r.shipping_minor, r.taxes_minor from refunds r where r.store_id = $1 and r.order_id = p.id offset 0) r on true
     ),
     line_rows as (
       select p.placed_day, p.channel, p.currency, l.quantity, l.unit_price_minor, l.discount_minor, l.unit_cost_minor
         from per_order p
         join lateral (select l.quantity, l.unit_price_minor, l.discount_minor, l.unit_cost_minor
                         from order_lines l where l.store_id = $1 and l.order_id = p.id offset 0) l on true
     )`;

const ALL_ORDERS = `
     per_order as materialized (
       select ${ORDER_COLUMNS}, coalesce(rt.total, 0) as refunds_total
         from orders o
         left join (select r.order_id, sum(r.amount_minor) as total from refunds r where r.store_id = $1 group by r.order_id) rt on rt.order_id = o.id
        where o.store_id = $1 and ${COUNTING_ORDER}
     ),
     refund_rows as (
       select r.refunded_day, p.channel, p.currency, r.amount_minor, r.shipping_minor, r.taxes_minor
         from refunds r join per_order p on p.id = r.order_id
        where r.store_id = $1
     ),
     line_rows as (
       select o.placed_day, o.channel, o.currency, l.quantity, l.unit_price_minor, l.discount_minor, l.unit_cost_minor
         from orders o join order_lines l on l.store_id = o.store_id and l.order_id = o.id
        where o.store_id = $1 and ${COUNTING_ORDER}
     )`;

const LTV_HORIZON_DAYS = [30, 60, 90, 180, 365];

const DAILY_SUMS = ['orders_count', 'gross', 'discounts', 'refunds', 'shipping', 'taxes', 'net', 'new_orders', 'returning_orders', 'new_net', 'returning_net', 'new_customers', 'units', 'cogs', 'uncosted', ...LTV_HORIZON_DAYS.map((n) => `ltv_${n}`)];

/** A select list of every sum of DAILY_SUMS: those given, and 0 for the others. */
function sumsList(given: Record<string, string>): string {
  return DAILY_SUMS.map((name) => `${given[name] ?? '0'} as ${name}`).join(', ');
}

/**
 * Each part is aggregated on its own, with only the sums it has (an order's 11, its lines' 3, a
 * refund's 2, a cohort's 5), and the few thousand groups they give are added up at the end: summing
 * one union of every part's rows, each with all 20 columns, cost the 1M-order store's rebuild 11.3 s
 * instead of 7.8 s.
 */
function contributionsSql(scope: string): string {
  const net = 'r.gross_minor - r.discounts_minor';
  const netAfterRefunds = `${net} - r.refunds_total`;
  return `with ${scope},
     ranked as (
       select p.*,
              p.customer_id is null or row_number() over (partition by p.customer_id order by p.placed_at, p.id) = 1 as is_new,
              case when p.customer_id is not null
                   then first_value(p.placed_day) over (partition by p.customer_id order by p.placed_at, p.id) end as cohort_day
         from per_order p
     ),
     parts as (
       select r.placed_day as day, r.channel, r.currency, ${sumsList({
         orders_count: 'count(*)',
         gross: 'sum(r.gross_minor)',
         discounts: 'sum(r.discounts_minor)',
         shipping: 'sum(r.shipping_minor)',
         taxes: 'sum(r.taxes_minor)',
         net: `sum(${net})`,
         new_orders: 'count(*) filter (where r.is_new)',
         returning_orders: 'count(*) filter (where not r.is_new)',
         new_net: `coalesce(sum(${netAfterRefunds}) filter (where r.is_new), 0)`,
         returning_net: `coalesce(sum(${netAfterRefunds}) filter (where not r.is_new), 0)`,
         new_customers: 'count(*) filter (where r.is_new and r.customer_id is not null)',
       })}
         from ranked r
        group by 1, 2, 3
       union all
       select l.placed_day, l.channel, l.currency, ${sumsList({
         units: 'sum(l.quantity)',
         cogs: 'coalesce(sum(l.quantity::bigint * l.unit_cost_minor) filter (where l.unit_cost_minor is not null), 0)',
         uncosted: 'coalesce(sum(l.quantity::bigint * l.unit_price_minor - l.discount_minor) filter (where l.unit_cost_minor is null), 0)',
       })}
         from line_rows l
        group by 1, 2, 3
       union all
       select rr.refunded_day, rr.channel, rr.currency, ${sumsList({
         refunds: 'sum(rr.amount_minor)',
         net: '-sum(rr.amount_minor)',
         shipping: '-sum(rr.shipping_minor)',
         taxes: '-sum(rr.taxes_minor)',
       })}
         from refund_rows rr
        group by 1, 2, 3
       union all
       select r.cohort_day, null, r.currency, ${sumsList(
         Object.fromEntries(LTV_HORIZON_DAYS.map((n) => [`ltv_${n}`, `sum(case when r.placed_day < r.cohort_day + ${n} then ${netAfterRefunds} else 0 end)`])),
       )}
         from ranked r
        where r.customer_id is not null and r.placed_day < r.cohort_day + 365
        group by 1, 2, 3
     )
     select to_char(day, 'YYYY-MM-DD') as day, channel, currency, ${DAILY_SUMS.map((name) => `sum(${name})::text as ${name}`).join(', ')}
       from parts
      group by day, channel, currency`;
}

const SCOPED_CONTRIBUTIONS_SQL = contributionsSql(SCOPED_ORDERS);
const ALL_CONTRIBUTIONS_SQL = contributionsSql(ALL_ORDERS);

// Readers decode a product_daily_rollups key with these two, over an alias `r` of the table.
/** Its catalogue product `p` (none for a line without one). */
export const PRODUCT_OF_ROLLUP = `left join products p on p.store_id = r.store_id and r.product_key = 'product:' || p.id`;
/** The title of a line without a catalogue product (null for a product). */
export const LINE_TITLE_OF_ROLLUP = `(case when r.product_key like 'title:%' then substr(r.product_key, 7) end)`;

// The lines of counting orders by (placed day, product, currency): catalogue products by id, other
// lines by their title. Grouped by the columns and the key built per group (building it per line
// first costs the 1M-order store's rebuild 2.6 s).
const PRODUCT_GROUP_BY = `group by o.placed_day, l.product_id, case when l.product_id is null then l.title end, o.currency`;
const PRODUCT_GROUPS = `select to_char(o.placed_day, 'YYYY-MM-DD') as day,
            coalesce('product:' || l.product_id, 'title:' || case when l.product_id is null then l.title end) as product, o.currency,
            count(distinct o.id)::text as orders_count, sum(l.quantity)::text as units,
            sum(l.quantity::bigint * l.unit_price_minor - l.discount_minor)::text as net,
            coalesce(sum(l.quantity::bigint * l.unit_cost_minor), 0)::text as cogs,
            coalesce(sum(l.quantity::bigint * l.unit_price_minor - l.discount_minor) filter (where l.unit_cost_minor is not null), 0)::text as costed_net,
            count(*) filter (where l.unit_cost_minor is not null)::text as costed_lines`;
const SCOPED_PRODUCT_CONTRIBUTIONS_SQL = `${PRODUCT_GROUPS}
       from unnest($2::bigint[]) as k(id)
       join lateral (select o.id, o.placed_day, o.currency from orders o where o.store_id = $1 and o.id = k.id and ${COUNTING_ORDER} limit 1) o on true
       join lateral (select l.product_id, l.title, l.quantity, l.unit_price_minor, l.discount_minor, l.unit_cost_minor
                       from order_lines l where l.store_id = $1 and l.order_id = o.id offset 0) l on true
      ${PRODUCT_GROUP_BY}`;
// The whole store's product rows, written by the database itself (a year of a large store has
// ~100,000 of them: no need to bring them through the server).
const RECOMPUTE_PRODUCT_ROLLUPS_SQL = `insert into product_daily_rollups (store_id, day, product_key, currency, ${Object.values(PRODUCT_COLUMNS).join(', ')})
     select $1, g.day::date, g.product, g.currency, g.orders_count::int, g.units::int, g.net::bigint, g.cogs::bigint, g.costed_net::bigint, g.costed_lines::int
       from (${PRODUCT_GROUPS}
               from orders o
               join order_lines l on l.store_id = o.store_id and l.order_id = o.id
              where o.store_id = $1 and ${COUNTING_ORDER}
              ${PRODUCT_GROUP_BY}) g`;

/**
 * The contributions of the given orders, grouped by (day, channel, currency), and their lines' by
 * (day, product, currency) unless `lines` is false (a change that leaves lines and statuses alone,
 * such as a refund, cannot move them); or of all the store's orders, without the lines'
 * (recomputeRollups writes those itself). The ids must include every order of every customer among
 * them: "new customer" and the cohort day are ranked within the set.
 */
export async function orderContributions(
  q: SqlRunner,
  storeId: number,
  orderIds: number[] | 'all',
  { lines = true }: { lines?: boolean } = {},
): Promise<(ContributionRow | ProductContributionRow)[]> {
  if (orderIds === 'all') return orderRows(await q.rows<Record<string, string | null>>(ALL_CONTRIBUTIONS_SQL, [storeId]));
  if (orderIds.length === 0) return [];
  const parameters = [storeId, [...orderIds].sort((a, b) => a - b)];
  const rows = await q.rows<Record<string, string | null>>(SCOPED_CONTRIBUTIONS_SQL, parameters);
  if (!lines) return orderRows(rows);
  const productRows = await q.rows<Record<string, string>>(SCOPED_PRODUCT_CONTRIBUTIONS_SQL, parameters);
  const products: ProductContributionRow[] = productRows.map((row) => ({
    day: row.day!,
    product: row.product!,
    currency: row.currency!,
    ordersCount: num(row.orders_count),
    units: num(row.units),
    netSalesMinor: num(row.net),
    cogsMinor: num(row.cogs),
    costedNetMinor: num(row.costed_net),
    costedLines: num(row.costed_lines),
  }));
  return [...orderRows(rows), ...products];
}

function orderRows(rows: Record<string, string | null>[]): ContributionRow[] {
  return rows.map((row) => ({
    day: row.day!,
    channel: row.channel ?? null,
    currency: row.currency!,
    ordersCount: num(row.orders_count),
    grossMinor: num(row.gross),
    discountsMinor: num(row.discounts),
    refundsMinor: num(row.refunds),
    shippingMinor: num(row.shipping),
    taxesMinor: num(row.taxes),
    netSalesMinor: num(row.net),
    newCustomerOrders: num(row.new_orders),
    returningCustomerNetMinor: num(row.returning_net),
    newCustomerNetMinor: num(row.new_net),
    returningCustomerOrders: num(row.returning_orders),
    newCustomers: num(row.new_customers),
    units: num(row.units),
    cogsMinor: num(row.cogs),
    uncostedSalesMinor: num(row.uncosted),
    ltvNet30Minor: num(row.ltv_30),
    ltvNet60Minor: num(row.ltv_60),
    ltvNet90Minor: num(row.ltv_90),
    ltvNet180Minor: num(row.ltv_180),
    ltvNet365Minor: num(row.ltv_365),
  }));
}

export interface AdMetricKey {
  platform: string;
  accountId: string;
  campaignId: string;
  day: string;
}

export interface EmailMetricKey {
  platform: string;
  campaignId: string;
  day: string;
}

function metricRows(rows: Record<string, string | null>[]): ContributionRow[] {
  return rows.map((row) => ({
    day: row.day!,
    channel: row.channel!,
    currency: row.currency!,
    spendMinor: num(row.spend),
    impressions: num(row.impressions),
    clicks: num(row.clicks),
    platformConversions: parseMillionths(row.conversions),
    platformConversionValueMinor: num(row.conversion_value),
  }));
}

const AD_SUMS = `sum(a.spend_minor)::text as spend, sum(a.impressions)::text as impressions, sum(a.clicks)::text as clicks,
            sum(round(a.conversions::numeric, 6))::text as conversions, sum(a.conversion_value_minor)::text as conversion_value`;

/** Arrays of the keys' columns, for `unnest`. */
export function adKeyArrays(keys: AdMetricKey[]) {
  return [keys.map((k) => k.platform), keys.map((k) => k.accountId), keys.map((k) => k.campaignId), keys.map((k) => k.day)];
}

export function emailKeyArrays(keys: EmailMetricKey[]) {
  return [keys.map((k) => k.platform), keys.map((k) => k.campaignId), keys.map((k) => k.day)];
}

/** Probes by primary key, one per batch key (see SCOPED_ORDERS). */
export const AD_ROWS_OF_KEYS = `unnest($2::text[], $3::text[], $4::text[], $5::date[]) as k(platform, account_id, campaign_id, day)
   join lateral (select a.* from ad_metrics_daily a
                  where a.store_id = $1 and a.platform = k.platform and a.account_id = k.account_id
                    and a.campaign_id = k.campaign_id and a.day = k.day limit 1) a on true`;

export const EMAIL_ROWS_OF_KEYS = `unnest($2::text[], $3::text[], $4::date[]) as k(platform, campaign_id, day)
   join lateral (select e.* from email_metrics_daily e
                  where e.store_id = $1 and e.platform = k.platform and e.campaign_id = k.campaign_id and e.day = k.day limit 1) e on true`;

/** What ad metric rows (the given keys, or all of the store's) add to their platform's channel rows and, as advertising spend, to the day's row. */
export async function adMetricContributions(q: SqlRunner, storeId: number, keys: AdMetricKey[] | 'all'): Promise<ContributionRow[]> {
  if (keys !== 'all' && keys.length === 0) return [];
  const select = `select to_char(a.day, 'YYYY-MM-DD') as day, a.platform as channel, a.currency, ${AD_SUMS}`;
  const rows =
    keys === 'all'
      ? await q.rows<Record<string, string | null>>(`${select} from ad_metrics_daily a where a.store_id = $1 group by a.day, a.platform, a.currency`, [storeId])
      : await q.rows<Record<string, string | null>>(`${select} from ${AD_ROWS_OF_KEYS} group by a.day, a.platform, a.currency`, [storeId, ...adKeyArrays(keys)]);
  return metricRows(rows).map((row) => ({ ...row, adSpendMinor: isAdChannel(row.channel!) ? row.spendMinor : 0 }));
}

const EMAIL_SUMS = `sum(e.spend_minor)::text as spend, '0' as impressions, sum(e.clicks)::text as clicks,
            sum(e.attributed_orders)::text as conversions, sum(e.attributed_revenue_minor)::text as conversion_value`;

/** What e-mail metric rows add to their platform's channel rows. */
export async function emailMetricContributions(q: SqlRunner, storeId: number, keys: EmailMetricKey[] | 'all'): Promise<ContributionRow[]> {
  if (keys !== 'all' && keys.length === 0) return [];
  const select = `select to_char(e.day, 'YYYY-MM-DD') as day, e.platform as channel, e.currency, ${EMAIL_SUMS}`;
  const rows =
    keys === 'all'
      ? await q.rows<Record<string, string | null>>(`${select} from email_metrics_daily e where e.store_id = $1 group by e.day, e.platform, e.currency`, [storeId])
      : await q.rows<Record<string, string | null>>(`${select} from ${EMAIL_ROWS_OF_KEYS} group by e.day, e.platform, e.currency`, [storeId, ...emailKeyArrays(keys)]);
  return metricRows(rows);
}

function upsertAddingSql(table: string, keyColumns: { name: string; type: string }[], valueColumns: string[]): string {
  const recordType = [...keyColumns.map((key) => `${key.name} ${key.type}`), ...valueColumns.map((column) => `${column} ${SQL_TYPES[column] ?? 'bigint'}`)].join(', ');
  const keys = keyColumns.map((key) => key.name);
  return `insert into ${table} (store_id, ${[...keys, ...valueColumns].join(', ')})
          select $1, ${[...keys, ...valueColumns].map((column) => `x.${column}`).join(', ')}
            from json_to_recordset($2::json) as x(${recordType})
           order by ${keys.map((key) => `x.${key}`).join(', ')}
          on conflict (store_id, ${keys.join(', ')}) do update set
          ${valueColumns.map((column) => `${column} = ${table}.${column} + excluded.${column}`).join(',\n          ')}`;
}

function deleteEmptySql(table: string, keyColumns: { name: string; type: string }[], valueColumns: string[]): string {
  return `delete from ${table} t
           using json_to_recordset($2::json) as x(${keyColumns.map((key) => `${key.name} ${key.type}`).join(', ')})
           where t.store_id = $1 and ${keyColumns.map((key) => `t.${key.name} = x.${key.name}`).join(' and ')}
             and ${valueColumns.map((column) => `t.${column} = 0`).join(' and ')}`;
}

const DAILY_KEYS = [
  { name: 'day', type: 'date' },
  { name: 'currency', type: 'text' },
];
const CHANNEL_KEYS = [
  { name: 'day', type: 'date' },
  { name: 'channel', type: 'text' },
  { name: 'currency', type: 'text' },
];
const DAILY_UPSERT = upsertAddingSql('daily_rollups', DAILY_KEYS, Object.values(DAILY_COLUMNS));
const DAILY_DELETE_EMPTY = deleteEmptySql('daily_rollups', DAILY_KEYS, Object.values(DAILY_COLUMNS));
const CHANNEL_UPSERT = upsertAddingSql('channel_daily_rollups', CHANNEL_KEYS, Object.values(CHANNEL_COLUMNS));
const CHANNEL_DELETE_EMPTY = deleteEmptySql('channel_daily_rollups', CHANNEL_KEYS, Object.values(CHANNEL_COLUMNS));
const PRODUCT_KEYS = [
  { name: 'day', type: 'date' },
  { name: 'product_key', type: 'text' },
  { name: 'currency', type: 'text' },
];
const PRODUCT_UPSERT = upsertAddingSql('product_daily_rollups', PRODUCT_KEYS, Object.values(PRODUCT_COLUMNS));
const PRODUCT_DELETE_EMPTY = deleteEmptySql('product_daily_rollups', PRODUCT_KEYS, Object.values(PRODUCT_COLUMNS));

/**
 * Adds the delta to the rollup tables (the upserts take the rows in key order, so concurrent writers
 * lock them in the same order) and removes rows that end up all zero, which the rebuild would not
 * produce.
 */
export async function applyRollupDelta(q: SqlRunner, storeId: number, delta: RollupDelta): Promise<void> {
  const daily = deltaRows(delta.daily, (key) => {
    const [day, currency] = key.split('|');
    return { day, currency };
  }, (values) => columnValues(DAILY_COLUMNS, values));
  const channel = deltaRows(delta.channel, (key) => {
    const [day, channelKey, currency] = key.split('|');
    return { day, channel: channelKey, currency };
  }, (values) => ({ ...columnValues(CHANNEL_COLUMNS, values), platform_conversions: formatMillionths(values.platformConversions) }));
  const product = deltaRows(delta.product, (key) => {
    const [day, currency] = key.split('|', 2) as [string, string];
    return { day, currency, product_key: key.slice(day.length + currency.length + 2) };
  }, (values) => columnValues(PRODUCT_COLUMNS, values));
  await addRows(q, storeId, daily, DAILY_UPSERT, DAILY_DELETE_EMPTY);
  await addRows(q, storeId, channel, CHANNEL_UPSERT, CHANNEL_DELETE_EMPTY);
  await addRows(q, storeId, product, PRODUCT_UPSERT, PRODUCT_DELETE_EMPTY);
}

/** A delta's groups that change something, as rows of their table: key columns and value columns. */
function deltaRows<V extends Record<string, number>>(groups: Map<string, V>, keyColumns: (key: string) => object, valueColumns: (values: V) => object): object[] {
  return [...groups].filter(([, values]) => nonZero(values)).map(([key, values]) => ({ ...keyColumns(key), ...valueColumns(values) }));
}

/** Values by column name. */
function columnValues<F extends string>(columns: Record<F, string>, values: Record<F, number>): Record<string, number> {
  return Object.fromEntries((Object.keys(columns) as F[]).map((field) => [columns[field], values[field]]));
}

/** Adds the rows to their table and removes those that end up all zero. */
async function addRows(q: SqlRunner, storeId: number, rows: object[], upsertSql: string, deleteEmptySql: string): Promise<void> {
  if (rows.length === 0) return;
  const json = JSON.stringify(rows);
  await q.run(upsertSql, [storeId, json]);
  await q.run(deleteEmptySql, [storeId, json]);
}

/** Recomputes the rollup tables of a store from its raw rows, in one transaction. */
export async function rebuildRollups(em: EntityManager, storeId: number): Promise<{ dailyRows: number; channelRows: number }> {
  return em.transactional(async (tx) => {
    const q = sqlRunner(tx);
    await lockStoreForIngest(q, storeId);
    await analyzeCommerceTables(q);
    return recomputeRollups(q, storeId);
  });
}

/** Statements that read every row of a store need fresh statistics, or the planner probes an index once per row instead of joining by hash. */
export async function analyzeCommerceTables(q: SqlRunner): Promise<void> {
  await q.run(`analyze orders, order_lines, refunds, customers, ad_metrics_daily, email_metrics_daily`);
}

/** The rebuild itself, inside a transaction that holds the store's ingest lock. */
export async function recomputeRollups(q: SqlRunner, storeId: number): Promise<{ dailyRows: number; channelRows: number }> {
  await q.run(`delete from daily_rollups where store_id = $1`, [storeId]);
  await q.run(`delete from channel_daily_rollups where store_id = $1`, [storeId]);
  await q.run(`delete from product_daily_rollups where store_id = $1`, [storeId]);
  const delta = new RollupDelta()
    .add(await orderContributions(q, storeId, 'all'), 1)
    .add(await adMetricContributions(q, storeId, 'all'), 1)
    .add(await emailMetricContributions(q, storeId, 'all'), 1);
  await applyRollupDelta(q, storeId, delta);
  await q.run(RECOMPUTE_PRODUCT_ROLLUPS_SQL, [storeId]);
  const [counts] = await q.rows<{ daily: number; channel: number }>(
    `select (select count(*) from daily_rollups where store_id = $1)::int as daily,
            (select count(*) from channel_daily_rollups where store_id = $1)::int as channel`,
    [storeId],
  );
  return { dailyRows: counts!.daily, channelRows: counts!.channel };
}
