import type { EntityManager } from '@mikro-orm/postgresql';
import { AsyncLocalStorage } from 'node:async_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { isCountingOrder, ORDER_STATUSES, type OrderStatus } from '../../../shared/commerce.ts';
import { markOrdersForAttribution, requestRecompute } from '../attribution/credits.ts';
import { AppError } from '../../errors.ts';
import { channelOfCompleted, withLandingSiteParameters, type AttributionFields } from './channel.ts';
import { hashEmail, sealContact } from './customer-contacts.ts';
import { dayInZone } from '../../../shared/date-ranges.ts';
import { assertFxCoverage, rateSql } from './fx.ts';
import { num, pipelinedTransaction, recordset, sqlRunner, type SqlRunner } from './raw-sql.ts';
import {
  adKeyArrays,
  adMetricContributions,
  analyzeCommerceTables,
  analyzeGrownTables,
  emailKeyArrays,
  applyRollupDelta,
  COUNTING_ORDER,
  emailMetricContributions,
  lockStoreForIngest,
  orderContributions,
  recomputeRollups,
  RollupDelta,
  type AdMetricKey,
  type ContributionRow,
  type EmailMetricKey,
} from './rollups.ts';

// The one way commerce data gets in: connectors, webhooks and the demo generator all call these.
// Each call is idempotent (natural keys + upsert: replaying a batch changes nothing) and runs in one
// transaction per batch of at most INGEST_BATCH_SIZE rows, which also brings both rollup tables up
// to date (see rollups.ts). Writes are set-based: one statement per table per batch.

export const INGEST_BATCH_SIZE = 2000;
/** A bulk load has no per-batch upkeep to keep short: fewer, larger statements. */
const BULK_LOAD_BATCH_SIZE = 5000;

/**
 * INGEST_PROFILE=1 logs the time of each phase of every batch to stderr (bench/demo.ts, profiling).
 * Off by default: it only reads the clock.
 */
const PROFILE = process.env.INGEST_PROFILE === '1';

function phaseClock(what: string, rows: number) {
  const started = performance.now();
  let last = started;
  const phases: string[] = [];
  return {
    lap(phase: string) {
      if (!PROFILE) return;
      const now = performance.now();
      phases.push(`${phase} ${Math.round(now - last)}`);
      last = now;
    },
    done() {
      if (PROFILE) process.stderr.write(`[ingest] ${what} ${rows} rows ${Math.round(performance.now() - started)} ms: ${phases.join(', ')}\n`);
    },
  };
}

export type StoreRef = number | { id: number };

function storeIdOf(store: StoreRef): number {
  return typeof store === 'number' ? store : store.id;
}

type LockedStore = Awaited<ReturnType<typeof lockStoreForIngest>>;

/** The bulk load (see bulkLoad) the current async context is inside, if any, and its locked store. */
const bulkLoadContext = new AsyncLocalStorage<{ storeId: number; store: LockedStore }>();

function inBulkLoad(storeId: number): boolean {
  return bulkLoadContext.getStore()?.storeId === storeId;
}

/**
 * Runs `load` (which calls the ingest functions below with the EntityManager it is given) as ONE
 * transaction in which the per-batch upkeep is left out: rollup deltas, new-vs-returning flags and
 * customers' aggregates are computed once for the whole store at the end, from its raw rows, before
 * the commit. Readers see the store as it was, then with everything loaded and every number settled.
 * For first loads of a lot of data (the demo generator): the upkeep per batch is most of the cost of
 * a batch. Connectors do not use it: a backfill commits batch by batch so that it shows its progress
 * and resumes after a crash. `load` writes through the ingest functions and sqlRunner only (the
 * transaction has a connection of its own: see pipelinedTransaction).
 */
export async function bulkLoad<T>(em: EntityManager, store: StoreRef, load: (tx: EntityManager) => Promise<T>): Promise<T> {
  const storeId = storeIdOf(store);
  return pipelinedTransaction(em, async (tx) => {
    const q = sqlRunner(tx);
    const locked = await lockStoreForIngest(q, storeId);
    const result = await bulkLoadContext.run({ storeId, store: locked }, () => load(tx));
    const clock = phaseClock('settle', 0);
    // The settle sorts and hashes every order of the store: at PostgreSQL's default 4 MB those spill
    // to disk (the rollups of 1M orders: 16.8 s, 13.0-14.1 s with 256 MB). For this transaction only.
    await q.run(`set local work_mem = '256MB'`);
    await analyzeCommerceTables(q);
    clock.lap('analyze');
    await settleNewCustomerFlags(q, storeId);
    clock.lap('flags');
    await settleCustomerAggregates(q, storeId, locked.currency);
    clock.lap('aggregates');
    await recomputeRollups(q, storeId);
    clock.lap('rollups');
    // Every order's attribution credits computed again, in the background.
    await requestRecompute(q, storeId);
    clock.done();
    return result;
  });
}

/** What a batch writes with: its transaction, a runner on it, the locked store, and whether it keeps the upkeep. */
interface Batch {
  tx: EntityManager;
  q: SqlRunner;
  store: LockedStore;
  upkeep: boolean;
}

/**
 * One batch's transaction, holding the store's ingest lock; `upkeep` says whether the batch keeps
 * the derived numbers (rollups, flags, customers' totals) up to date itself. Inside a bulk load the
 * batch joins the load's transaction, which holds the lock already (a savepoint per batch would only
 * cost: the load stands or falls as a whole), and leaves the upkeep to the load's end. The load's
 * connection is pipelined (see pipelinedTransaction): two batches in flight share it.
 */
function batchTransaction<T>(em: EntityManager, storeId: number, work: (batch: Batch) => Promise<T>): Promise<T> {
  const bulk = bulkLoadContext.getStore();
  if (bulk?.storeId === storeId) return work({ tx: em, q: sqlRunner(em), store: bulk.store, upkeep: false });
  return em.transactional(async (tx) => {
    const q = sqlRunner(tx);
    return work({ tx, q, store: await lockStoreForIngest(q, storeId), upkeep: true });
  });
}

export interface IngestOrderLine {
  /** Unique within the order; defaults to the line's position. */
  externalId?: string;
  /** The product's id on the order's platform (see upsertProducts). */
  productExternalId?: string | null;
  title: string;
  sku?: string | null;
  quantity: number;
  unitPriceMinor: number;
  /** Discount on the whole line. */
  discountMinor?: number;
  /** Unit cost at the time of the order; when absent, the product's unit cost (same currency) is taken. */
  unitCostMinor?: number | null;
}

export interface IngestOrder extends AttributionFields {
  /** Store platform key, e.g. 'shopify'. (platform, externalId) identifies the order within the store. */
  platform: string;
  externalId: string;
  orderNumber?: string | null;
  placedAt: Date | string;
  /** The platform's last change; an older version never overwrites a newer one. Defaults to placedAt. */
  updatedAt?: Date | string | null;
  currency: string;
  /** Merchandise before discounts; excludes tax and shipping. */
  grossMinor: number;
  discountsMinor?: number;
  shippingMinor?: number;
  taxesMinor?: number;
  /** 'refunded' and 'partially_refunded' follow from the refunds once any are ingested. */
  status: OrderStatus;
  isTest?: boolean;
  /** null or absent: a guest checkout. */
  /** `name` and `email` are stored sealed (customer-contacts.ts); `emailHash` alone when the sender only has the hash. */
  customer?: { externalId: string; email?: string | null; emailHash?: string | null; name?: string | null } | null;
  /** Absent: the stored lines stay as they are; [] removes them. */
  lines?: IngestOrderLine[];
}

export interface IngestRefund {
  platform: string;
  externalId: string;
  orderExternalId: string;
  /** Defaults to `platform`. */
  orderPlatform?: string;
  refundedAt: Date | string;
  /**
   * Merchandise refunded, net of tax, in the order's currency: lowers net sales on the refund's day.
   * Tax, shipping and adjustments go in their own fields, never here.
   */
  amountMinor: number;
  /** Shipping refunded, net of tax: lowers the shipping of the refund's day. */
  shippingMinor?: number;
  /** Tax refunded (on merchandise and shipping): lowers the taxes of the refund's day. */
  taxesMinor?: number;
  /**
   * Money returned that is neither merchandise, shipping nor tax (a goodwill amount, a refund
   * discrepancy, a restocking fee kept back when negative): recorded with the refund, not net sales.
   */
  adjustmentsMinor?: number;
  currency: string;
  reason?: string | null;
}

export interface IngestAdMetric {
  platform: string;
  accountId: string;
  campaignId: string;
  /** The platform's reporting day, 'YYYY-MM-DD'. */
  day: string;
  campaignName: string;
  currency: string;
  impressions?: number;
  clicks?: number;
  spendMinor: number;
  conversions?: number;
  conversionValueMinor?: number;
}

export interface IngestEmailMetric {
  platform: string;
  campaignId: string;
  day: string;
  campaignName: string;
  currency: string;
  sends?: number;
  opens?: number;
  clicks?: number;
  attributedOrders?: number;
  attributedRevenueMinor?: number;
  spendMinor?: number;
}

