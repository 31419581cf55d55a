import type { IngestOrder, IngestProduct, IngestRefund } from '../../modules/commerce/ingest.ts';
import { MalformedResponseError, type Connector, type ConnectorContext, type SourceDayTotal, type SyncBatch, type SyncWindow } from '../connector.ts';
import { decimalToMinor } from '../money.ts';
import { storeDaysOf, type DayOrdersLookup, type SourceDayOrder } from '../store-common.ts';
import { WOOCOMMERCE, WOOCOMMERCE_MAX_PAGE_SIZE, WooCommerceClient, gmtInstant, siteTimezone, wallTime, type RevenueStats, type WooOrder, type WooOrderListing, type WooPage, type WooProduct } from './client.ts';
import { isWooCountedStatus, mapWooOrder, mapWooProduct, mapWooRefunds, mapWooVariation } from './map.ts';

// WooCommerce as a Connector: API key and secret typed into a form, then per window, one page per
// fetchBatch: the products (the whole catalogue on a backfill, the ones modified in the window
// afterwards), the orders modified in [since, until) of every status but trash, then the ones trashed
// in it (status=any never lists the trash, so a trashed order would otherwise stay counted).

/**
 * Where a window's reading stands: the phase, the offset of the next row and the highest id handed
 * out. Pages are ordered by id; a record modified during the sync leaves the window and shifts later
 * rows back, so each page is read from a few rows earlier and only ids above `lastId` are kept.
 */
interface WooCursor {
  phase: 'products' | 'orders' | 'trash';
  offset: number;
  lastId: number | null;
  currency?: string;
  /** Products phase: the whole catalogue rather than the products modified in the window. */
  catalogue?: boolean;
}

/** Rows re-read before the cursor's offset, covering records that left the window meanwhile. */
const OVERLAP_ROWS = 5;

/**
 * A window reaching back further than this reads the whole catalogue: a backfill (months) must know
 * every product its orders sold, however long ago it was last edited; an incremental sync (a day
 * and a quarter of an hour) reads only the products modified in it.
 */
const CATALOGUE_WINDOW_MS = 7 * 86_400_000;

