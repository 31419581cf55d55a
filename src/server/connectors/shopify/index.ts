import { ConnectorRequestError, MalformedResponseError, type Connector, type ConnectorContext, type SourceDayTotal, type SyncBatch, type SyncWindow } from '../connector.ts';
import { decimalToMinor } from '../money.ts';
import { storeDaysOf, type DayOrdersLookup } from '../store-common.ts';
import { BulkFileGoneError, openBulkStream, type BulkStreamPosition } from './bulk.ts';
import {
  SHOPIFY,
  SHOPIFY_COUNTED_ORDERS,
  SHOPIFY_MAX_PAGE_SIZE,
  SHOPIFY_REFUND_IDS_PER_ORDER,
  ShopifyClient,
  bulkOrdersQuery,
  exchangeAuthorizationCode,
  normalizeShopDomain,
  refreshAccessToken,
  searchRange,
  shopifyQuerySizes,
  type ShopifyOrderNode,
  type ShopifyQuerySizes,
  type ShopifyRefundNode,
} from './client.ts';
import { mapShopifyOrder, mapShopifyProduct, type MappedShopifyOrder } from './map.ts';
import { shopifyAuthorizeUrl, verifyShopifyCallback } from './oauth.ts';

// Shopify as a Connector. A window reads, in order, the products (the whole catalogue on a backfill,
// the changed ones on an incremental sync), then the orders updated in [since, until): through a bulk
// operation for a backfill of more than `bulkThreshold` orders, else page by page, each page's orders
// completed with the rest of their lines and their refunds by follow-up queries. Every query is sized
// with cost.ts to stay under Shopify's single-query ceiling. Token refresh is the engine's job.

/** Where a window's reading stands (opaque to the engine; JSON). */
interface ShopifyCursor {
  phase: 'products' | 'orders' | 'bulk';
  /** Shopify's endCursor of the last page handed out (products, orders). */
  after: string | null;
  shopCurrency?: string;
  total?: number;
  /** The bulk operation being read, and how many lines of its file were handed out. */
  bulk?: { operationId: string | null; linesDone: number };
}

function parseCursor(raw: string | null): ShopifyCursor {
  if (!raw) return { phase: 'products', after: null };
  try {
    const cursor = JSON.parse(raw) as ShopifyCursor;
    if (cursor.phase === 'products' || cursor.phase === 'orders' || cursor.phase === 'bulk') return cursor;
  } catch {
    // fall through
  }
  throw new MalformedResponseError(SHOPIFY, `sync cursor not understood: ${raw.slice(0, 80)}`);
}

const DAY_MS = 86_400_000;
/**
 * A window longer than this is a backfill (the runner's incremental windows run from the last sync's
 * end less a day): it reads the whole catalogue, and may use a bulk operation.
 */
const BACKFILL_WINDOW_MS = 7 * DAY_MS;
/**
 * Backfills of more orders than this go through a bulk operation. A page of 10 orders (cost.ts: 842
 * points requested, ~350 actually spent for orders of 2-3 lines) on a Standard plan's 100 points/s
 * reads ~3 orders a second: 1,500 orders take ~8 minutes, 100,000 ten hours; a bulk operation has no
 * rate limit (shopify.dev/docs/apps/build/apis/graphql-admin/rate-limits, "Bulk operations") and
 * exports that many in minutes. Below this, the few pages are quicker than starting an operation.
 */
export const SHOPIFY_BULK_THRESHOLD = 250;
/** Orders handed out per batch from a bulk file (the runner ingests ~2,000 rows at a time). */
const BULK_BATCH_ORDERS = 1000;
/** While a bulk operation runs, fetchBatch polls this often, for at most BULK_POLL_BUDGET_MS. */
const BULK_POLL_INTERVAL_MS = 2000;
const BULK_POLL_BUDGET_MS = 20_000;

export interface ShopifyConnectorOptions {
  /** At most this many orders per GraphQL page (the cost budget may allow fewer). */
  ordersPageSize?: number;
  productsPageSize?: number;
  /** Backfills of more orders than this use a bulk operation (default SHOPIFY_BULK_THRESHOLD). */
  bulkThreshold?: number;
  /** Orders per batch read from a bulk file. */
  bulkBatchOrders?: number;
  /**
   * sourceTotals also reports Shopify's own net sales per day (ShopifyQL), when the store's days are
   * the shop's (the same time zone). On by default; false compares order counts only.
   */
  netSalesFromShopifyQL?: boolean;
}

