import { MalformedResponseError, type Connector, type ConnectorContext, type SourceDayTotal, type SyncBatch, type SyncWindow } from '../connector.ts';
import { SHOPIFY, SHOPIFY_COUNTED_ORDERS, SHOPIFY_MAX_PAGE_SIZE, ShopifyClient, exchangeAuthorizationCode, normalizeShopDomain, refreshAccessToken, searchRange } from './client.ts';
import { mapShopifyOrder, mapShopifyProduct, type MappedShopifyOrder } from './map.ts';
import { shopifyAuthorizeUrl, verifyShopifyCallback } from './oauth.ts';
import { storeDaysOf, type DayOrdersLookup } from '../store-common.ts';

// Shopify as a Connector. A window reads, in order, the products then the orders updated in
// [since, until), one GraphQL page per fetchBatch. Token refresh is the engine's job: it calls
// oauth.refresh before a sync when credentials.expiresAt is within 5 minutes, and once after a
// ConnectorAuthError (the token may just have expired), then retries; fetchBatch never refreshes.

/**
 * Where a window's reading stands. `after` is Shopify's endCursor of the last page handed out, so
 * fetching again with the same cursor returns the same page. The shop currency (for product prices)
 * and the window's order count are read once and carried along.
 */
interface ShopifyCursor {
  phase: 'products' | 'orders';
  after: string | null;
  shopCurrency?: string;
  total?: number;
}

function parseCursor(raw: string | null): ShopifyCursor {
  if (!raw) return { phase: 'products', after: null };
  try {
    const cursor = JSON.parse(raw) as ShopifyCursor;
    if (cursor.phase === 'products' || cursor.phase === 'orders') return cursor;
  } catch {
    // fall through
  }
  throw new MalformedResponseError(SHOPIFY, `sync cursor not understood: ${raw.slice(0, 80)}`);
}

export interface ShopifyConnectorOptions {
  /** Orders per GraphQL page (Shopify allows up to 250; the query's cost grows with it). */
  ordersPageSize?: number;
  productsPageSize?: number;
}

/**
 * One order with its refunds, read from Shopify (e.g. when a refund arrives by webhook for an order
 * we have not stored yet); null when the shop has no such order.
 */
export async function fetchShopifyOrder(ctx: ConnectorContext, orderId: string): Promise<MappedShopifyOrder | null> {
  const page = await new ShopifyClient(ctx).orders(1, null, `id:${orderId.replace(/\D/g, '')}`);
  return page.nodes[0] ? mapShopifyOrder(page.nodes[0]) : null;
}

export function createShopifyConnector(options: ShopifyConnectorOptions = {}): Connector & DayOrdersLookup {
  const ordersPageSize = Math.min(SHOPIFY_MAX_PAGE_SIZE, options.ordersPageSize ?? 100);
  const productsPageSize = Math.min(SHOPIFY_MAX_PAGE_SIZE, options.productsPageSize ?? 100);

  async function fetchBatch(ctx: ConnectorContext, window: SyncWindow, rawCursor: string | null): Promise<SyncBatch> {
    const client = new ShopifyClient(ctx);
    const cursor = parseCursor(rawCursor);
    const updatedInWindow = searchRange('updated_at', window.since, window.until);

    if (cursor.phase === 'products') {
      const shopCurrency = cursor.shopCurrency ?? (await client.shop()).currencyCode;
      const page = await client.products(productsPageSize, cursor.after, updatedInWindow);
      const next: ShopifyCursor = page.hasNextPage && page.endCursor ? { phase: 'products', after: page.endCursor, shopCurrency } : { phase: 'orders', after: null, shopCurrency };
      return { products: page.nodes.map((node) => mapShopifyProduct(node, shopCurrency)), nextCursor: JSON.stringify(next) };
    }

    const total = cursor.total ?? (await client.orderCounts([updatedInWindow]))[0];
    const page = await client.orders(ordersPageSize, cursor.after, updatedInWindow);
    const mapped = page.nodes.map(mapShopifyOrder);
    const next: ShopifyCursor | null = page.hasNextPage && page.endCursor ? { phase: 'orders', after: page.endCursor, shopCurrency: cursor.shopCurrency, total } : null;
    return {
      orders: mapped.map((entry) => entry.order),
      refunds: mapped.flatMap((entry) => entry.refunds),
      nextCursor: next ? JSON.stringify(next) : null,
      estimatedTotal: total,
    };
  }

  /**
   * Orders per store day from ordersCount, counted the way our reports count (by processed day,
   * without test, cancelled or voided orders; placed within the window). Shopify has no per-day net
   * sales endpoint in the Admin API, so only counts are reported.
   */
  async function sourceTotals(ctx: ConnectorContext, window: SyncWindow): Promise<SourceDayTotal[]> {
    const client = new ShopifyClient(ctx);
    const days = storeDaysOf(window, ctx.store.timezone);
    const counts = await client.orderCounts(days.map((day) => `${searchRange('processed_at', day.start, day.end)} ${SHOPIFY_COUNTED_ORDERS}`));
    const currency = (await client.shop()).currencyCode;
    return days.map((day, index) => ({ day: day.day, orders: counts[index]!, currency }));
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
    async verify(ctx) {
      const shop = await new ShopifyClient(ctx).shop();
      return { accountId: shop.myshopifyDomain ?? ctx.credentials.shop ?? shop.name, accountName: shop.name, currency: shop.currencyCode };
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

export const shopifyConnector: Connector & DayOrdersLookup = createShopifyConnector();
