import { createHmac } from 'node:crypto';
import { headerValue, hmacMatches } from '../store-common.ts';

// Klaviyo system webhooks (platform-apis.md 7.4). Headers Klaviyo-Webhook-Id, Klaviyo-Signature (hex
// HMAC-SHA256 with the webhook's secret_key) and Klaviyo-Timestamp; body {data:[...], meta:{
// klaviyo_account_id, klaviyo_webhook_id, timestamp}} where meta.klaviyo_webhook_id must equal the
// header.
// UNCONFIRMED against Klaviyo's own docs: the signed content is the raw body immediately followed by
// the Klaviyo-Timestamp header value (from a third-party guide), and the timestamp's format (we accept
// Unix seconds, milliseconds or an ISO instant for the replay check). Check both against a real
// delivery before relying on this in production.

export interface KlaviyoWebhookDelivery {
  rawBody: string;
  /** Request headers (any case). */
  headers: Record<string, string | string[] | undefined>;
  secret: string;
  /** Deliveries older (or newer) than this are refused as replays; 0 disables the check. */
  toleranceSeconds?: number;
  now?: Date;
}

export type KlaviyoWebhookVerdict = { ok: true; webhookId: string; accountId: string | null; events: unknown[] } | { ok: false; reason: string };

function timestampMs(value: string): number | null {
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return trimmed.length > 11 ? Number(trimmed) : Number(trimmed) * 1000;
  const parsed = Date.parse(trimmed);
  return Number.isNaN(parsed) ? null : parsed;
}

export function klaviyoSignature(secret: string, rawBody: string, timestamp: string): string {
  return createHmac('sha256', secret).update(rawBody + timestamp, 'utf8').digest('hex');
}

export function verifyKlaviyoWebhook(delivery: KlaviyoWebhookDelivery): KlaviyoWebhookVerdict {
  const signature = headerValue(delivery.headers, 'klaviyo-signature');
  const timestamp = headerValue(delivery.headers, 'klaviyo-timestamp');
  const webhookId = headerValue(delivery.headers, 'klaviyo-webhook-id');
  if (!signature || !timestamp || !webhookId) return { ok: false, reason: 'missing Klaviyo-Signature, Klaviyo-Timestamp or Klaviyo-Webhook-Id header' };
  if (!delivery.secret) return { ok: false, reason: 'no webhook secret configured' };

  const wellFormed = /^[0-9a-fA-F]{64}$/.test(signature.trim());
  if (!wellFormed || !hmacMatches(delivery.rawBody + timestamp, delivery.secret, signature, 'hex')) return { ok: false, reason: 'signature mismatch' };

  const tolerance = delivery.toleranceSeconds ?? 300;
  if (tolerance > 0) {
    const sentAt = timestampMs(timestamp);
    const now = (delivery.now ?? new Date()).getTime();
    if (sentAt === null || Math.abs(now - sentAt) > tolerance * 1000) return { ok: false, reason: 'timestamp outside the allowed window (replayed or delayed delivery)' };
  }

  let body: { data?: unknown; meta?: { klaviyo_webhook_id?: unknown; klaviyo_account_id?: unknown } };
  try {
    body = JSON.parse(delivery.rawBody) as typeof body;
  } catch {
    return { ok: false, reason: 'body is not JSON' };
  }
  if (body.meta?.klaviyo_webhook_id !== webhookId) return { ok: false, reason: 'meta.klaviyo_webhook_id does not match the Klaviyo-Webhook-Id header' };
  return {
    ok: true,
    webhookId,
    accountId: typeof body.meta.klaviyo_account_id === 'string' ? body.meta.klaviyo_account_id : null,
    events: Array.isArray(body.data) ? body.data : [],
  };
}