export interface IngestProduct {
  platform: string;
  externalId: string;
  title: string;
  sku?: string | null;
  priceMinor: number;
  currency: string;
  /** Absent or null keeps a cost entered before (e.g. in the P&L). */
  unitCostMinor?: number | null;
  imageUrl?: string | null;
  active?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Validation: cheap checks that keep garbage out of the rollups (a bad row fails its whole batch).

function invalid(what: string, message: string): never {
  throw new AppError('BAD_REQUEST', `${what}: ${message}`);
}

function requireText(value: unknown, what: string, field: string, max = 255): string {
  if (typeof value !== 'string' || value.trim() === '') invalid(what, `${field} is required`);
  if (value.length > max) invalid(what, `${field} must be at most ${max} characters`);
  return value;
}

function optionalText(value: unknown, what: string, field: string, max = 255): string | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string') invalid(what, `${field} must be text`);
  return value.length > max ? value.slice(0, max) : value;
}

function requireInteger(value: unknown, what: string, field: string, options: { min?: number; fallback?: number } = {}): number {
  const resolved = value === undefined || value === null ? options.fallback : value;
  if (typeof resolved !== 'number' || !Number.isSafeInteger(resolved)) invalid(what, `${field} must be a whole number`);
  if (options.min !== undefined && resolved < options.min) invalid(what, `${field} must be at least ${options.min}`);
  return resolved;
}

function requireCurrency(value: unknown, what: string): string {
  if (typeof value !== 'string' || !/^[A-Z]{3}$/.test(value)) invalid(what, 'currency must be a 3-letter ISO code');
  return value;
}

function requireInstant(value: unknown, what: string, field: string): string {
  const date = value instanceof Date ? value : typeof value === 'string' ? new Date(value) : null;
  if (!date || Number.isNaN(date.getTime())) invalid(what, `${field} must be a date and time`);
  return date.toISOString();
}

