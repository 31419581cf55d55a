import type { EntityManager } from '@mikro-orm/postgresql';
import { countingOrderSql, isCountingOrder, type OrderStatus } from '../../../shared/commerce.ts';
import {
  ORDERS_COUNT_CAP,
  type OrderDetailOutput,
  type OrderMoney,
  type OrderRow,
  type OrdersFilter,
  type OrdersListOutput,
  type OrderSort,
  type SortDirection,
} from '../../../shared/orders.ts';
import { AppError } from '../../errors.ts';
import { hashEmail } from '../commerce/ingest.ts';
import { loadFxRates, roundMinor, type FxRates } from '../commerce/fx.ts';
import { num, sqlRunner } from '../commerce/raw-sql.ts';
import type { StoreEntity } from '../stores/store.entity.ts';

// Reads raw orders for the orders table, its detail drawer and the CSV export. Every statement starts
// with `o.store_id = $1`, so each one stays inside the caller's store; list and export share the
// filter and ordering below, so the file holds exactly the orders the table shows.

export const ORDER_NOT_FOUND_MESSAGE = 'Order not found';

type StoreRef = Pick<StoreEntity, 'id' | 'currency'>;

/** Sortable columns. Order numbers may be missing: '' keeps the keyset comparison total. */
const SORT_EXPRESSIONS: Record<OrderSort, string> = {
  placedAt: 'o.placed_at',
  netSales: 'o.net_sales_minor',
  gross: 'o.gross_minor',
  total: '(o.gross_minor - o.discounts_minor + o.shipping_minor + o.taxes_minor)',
  orderNumber: `coalesce(o.order_number, '')`,
};

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}

/** Searches shorter than this (without a leading #) match order numbers and customer ids exactly, not by prefix: "#5" would match a tenth of the store. */
export const PREFIX_SEARCH_MIN_LENGTH = 3;

/**
 * Above this many order lines (the planner's estimate) a product search is "common" (a word of many
 * products' titles): the newest matching orders are then found by walking the orders newest first and
 * probing each one's lines, which stops after a page; below it, from the matching lines' trigram index.
 */
export const COMMON_LINE_MATCHES = 20_000;

/**
 * A common product word's count stops here ("1,000+ orders", 40 pages of 25): counting every match
 * would probe the lines of tens of thousands of orders; narrower searches count up to ORDERS_COUNT_CAP.
 */
export const COMMON_SEARCH_COUNT_CAP = 1_000;

/** How a search finds its orders: from the set of matching ids, or by walking the orders (a common product word). */
export type SearchPlan = 'set' | 'walk';

function containsPattern(search: string): string {
  return `%${escapeLike(search)}%`;
}

const LINE_MATCH = (contains: string) => `(l.title ilike ${contains}::text or l.sku ilike ${contains}::text)`;

/**
 * Which way a search is cheaper, from the planner's estimate of the order lines it matches (its
 * statistics of titles and SKUs; planning only, nothing is read).
 */
export async function searchPlanOf(em: EntityManager, storeId: number, search: string | undefined): Promise<SearchPlan> {
  const text = search?.trim();
  if (!text || text.includes('@')) return 'set';
  const [plan] = await sqlRunner(em).rows<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(
    `explain (format json) select 1 from order_lines l where l.store_id = $1::int and ${LINE_MATCH('$2')}`,
    [storeId, containsPattern(text)],
  );
  return (plan?.['QUERY PLAN'][0].Plan['Plan Rows'] ?? 0) > COMMON_LINE_MATCHES ? 'walk' : 'set';
}

/**
 * The orders a search text matches, every branch on an index of its own (migration 20261126020100):
 * - the order number, with or without its "#": exactly, or as a prefix when no number is the search itself (orders (store_id, order_number text_pattern_ops));
 * - the platform's order id exactly (the (store_id, platform, external_id) key);
 * - the customer's platform id, exactly or as a prefix (customers (store_id, external_id text_pattern_ops), then orders by customer);
 * - a product title or SKU of a line, anywhere in it, case-insensitively: for the 'set' plan among the
 *   store's distinct line texts (order_line_texts, trigram GIN index, migration 20261128030100), then
 *   the lines carrying a matching text exactly ((store_id, md5(title)) and (store_id, sku, order_id));
 *   for the 'walk' plan the (store_id, order_id) probe of each order's lines.
 */
