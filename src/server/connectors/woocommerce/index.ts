import type { IngestOrder, IngestRefund } from '../../modules/commerce/ingest.ts';
import { MalformedResponseError, type Connector, type ConnectorContext, type SourceDayTotal, type SyncBatch, type SyncWindow } from '../connector.ts';
import { storeDaysOf, type DayOrdersLookup } from '../store-common.ts';
import { WOOCOMMERCE, WOOCOMMERCE_MAX_PAGE_SIZE, WooCommerceClient, gmtInstant, type WooOrder, type WooPage } from './client.ts';
import { WOO_COUNTED_STATUSES, mapWooOrder, mapWooProduct, mapWooRefund } from './map.ts';

// WooCommerce as a Connector: API key and secret typed into a form, then per window the products
// and the orders modified in [since, until), one page per fetchBatch.

/**
 * Where a window's reading stands: the offset of the next row and the highest id handed out. Pages
 * are ordered by id; an order modified during the sync leaves the window and shifts later rows back,
 * so each page is read from a few rows earlier and only ids above `lastId` are kept (see readAfter).
 */
interface WooCursor {
  phase: 'products' | 'orders';
  offset: number;
  lastId: number | null;
  currency?: string;
}

/** Rows re-read before the cursor's offset, covering orders that left the window meanwhile. */
const OVERLAP_ROWS = 5;

function parseCursor(raw: string | null): WooCursor {
  if (!raw) return { phase: 'products', offset: 0, lastId: null };
  try {
    const cursor = JSON.parse(raw) as WooCursor;
    if ((cursor.phase === 'products' || cursor.phase === 'orders') && Number.isInteger(cursor.offset)) return cursor;
  } catch {
    // fall through
  }
  throw new MalformedResponseError(WOOCOMMERCE, `sync cursor not understood: ${raw.slice(0, 80)}`);
}

/**
 * The page after `lastId`, read from OVERLAP_ROWS before `offset`; when even that page starts past
 * `lastId` (more rows left than the overlap), it steps back further so nothing is skipped.
 */
async function readAfter<T extends { id: number }>(cursor: WooCursor, perPage: number, read: (offset: number) => Promise<WooPage<T>>): Promise<{ page: WooPage<T>; offset: number; fresh: T[] }> {
  let offset = cursor.lastId === null ? cursor.offset : Math.max(0, cursor.offset - OVERLAP_ROWS);
  for (;;) {
    const page = await read(offset);
    const first = page.rows[0];
    const coversLastId = cursor.lastId === null || offset === 0 || (first !== undefined && first.id <= cursor.lastId);
    if (coversLastId) return { page, offset, fresh: page.rows.filter((row) => cursor.lastId === null || row.id > cursor.lastId) };
    offset = Math.max(0, offset - perPage);
  }
}

function nextCursor(cursor: WooCursor, read: { page: WooPage<{ id: number }>; offset: number; fresh: { id: number }[] }, perPage: number): WooCursor | null {
  if (read.page.rows.length < perPage) return null;
  const lastId = read.fresh.length ? Math.max(...read.fresh.map((row) => row.id)) : cursor.lastId;
  return { ...cursor, offset: read.offset + read.page.rows.length, lastId };
}

/** Refund rows (with their dates) of the orders that have refunds: /orders/{id}/refunds for each. */
async function refundsOf(client: WooCommerceClient, orders: WooOrder[]): Promise<IngestRefund[]> {
  const refunds: IngestRefund[] = [];
  for (const order of orders) {
    if (order.refunds.length === 0) continue;
    for (const refund of await client.refunds(order.id)) refunds.push(mapWooRefund(refund, order.id, order.currency));
  }
  return refunds;
}

/** One order and its refunds, e.g. to process a webhook (whose body lists refunds without dates). */
export async function fetchWooCommerceOrder(ctx: ConnectorContext, orderId: number | string): Promise<{ order: IngestOrder; refunds: IngestRefund[] }> {
  const client = new WooCommerceClient(ctx);
  const order = await client.order(orderId);
  return { order: mapWooOrder(order), refunds: await refundsOf(client, [order]) };
}