function requireDay(value: unknown, what: string): string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`))) {
    invalid(what, "day must be 'YYYY-MM-DD'");
  }
  return value;
}

export { hashEmail };

/** The batch with one row per key (the last one wins, or the newest by `version` when given). */
function latestPerKey<T>(rows: T[], keyOf: (row: T) => string, version?: (row: T) => string): T[] {
  const byKey = new Map<string, T>();
  for (const row of rows) {
    const key = keyOf(row);
    const previous = byKey.get(key);
    if (previous && version && version(previous) > version(row)) continue;
    byKey.set(key, row);
  }
  return [...byKey.values()];
}

/**
 * rows.map(map), 500 rows at a time, letting the event loop run between slices: normalizing 5,000
 * orders takes ~100 ms, long enough to hold up other requests, or, in a bulk load, the other
 * batch's next statement.
 */
async function mapInSlices<T, U>(rows: readonly T[], map: (row: T) => U, sliceSize = 500): Promise<U[]> {
  const mapped = new Array<U>(rows.length);
  for (let start = 0; start < rows.length; start += sliceSize) {
    if (start > 0) await nextTurn();
    const end = Math.min(rows.length, start + sliceSize);
    for (let index = start; index < end; index++) mapped[index] = map(rows[index]!);
  }
  return mapped;
}

function chunks<T>(rows: T[], size = INGEST_BATCH_SIZE): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < rows.length; start += size) result.push(rows.slice(start, start + size));
  return result;
}

// ---------------------------------------------------------------------------------------------
// Orders

interface NormalizedLine {
  external_id: string;
  product_external_id: string | null;
  title: string;
  sku: string | null;
  quantity: number;
  unit_price_minor: number;
  discount_minor: number;
  unit_cost_minor: number | null;
}

interface NormalizedOrder {
  platform: string;
  external_id: string;
  order_number: string | null;
  placed_at: string;
  updated_at: string;
  currency: string;
  gross_minor: number;
  discounts_minor: number;
  shipping_minor: number;
  taxes_minor: number;
  status: OrderStatus;
  is_test: boolean;
  customer: { externalId: string; emailHash: string | null; name: string | null; email: string | null } | null;
  customer_id: number | null;
  /** A first guess at insert time (refreshNewCustomerFlags corrects it), so that few rows are updated twice. */
  is_new_customer: boolean;
  landing_site: string | null;
  referrer: string | null;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  utm_content: string | null;
  utm_term: string | null;
  gclid: string | null;
  fbclid: string | null;
  msclkid: string | null;
  ttclid: string | null;
  channel: string;
  lines: NormalizedLine[] | null;
}

function normalizeOrder(order: IngestOrder): NormalizedOrder {
  const what = `Order ${String(order?.platform)}/${String(order?.externalId)}`;
  const platform = requireText(order.platform, what, 'platform', 32);
  const externalId = requireText(order.externalId, what, 'externalId');
  if (!(ORDER_STATUSES as readonly string[]).includes(order.status)) invalid(what, `status must be one of ${ORDER_STATUSES.join(', ')}`);
  const placedAt = requireInstant(order.placedAt, what, 'placedAt');
  const attribution = withLandingSiteParameters(order);
  let customer: NormalizedOrder['customer'] = null;
  if (order.customer) {
    const emailHash = order.customer.emailHash
      ? order.customer.emailHash.toLowerCase()
      : order.customer.email
        ? hashEmail(order.customer.email)
        : null;
    if (emailHash !== null && !/^[0-9a-f]{64}$/.test(emailHash)) invalid(what, 'customer.emailHash must be a SHA-256 hex digest');
    customer = {
      externalId: requireText(order.customer.externalId, what, 'customer.externalId'),
      emailHash,
      name: typeof order.customer.name === 'string' && order.customer.name.trim() !== '' ? order.customer.name.trim().slice(0, 255) : null,
      email: typeof order.customer.email === 'string' && order.customer.email.trim() !== '' ? order.customer.email.trim().slice(0, 320) : null,
    };
  }
  const lines =
    order.lines === undefined
      ? null
      : latestPerKey(
          order.lines.map((line, index) => ({
            external_id: line.externalId === undefined ? String(index + 1) : requireText(line.externalId, what, 'line externalId'),
            product_external_id: optionalText(line.productExternalId, what, 'line productExternalId'),
            title: typeof line.title === 'string' ? line.title : '',
            sku: optionalText(line.sku, what, 'line sku'),
            quantity: requireInteger(line.quantity, what, 'line quantity', { min: 0 }),
            unit_price_minor: requireInteger(line.unitPriceMinor, what, 'line unitPriceMinor', { min: 0 }),
            discount_minor: requireInteger(line.discountMinor, what, 'line discountMinor', { min: 0, fallback: 0 }),
            unit_cost_minor: line.unitCostMinor === undefined || line.unitCostMinor === null ? null : requireInteger(line.unitCostMinor, what, 'line unitCostMinor', { min: 0 }),
          })),
          (line) => line.external_id,
        );
  return {
    platform,
    external_id: externalId,
    order_number: optionalText(order.orderNumber, what, 'orderNumber', 64),
    placed_at: placedAt,
    updated_at: order.updatedAt ? requireInstant(order.updatedAt, what, 'updatedAt') : placedAt,
    currency: requireCurrency(order.currency, what),
    gross_minor: requireInteger(order.grossMinor, what, 'grossMinor', { min: 0 }),
    discounts_minor: requireInteger(order.discountsMinor, what, 'discountsMinor', { min: 0, fallback: 0 }),
    shipping_minor: requireInteger(order.shippingMinor, what, 'shippingMinor', { min: 0, fallback: 0 }),
    taxes_minor: requireInteger(order.taxesMinor, what, 'taxesMinor', { min: 0, fallback: 0 }),
    status: order.status,
    is_test: order.isTest === true,
    customer,
    customer_id: null,
    is_new_customer: false,
    landing_site: attribution.landingSite,
    referrer: attribution.referrer,
    utm_source: optionalText(attribution.utmSource, what, 'utmSource'),
    utm_medium: optionalText(attribution.utmMedium, what, 'utmMedium'),
    utm_campaign: optionalText(attribution.utmCampaign, what, 'utmCampaign'),
    utm_content: optionalText(attribution.utmContent, what, 'utmContent'),
    utm_term: optionalText(attribution.utmTerm, what, 'utmTerm'),
    gclid: attribution.gclid,
    fbclid: attribution.fbclid,
    msclkid: attribution.msclkid,
    ttclid: attribution.ttclid,
    channel: channelOfCompleted(attribution),
    lines,
  };
}

/**
 * The status an order shows: cancelled and unpaid win; otherwise refunds decide: refunded when the
 * merchandise refunded reaches its net value, partially refunded when any refund exists (a refund of
 * shipping or tax alone refunds nothing of the merchandise, but the order was refunded in part).
 */
function derivedStatusSql(inputStatus: string, refunds: string, gross: string, discounts: string, anyRefund: string): string {
  return `(case when ${inputStatus} in ('cancelled', 'unpaid') then ${inputStatus}
               when ${refunds} > 0 and ${refunds} >= ${gross} - ${discounts} then 'refunded'
               when ${anyRefund} then 'partially_refunded'
               else ${inputStatus} end)`;
}

/** Whether the order row `alias` has any refund (an index probe). */
function anyRefundSql(alias: string): string {
  return `exists (select 1 from refunds r where r.store_id = ${alias}.store_id and r.order_id = ${alias}.id)`;
}

const ORDER_RECORDS = recordset<NormalizedOrder>(
  [
    ['platform', 'text'], ['external_id', 'text'], ['order_number', 'text'], ['placed_at', 'timestamptz'], ['updated_at', 'timestamptz'],
    ['currency', 'text'], ['gross_minor', 'bigint'], ['discounts_minor', 'bigint'], ['shipping_minor', 'bigint'], ['taxes_minor', 'bigint'],
    ['status', 'text'], ['is_test', 'boolean'], ['customer_id', 'bigint'], ['is_new_customer', 'boolean'], ['landing_site', 'text'],
    ['referrer', 'text'], ['utm_source', 'text'], ['utm_medium', 'text'], ['utm_campaign', 'text'], ['utm_content', 'text'],
    ['utm_term', 'text'], ['gclid', 'text'], ['fbclid', 'text'], ['msclkid', 'text'], ['ttclid', 'text'], ['channel', 'text'],
  ],
  3,
);

const ORDER_COPIED_COLUMNS = [
  'order_number', 'placed_at', 'placed_day', 'currency', 'gross_minor', 'discounts_minor', 'shipping_minor', 'taxes_minor',
  'customer_id', 'landing_site', 'referrer', 'utm_source', 'utm_medium', 'utm_campaign', 'utm_content', 'utm_term',
  'gclid', 'fbclid', 'msclkid', 'ttclid', 'channel', 'is_test', 'updated_at',
];

const UPSERT_ORDERS_SQL = `
  insert into orders (store_id, platform, external_id, order_number, placed_at, placed_day, currency, gross_minor,
    discounts_minor, shipping_minor, taxes_minor, refunds_minor, net_sales_minor, customer_id, is_new_customer,
    landing_site, referrer, utm_source, utm_medium, utm_campaign, utm_content, utm_term, gclid, fbclid, msclkid,
    ttclid, channel, status, is_test, updated_at)
  select $1, x.platform, x.external_id, x.order_number, x.placed_at, (x.placed_at at time zone $2)::date, x.currency,
    x.gross_minor, x.discounts_minor, x.shipping_minor, x.taxes_minor, 0, x.gross_minor - x.discounts_minor,
    x.customer_id, x.is_new_customer, x.landing_site, x.referrer, x.utm_source, x.utm_medium, x.utm_campaign, x.utm_content,
    x.utm_term, x.gclid, x.fbclid, x.msclkid, x.ttclid, x.channel, x.status, x.is_test, x.updated_at
  from ${ORDER_RECORDS.from}
  order by x.platform, x.external_id
  on conflict (store_id, platform, external_id) do update set
    ${ORDER_COPIED_COLUMNS.map((column) => `${column} = excluded.${column}`).join(', ')},
    net_sales_minor = excluded.gross_minor - excluded.discounts_minor - orders.refunds_minor,
    status = ${derivedStatusSql('excluded.status', 'orders.refunds_minor', 'excluded.gross_minor', 'excluded.discounts_minor', anyRefundSql('orders'))}
  where orders.updated_at <= excluded.updated_at
  returning id::text as id, platform, external_id, (xmax = 0) as inserted`;

type LineRow = NormalizedLine & { order_id: number; order_currency: string; product_platform: string };

const LINE_RECORDS = recordset<LineRow>(
  [
    ['order_id', 'bigint'], ['order_currency', 'text'], ['product_platform', 'text'], ['product_external_id', 'text'], ['external_id', 'text'],
    ['title', 'text'], ['sku', 'text'], ['quantity', 'int'], ['unit_price_minor', 'bigint'], ['discount_minor', 'bigint'], ['unit_cost_minor', 'bigint'],
  ],
  2,
);

/**
 * Lines of orders the batch inserted: there are no stored lines to merge with, so a line without a
 * cost takes its product's cost right away (when the product is priced in the order's currency).
 */
const INSERT_NEW_LINES_SQL = `
  insert into order_lines (store_id, order_id, product_id, external_id, title, sku, quantity, unit_price_minor, discount_minor, unit_cost_minor)
  select $1, x.order_id, p.id, x.external_id, x.title, x.sku, x.quantity, x.unit_price_minor, x.discount_minor,
         coalesce(x.unit_cost_minor, case when p.currency = x.order_currency then p.unit_cost_minor end)
  from ${LINE_RECORDS.from}
  left join products p on p.store_id = $1 and p.platform = x.product_platform and p.external_id = x.product_external_id
  order by x.order_id, x.external_id`;

/** Lines of orders that were stored before: a line sent without a cost keeps the cost it had. */
const UPSERT_LINES_SQL = `
  insert into order_lines (store_id, order_id, product_id, external_id, title, sku, quantity, unit_price_minor, discount_minor, unit_cost_minor)
  select $1, x.order_id, p.id, x.external_id, x.title, x.sku, x.quantity, x.unit_price_minor, x.discount_minor, x.unit_cost_minor
  from ${LINE_RECORDS.from}
  left join products p on p.store_id = $1 and p.platform = x.product_platform and p.external_id = x.product_external_id
  order by x.order_id, x.external_id
  on conflict (store_id, order_id, external_id) do update set
    product_id = excluded.product_id, title = excluded.title, sku = excluded.sku, quantity = excluded.quantity,
    unit_price_minor = excluded.unit_price_minor, discount_minor = excluded.discount_minor,
    unit_cost_minor = coalesce(excluded.unit_cost_minor, order_lines.unit_cost_minor)`;

/** Writes the lines of the applied orders that came with lines; returns how many were written. */
async function writeOrderLines(q: SqlRunner, storeId: number, orders: NormalizedOrder[], applied: Map<string, { id: number; inserted: boolean }>): Promise<number> {
  const insertedRows: LineRow[] = [];
  const updatedRows: LineRow[] = [];
  const updatedOrderIds: number[] = [];
  for (const order of orders) {
    const stored = applied.get(`${order.platform}\u0000${order.external_id}`);
    if (order.lines === null || !stored) continue;
    if (stored.inserted) {
      for (const line of order.lines) insertedRows.push({ ...line, order_id: stored.id, order_currency: order.currency, product_platform: order.platform });
    } else {
      updatedOrderIds.push(stored.id);
      for (const line of order.lines) updatedRows.push({ ...line, order_id: stored.id, order_currency: order.currency, product_platform: order.platform });
    }
  }
  let written = 0;
  if (insertedRows.length > 0) written += await q.run(INSERT_NEW_LINES_SQL, [storeId, ...LINE_RECORDS.parameters(insertedRows)]);
  if (updatedOrderIds.length === 0) return written;

  if (updatedRows.length > 0) written += await q.run(UPSERT_LINES_SQL, [storeId, ...LINE_RECORDS.parameters(updatedRows)]);
  // Lines the platform no longer sends.
  const kept = new Set(updatedRows.map((line) => `${line.order_id}\u0000${line.external_id}`));
  const stored = await q.rows<{ id: string; order_id: string; external_id: string }>(
    `select l.id::text as id, l.order_id::text as order_id, l.external_id
       from unnest($2::bigint[]) as k(id)
       join lateral (select l.id, l.order_id, l.external_id from order_lines l where l.store_id = $1 and l.order_id = k.id offset 0) l on true`,
    [storeId, updatedOrderIds],
  );
  const gone = stored.filter((line) => !kept.has(`${line.order_id}\u0000${line.external_id}`)).map((line) => line.id);
  if (gone.length > 0) await q.run(`delete from order_lines where store_id = $1 and id = any($2::bigint[])`, [storeId, gone]);
  // Cost snapshot for lines still without one: the product's cost when it is in the order's currency.
  await q.run(
    `update order_lines l set unit_cost_minor = p.unit_cost_minor
       from unnest($2::bigint[]) as k(id)
       join orders o on o.store_id = $1 and o.id = k.id
       join order_lines ol on ol.store_id = $1 and ol.order_id = o.id and ol.unit_cost_minor is null
       join products p on p.store_id = $1 and p.id = ol.product_id and p.unit_cost_minor is not null and p.currency = o.currency
      where l.store_id = $1 and l.id = ol.id`,
    [storeId, updatedOrderIds],
  );
  return written;
}

/** Every order of these customers, found through the (store, customer) index one customer at a time. */
const ORDERS_OF_CUSTOMERS = `unnest($2::bigint[]) as k(id)
   join lateral (select o.* from orders o where o.store_id = $1 and o.customer_id = k.id offset 0) o on true`;

async function ordersOfCustomers(q: SqlRunner, storeId: number, customerIds: number[]): Promise<number[]> {
  if (customerIds.length === 0) return [];
  const rows = await q.rows<{ id: string }>(`select o.id::text as id from ${ORDERS_OF_CUSTOMERS}`, [storeId, customerIds]);
  return rows.map((row) => num(row.id));
}

/**
 * is_new_customer of every order of these customers (only the earliest counting order is new) and
 * of the batch's guest orders (new unless cancelled or test). Reads, then flips the ones that differ.
 */
/** True for the first counting order of its customer (by placed_at, then id), over orders `o` of whole customers. */
const FIRST_COUNTING_ORDER_OF_CUSTOMER = `row_number() over (partition by o.customer_id order by (${COUNTING_ORDER}) desc, o.placed_at, o.id) = 1`;

async function refreshNewCustomerFlags(q: SqlRunner, storeId: number, customerIds: number[], guestOrderIds: number[]): Promise<void> {
  const flip: number[] = [];
  if (customerIds.length > 0) {
    const rows = await q.rows<{ id: string }>(
      `select w.id::text as id from (
         select o.id, o.is_new_customer,
                ${COUNTING_ORDER} and ${FIRST_COUNTING_ORDER_OF_CUSTOMER} as is_new
           from ${ORDERS_OF_CUSTOMERS}
       ) w
       where w.is_new_customer <> w.is_new`,
      [storeId, customerIds],
    );
    for (const row of rows) flip.push(num(row.id));
  }
  if (guestOrderIds.length > 0) {
    const rows = await q.rows<{ id: string }>(
      `select o.id::text as id from orders o
        where o.store_id = $1 and o.id = any($2::bigint[]) and o.customer_id is null
          and o.is_new_customer <> (${COUNTING_ORDER})`,
      [storeId, guestOrderIds],
    );
    for (const row of rows) flip.push(num(row.id));
  }
  await flipNewCustomerFlags(q, storeId, flip);
}

async function flipNewCustomerFlags(q: SqlRunner, storeId: number, orderIds: number[]): Promise<void> {
  if (orderIds.length === 0) return;
  await q.run(`update orders set is_new_customer = not is_new_customer where store_id = $1 and id = any($2::bigint[])`, [storeId, orderIds]);
}

/** The sum of orders `o`'s net sales in the store's currency (the parameter), each at its day's rate. */
function totalSpentSql(storeCurrencyParameter: string): string {
  return `coalesce(sum(case when o.currency = ${storeCurrencyParameter} then o.net_sales_minor
                            else round(o.net_sales_minor * ${rateSql(`${storeCurrencyParameter}::text`, 'o.placed_day')} / ${rateSql('o.currency', 'o.placed_day')})
                       end), 0)::bigint`;
}

/** first_order_at, orders_count and total_spent_minor (in the store's currency) of these customers. */
async function refreshCustomerAggregates(q: SqlRunner, storeId: number, storeCurrency: string, customerIds: number[]): Promise<void> {
  if (customerIds.length === 0) return;
  const changed = await q.rows<{ id: string; first_order_at: string | null; orders_count: number; total_spent: string }>(
    `select k.id::text as id, a.first_order_at::text as first_order_at, a.orders_count, a.total_spent::text as total_spent
       from unnest($2::bigint[]) as k(id)
       join lateral (select c.first_order_at, c.orders_count, c.total_spent_minor from customers c
                      where c.store_id = $1 and c.id = k.id limit 1) c on true
       cross join lateral (
         select min(o.placed_at) as first_order_at, count(*)::int as orders_count,
                ${totalSpentSql('$3')} as total_spent
           from orders o
          where o.store_id = $1 and o.customer_id = k.id and ${COUNTING_ORDER}
       ) a
      where c.first_order_at is distinct from a.first_order_at or c.orders_count <> a.orders_count
         or c.total_spent_minor <> a.total_spent`,
    [storeId, customerIds, storeCurrency],
  );
  if (changed.length === 0) return;
  await q.run(
    `update customers c
        set first_order_at = a.first_order_at, orders_count = a.orders_count, total_spent_minor = a.total_spent, updated_at = now()
       from unnest($2::bigint[], $3::timestamptz[], $4::int[], $5::bigint[]) as a(id, first_order_at, orders_count, total_spent)
      where c.store_id = $1 and c.id = any($2::bigint[]) and c.id = a.id`,
    [storeId, changed.map((row) => row.id), changed.map((row) => row.first_order_at), changed.map((row) => row.orders_count), changed.map((row) => row.total_spent)],
  );
}

/**
 * is_new_customer of every order of the store, by the rule of refreshNewCustomerFlags. The few
 * orders whose flag is wrong are found first and then updated by key: joining the ranking of every
 * order back to the table to find them cost a bulk load of 1M orders ~1.5 s more.
 */
async function settleNewCustomerFlags(q: SqlRunner, storeId: number): Promise<void> {
  const wrong = await q.rows<{ id: string }>(
    `select w.id::text as id
       from (select o.id, o.is_new_customer,
                    ${COUNTING_ORDER}
                    and (o.customer_id is null or ${FIRST_COUNTING_ORDER_OF_CUSTOMER}) as is_new
               from orders o where o.store_id = $1) w
      where w.is_new_customer <> w.is_new`,
    [storeId],
  );
  await flipNewCustomerFlags(q, storeId, wrong.map((row) => num(row.id)));
}

/** first_order_at, orders_count and total_spent_minor of every customer of the store, as refreshCustomerAggregates computes them. */
export async function settleCustomerAggregates(q: SqlRunner, storeId: number, storeCurrency: string): Promise<void> {
  await q.run(
    `update customers c
        set first_order_at = a.first_order_at, orders_count = a.orders_count, total_spent_minor = a.total_spent, updated_at = now()
       from (select c.id, min(o.placed_at) as first_order_at, count(o.id)::int as orders_count,
                    ${totalSpentSql('$2')} as total_spent
               from customers c
               left join orders o on o.store_id = c.store_id and o.customer_id = c.id and ${COUNTING_ORDER}
              where c.store_id = $1
              group by c.id) a
      where c.store_id = $1 and c.id = a.id
        and (c.first_order_at is distinct from a.first_order_at or c.orders_count <> a.orders_count or c.total_spent_minor <> a.total_spent)`,
    [storeId, storeCurrency],
  );
}

/** The currencies that customers' totals or reports will convert, checked to have a rate on the batch's first day. */
async function assertBatchFxCoverage(em: EntityManager, store: { timezone: string; currency: string }, orders: NormalizedOrder[]): Promise<void> {
  const currencies = new Set<string>();
  let earliest: string | null = null;
  for (const order of orders) {
    if (order.currency === store.currency) continue;
    currencies.add(order.currency);
    // ISO instants of one format (requireInstant): text order is time order.
    if (earliest === null || order.placed_at < earliest) earliest = order.placed_at;
  }
  if (earliest === null) return;
  await assertFxCoverage(em, [store.currency, ...currencies], dayInZone(earliest, store.timezone));
}

/**
 * is_new_customer as far as the batch alone tells: a counting guest order is new; a counting order
 * of a customer first seen in this batch is new when it is that customer's earliest in the batch
 * (by placed_at, then external id, which is the order ids are given in). Orders of customers seen
 * before start as returning. refreshNewCustomerFlags then corrects whatever the database disagrees with.
 */
function guessNewCustomerOrders(orders: NormalizedOrder[], newCustomerIds: Set<number>): void {
  const earliest = new Map<number, NormalizedOrder>();
  for (const order of orders) {
    const counting = isCountingOrder(order.status, order.is_test);
    order.is_new_customer = order.customer_id === null && counting;
    if (order.customer_id === null || !counting || !newCustomerIds.has(order.customer_id)) continue;
    const current = earliest.get(order.customer_id);
    const earlier =
      !current ||
      order.placed_at < current.placed_at ||
      (order.placed_at === current.placed_at && `${order.platform}\u0000${order.external_id}` < `${current.platform}\u0000${current.external_id}`);
    if (earlier) earliest.set(order.customer_id, order);
  }
  for (const order of earliest.values()) order.is_new_customer = true;
}

export interface IngestResult {
  inserted: number;
  updated: number;
  /** Rows older than what is stored (by updatedAt), left alone. */
  skipped: number;
}

interface NewCustomerRow {
  platform: string;
  external_id: string;
  email_hash: string | null;
  first_order_at: string | null;
  orders_count: number;
  total_spent_minor: number;
  /** The sealed name and e-mail (customer-contacts.ts) when an order carried them, else null. */
  contact_sealed: string | null;
  contact_digest: string | null;
  /** The name's search digests, space-separated (a recordset column cannot be an array). */
  name_search: string | null;
}

const NEW_CUSTOMER_RECORDS = recordset<NewCustomerRow>(
  [
    ['platform', 'text'], ['external_id', 'text'], ['email_hash', 'text'], ['first_order_at', 'timestamptz'], ['orders_count', 'int'], ['total_spent_minor', 'bigint'],
    ['contact_sealed', 'text'], ['contact_digest', 'text'], ['name_search', 'text'],
  ],
  2,
);

const INSERT_NEW_CUSTOMERS_SQL = `insert into customers (store_id, platform, external_id, email_hash, first_order_at, orders_count, total_spent_minor, contact_sealed, contact_digest, name_search, updated_at)
     select $1, x.platform, x.external_id, x.email_hash, x.first_order_at, x.orders_count, x.total_spent_minor,
            x.contact_sealed, x.contact_digest, string_to_array(x.name_search, ' '), now()
       from ${NEW_CUSTOMER_RECORDS.from}`;

const customerKey = (customer: { platform: string; external_id: string }) => `${customer.platform}\u0000${customer.external_id}`;

/** The batch's customers by platform and external id, and those the batch added. */
interface BatchCustomers {
  ids: Map<string, number>;
  inserted: Set<number>;
}

/** The stored customers of these keys (no lock), with their e-mail hash. */
async function lookUpCustomers(q: SqlRunner, storeId: number, customers: readonly NewCustomerRow[]) {
  if (customers.length === 0) return [];
  return q.rows<{ id: string; platform: string; external_id: string; email_hash: string | null; contact_digest: string | null }>(
    `select c.id::text as id, c.platform, c.external_id, c.email_hash, c.contact_digest
       from unnest($2::text[], $3::text[]) as k(platform, external_id)
       join lateral (select c.id, c.platform, c.external_id, c.email_hash, c.contact_digest from customers c
                      where c.store_id = $1 and c.platform = k.platform and c.external_id = k.external_id offset 0) c on true`,
    [storeId, customers.map((customer) => customer.platform), customers.map((customer) => customer.external_id)],
  );
}

/**
 * Adds the new customers and locks the known ones (in key order), so that no other batch changes
 * them before this one has refreshed their totals. A known customer is only written when its e-mail
 * changes (a write makes a new row version and index entries); the others are locked by the
 * conflict all the same, and looked up after.
 */
async function upsertCustomers(q: SqlRunner, storeId: number, customers: NewCustomerRow[]): Promise<BatchCustomers> {
  const ids = new Map<string, number>();
  const inserted = new Set<number>();
  if (customers.length === 0) return { ids, inserted };
  const rows = await q.rows<{ id: string; platform: string; external_id: string; inserted: boolean }>(
    `${INSERT_NEW_CUSTOMERS_SQL}
      order by x.platform, x.external_id
     on conflict (store_id, platform, external_id) do update
        set email_hash = coalesce(excluded.email_hash, customers.email_hash),
            contact_sealed = coalesce(excluded.contact_sealed, customers.contact_sealed),
            contact_digest = coalesce(excluded.contact_digest, customers.contact_digest),
            name_search = case when excluded.contact_sealed is null then customers.name_search else excluded.name_search end
      where (excluded.email_hash is not null and customers.email_hash is distinct from excluded.email_hash)
         or (excluded.contact_digest is not null and customers.contact_digest is distinct from excluded.contact_digest)
     returning id::text as id, platform, external_id, (xmax = 0) as inserted`,
    [storeId, ...NEW_CUSTOMER_RECORDS.parameters(customers)],
  );
  for (const row of rows) {
    ids.set(customerKey(row), num(row.id));
    if (row.inserted) inserted.add(num(row.id));
  }
  for (const row of await lookUpCustomers(q, storeId, customers.filter((customer) => !ids.has(customerKey(customer))))) {
    ids.set(customerKey(row), num(row.id));
  }
  return { ids, inserted };
}

/**
 * A bulk load's customers: looked up first, and only the new ones inserted. The load's transaction
 * holds the store's ingest lock, so the upsert's row locks (a write to the row of every returning
 * customer) would buy nothing. The load's two batches in flight may both add a customer between one
 * batch's look-up and its insert: `do nothing` and a second look-up settle that.
 */
async function addCustomersOfBulkLoad(q: SqlRunner, storeId: number, customers: NewCustomerRow[]): Promise<BatchCustomers> {
  const ids = new Map<string, number>();
  const inserted = new Set<number>();
  const stored = new Map((await lookUpCustomers(q, storeId, customers)).map((row) => [customerKey(row), row]));
  const fresh = customers.filter((customer) => !stored.has(customerKey(customer)));
  if (fresh.length > 0) {
    const rows = await q.rows<{ id: string; platform: string; external_id: string }>(
      `${INSERT_NEW_CUSTOMERS_SQL}
       on conflict (store_id, platform, external_id) do nothing
       returning id::text as id, platform, external_id`,
      [storeId, ...NEW_CUSTOMER_RECORDS.parameters(fresh)],
    );
    for (const row of rows) {
      ids.set(customerKey(row), num(row.id));
      inserted.add(num(row.id));
    }
    for (const row of await lookUpCustomers(q, storeId, fresh.filter((customer) => !ids.has(customerKey(customer))))) {
      stored.set(customerKey(row), row);
    }
  }
  for (const [key, row] of stored) ids.set(key, num(row.id));
  // An order that carries an e-mail or a name sets them, as the upsert does.
  const changed = customers.filter((customer) => {
    const row = stored.get(customerKey(customer));
    return row !== undefined && (
      (customer.email_hash !== null && customer.email_hash !== row.email_hash) ||
      (customer.contact_digest !== null && customer.contact_digest !== row.contact_digest));
  });
  if (changed.length > 0) {
    await q.run(
      `update customers c
          set email_hash = coalesce(x.email_hash, c.email_hash),
              contact_sealed = coalesce(x.contact_sealed, c.contact_sealed),
              contact_digest = coalesce(x.contact_digest, c.contact_digest),
              name_search = case when x.contact_sealed is null then c.name_search else string_to_array(x.name_search, ' ') end
         from ${NEW_CUSTOMER_RECORDS.from}
        where c.store_id = $1 and c.platform = x.platform and c.external_id = x.external_id`,
      [storeId, ...NEW_CUSTOMER_RECORDS.parameters(changed)],
    );
  }
  return { ids, inserted };
}

async function ingestOrderBatch(em: EntityManager, storeId: number, orders: NormalizedOrder[]): Promise<IngestResult> {
  return batchTransaction(em, storeId, async ({ tx, q, store, upkeep }) => {
    const clock = phaseClock('orders', orders.length);
    await assertBatchFxCoverage(tx, store, orders);
    clock.lap('lock+fx');

    // 1. Customers (see upsertCustomers and addCustomersOfBulkLoad).
    // One row per customer; an order that carries no e-mail does not erase another order's. A new
    // customer starts with the aggregates of the batch's orders (exact when they are all in the
    // store's currency), so that refreshCustomerAggregates rarely has to write it a second time.
    const customersByKey = new Map<string, NewCustomerRow>();
    const contacts = new Map<string, { name: string | null; email: string | null }>();
    for (const order of orders) {
      if (!order.customer) continue;
      const key = customerKey({ platform: order.platform, external_id: order.customer.externalId });
      let customer = customersByKey.get(key);
      if (!customer) {
        customer = {
          platform: order.platform, external_id: order.customer.externalId, email_hash: null, first_order_at: null, orders_count: 0, total_spent_minor: 0,
          contact_sealed: null, contact_digest: null, name_search: null,
        };
        customersByKey.set(key, customer);
      }
      customer.email_hash = order.customer.emailHash ?? customer.email_hash;
      if (order.customer.name !== null || order.customer.email !== null) {
        const before = contacts.get(key);
        contacts.set(key, { name: order.customer.name ?? before?.name ?? null, email: order.customer.email ?? before?.email ?? null });
      }
      if (!isCountingOrder(order.status, order.is_test)) continue;
      customer.orders_count += 1;
      if (customer.first_order_at === null || order.placed_at < customer.first_order_at) customer.first_order_at = order.placed_at;
      // A foreign currency needs a rate: left to refreshCustomerAggregates.
      customer.total_spent_minor += order.currency === store.currency ? order.gross_minor - order.discounts_minor : 0;
    }
    // The batch's last name and e-mail of each customer, sealed once.
    for (const [key, contact] of contacts) {
      const customer = customersByKey.get(key)!;
      const sealed = sealContact(storeId, customer.platform, customer.external_id, contact);
      customer.contact_sealed = sealed.contact_sealed;
      customer.contact_digest = sealed.contact_digest;
      customer.name_search = sealed.name_search.join(' ');
    }
    const customers = [...customersByKey.values()];
    const { ids: customerIds, inserted: newCustomerIds } = upkeep ? await upsertCustomers(q, storeId, customers) : await addCustomersOfBulkLoad(q, storeId, customers);
    // The orders' foreign keys probe customers next.
    if (newCustomerIds.size > 0) await analyzeGrownTables(q, storeId, { customers: newCustomerIds.size });
    for (const order of orders) {
      order.customer_id = order.customer ? customerIds.get(customerKey({ platform: order.platform, external_id: order.customer.externalId }))! : null;
    }
    guessNewCustomerOrders(orders, newCustomerIds);
    clock.lap('customers');

    // 2. The batch's stored orders, locked, and every order whose contribution the batch can change
    // (a bulk load settles the whole store at its end instead).
    const keys = [...orders].sort((a, b) => (a.platform + '\u0000' + a.external_id < b.platform + '\u0000' + b.external_id ? -1 : 1));
    const existing = !upkeep ? [] : await q.rows<{ id: string; customer_id: string | null }>(
      `select o.id::text as id, o.customer_id::text as customer_id
         from unnest($2::text[], $3::text[]) as k(platform, external_id)
         join lateral (select o.id, o.customer_id from orders o
                        where o.store_id = $1 and o.platform = k.platform and o.external_id = k.external_id
                          for update) o on true`,
      [storeId, keys.map((order) => order.platform), keys.map((order) => order.external_id)],
    );
    const affectedCustomers = new Set<number>(customerIds.values());
    for (const row of existing) if (row.customer_id !== null) affectedCustomers.add(num(row.customer_id));
    const affectedOrders = new Set<number>(existing.map((row) => num(row.id)));
    const delta = new RollupDelta();
    if (upkeep) {
      for (const id of await ordersOfCustomers(q, storeId, [...affectedCustomers])) affectedOrders.add(id);
      clock.lap(`affected(${affectedOrders.size})`);
      delta.add(await orderContributions(q, storeId, [...affectedOrders]), -1);
      clock.lap('before');
    }

    // 3. The orders themselves; an older version than the stored one is skipped.
    const upserted = await q.rows<{ id: string; platform: string; external_id: string; inserted: boolean }>(UPSERT_ORDERS_SQL, [
      storeId,
      store.timezone,
      ...ORDER_RECORDS.parameters(orders),
    ]);
    const orderIds = new Map(upserted.map((row) => [`${row.platform}\u0000${row.external_id}`, num(row.id)]));
    for (const id of orderIds.values()) affectedOrders.add(id);
    clock.lap('orders');

    // 4. Lines of the applied orders that came with lines.
    const applied = new Map(upserted.map((row) => [`${row.platform}\u0000${row.external_id}`, { id: num(row.id), inserted: row.inserted }]));
    const lineCount = await writeOrderLines(q, storeId, orders, applied);
    clock.lap('lines');

    await analyzeGrownTables(q, storeId, { orders: upserted.filter((row) => row.inserted).length, order_lines: lineCount });
    clock.lap('analyze');
    const inserted = upserted.filter((row) => row.inserted).length;
    const result = { inserted, updated: upserted.length - inserted, skipped: orders.length - upserted.length };
    if (!upkeep) {
      clock.done();
      return result;
    }

    // 5. New vs returning and the customers' aggregates. The insert-time guesses are exact for a
    // customer first seen in this batch whose orders were all inserted by it (it has no others), and
    // for inserted guest orders; everything else is read back and corrected.
    const insertedKeys = new Set(upserted.filter((row) => row.inserted).map((row) => `${row.platform}\u0000${row.external_id}`));
    const settledFlags = new Set(newCustomerIds);
    const settledAggregates = new Set(newCustomerIds);
    for (const order of orders) {
      if (order.customer_id === null) continue;
      if (!insertedKeys.has(`${order.platform}\u0000${order.external_id}`)) {
        settledFlags.delete(order.customer_id);
        settledAggregates.delete(order.customer_id);
      } else if (order.currency !== store.currency) {
        settledAggregates.delete(order.customer_id);
      }
    }
    const guestOrderIds = orders
      .filter((order) => order.customer_id === null && !insertedKeys.has(`${order.platform}\u0000${order.external_id}`))
      .map((order) => orderIds.get(`${order.platform}\u0000${order.external_id}`))
      .filter((id): id is number => id !== undefined);
    await refreshNewCustomerFlags(q, storeId, [...affectedCustomers].filter((id) => !settledFlags.has(id)), guestOrderIds);
    await refreshCustomerAggregates(q, storeId, store.currency, [...affectedCustomers].filter((id) => !settledAggregates.has(id)));
    clock.lap('flags+aggregates');

    // 6. Rollups: contribution after minus before.
    delta.add(await orderContributions(q, storeId, [...affectedOrders]), 1);
    clock.lap('after');
    await applyRollupDelta(q, storeId, delta);
    clock.lap('apply');
    // Their attribution credits are computed again by the attribution job.
    await markOrdersForAttribution(q, storeId, [...affectedOrders]);
    clock.done();
    return result;
  });
}

/** Adds or updates orders with their customers and lines; see IngestOrder. */
export async function ingestOrders(em: EntityManager, store: StoreRef, orders: IngestOrder[]): Promise<IngestResult> {
  const normalized = latestPerKey(
    await mapInSlices(orders, normalizeOrder),
    (order) => `${order.platform}\u0000${order.external_id}`,
    (order) => order.updated_at,
  );
  const total: IngestResult = { inserted: 0, updated: 0, skipped: orders.length - normalized.length };
  const storeId = storeIdOf(store);
  for (const batch of chunks(normalized, inBulkLoad(storeId) ? BULK_LOAD_BATCH_SIZE : INGEST_BATCH_SIZE)) {
    const result = await ingestOrderBatch(em, storeId, batch);
    total.inserted += result.inserted;
    total.updated += result.updated;
    total.skipped += result.skipped;
  }
  return total;
}

// ---------------------------------------------------------------------------------------------
// Refunds

interface NormalizedRefund {
  platform: string;
  external_id: string;
  order_platform: string;
  order_external_id: string;
  refunded_at: string;
  amount_minor: number;
  shipping_minor: number;
  taxes_minor: number;
  adjustments_minor: number;
  currency: string;
  reason: string | null;
}

function normalizeRefund(refund: IngestRefund): NormalizedRefund {
  const what = `Refund ${String(refund?.platform)}/${String(refund?.externalId)}`;
  const platform = requireText(refund.platform, what, 'platform', 32);
  return {
    platform,
    external_id: requireText(refund.externalId, what, 'externalId'),
    order_platform: refund.orderPlatform ? requireText(refund.orderPlatform, what, 'orderPlatform', 32) : platform,
    order_external_id: requireText(refund.orderExternalId, what, 'orderExternalId'),
    refunded_at: requireInstant(refund.refundedAt, what, 'refundedAt'),
    amount_minor: requireInteger(refund.amountMinor, what, 'amountMinor', { min: 0 }),
    shipping_minor: requireInteger(refund.shippingMinor, what, 'shippingMinor', { min: 0, fallback: 0 }),
    taxes_minor: requireInteger(refund.taxesMinor, what, 'taxesMinor', { min: 0, fallback: 0 }),
    // Negative when the shop kept something back (a restocking fee): money not returned.
    adjustments_minor: requireInteger(refund.adjustmentsMinor, what, 'adjustmentsMinor', { fallback: 0 }),
    currency: requireCurrency(refund.currency, what),
    reason: optionalText(refund.reason, what, 'reason', 2000),
  };
}

const REFUND_RECORDS = recordset<NormalizedRefund & { order_id: number }>(
  [
    ['order_id', 'bigint'], ['platform', 'text'], ['external_id', 'text'], ['refunded_at', 'timestamptz'], ['amount_minor', 'bigint'],
    ['shipping_minor', 'bigint'], ['taxes_minor', 'bigint'], ['adjustments_minor', 'bigint'], ['currency', 'text'], ['reason', 'text'],
  ],
  3,
);

async function ingestRefundBatch(em: EntityManager, storeId: number, refunds: NormalizedRefund[]): Promise<IngestResult> {
  return batchTransaction(em, storeId, async ({ q, store, upkeep }) => {
    const clock = phaseClock('refunds', refunds.length);

    const orderKeys = [...new Set(refunds.map((refund) => `${refund.order_platform}\u0000${refund.order_external_id}`))].sort().map((key) => key.split('\u0000'));
    const orders = await q.rows<{ id: string; platform: string; external_id: string; customer_id: string | null; currency: string }>(
      `select o.id::text as id, o.platform, o.external_id, o.customer_id::text as customer_id, o.currency
         from unnest($2::text[], $3::text[]) as k(platform, external_id)
         join lateral (select o.id, o.platform, o.external_id, o.customer_id, o.currency from orders o
                        where o.store_id = $1 and o.platform = k.platform and o.external_id = k.external_id
                          for update) o on true`,
      [storeId, orderKeys.map((key) => key[0]), orderKeys.map((key) => key[1])],
    );
    const orderByKey = new Map(orders.map((order) => [`${order.platform}\u0000${order.external_id}`, order]));
    const rows = refunds.map((refund) => {
      const order = orderByKey.get(`${refund.order_platform}\u0000${refund.order_external_id}`);
      if (!order) {
        throw new AppError('BAD_REQUEST', `Refund ${refund.platform}/${refund.external_id}: order ${refund.order_platform}/${refund.order_external_id} has not been ingested`);
      }
      if (order.currency !== refund.currency) {
        throw new AppError('BAD_REQUEST', `Refund ${refund.platform}/${refund.external_id}: currency ${refund.currency} differs from its order's ${order.currency}`);
      }
      return { ...refund, order_id: num(order.id) };
    });

    // A stored refund may have pointed at another order: that one changes too.
    const refundKeys = [...rows].sort((a, b) => (`${a.platform}\u0000${a.external_id}` < `${b.platform}\u0000${b.external_id}` ? -1 : 1));
    const previous = await q.rows<{ order_id: string }>(
      `select r.order_id::text as order_id
         from unnest($2::text[], $3::text[]) as k(platform, external_id)
         join lateral (select r.order_id from refunds r
                        where r.store_id = $1 and r.platform = k.platform and r.external_id = k.external_id
                          for update) r on true`,
      [storeId, refundKeys.map((row) => row.platform), refundKeys.map((row) => row.external_id)],
    );
    const changedOrders = new Set<number>([...rows.map((row) => row.order_id), ...previous.map((row) => num(row.order_id))]);
    // Their customers' orders change too (LTV, totals), unless a bulk load settles the store at its end.
    const customerRows = !upkeep ? [] : await q.rows<{ customer_id: string }>(
      `select distinct customer_id::text as customer_id from orders
        where store_id = $1 and id = any($2::bigint[]) and customer_id is not null`,
      [storeId, [...changedOrders]],
    );
    const customers = customerRows.map((row) => num(row.customer_id));
    const affectedOrders = new Set(changedOrders);
    const delta = new RollupDelta();
    if (upkeep) {
      for (const id of await ordersOfCustomers(q, storeId, customers)) affectedOrders.add(id);
      // A refund changes no line, and no order into or out of cancelled: the product rows stay.
      delta.add(await orderContributions(q, storeId, [...affectedOrders], { lines: false }), -1);
    }

    const upserted = await q.rows<{ inserted: boolean }>(
      `insert into refunds (store_id, order_id, platform, external_id, refunded_at, refunded_day, amount_minor, shipping_minor, taxes_minor, adjustments_minor, currency, reason)
       select $1, x.order_id, x.platform, x.external_id, x.refunded_at, (x.refunded_at at time zone $2)::date, x.amount_minor,
              x.shipping_minor, x.taxes_minor, x.adjustments_minor, x.currency, x.reason
         from ${REFUND_RECORDS.from}
        order by x.platform, x.external_id
       on conflict (store_id, platform, external_id) do update set
         order_id = excluded.order_id, refunded_at = excluded.refunded_at, refunded_day = excluded.refunded_day,
         amount_minor = excluded.amount_minor, shipping_minor = excluded.shipping_minor, taxes_minor = excluded.taxes_minor,
         adjustments_minor = excluded.adjustments_minor, currency = excluded.currency, reason = excluded.reason
       returning (xmax = 0) as inserted`,
      [storeId, store.timezone, ...REFUND_RECORDS.parameters(rows)],
    );

    await analyzeGrownTables(q, storeId, { refunds: upserted.filter((row) => row.inserted).length });
    const totals = await q.rows<{ id: string; total: string; refunded: boolean }>(
      `select k.id::text as id, t.total::text as total, t.refunded
         from unnest($2::bigint[]) as k(id)
         cross join lateral (select coalesce(sum(r.amount_minor), 0)::bigint as total, count(*) > 0 as refunded
                               from refunds r where r.store_id = $1 and r.order_id = k.id) t`,
      [storeId, [...changedOrders]],
    );
    await q.run(
      `update orders o
          set refunds_minor = t.total, net_sales_minor = o.gross_minor - o.discounts_minor - t.total,
              status = ${derivedStatusSql('o.status', 't.total', 'o.gross_minor', 'o.discounts_minor', 't.refunded')}
         from unnest($2::bigint[], $3::bigint[], $4::boolean[]) as t(id, total, refunded)
        where o.store_id = $1 and o.id = any($2::bigint[]) and o.id = t.id
          and (o.refunds_minor <> t.total or o.status <> ${derivedStatusSql('o.status', 't.total', 'o.gross_minor', 'o.discounts_minor', 't.refunded')})`,
      [storeId, totals.map((row) => row.id), totals.map((row) => row.total), totals.map((row) => row.refunded)],
    );
    if (upkeep) {
      await refreshCustomerAggregates(q, storeId, store.currency, customers);
      delta.add(await orderContributions(q, storeId, [...affectedOrders], { lines: false }), 1);
      await applyRollupDelta(q, storeId, delta);
      await markOrdersForAttribution(q, storeId, [...changedOrders]);
    }
    clock.lap('all');
    clock.done();
    const inserted = upserted.filter((row) => row.inserted).length;
    return { inserted, updated: upserted.length - inserted, skipped: 0 };
  });
}