/** An order of a page with the rest of its lines and its refunds read (follow-up queries, each sized under the ceiling). */
async function completeOrders(client: ShopifyClient, sizes: ShopifyQuerySizes, nodes: ShopifyOrderNode[]): Promise<ShopifyOrderNode[]> {
  const refundIds = new Map<string, string[]>();
  for (const node of nodes) {
    let info = node.lineItems.pageInfo;
    while (info?.hasNextPage && info.endCursor) {
      const page = await client.orderLines(node.id, sizes.linesPerFollowUp, info.endCursor);
      node.lineItems.nodes.push(...page.nodes);
      info = { hasNextPage: page.hasNextPage, endCursor: page.endCursor };
    }
    node.lineItems.pageInfo = { hasNextPage: false, endCursor: null };
    const ids = node.refunds.length >= SHOPIFY_REFUND_IDS_PER_ORDER ? await client.orderRefundIds(node.id) : node.refunds.map((refund) => refund.id);
    refundIds.set(node.id, ids);
  }
  const wanted = [...refundIds.values()].flat();
  const details = new Map<string, ShopifyRefundNode>();
  for (const refund of await client.refunds(wanted, sizes.refundsPerQuery)) {
    let info = refund.refundLineItems?.pageInfo;
    while (info?.hasNextPage && info.endCursor) {
      const page = await client.refundLines(refund.id, sizes.refundLinesPerFollowUp, info.endCursor);
      refund.refundLineItems!.nodes.push(...page.nodes);
      info = { hasNextPage: page.hasNextPage, endCursor: page.endCursor };
    }
    if (refund.refundShippingLines?.pageInfo?.hasNextPage || refund.orderAdjustments?.pageInfo?.hasNextPage) {
      throw new ConnectorRequestError(SHOPIFY, 200, `refund ${refund.id} has more refunded shipping lines or adjustments than we read; it cannot be counted exactly`);
    }
    details.set(refund.id, refund);
  }
  return nodes.map((node) => ({ ...node, refunds: refundIds.get(node.id)!.map((id) => details.get(id)!) }));
}

/**
 * One order with its refunds, read from Shopify (e.g. when a refund arrives by webhook), in shop
 * money and net of tax; null when the shop has no such order.
 */
export async function fetchShopifyOrder(ctx: ConnectorContext, orderId: string): Promise<MappedShopifyOrder | null> {
  const client = new ShopifyClient(ctx);
  const page = await client.orders(1, null, `id:${orderId.replace(/\D/g, '')}`);
  if (!page.nodes[0]) return null;
  const [complete] = await completeOrders(client, shopifyQuerySizes(), page.nodes);
  return mapShopifyOrder(complete!);
}

function isBackfill(window: SyncWindow): boolean {
  return window.until.getTime() - window.since.getTime() > BACKFILL_WINDOW_MS;
}

function warningsOf(client: ShopifyClient): { warnings?: string[] } {
  return client.warnings.size ? { warnings: [...client.warnings] } : {};
}