function parseCursor(raw: string | null): WooCursor {
  if (!raw) return { phase: 'products', offset: 0, lastId: null };
  try {
    const cursor = JSON.parse(raw) as WooCursor;
    if (['products', 'orders', 'trash'].includes(cursor.phase) && Number.isInteger(cursor.offset)) return cursor;
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

/** The cursor after a page of the same phase, or null when the phase is done. */
function nextInPhase(cursor: WooCursor, read: { page: WooPage<{ id: number }>; offset: number; fresh: { id: number }[] }, perPage: number): WooCursor | null {
  if (read.page.rows.length < perPage) return null;
  const lastId = read.fresh.length ? Math.max(...read.fresh.map((row) => row.id)) : cursor.lastId;
  return { ...cursor, offset: read.offset + read.page.rows.length, lastId };
}

/** Each order's refunds (all pages of /orders/{id}/refunds), for the orders that have any. */
async function refundsOf(client: WooCommerceClient, orders: WooOrder[]): Promise<IngestRefund[]> {
  const refunds: IngestRefund[] = [];
  for (const order of orders) {
    if (order.refunds.length === 0) continue;
    refunds.push(...mapWooRefunds(order, await client.refunds(order.id)));
  }
  return refunds;
}

/**
 * One order and its refunds as WooCommerce has them now (a trashed order too: status "trash"), e.g.
 * to process a webhook; null when WooCommerce no longer has the order.
 */
export async function fetchWooCommerceOrder(ctx: ConnectorContext, orderId: number | string): Promise<{ order: IngestOrder; refunds: IngestRefund[] } | null> {
  const client = new WooCommerceClient(ctx);
  const order = await client.order(orderId);
  if (!order) return null;
  return { order: mapWooOrder(order), refunds: await refundsOf(client, [order]) };
}

/** The products of a page with the variations of its variable products (each a product of its own). */
async function withVariations(client: WooCommerceClient, products: WooProduct[], currency: string): Promise<IngestProduct[]> {
  const rows: IngestProduct[] = [];
  for (const product of products) {
    rows.push(mapWooProduct(product, currency));
    if (product.type !== 'variable' && product.variations.length === 0) continue;
    for (const variation of await client.variations(product.id)) rows.push(mapWooVariation(product, variation, currency));
  }
  return rows;
}

function analyticsMinor(value: number | string, currency: string): number {
  return decimalToMinor(value, currency, WOOCOMMERCE);
}

const SECOND_MS = 1000;

/** [start, end) as WooCommerce Analytics' inclusive site-local bounds: whole seconds, end a second before. */
function siteBounds(start: Date, end: Date, siteZone: string): { after: string; before: string } {
  const startMs = Math.ceil(start.getTime() / SECOND_MS) * SECOND_MS;
  const endMs = Math.ceil(end.getTime() / SECOND_MS) * SECOND_MS - SECOND_MS;
  return { after: wallTime(new Date(startMs), siteZone), before: wallTime(new Date(endMs), siteZone) };
}

/** Every page of WooCommerce Analytics' day intervals between two site-local bounds. */
async function revenueDays(client: WooCommerceClient, bounds: { after: string; before: string }): Promise<RevenueStats[]> {
  const pages: RevenueStats[] = [];
  for (let page = 1; ; page++) {
    const { stats, totalPages } = await client.revenueStats(bounds.after, bounds.before, page);
    pages.push(stats);
    if (totalPages === null || page >= totalPages || stats.intervals.length === 0) return pages;
  }
}

export interface WooCommerceConnectorOptions {
  /** Rows per page (WooCommerce allows up to 100). */
  pageSize?: number;
}

export function createWooCommerceConnector(options: WooCommerceConnectorOptions = {}): Connector & DayOrdersLookup {
  const perPage = Math.min(WOOCOMMERCE_MAX_PAGE_SIZE, options.pageSize ?? WOOCOMMERCE_MAX_PAGE_SIZE);

  async function ordersPage(client: WooCommerceClient, window: SyncWindow, cursor: WooCursor, listing: WooOrderListing): Promise<SyncBatch> {
    const read = await readAfter(cursor, perPage, (offset) => client.orders(window, offset, perPage, listing));
    const next = nextInPhase(cursor, read, perPage);
    const after: WooCursor | null = next ?? (listing === 'any' ? { phase: 'trash', offset: 0, lastId: null, currency: cursor.currency } : null);
    return {
      orders: read.fresh.map(mapWooOrder),
      refunds: await refundsOf(client, read.fresh),
      nextCursor: after ? JSON.stringify(after) : null,
      ...(listing === 'any' ? { estimatedTotal: read.page.total ?? undefined } : {}),
    };
  }

  async function fetchBatch(ctx: ConnectorContext, window: SyncWindow, rawCursor: string | null): Promise<SyncBatch> {
    const client = new WooCommerceClient(ctx);
    const cursor = parseCursor(rawCursor);
    if (cursor.phase === 'products') {
      const currency = cursor.currency ?? (await client.currency());
      const catalogue = cursor.catalogue ?? window.until.getTime() - window.since.getTime() > CATALOGUE_WINDOW_MS;
      const state = { ...cursor, currency, catalogue };
      const read = await readAfter(state, perPage, (offset) => client.products(catalogue ? null : window, offset, perPage));
      const next = nextInPhase(state, read, perPage);
      return {
        products: await withVariations(client, read.fresh, currency),
        nextCursor: JSON.stringify(next ?? ({ phase: 'orders', offset: 0, lastId: null, currency } satisfies WooCursor)),
      };
    }
    return ordersPage(client, window, cursor, cursor.phase === 'orders' ? 'any' : 'trash');
  }

  /**
   * WooCommerce Analytics' own figures per store day: orders and net sales as its Revenue report has
   * them (wc-analytics/reports/revenue/stats, by creation date, its default excluded statuses, refunds
   * on their own days). Analytics' days are the site's: when the store's zone cuts days at the same
   * instants (it normally is the site's zone), one request covers 100 days; otherwise each store day
   * is asked for on its own (its totals, whatever site days it spans).
   */
  async function sourceTotals(ctx: ConnectorContext, window: SyncWindow): Promise<SourceDayTotal[]> {
    const client = new WooCommerceClient(ctx);
    const currency = await client.currency();
    const siteZone = siteTimezone(await client.site()) ?? ctx.store.timezone;
    const days = storeDaysOf(window, ctx.store.timezone);
    if (days.length === 0) return [];
    const aligned = days.every((day) => wallTime(day.start, siteZone) === wallTime(day.start, ctx.store.timezone) && wallTime(day.end, siteZone) === wallTime(day.end, ctx.store.timezone));
    const totals: SourceDayTotal[] = [];
    if (aligned) {
      const byDay = new Map<string, { orders: number; net: number }>();
      for (let from = 0; from < days.length; from += WOOCOMMERCE_MAX_PAGE_SIZE) {
        const chunk = days.slice(from, from + WOOCOMMERCE_MAX_PAGE_SIZE);
        for (const stats of await revenueDays(client, siteBounds(chunk[0]!.start, chunk.at(-1)!.end, siteZone))) {
          for (const interval of stats.intervals) {
            byDay.set(interval.interval, { orders: interval.subtotals.orders_count, net: analyticsMinor(interval.subtotals.net_revenue, currency) });
          }
        }
      }
      for (const day of days) {
        const figures = byDay.get(day.day) ?? { orders: 0, net: 0 };
        totals.push({ day: day.day, orders: figures.orders, netSalesMinor: figures.net, currency });
      }
      return totals;
    }
    for (const day of days) {
      const [stats] = await revenueDays(client, siteBounds(day.start, day.end, siteZone));
      totals.push({ day: day.day, orders: stats?.totals.orders_count ?? 0, netSalesMinor: stats ? analyticsMinor(stats.totals.net_revenue, currency) : 0, currency });
    }
    return totals;
  }

  return {
    platform: WOOCOMMERCE,
    kind: 'store',
    authKind: 'credentials',
    credentialFields: ['storeUrl', 'consumerKey', 'consumerSecret'],
    defaultBaseUrl: (credentials) => (credentials.storeUrl ?? '').trim().replace(/\/+$/, ''),
    /**
     * Reading one order proves the key may read orders; the site's REST index gives its time zone (the
     * store's days are the site's days), its settings the shop's currency.
     */
    async verify(ctx) {
      const client = new WooCommerceClient(ctx);
      await client.orders({ since: new Date(0), until: new Date(Date.now() + 86_400_000) }, 0, 1);
      const site = await client.site();
      const host = new URL(ctx.baseUrl).host;
      const timezone = siteTimezone(site);
      return { accountId: host, accountName: site.name?.trim() || host, currency: await client.currency(), ...(timezone ? { timezone } : {}) };
    },
    fetchBatch,
    sourceTotals,
    /**
     * The orders sourceTotals counts in the slice (created in it, with a status Analytics counts),
     * oldest first, read 100 per page; status=any lists every status but trash, and the ones Analytics
     * leaves out are dropped here.
     */
    async dayOrders(ctx, slice, limit) {
      const client = new WooCommerceClient(ctx);
      const orders: SourceDayOrder[] = [];
      let more = false;
      for (let page = 1; ; page++) {
        const read = await client.createdBetween(slice.start, slice.end, page, WOOCOMMERCE_MAX_PAGE_SIZE);
        for (const order of read.rows) {
          if (!isWooCountedStatus(order.status)) continue;
          orders.push({ externalId: String(order.id), orderNumber: order.number ?? String(order.id), updatedAt: gmtInstant(order.date_modified_gmt ?? order.date_created_gmt) });
        }
        const last = read.totalPages !== null ? page >= read.totalPages : read.rows.length < WOOCOMMERCE_MAX_PAGE_SIZE;
        if (last || read.rows.length === 0) break;
        if (orders.length > limit) {
          more = true;
          break;
        }
      }
      return { orders: orders.slice(0, limit), complete: !more && orders.length <= limit };
    },
  };
}

export const woocommerceConnector: Connector & DayOrdersLookup = createWooCommerceConnector();