/** Adds or updates refunds; each lowers net sales on its own day and updates its order. */
export async function ingestRefunds(em: EntityManager, store: StoreRef, refunds: IngestRefund[]): Promise<IngestResult> {
  const normalized = latestPerKey(refunds.map(normalizeRefund), (refund) => `${refund.platform}\u0000${refund.external_id}`);
  const total: IngestResult = { inserted: 0, updated: 0, skipped: refunds.length - normalized.length };
  for (const batch of chunks(normalized)) {
    const result = await ingestRefundBatch(em, storeIdOf(store), batch);
    total.inserted += result.inserted;
    total.updated += result.updated;
  }
  return total;
}

// ---------------------------------------------------------------------------------------------
// Ad and e-mail metrics

function normalizeAdMetric(row: IngestAdMetric) {
  const what = `Ad metrics ${String(row?.platform)}/${String(row?.campaignId)}/${String(row?.day)}`;
  const conversions = row.conversions ?? 0;
  if (typeof conversions !== 'number' || !Number.isFinite(conversions) || conversions < 0) invalid(what, 'conversions must be a number of at least 0');
  return {
    platform: requireText(row.platform, what, 'platform', 32),
    account_id: requireText(row.accountId, what, 'accountId', 64),
    campaign_id: requireText(row.campaignId, what, 'campaignId', 64),
    day: requireDay(row.day, what),
    campaign_name: optionalText(row.campaignName, what, 'campaignName') ?? '',
    currency: requireCurrency(row.currency, what),
    impressions: requireInteger(row.impressions, what, 'impressions', { min: 0, fallback: 0 }),
    clicks: requireInteger(row.clicks, what, 'clicks', { min: 0, fallback: 0 }),
    spend_minor: requireInteger(row.spendMinor, what, 'spendMinor', { min: 0 }),
    conversions,
    conversion_value_minor: requireInteger(row.conversionValueMinor, what, 'conversionValueMinor', { min: 0, fallback: 0 }),
  };
}

