import type { IngestOrder } from '../../modules/commerce/ingest.ts';
import { MalformedResponseError } from '../connector.ts';
import { headerValue, hmacMatches, type HeaderBag } from '../store-common.ts';
import { WOOCOMMERCE, wooOrder } from './client.ts';
import { mapWooOrder } from './map.ts';

// WooCommerce webhook deliveries (platform-apis.md 2.3): base64 HMAC-SHA256 of the raw body with the
// webhook's secret, the X-WC-Webhook-* headers, and order.created / order.updated bodies (the same
// JSON as GET /orders/{id}). There is no refund topic: a refund fires order.updated.

/** Whether X-WC-Webhook-Signature is base64 HMAC-SHA256 of the exact raw body; constant-time compare. */
export function verifyWooCommerceWebhook(rawBody: string | Buffer, signatureHeader: string | null | undefined, secret: string): boolean {
  return hmacMatches(rawBody, secret, signatureHeader, 'base64');
}

export interface WooCommerceWebhookDelivery {
  topic: string;
  /** X-WC-Webhook-Delivery-ID: the idempotency key of one delivery. */
  deliveryId: string | null;
  webhookId: string | null;
  source: string | null;
}

export function wooCommerceWebhookDelivery(headers: HeaderBag): WooCommerceWebhookDelivery {
  return {
    topic: headerValue(headers, 'x-wc-webhook-topic') ?? '',
    deliveryId: headerValue(headers, 'x-wc-webhook-delivery-id'),
    webhookId: headerValue(headers, 'x-wc-webhook-id'),
    source: headerValue(headers, 'x-wc-webhook-source'),
  };
}

/** The unsigned ping WooCommerce sends when a webhook is created (form body `webhook_id=N`); answer 200. */
export function isWooCommercePing(rawBody: string, headers: HeaderBag): boolean {
  return !headerValue(headers, 'x-wc-webhook-topic') && /^webhook_id=\d+$/.test(rawBody.trim());
}

export type WooCommerceWebhookEffect =
  /**
   * The order as sent. Its refunds come without dates, so when `refundsToFetch` is set the order's
   * refunds are read with fetchWooCommerceOrder (in the job that processes the delivery).
   */
  | { kind: 'ingest'; orders: IngestOrder[]; refundsToFetch: string | null }
  | { kind: 'ignored'; topic: string };

export function mapWooCommerceWebhook(topic: string, payload: unknown): WooCommerceWebhookEffect {
  if (topic !== 'order.created' && topic !== 'order.updated' && topic !== 'order.restored') return { kind: 'ignored', topic };
  const parsed = wooOrder.safeParse(payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new MalformedResponseError(WOOCOMMERCE, `webhook ${topic}: ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'not an order'}`);
  }
  const order = mapWooOrder(parsed.data);
  return { kind: 'ingest', orders: [order], refundsToFetch: parsed.data.refunds.length > 0 ? order.externalId : null };
}