export function createShopifyConnector(options: ShopifyConnectorOptions = {}): Connector & DayOrdersLookup {
  const sizes = shopifyQuerySizes({ orders: options.ordersPageSize, products: options.productsPageSize });
  const bulkThreshold = options.bulkThreshold ?? SHOPIFY_BULK_THRESHOLD;
  const bulkBatchOrders = options.bulkBatchOrders ?? BULK_BATCH_ORDERS;

  async function ordersBatch(client: ShopifyClient, cursor: ShopifyCursor, search: string, total: number): Promise<SyncBatch> {
    const page = await client.orders(sizes.ordersPerPage, cursor.after, search);
    const mapped = (await completeOrders(client, sizes, page.nodes)).map(mapShopifyOrder);
    const next: ShopifyCursor | null = page.hasNextPage && page.endCursor ? { phase: 'orders', after: page.endCursor, shopCurrency: cursor.shopCurrency, total } : null;
    return {
      orders: mapped.map((entry) => entry.order),
      refunds: mapped.flatMap((entry) => entry.refunds),
      nextCursor: next ? JSON.stringify(next) : null,
      estimatedTotal: total,
      ...warningsOf(client),
    };
  }

  /**
   * A backfill through a bulk operation (https://shopify.dev/docs/api/usage/bulk-operations/queries):
   * started once, polled for at most ~20 s per call (an empty batch whose cursor polls again), then its
   * JSONL file streamed in batches; the cursor keeps the operation id and the lines handed out, so a
   * resumed sync continues the same file, or starts a new operation when the file has expired.
   */
  async function bulkBatch(ctx: ConnectorContext, client: ShopifyClient, cursor: ShopifyCursor, search: string, total: number): Promise<SyncBatch> {
    const state = cursor.bulk ?? { operationId: null, linesDone: 0 };
    const keep = (bulk: ShopifyCursor['bulk']): SyncBatch => ({ nextCursor: JSON.stringify({ ...cursor, bulk }), estimatedTotal: total, ...warningsOf(client) });
    if (!state.operationId) {
      const started = await client.runBulkQuery(bulkOrdersQuery(search));
      if (!started.operation) {
        const busy = started.userErrors.some((error) => /in progress|already|limit|running/i.test(`${error.code ?? ''} ${error.message}`));
        if (!busy) throw new ConnectorRequestError(SHOPIFY, 200, `Shopify refused the bulk export: ${started.userErrors.map((error) => error.message).join('; ')}`);
        // Other bulk queries of this app run on the shop (five at most from API 2026-01, one before): wait for a slot.
        await ctx.http.pause(BULK_POLL_INTERVAL_MS);
        return keep({ operationId: null, linesDone: 0 });
      }
      state.operationId = started.operation.id;
    }
    const deadline = ctx.http.now() + BULK_POLL_BUDGET_MS;
    for (;;) {
      const operation = await client.bulkOperation(state.operationId);
      const status = operation?.status ?? 'EXPIRED';
      if (status === 'COMPLETED') {
        if (!operation!.url) return { orders: [], refunds: [], nextCursor: null, estimatedTotal: total, ...warningsOf(client) };
        const position: BulkStreamPosition = { operationId: state.operationId, url: operation!.url, linesDone: state.linesDone };
        const read = await openBulkStream(position).catch((error: unknown) => {
          if (error instanceof BulkFileGoneError) return null;
          throw error;
        });
        // The file's URL expired (seven days): a new operation, read from its start.
        if (!read) return keep({ operationId: null, linesDone: 0 });
        const chunk = await read.next(bulkBatchOrders);
        const orders = chunk.orders.map((node) => mapShopifyOrder(node));
        const revisit = await Promise.all(chunk.revisit.map((id) => fetchShopifyOrder(ctx, id)));
        const mapped = [...orders, ...revisit.filter((entry): entry is MappedShopifyOrder => entry !== null)];
        return {
          orders: mapped.map((entry) => entry.order),
          refunds: mapped.flatMap((entry) => entry.refunds),
          nextCursor: chunk.done ? null : JSON.stringify({ ...cursor, bulk: { operationId: state.operationId, linesDone: chunk.linesDone } }),
          estimatedTotal: total,
          ...warningsOf(client),
        };
      }
      if (status === 'FAILED') {
        // The export failed (errorCode: TIMEOUT, INTERNAL_SERVER_ERROR, ACCESS_DENIED): the window is
        // read page by page instead, and the user is told why it takes longer.
        client.warnings.add(`Shopify's bulk export of the orders failed (${operation?.errorCode ?? 'no reason given'}); they are read page by page instead, which takes longer.`);
        return { ...(await ordersBatch(client, { ...cursor, phase: 'orders', after: null, bulk: undefined }, search, total)), ...warningsOf(client) };
      }
      // Cancelled (by the merchant or another process) or expired: a new operation.
      if (status === 'CANCELED' || status === 'CANCELING' || status === 'EXPIRED') return keep({ operationId: null, linesDone: 0 });
      // CREATED or RUNNING: poll again, within this call's budget.
      if (ctx.http.now() + BULK_POLL_INTERVAL_MS > deadline) return keep(state);
      await ctx.http.pause(BULK_POLL_INTERVAL_MS);
    }
  }

  async function fetchBatch(ctx: ConnectorContext, window: SyncWindow, rawCursor: string | null): Promise<SyncBatch> {
    const client = new ShopifyClient(ctx);
    const cursor = parseCursor(rawCursor);
    const updatedInWindow = searchRange('updated_at', window.since, window.until);

    if (cursor.phase === 'products') {
      const shopCurrency = cursor.shopCurrency ?? (await client.shop()).currencyCode;
      // A backfill reads the whole catalogue: products edited before the window still sell, and their
      // costs are needed (COGS, profit). An incremental sync reads the changed ones.
      const page = await client.products(sizes.productsPerPage, cursor.after, isBackfill(window) ? null : updatedInWindow);
      const next: ShopifyCursor = page.hasNextPage && page.endCursor ? { phase: 'products', after: page.endCursor, shopCurrency } : { phase: 'orders', after: null, shopCurrency };
      return { products: page.nodes.map((node) => mapShopifyProduct(node, shopCurrency)), nextCursor: JSON.stringify(next), ...warningsOf(client) };
    }

    const total = cursor.total ?? (await client.orderCounts([updatedInWindow]))[0]!;
    if (cursor.phase === 'bulk' || (cursor.phase === 'orders' && cursor.after === null && cursor.total === undefined && isBackfill(window) && total > bulkThreshold)) {
      return bulkBatch(ctx, client, { ...cursor, phase: 'bulk', total }, updatedInWindow, total);
    }
    return ordersBatch(client, { ...cursor, total }, updatedInWindow, total);
  }

  /**
   * Per store day: the orders Shopify counts (ordersCount, by processed day, without test, cancelled
   * or voided orders) and, where the app may read reports (read_reports, API 2025-10 and later) and
   * the store's time zone is the shop's, the net sales of Shopify's own analytics (ShopifyQL
   * `FROM sales SHOW net_sales GROUP BY day`) for the days wholly inside the window.
   */
  async function sourceTotals(ctx: ConnectorContext, window: SyncWindow): Promise<SourceDayTotal[]> {
    const client = new ShopifyClient(ctx);
    const days = storeDaysOf(window, ctx.store.timezone);
    const counts = await client.orderCounts(days.map((day) => `${searchRange('processed_at', day.start, day.end)} ${SHOPIFY_COUNTED_ORDERS}`));
    const shop = await client.shop();
    const currency = shop.currencyCode;
    // ShopifyQL's days are the shop's: comparable only when the store counts its days in the same zone.
    const sameDays = shop.ianaTimezone === ctx.store.timezone;
    const netSales = (options.netSalesFromShopifyQL ?? true) && sameDays ? await shopNetSalesByDay(client, days, currency) : new Map<string, number>();
    return days.map((day, index) => ({ day: day.day, orders: counts[index]!, ...(netSales.has(day.day) ? { netSalesMinor: netSales.get(day.day)! } : {}), currency }));
  }

  return {
    platform: SHOPIFY,
    kind: 'store',
    authKind: 'oauth',
    defaultBaseUrl: (credentials) => `https://${normalizeShopDomain(credentials.shop ?? '')}`,
    oauth: {
      authorizeUrl: (settings, state, extra) => shopifyAuthorizeUrl(settings, state, extra.shop),
      /** `extra` is the callback's whole query string (shop, hmac, timestamp, state, ...): its signature is checked here. */
      async exchangeCode(ctx, settings, code, extra) {
        const shop = verifyShopifyCallback({ ...extra, code }, settings.clientSecret);
        return exchangeAuthorizationCode(ctx, settings, shop, code);
      },
      refresh: (ctx, settings) => refreshAccessToken(ctx, settings),
    },
    /** The shop, its currency and its time zone (`shop { ianaTimezone }`): a store's days are the shop's days. */
    async verify(ctx) {
      const shop = await new ShopifyClient(ctx).shop();
      return {
        accountId: shop.myshopifyDomain ?? ctx.credentials.shop ?? shop.name,
        accountName: shop.name,
        currency: shop.currencyCode,
        ...(shop.ianaTimezone ? { timezone: shop.ianaTimezone } : {}),
      };
    },
    fetchBatch,
    sourceTotals,
    /** The orders ordersCount counts in the slice, by processing time. */
    async dayOrders(ctx, slice, limit) {
      const first = Math.min(SHOPIFY_MAX_PAGE_SIZE, limit);
      const page = await new ShopifyClient(ctx).dayOrders(first, `${searchRange('processed_at', slice.start, slice.end)} ${SHOPIFY_COUNTED_ORDERS}`);
      return {
        orders: page.nodes.map((node) => ({ externalId: node.legacyResourceId, orderNumber: node.name ?? null, updatedAt: node.updatedAt })),
        complete: !page.hasNextPage,
      };
    },
  };
}