/**
 * A feed of daily campaign rows (ad or e-mail metrics): how rows are keyed, locked, upserted and what
 * they add to the channel rollups.
 */
interface MetricFeed<Row, Key> {
  keyOf(row: Row): string;
  key(row: Row): Key;
  keyArrays(keys: Key[]): unknown[];
  /** Locks the stored rows of the keys ($1 the store, $2.. the key arrays). */
  lockSql: string;
  /** Upserts the batch ($1 the store, then `records`' arrays) returning `inserted`. */
  upsertSql: string;
  records: ReturnType<typeof recordset<Row>>;
  contributions(q: SqlRunner, storeId: number, keys: Key[]): Promise<ContributionRow[]>;
}

/**
 * Adds or replaces a feed's rows, batch by batch: the rows locked in key order (so concurrent writers
 * lock in the same order), their old contributions taken out of the channel rollups, the new ones added.
 */
async function ingestMetricRows<Row, Key>(em: EntityManager, store: StoreRef, rows: Row[], feed: MetricFeed<Row, Key>): Promise<IngestResult> {
  const storeId = storeIdOf(store);
  const normalized = latestPerKey(rows, feed.keyOf).sort((a, b) => (feed.keyOf(a) < feed.keyOf(b) ? -1 : 1));
  const total: IngestResult = { inserted: 0, updated: 0, skipped: rows.length - normalized.length };
  for (const batch of chunks(normalized)) {
    await batchTransaction(em, storeId, async ({ q, upkeep }) => {
      const keys = batch.map(feed.key);
      const delta = new RollupDelta();
      // The lock keeps the contributions read here true until the upsert; a bulk load reads none.
      if (upkeep) {
        await q.run(feed.lockSql, [storeId, ...feed.keyArrays(keys)]);
        delta.add(await feed.contributions(q, storeId, keys), -1);
      }
      const upserted = await q.rows<{ inserted: boolean }>(feed.upsertSql, [storeId, ...feed.records.parameters(batch)]);
      if (upkeep) {
        delta.add(await feed.contributions(q, storeId, keys), 1);
        await applyRollupDelta(q, storeId, delta);
      }
      const inserted = upserted.filter((row) => row.inserted).length;
      total.inserted += inserted;
      total.updated += upserted.length - inserted;
    });
  }
  return total;
}

