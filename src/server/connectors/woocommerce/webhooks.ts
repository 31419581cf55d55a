import { createHash } from 'node:crypto';
import type { IngestOrder } from '../../modules/commerce/ingest.ts';
import { MalformedResponseError } from '../connector.ts';
import { headerValue, hmacMatches, type HeaderBag } from '../store-common.ts';
import { WOOCOMMERCE, wooOrder } from './client.ts';
import { mapWooOrder } from './map.ts';

// WooCommerce webhook deliveries (docs/platform-notes.md "WooCommerce"; WC_Webhook in
// includes/class-wc-webhook.php): base64 HMAC-SHA256 of the raw body with the webhook's secret, the
// X-WC-Webhook-* headers; order.created / order.updated / order.restored bodies are the order as
// GET /orders/{id} returns it, order.deleted (fired when an order is trashed) only {"id": N}. There is
// no refund topic: a refund fires order.updated.

/** Whether X-WC-Webhook-Signature is base64 HMAC-SHA256 of the exact raw body; constant-time compare. */
export function verifyWooCommerceWebhook(rawBody: string | Buffer, signatureHeader: string | null | undefined, secret: string): boolean {
  return hmacMatches(rawBody, secret, signatureHeader, 'base64');
}

export interface WooCommerceWebhookDelivery {
  topic: string;
  /**
   * X-WC-Webhook-Delivery-ID: wp_hash(webhook id . current second), so NOT one per delivery: two
   * deliveries of one webhook within a second share it. See wooCommerceDeliveryKey.
   */
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

/**
 * The key a delivery is stored under once: what its body says, not the delivery id (shared by every
 * delivery of the same second, so a bulk action on two orders would lose the second). An order body
 * is keyed by topic, order id, date_modified_gmt and a digest of the body (an exact replay changes
 * nothing; two changes within one second are both kept); order.deleted, whose body is only the id,
 * by the id and the delivery id (the second it was sent: trashed again after a restore is new).
 */
export function wooCommerceDeliveryKey(topic: string, rawBody: string | Buffer, deliveryId: string | null): string {
  const text = typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');
  const digest = createHash('sha256').update(text).digest('hex').slice(0, 16);
  let body: { id?: unknown; date_modified_gmt?: unknown } | null = null;
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object') body = parsed as { id?: unknown; date_modified_gmt?: unknown };
  } catch {
    // Not JSON: keyed by its digest; processing it records the error.
  }
  const id = typeof body?.id === 'number' || typeof body?.id === 'string' ? String(body.id) : null;
  if (id === null) return `${topic}:body:${digest}`;
  if (topic.endsWith('.deleted')) return `${topic}:${id}:${deliveryId ?? digest}`;
  const modified = typeof body?.date_modified_gmt === 'string' ? body.date_modified_gmt : '';
  return `${topic}:${id}:${modified}:${digest}`;
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
  /**
   * The order was trashed (the body names it only): read it from the shop, where it now has the
   * status "trash" (not counting), unless it was restored meanwhile.
   */
  | { kind: 'deleted'; orderId: string }
  | { kind: 'ignored'; topic: string };

export function mapWooCommerceWebhook(topic: string, payload: unknown): WooCommerceWebhookEffect {
  if (topic === 'order.deleted') {
    const id = (payload as { id?: unknown } | null)?.id;
    if ((typeof id !== 'number' || !Number.isInteger(id)) && !(typeof id === 'string' && /^\d+$/.test(id))) {
      throw new MalformedResponseError(WOOCOMMERCE, `webhook ${topic}: id: expected the order id`);
    }
    return { kind: 'deleted', orderId: String(id) };
  }
  if (topic !== 'order.created' && topic !== 'order.updated' && topic !== 'order.restored') return { kind: 'ignored', topic };
  const parsed = wooOrder.safeParse(payload);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new MalformedResponseError(WOOCOMMERCE, `webhook ${topic}: ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'not an order'}`);
  }
  const order = mapWooOrder(parsed.data);
  return { kind: 'ingest', orders: [order], refundsToFetch: parsed.data.refunds.length > 0 ? order.externalId : null };
}