/**
 * Shopify's net sales per whole day of the window, from ShopifyQL; empty when the app may not read
 * reports or Shopify answers no table (https://shopify.dev/docs/api/admin-graphql/2026-01/queries/shopifyqlQuery).
 */
async function shopNetSalesByDay(client: ShopifyClient, days: { day: string; start: Date; end: Date }[], currency: string): Promise<Map<string, number>> {
  const whole = days.filter((day) => day.end.getTime() - day.start.getTime() >= 23 * 3_600_000 && day.start.getTime() % 60_000 === 0);
  const result = new Map<string, number>();
  if (whole.length === 0) return result;
  let rows: Record<string, unknown>[] | null;
  try {
    rows = await client.shopifyql(`FROM sales SHOW net_sales GROUP BY day SINCE ${whole[0]!.day} UNTIL ${whole.at(-1)!.day} ORDER BY day`);
  } catch (error) {
    if (error instanceof ConnectorRequestError) return result;
    throw error;
  }
  if (!rows || client.warnings.size) {
    client.warnings.clear();
    return result;
  }
  const wanted = new Set(whole.map((day) => day.day));
  for (const row of rows) {
    const day = typeof row.day === 'string' ? row.day.slice(0, 10) : null;
    if (!day || !wanted.has(day)) continue;
    result.set(day, decimalToMinor(row.net_sales as string | number | null, currency, SHOPIFY));
  }
  // A day without sales has no row: zero.
  for (const day of wanted) if (!result.has(day)) result.set(day, 0);
  return result;
}

export const shopifyConnector: Connector & DayOrdersLookup = createShopifyConnector();