type NormalizedAdMetric = ReturnType<typeof normalizeAdMetric>;

const AD_METRIC_RECORDS = recordset<NormalizedAdMetric>(
  [
    ['platform', 'text'], ['account_id', 'text'], ['campaign_id', 'text'], ['day', 'date'], ['campaign_name', 'text'], ['currency', 'text'],
    ['impressions', 'bigint'], ['clicks', 'bigint'], ['spend_minor', 'bigint'], ['conversions', 'float8'], ['conversion_value_minor', 'bigint'],
  ],
  2,
);

const AD_METRIC_FEED: MetricFeed<NormalizedAdMetric, AdMetricKey> = {
  keyOf: (row) => [row.platform, row.account_id, row.campaign_id, row.day].join('\u0000'),
  key: (row) => ({ platform: row.platform, accountId: row.account_id, campaignId: row.campaign_id, day: row.day }),
  keyArrays: adKeyArrays,
  lockSql: `select 1
           from unnest($2::text[], $3::text[], $4::text[], $5::date[]) as k(platform, account_id, campaign_id, day)
           join lateral (select 1 from ad_metrics_daily a
                          where a.store_id = $1 and a.platform = k.platform and a.account_id = k.account_id
                            and a.campaign_id = k.campaign_id and a.day = k.day
                            for update) a on true`,
  upsertSql: `insert into ad_metrics_daily (store_id, platform, account_id, campaign_id, day, campaign_name, currency, impressions, clicks, spend_minor, conversions, conversion_value_minor)
         select $1, x.platform, x.account_id, x.campaign_id, x.day, x.campaign_name, x.currency, x.impressions, x.clicks, x.spend_minor, x.conversions, x.conversion_value_minor
           from ${AD_METRIC_RECORDS.from}
          order by x.platform, x.account_id, x.campaign_id, x.day
         on conflict (store_id, platform, account_id, campaign_id, day) do update set
           campaign_name = excluded.campaign_name, currency = excluded.currency, impressions = excluded.impressions,
           clicks = excluded.clicks, spend_minor = excluded.spend_minor, conversions = excluded.conversions,
           conversion_value_minor = excluded.conversion_value_minor
         returning (xmax = 0) as inserted`,
  records: AD_METRIC_RECORDS,
  contributions: adMetricContributions,
};