export interface WooCommerceConnectorOptions {
  /** Rows per page (WooCommerce allows up to 100). */
  pageSize?: number;
}

export function createWooCommerceConnector(options: WooCommerceConnectorOptions = {}): Connector & DayOrdersLookup {
  const perPage = Math.min(WOOCOMMERCE_MAX_PAGE_SIZE, options.pageSize ?? WOOCOMMERCE_MAX_PAGE_SIZE);

  async function fetchBatch(ctx: ConnectorContext, window: SyncWindow, rawCursor: string | null): Promise<SyncBatch> {
    const client = new WooCommerceClient(ctx);
    const cursor = parseCursor(rawCursor);
    if (cursor.phase === 'products') {
      const currency = cursor.currency ?? (await client.currency());
      const read = await readAfter(cursor, perPage, (offset) => client.products(window, offset, perPage));
      const next = nextCursor(cursor, read, perPage);
      return {
        products: read.fresh.map((product) => mapWooProduct(product, currency)),
        nextCursor: JSON.stringify(next ? { ...next, currency } : { phase: 'orders', offset: 0, lastId: null, currency }),
      };
    }
    const read = await readAfter(cursor, perPage, (offset) => client.orders(window, offset, perPage));
    const next = nextCursor(cursor, read, perPage);
    return {
      orders: read.fresh.map(mapWooOrder),
      refunds: await refundsOf(client, read.fresh),
      nextCursor: next ? JSON.stringify(next) : null,
      estimatedTotal: read.page.total ?? undefined,
    };
  }

  /**
   * Orders created per store day (within the window), from X-WP-Total of a one-row page per day, with
   * the statuses our reports count. Net sales are not reported: WooCommerce's legacy sales report has no per-day refunds.
   */
  async function sourceTotals(ctx: ConnectorContext, window: SyncWindow): Promise<SourceDayTotal[]> {
    const client = new WooCommerceClient(ctx);
    const currency = await client.currency();
    const totals: SourceDayTotal[] = [];
    for (const day of storeDaysOf(window, ctx.store.timezone)) {
      totals.push({ day: day.day, orders: await client.countCreated(day.start, day.end, WOO_COUNTED_STATUSES), currency });
    }
    return totals;
  }

  return {
    platform: WOOCOMMERCE,
    kind: 'store',
    authKind: 'credentials',
    credentialFields: ['storeUrl', 'consumerKey', 'consumerSecret'],
    defaultBaseUrl: (credentials) => (credentials.storeUrl ?? '').trim().replace(/\/+$/, ''),
    async verify(ctx) {
      const client = new WooCommerceClient(ctx);
      // Reading one order proves the key may read orders; the currency names the shop's money.
      await client.orders({ since: new Date(0), until: new Date(Date.now() + 86_400_000) }, 0, 1);
      const host = new URL(ctx.baseUrl).host;
      return { accountId: host, accountName: host, currency: await client.currency() };
    },
    fetchBatch,
    sourceTotals,
    /** The orders sourceTotals counts in the slice, oldest first, read 100 per page. */
    async dayOrders(ctx, slice, limit) {
      const client = new WooCommerceClient(ctx);
      const orders: WooOrder[] = [];
      let total: number | null = null;
      for (let page = 1; orders.length < limit; page++) {
        const read = await client.createdBetween(slice.start, slice.end, WOO_COUNTED_STATUSES, page, WOOCOMMERCE_MAX_PAGE_SIZE);
        orders.push(...read.rows);
        total = read.total;
        if (read.rows.length < WOOCOMMERCE_MAX_PAGE_SIZE) break;
      }
      const listed = orders.slice(0, limit);
      return {
        orders: listed.map((order) => ({ externalId: String(order.id), orderNumber: order.number ?? String(order.id), updatedAt: gmtInstant(order.date_modified_gmt ?? order.date_created_gmt) })),
        complete: listed.length === orders.length && (total === null || total <= listed.length),
      };
    },
  };
}

export const woocommerceConnector: Connector & DayOrdersLookup = createWooCommerceConnector();