function searchConditionSql(search: string, plan: SearchPlan, parameter: (value: unknown) => string): string {
  const withoutHash = search.replace(/^#/, '');
  const prefixes = withoutHash.length >= PREFIX_SEARCH_MIN_LENGTH;
  const numbers = [...new Set([search, withoutHash, `#${withoutHash}`])];
  const exactNumbers = `${parameter(numbers)}::text[]`;
  // An order whose number is the search wins alone ("#1234" is not also #12340-#12349); otherwise every number it begins.
  const numberPrefix = () => numbers.map((text) => `x.order_number like ${parameter(`${escapeLike(text)}%`)}::text`).join(' or ');
  const numberMatch = prefixes
    ? `x.order_number = any(${exactNumbers}) or ((${numberPrefix()}) and not exists (select 1 from orders y where y.store_id = $1 and y.order_number = any(${exactNumbers})))`
    : `x.order_number = any(${exactNumbers})`;
  const customerPattern = parameter(prefixes ? `${escapeLike(search)}%` : escapeLike(search));
  const identifiers = `select x.id from orders x where x.store_id = $1 and (${numberMatch})
          union all
          select x.id from orders x where x.store_id = $1 and x.external_id = ${parameter(search)}::text
          union all
          select x.id from customers c join orders x on x.store_id = c.store_id and x.customer_id = c.id
           where c.store_id = $1 and c.external_id like ${customerPattern}::text`;
  if (plan === 'walk') {
    const lineMatch = LINE_MATCH(parameter(containsPattern(search)));
    // offset 0 keeps the probe a per-order look-up: without it PostgreSQL 18 hashes every matching line first.
    return `(o.id in (${identifiers}) or exists (select 1 from order_lines l where l.store_id = o.store_id and l.order_id = o.id and ${lineMatch} offset 0))`;
  }
  // The distinct texts first (a few thousand rows at most), then the lines carrying them exactly (migration 20261128030100).
  const contains = parameter(containsPattern(search));
  const texts = (kind: 'title' | 'sku', column: string) =>
    `select t.${column} from order_line_texts t where t.store_id = $1 and t.kind = '${kind}' and t.text ilike ${contains}::text`;
  return `o.id in (${identifiers}
          union all
          select l.order_id from order_lines l where l.store_id = $1 and md5(l.title) in (${texts('title', 'text_hash')})
          union all
          select l.order_id from order_lines l where l.store_id = $1 and l.sku in (${texts('sku', 'text')}))`;
}

/** WHERE clause of the filtered set of one store; `params[0]` is the store id. */
export function filterSql(storeId: number, filter: OrdersFilter, plan: SearchPlan = 'set'): { where: string; params: unknown[] } {
  const params: unknown[] = [storeId];
  const conditions = ['o.store_id = $1'];
  const parameter = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  if (filter.from) conditions.push(`o.placed_day >= ${parameter(filter.from)}::date`);
  if (filter.to) conditions.push(`o.placed_day <= ${parameter(filter.to)}::date`);
  if (filter.statuses?.length) conditions.push(`o.status = any(${parameter(filter.statuses)}::text[])`);
  if (filter.channels?.length) conditions.push(`o.channel = any(${parameter(filter.channels)}::text[])`);
  if (filter.platforms?.length) conditions.push(`o.platform = any(${parameter(filter.platforms)}::text[])`);
  // Cancelled and test orders are neither: ingest never flags them new, and they are nobody's return.
  if (filter.customerType === 'new') conditions.push('o.is_new_customer');
  if (filter.customerType === 'returning') conditions.push(`not o.is_new_customer and ${countingOrderSql('o')}`);
  const search = filter.search?.trim();
  if (search) {
    if (search.includes('@')) {
      // Only the hash of an e-mail is stored: an address matches exactly, never in part.
      conditions.push(`o.customer_id in (select c.id from customers c where c.store_id = $1 and c.email_hash = ${parameter(hashEmail(search))})`);
    } else {
      conditions.push(searchConditionSql(search, plan, parameter));
    }
  }
  return { where: conditions.join(' and '), params };
}

function orderBySql(sort: OrderSort, direction: SortDirection): string {
  return `${SORT_EXPRESSIONS[sort]} ${direction}, o.id ${direction}`;
}

/** Columns of an order row, in the shape `toOrderRow` reads. */
const ROW_COLUMNS = `
  o.id::int8::text as id, o.order_number, o.external_id, o.placed_at, to_char(o.placed_day, 'YYYY-MM-DD') as placed_day,
  o.platform, o.status, o.is_test, o.channel, o.is_new_customer, o.currency,
  o.gross_minor::text as gross, o.discounts_minor::text as discounts, o.shipping_minor::text as shipping,
  o.taxes_minor::text as taxes, o.refunds_minor::text as refunds, o.net_sales_minor::text as net_sales,
  (select coalesce(sum(l.quantity), 0)::int from order_lines l where l.store_id = o.store_id and l.order_id = o.id) as items,
  (select c.external_id from customers c where c.store_id = o.store_id and c.id = o.customer_id) as customer_external_id,
  (select c.orders_count from customers c where c.store_id = o.store_id and c.id = o.customer_id) as customer_orders`;

interface RawOrderRow {
  id: string;
  order_number: string | null;
  external_id: string;
  placed_at: Date | string;
  placed_day: string;
  platform: string;
  status: OrderStatus;
  is_test: boolean;
  channel: string;
  is_new_customer: boolean;
  currency: string;
  gross: string;
  discounts: string;
  shipping: string;
  taxes: string;
  refunds: string;
  net_sales: string;
  items: number;
  customer_external_id: string | null;
  customer_orders: number | null;
  /** Keyset position (export only). */
  sort_key?: string;
}

function isoInstant(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

function toOrderRow(row: RawOrderRow, fx: FxRates, displayCurrency: string): OrderRow {
  const amounts: OrderMoney = {
    total: num(row.gross) - num(row.discounts) + num(row.shipping) + num(row.taxes),
    gross: num(row.gross),
    discounts: num(row.discounts),
    shipping: num(row.shipping),
    taxes: num(row.taxes),
    refunds: num(row.refunds),
    netSales: num(row.net_sales),
  };
  const factor = fx.factor(row.currency, displayCurrency, row.placed_day);
  const displayAmounts = Object.fromEntries(
    Object.entries(amounts).map(([key, value]) => [key, roundMinor(value * factor)]),
  ) as OrderMoney;
  return {
    id: num(row.id),
    orderNumber: row.order_number,
    externalId: row.external_id,
    placedAt: isoInstant(row.placed_at),
    placedDay: row.placed_day,
    platform: row.platform,
    status: row.status,
    isTest: row.is_test,
    counts: isCountingOrder(row.status, row.is_test),
    channel: row.channel,
    isNewCustomer: row.is_new_customer,
    currency: row.currency,
    amounts,
    displayAmounts,
    items: num(row.items),
    customer: row.customer_external_id === null ? null : { externalId: row.customer_external_id, ordersCount: num(row.customer_orders) },
  };
}

/** The rates a page of rows needs (each order at its own day). */
function ratesFor(em: EntityManager, rows: RawOrderRow[], displayCurrency: string): Promise<FxRates> {
  const days = rows.map((row) => row.placed_day).sort();
  const first = days[0] ?? '1970-01-01';
  return loadFxRates(em, [displayCurrency, ...rows.map((row) => row.currency)], first, days.at(-1) ?? first);
}

/** One page of the filtered set and how many orders it has (exact up to ORDERS_COUNT_CAP). */
export async function listOrders(
  em: EntityManager,
  store: StoreRef,
  input: OrdersFilter & { page: number; pageSize: number },
  /** Forced by tests; otherwise chosen from the planner's estimate. */
  forcedPlan?: SearchPlan,
): Promise<OrdersListOutput> {
  const displayCurrency = input.currency ?? store.currency;
  const plan = forcedPlan ?? (await searchPlanOf(em, store.id, input.search));
  const { where, params } = filterSql(store.id, input, plan);
  const countCap = plan === 'walk' ? COMMON_SEARCH_COUNT_CAP : ORDERS_COUNT_CAP;
  const q = sqlRunner(em);
  const offset = (input.page - 1) * input.pageSize;
  const orderBy = orderBySql(input.sort, input.direction);
  const pageSql = `select ${ROW_COLUMNS} from orders o where ${where} order by ${orderBy} limit ${input.pageSize} offset ${offset}`;
  // Counting stops after the cap, so a page of a million-order store costs no full count.
  const countSql = `select count(*)::int as total from (select 1 from orders o where ${where} limit ${countCap + 1}) as matching`;
  let rows: RawOrderRow[];
  let total: number;
  if (plan === 'set' && input.search?.trim()) {
    // A search's set is found once: its orders (up to the cap) with their sort keys, counted and paged in
    // the same statement; only the page's orders are then read whole. Finding the set twice, for the page
    // and for the count, was half the cost of a SKU matching thousands of orders.
    const [found] = await q.rows<{ total: number; ids: string[] }>(
      `with matched as materialized (select o.id, ${SORT_EXPRESSIONS[input.sort]} as sort_key from orders o where ${where} limit ${countCap + 1})
       select (select count(*) from matched)::int as total,
              array(select m.id::text from matched m order by m.sort_key ${input.direction}, m.id ${input.direction} limit ${input.pageSize} offset ${offset}) as ids`,
      params,
    );
    total = num(found?.total);
    rows =
      total > countCap
        ? await q.rows<RawOrderRow>(pageSql, params)
        : found!.ids.length === 0
          ? []
          : await q.rows<RawOrderRow>(`select ${ROW_COLUMNS} from orders o where o.store_id = $1 and o.id = any($2::int8[]) order by ${orderBy}`, [store.id, found!.ids]);
  } else {
    const [pageRows, [counted]] = await Promise.all([q.rows<RawOrderRow>(pageSql, params), q.rows<{ total: number }>(countSql, params)]);
    rows = pageRows;
    total = num(counted?.total);
  }
  const fx = await ratesFor(em, rows, displayCurrency);
  return {
    storeId: store.id,
    currency: displayCurrency,
    page: input.page,
    pageSize: input.pageSize,
    total: Math.min(total, countCap),
    totalIsExact: total <= countCap,
    rows: rows.map((row) => toOrderRow(row, fx, displayCurrency)),
  };
}

export const EXPORT_BATCH_SIZE = 2000;

/**
 * The whole filtered set in the table's order, one batch at a time by keyset (sort value, id), so
 * no batch costs more than the first whatever the size of the set, and no more than one batch is held.
 */
export async function* orderBatches(
  em: EntityManager,
  store: StoreRef,
  filter: OrdersFilter,
  batchSize = EXPORT_BATCH_SIZE,
): AsyncGenerator<OrderRow[]> {
  const displayCurrency = filter.currency ?? store.currency;
  const { where, params } = filterSql(store.id, filter, await searchPlanOf(em, store.id, filter.search));
  const sortExpression = SORT_EXPRESSIONS[filter.sort];
  const comparison = filter.direction === 'desc' ? '<' : '>';
  const q = sqlRunner(em);
  let after: { sortKey: string; id: string } | null = null;
  for (;;) {
    const keyset: string = after ? `and (${sortExpression}, o.id) ${comparison} ($${params.length + 1}, $${params.length + 2}::int8)` : '';
    const rows: RawOrderRow[] = await q.rows<RawOrderRow>(
      `select ${ROW_COLUMNS}, (${sortExpression})::text as sort_key from orders o where ${where} ${keyset}
        order by ${orderBySql(filter.sort, filter.direction)} limit ${batchSize}`,
      after ? [...params, after.sortKey, after.id] : params,
    );
    if (rows.length === 0) return;
    const fx = await ratesFor(em, rows, displayCurrency);
    yield rows.map((row) => toOrderRow(row, fx, displayCurrency));
    if (rows.length < batchSize) return;
    const last = rows.at(-1)!;
    after = { sortKey: last.sort_key!, id: last.id };
  }
}

/** One order of the store with its lines, refunds, attribution and customer summary; 404 otherwise. */
export async function orderDetail(
  em: EntityManager,
  store: StoreRef,
  input: { orderId: number; currency?: string },
): Promise<OrderDetailOutput> {
  const displayCurrency = input.currency ?? store.currency;
  const q = sqlRunner(em);
  const [row] = await q.rows<RawOrderRow & Record<string, unknown>>(
    `select ${ROW_COLUMNS}, o.updated_at, o.customer_id::text as customer_id, o.landing_site, o.referrer,
            o.utm_source, o.utm_medium, o.utm_campaign, o.utm_content, o.utm_term, o.gclid, o.fbclid, o.msclkid, o.ttclid
       from orders o where o.store_id = $1 and o.id = $2`,
    [store.id, input.orderId],
  );
  if (!row) throw new AppError('NOT_FOUND', ORDER_NOT_FOUND_MESSAGE);
  const [lines, refunds, customers, fx] = await Promise.all([
    q.rows<Record<string, string | number | null>>(
      `select id::text as id, title, sku, quantity, unit_price_minor::text as unit_price, discount_minor::text as discount,
              unit_cost_minor::text as unit_cost
         from order_lines where store_id = $1 and order_id = $2 order by id`,
      [store.id, input.orderId],
    ),
    q.rows<Record<string, string | Date | null>>(
      `select id::text as id, refunded_at, to_char(refunded_day, 'YYYY-MM-DD') as refunded_day, amount_minor::text as amount, currency, reason
         from refunds where store_id = $1 and order_id = $2 order by refunded_at, id`,
      [store.id, input.orderId],
    ),
    row.customer_id === null
      ? Promise.resolve([])
      : q.rows<Record<string, string | number | Date | null>>(
          `select id::text as id, external_id, first_order_at, orders_count, total_spent_minor::text as total_spent
             from customers where store_id = $1 and id = $2`,
          [store.id, row.customer_id],
        ),
    ratesFor(em, [row], displayCurrency),
  ]);
  const text = (value: unknown) => (value === null || value === undefined ? null : String(value));
  const customer = customers[0];
  return {
    storeId: store.id,
    currency: displayCurrency,
    order: { ...toOrderRow(row, fx, displayCurrency), updatedAt: isoInstant(row.updated_at as Date) },
    lines: lines.map((line) => {
      const quantity = num(line.quantity);
      const unitPrice = num(line.unit_price);
      const discount = num(line.discount);
      return {
        id: num(line.id),
        title: String(line.title),
        sku: text(line.sku),
        quantity,
        unitPrice,
        discount,
        unitCost: line.unit_cost === null ? null : num(line.unit_cost),
        total: quantity * unitPrice - discount,
      };
    }),
    refunds: refunds.map((refund) => ({
      id: num(refund.id),
      refundedAt: isoInstant(refund.refunded_at as Date),
      refundedDay: String(refund.refunded_day),
      amount: num(refund.amount),
      currency: String(refund.currency),
      reason: text(refund.reason),
    })),
    attribution: {
      channel: row.channel,
      landingSite: text(row.landing_site),
      referrer: text(row.referrer),
      utmSource: text(row.utm_source),
      utmMedium: text(row.utm_medium),
      utmCampaign: text(row.utm_campaign),
      utmContent: text(row.utm_content),
      utmTerm: text(row.utm_term),
      gclid: text(row.gclid),
      fbclid: text(row.fbclid),
      msclkid: text(row.msclkid),
      ttclid: text(row.ttclid),
    },
    customer: customer
      ? {
          id: num(customer.id),
          externalId: String(customer.external_id),
          firstOrderAt: customer.first_order_at === null ? null : isoInstant(customer.first_order_at as Date),
          ordersCount: num(customer.orders_count),
          totalSpent: num(customer.total_spent),
          totalSpentCurrency: store.currency,
        }
      : null,
  };
}