/** Adds or replaces daily campaign rows of advertising platforms; they feed the channel rollups. */
export async function ingestAdMetrics(em: EntityManager, store: StoreRef, rows: IngestAdMetric[]): Promise<IngestResult> {
  return ingestMetricRows(em, store, rows.map(normalizeAdMetric), AD_METRIC_FEED);
}

function normalizeEmailMetric(row: IngestEmailMetric) {
  const what = `E-mail metrics ${String(row?.platform)}/${String(row?.campaignId)}/${String(row?.day)}`;
  return {
    platform: requireText(row.platform, what, 'platform', 32),
    campaign_id: requireText(row.campaignId, what, 'campaignId', 64),
    day: requireDay(row.day, what),
    campaign_name: optionalText(row.campaignName, what, 'campaignName') ?? '',
    currency: requireCurrency(row.currency, what),
    sends: requireInteger(row.sends, what, 'sends', { min: 0, fallback: 0 }),
    opens: requireInteger(row.opens, what, 'opens', { min: 0, fallback: 0 }),
    clicks: requireInteger(row.clicks, what, 'clicks', { min: 0, fallback: 0 }),
    attributed_orders: requireInteger(row.attributedOrders, what, 'attributedOrders', { min: 0, fallback: 0 }),
    attributed_revenue_minor: requireInteger(row.attributedRevenueMinor, what, 'attributedRevenueMinor', { min: 0, fallback: 0 }),
    spend_minor: requireInteger(row.spendMinor, what, 'spendMinor', { min: 0, fallback: 0 }),
  };
}

