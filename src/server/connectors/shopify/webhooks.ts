import type { IngestOrder, IngestProduct, IngestRefund } from '../../modules/commerce/ingest.ts';
import { MalformedResponseError } from '../connector.ts';
import { mapShopifyRestOrder, mapShopifyRestProduct, mapShopifyRestRefund, restRefundHasParts, type ShopifyRestOrder, type ShopifyRestProduct, type ShopifyRestRefund } from './map.ts';
import { SHOPIFY } from './client.ts';
import { headerValue, hmacMatches, type HeaderBag } from '../store-common.ts';

// Shopify webhook deliveries (platform-apis.md 1.6): the signature over the raw body, the headers
// that identify a delivery, and the topics we subscribe to mapped to ingest rows.

export const SHOPIFY_WEBHOOK_TOPICS = ['orders/create', 'orders/updated', 'refunds/create', 'products/create', 'products/update', 'app/uninstalled'] as const;
export type ShopifyWebhookTopic = (typeof SHOPIFY_WEBHOOK_TOPICS)[number];

/**
 * Whether `hmacHeader` (X-Shopify-Hmac-Sha256) is base64 HMAC-SHA256 of the exact raw body with the
 * app's client secret. Check it before parsing the JSON; compared in constant time.
 */
export function verifyShopifyWebhook(rawBody: string | Buffer, hmacHeader: string | null | undefined, secret: string): boolean {
  return hmacMatches(rawBody, secret, hmacHeader, 'base64');
}

export interface ShopifyWebhookDelivery {
  topic: string;
  shopDomain: string | null;
  /** X-Shopify-Webhook-Id: the same on every retry of one delivery, so it is the idempotency key. */
  webhookId: string | null;
  eventId: string | null;
  apiVersion: string | null;
  triggeredAt: string | null;
}

export function shopifyWebhookDelivery(headers: HeaderBag): ShopifyWebhookDelivery {
  return {
    topic: headerValue(headers, 'x-shopify-topic') ?? '',
    shopDomain: headerValue(headers, 'x-shopify-shop-domain'),
    webhookId: headerValue(headers, 'x-shopify-webhook-id'),
    eventId: headerValue(headers, 'x-shopify-event-id'),
    apiVersion: headerValue(headers, 'x-shopify-api-version'),
    triggeredAt: headerValue(headers, 'x-shopify-triggered-at'),
  };
}

export type ShopifyWebhookEffect =
  | {
      kind: 'ingest';
      orders: IngestOrder[];
      refunds: IngestRefund[];
      products?: IngestProduct[];
      /**
       * Orders to read from the GraphQL API, whose refunds replace the body's: a refunds/create body
       * does not say whether the shop's prices include tax, and a refund without lines carries its
       * money only as presentment-currency transactions.
       */
      readOrders?: string[];
    }
  /** The merchant removed the app: the connection is disconnected, its token no longer works. */
  | { kind: 'uninstalled' }
  | { kind: 'ignored'; topic: string };

function asObject(payload: unknown, topic: string): Record<string, unknown> {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) throw new MalformedResponseError(SHOPIFY, `webhook ${topic}: body is not an object`);
  return payload as Record<string, unknown>;
}

/**
 * What a verified delivery means for us. `shopCurrency` prices a refunds/create body and a product
 * body, which carry no shop currency of their own; `taxesIncluded` (when known) is the shop's.
 */
export function mapShopifyWebhook(topic: string, payload: unknown, options: { shopCurrency: string; taxesIncluded?: boolean }): ShopifyWebhookEffect {
  switch (topic) {
    case 'orders/create':
    case 'orders/updated': {
      const order = asObject(payload, topic) as unknown as ShopifyRestOrder;
      if (order.id === undefined || !order.created_at || !order.currency) throw new MalformedResponseError(SHOPIFY, `webhook ${topic}: not an order`);
      const mapped = mapShopifyRestOrder(order);
      return { kind: 'ingest', orders: [mapped.order], refunds: mapped.refunds };
    }
    case 'refunds/create': {
      const refund = asObject(payload, topic) as unknown as ShopifyRestRefund;
      if (refund.id === undefined || refund.order_id === undefined || !refund.created_at) throw new MalformedResponseError(SHOPIFY, `webhook ${topic}: not a refund`);
      const currency =
        refund.refund_line_items?.find((line) => line.subtotal_set?.shop_money)?.subtotal_set?.shop_money?.currency_code ?? options.shopCurrency;
      // The body's own figures (shop money only) are kept in case the order cannot be read; the
      // order's refunds read from GraphQL replace them.
      const refunds = restRefundHasParts(refund) ? [mapShopifyRestRefund(refund, String(refund.order_id), currency, options.taxesIncluded ?? false)] : [];
      return { kind: 'ingest', orders: [], refunds, readOrders: [String(refund.order_id)] };
    }
    case 'products/create':
    case 'products/update': {
      const product = asObject(payload, topic) as unknown as ShopifyRestProduct;
      if (product.id === undefined || typeof product.title !== 'string') throw new MalformedResponseError(SHOPIFY, `webhook ${topic}: not a product`);
      return { kind: 'ingest', orders: [], refunds: [], products: [mapShopifyRestProduct(product, options.shopCurrency)] };
    }
    case 'app/uninstalled':
      return { kind: 'uninstalled' };
    default:
      return { kind: 'ignored', topic };
  }
}
