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
 * The mandatory compliance (privacy) topics every App Store app must subscribe to, in the Partner
 * Dashboard or shopify.app.toml (`compliance_topics`), not through the API: a customer's data request,
 * a customer's erasure, and a shop's erasure 48 hours after the app was uninstalled. Signed like any
 * delivery (a forged one gets 401); a 2xx confirms receipt; the request is to be acted on within 30
 * days. https://shopify.dev/docs/apps/build/compliance/privacy-law-compliance,
 * https://help.shopify.com/api/guides/gdpr-resources (docs/platform-notes.md, "Compliance webhooks").
 */
export const SHOPIFY_COMPLIANCE_TOPICS = ['customers/data_request', 'customers/redact', 'shop/redact'] as const;
export type ShopifyComplianceTopic = (typeof SHOPIFY_COMPLIANCE_TOPICS)[number];

export function isShopifyComplianceTopic(topic: string): topic is ShopifyComplianceTopic {
  return (SHOPIFY_COMPLIANCE_TOPICS as readonly string[]).includes(topic);
}

/**
 * A compliance request as its body states it. Bodies (Shopify's app template, privacy.js):
 * customers/data_request `{ shop_id, shop_domain, orders_requested: [ids], customer: { id, email,
 * phone }, data_request: { id } }`; customers/redact `{ shop_id, shop_domain, customer: { id, email,
 * phone }, orders_to_redact: [ids] }`; shop/redact `{ shop_id, shop_domain }`. A customer record may
 * hold only the e-mail address (help.shopify.com/api/guides/gdpr-resources), so `customer.id` is optional.
 */
export interface ShopifyComplianceRequest {
  topic: ShopifyComplianceTopic;
  shopDomain: string;
  shopId: string | null;
  /** customers/*: the customer (id and/or e-mail); null for shop/redact. */
  customer: { id: string | null; email: string | null; phone: string | null } | null;
  /** orders_requested (data request) or orders_to_redact (erasure): Shopify order ids. */
  orderIds: string[];
  /** customers/data_request: Shopify's id of the request. */
  dataRequestId: string | null;
}

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
  /** A mandatory compliance request (SHOPIFY_COMPLIANCE_TOPICS). */
  | { kind: 'compliance'; request: ShopifyComplianceRequest }
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
    case 'customers/data_request':
    case 'customers/redact':
    case 'shop/redact':
      return { kind: 'compliance', request: shopifyComplianceRequest(topic, payload) };
    default:
      return { kind: 'ignored', topic };
  }
}

/** A JSON id (Shopify sends numbers; strings are accepted) as text, or null. */
function idText(value: unknown): string | null {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value === 'string' && /^\d{1,20}$/.test(value.trim())) return value.trim();
  return null;
}

function optionalText(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/** The body of a compliance delivery, checked (a body that names no shop, or no customer for customers/*, is refused). */
export function shopifyComplianceRequest(topic: ShopifyComplianceTopic, payload: unknown): ShopifyComplianceRequest {
  const body = asObject(payload, topic);
  const shopDomain = optionalText(body.shop_domain);
  if (!shopDomain) throw new MalformedResponseError(SHOPIFY, `webhook ${topic}: no shop_domain`);
  const request: ShopifyComplianceRequest = { topic, shopDomain: shopDomain.toLowerCase(), shopId: idText(body.shop_id), customer: null, orderIds: [], dataRequestId: null };
  if (topic === 'shop/redact') return request;
  const customer = body.customer && typeof body.customer === 'object' && !Array.isArray(body.customer) ? (body.customer as Record<string, unknown>) : null;
  request.customer = { id: idText(customer?.id), email: optionalText(customer?.email), phone: optionalText(customer?.phone) };
  if (!request.customer.id && !request.customer.email) throw new MalformedResponseError(SHOPIFY, `webhook ${topic}: the customer has neither an id nor an e-mail address`);
  const orders = topic === 'customers/redact' ? body.orders_to_redact : body.orders_requested;
  if (orders !== undefined && orders !== null && !Array.isArray(orders)) throw new MalformedResponseError(SHOPIFY, `webhook ${topic}: the order ids are not a list`);
  request.orderIds = [...new Set((orders ?? []).map(idText).filter((id): id is string => id !== null))];
  if (topic === 'customers/data_request') {
    const dataRequest = body.data_request && typeof body.data_request === 'object' ? (body.data_request as Record<string, unknown>) : {};
    request.dataRequestId = idText(dataRequest.id);
  }
  return request;
}