type NormalizedEmailMetric = ReturnType<typeof normalizeEmailMetric>;

const EMAIL_METRIC_RECORDS = recordset<NormalizedEmailMetric>(
  [
    ['platform', 'text'], ['campaign_id', 'text'], ['day', 'date'], ['campaign_name', 'text'], ['currency', 'text'], ['sends', 'bigint'],
    ['opens', 'bigint'], ['clicks', 'bigint'], ['attributed_orders', 'int'], ['attributed_revenue_minor', 'bigint'], ['spend_minor', 'bigint'],
  ],
  2,
);

const EMAIL_METRIC_FEED: MetricFeed<NormalizedEmailMetric, EmailMetricKey> = {
  keyOf: (row) => [row.platform, row.campaign_id, row.day].join('\u0000'),
  key: (row) => ({ platform: row.platform, campaignId: row.campaign_id, day: row.day }),
  keyArrays: emailKeyArrays,
  lockSql: `select 1
           from unnest($2::text[], $3::text[], $4::date[]) as k(platform, campaign_id, day)
           join lateral (select 1 from email_metrics_daily e
                          where e.store_id = $1 and e.platform = k.platform and e.campaign_id = k.campaign_id and e.day = k.day
                            for update) e on true`,
  upsertSql: `insert into email_metrics_daily (store_id, platform, campaign_id, day, campaign_name, currency, sends, opens, clicks, attributed_orders, attributed_revenue_minor, spend_minor)
         select $1, x.platform, x.campaign_id, x.day, x.campaign_name, x.currency, x.sends, x.opens, x.clicks, x.attributed_orders, x.attributed_revenue_minor, x.spend_minor
           from ${EMAIL_METRIC_RECORDS.from}
          order by x.platform, x.campaign_id, x.day
         on conflict (store_id, platform, campaign_id, day) do update set
           campaign_name = excluded.campaign_name, currency = excluded.currency, sends = excluded.sends, opens = excluded.opens,
           clicks = excluded.clicks, attributed_orders = excluded.attributed_orders,
           attributed_revenue_minor = excluded.attributed_revenue_minor, spend_minor = excluded.spend_minor
         returning (xmax = 0) as inserted`,
  records: EMAIL_METRIC_RECORDS,
  contributions: emailMetricContributions,
};

/** Adds or replaces daily campaign rows of e-mail platforms; they feed the channel rollups. */
export async function ingestEmailMetrics(em: EntityManager, store: StoreRef, rows: IngestEmailMetric[]): Promise<IngestResult> {
  return ingestMetricRows(em, store, rows.map(normalizeEmailMetric), EMAIL_METRIC_FEED);
}

// ---------------------------------------------------------------------------------------------
// Products

function normalizeProduct(product: IngestProduct) {
  const what = `Product ${String(product?.platform)}/${String(product?.externalId)}`;
  return {
    platform: requireText(product.platform, what, 'platform', 32),
    external_id: requireText(product.externalId, what, 'externalId'),
    title: typeof product.title === 'string' ? product.title : '',
    sku: optionalText(product.sku, what, 'sku'),
    price_minor: requireInteger(product.priceMinor, what, 'priceMinor', { min: 0 }),
    currency: requireCurrency(product.currency, what),
    unit_cost_minor: product.unitCostMinor === undefined || product.unitCostMinor === null ? null : requireInteger(product.unitCostMinor, what, 'unitCostMinor', { min: 0 }),
    image_url: optionalText(product.imageUrl, what, 'imageUrl', 2000),
    active: product.active !== false,
  };
}

const PRODUCT_RECORDS = recordset<ReturnType<typeof normalizeProduct>>(
  [
    ['platform', 'text'], ['external_id', 'text'], ['title', 'text'], ['sku', 'text'], ['price_minor', 'bigint'], ['currency', 'text'],
    ['unit_cost_minor', 'bigint'], ['image_url', 'text'], ['active', 'boolean'],
  ],
  2,
);

/** Adds or updates catalogue products. A missing unit cost keeps the one stored (e.g. edited in the P&L). */
export async function upsertProducts(em: EntityManager, store: StoreRef, products: IngestProduct[]): Promise<IngestResult> {
  const storeId = storeIdOf(store);
  const normalized = latestPerKey(products.map(normalizeProduct), (product) => `${product.platform}\u0000${product.external_id}`);
  const total: IngestResult = { inserted: 0, updated: 0, skipped: products.length - normalized.length };
  for (const batch of chunks(normalized)) {
    const rows = await sqlRunner(em).rows<{ inserted: boolean }>(
      `insert into products (store_id, platform, external_id, title, sku, price_minor, currency, unit_cost_minor, image_url, active, updated_at)
       select $1, x.platform, x.external_id, x.title, x.sku, x.price_minor, x.currency, x.unit_cost_minor, x.image_url, x.active, now()
         from ${PRODUCT_RECORDS.from}
        order by x.platform, x.external_id
       on conflict (store_id, platform, external_id) do update set
         title = excluded.title, sku = excluded.sku, price_minor = excluded.price_minor, currency = excluded.currency,
         unit_cost_minor = coalesce(excluded.unit_cost_minor, products.unit_cost_minor), image_url = excluded.image_url,
         active = excluded.active, updated_at = now()
       returning (xmax = 0) as inserted`,
      [storeId, ...PRODUCT_RECORDS.parameters(batch)],
    );
    const inserted = rows.filter((row) => row.inserted).length;
    total.inserted += inserted;
    total.updated += rows.length - inserted;
  }
  return total;
}
