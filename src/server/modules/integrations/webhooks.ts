import type { EntityManager } from '@mikro-orm/postgresql';
import type { PlatformKey } from '../../../shared/platforms.ts';
import { fetchShopifyOrder } from '../../connectors/shopify/index.ts';
import { fetchWooCommerceOrder } from '../../connectors/woocommerce/index.ts';
import { mapShopifyWebhook, shopifyWebhookDelivery, verifyShopifyWebhook } from '../../connectors/shopify/webhooks.ts';
import { headerValue, type HeaderBag } from '../../connectors/store-common.ts';
import { isWooCommercePing, mapWooCommerceWebhook, verifyWooCommerceWebhook, wooCommerceDeliveryKey, wooCommerceWebhookDelivery } from '../../connectors/woocommerce/webhooks.ts';
import { ingestOrders, ingestRefunds, upsertProducts, type IngestOrder } from '../commerce/ingest.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { PlatformConnection, type PlatformConnectionEntity } from '../connections/platform-connection.entity.ts';
import { Store } from '../stores/store.entity.ts';
import { WebhookDelivery } from './integration.entities.ts';
import { integrationsSettings, sendIntegrationJob, type IntegrationsSettings } from './integrations-runtime.ts';
import { activeRunOf, connectionAuthOf, connectorContext, disconnectConnection, openCredentials, requestCancel } from './sync-runner.ts';

// Webhook deliveries: checked against the raw body, stored once per delivery id (a replay changes
// nothing), answered at once and processed by the 'integrations.webhook' job.

export const WEBHOOK_QUEUE = 'integrations.webhook';
export const SHOPIFY_UNINSTALLED_REASON = 'The app was uninstalled from the Shopify admin';

export interface WebhookAnswer {
  status: number;
  message: string;
}

const INVALID_SIGNATURE: WebhookAnswer = { status: 401, message: 'Invalid webhook signature' };
const ACCEPTED: WebhookAnswer = { status: 200, message: 'ok' };

/** Stores the delivery unless its id was seen before; queues its processing when new. */
async function storeDelivery(em: EntityManager, connection: PlatformConnectionEntity, deliveryId: string, topic: string, rawBody: Buffer): Promise<void> {
  const [row] = await sqlRunner(em).rows<{ id: number }>(
    `insert into webhook_deliveries (store_id, connection_id, platform, delivery_id, topic, payload, received_at)
     values ($1, $2, $3, $4, $5, $6, now())
     on conflict (store_id, platform, delivery_id) do nothing
     returning id`,
    [connection.store.id, connection.id, connection.platform, deliveryId.slice(0, 255), topic.slice(0, 100), rawBody.toString('utf8')],
  );
  if (row) await sendIntegrationJob(WEBHOOK_QUEUE, { deliveryId: row.id });
}

export async function receiveShopifyWebhook(em: EntityManager, rawBody: Buffer, headers: HeaderBag, settings: IntegrationsSettings = integrationsSettings()): Promise<WebhookAnswer> {
  const secret = settings.platforms.shopify?.clientSecret;
  if (!secret || !verifyShopifyWebhook(rawBody, headerValue(headers, 'x-shopify-hmac-sha256'), secret)) return INVALID_SIGNATURE;
  const delivery = shopifyWebhookDelivery(headers);
  if (!delivery.webhookId || !delivery.topic) return { status: 400, message: 'X-Shopify-Webhook-Id and X-Shopify-Topic are required' };
  const connection = delivery.shopDomain ? await em.findOne(PlatformConnection, { platform: 'shopify', accountId: delivery.shopDomain.toLowerCase() }) : null;
  // A shop no store has connected (any more): acknowledged so that Shopify stops retrying.
  if (!connection?.sealedCredentials) return ACCEPTED;
  await storeDelivery(em, connection, delivery.webhookId, delivery.topic, rawBody);
  return ACCEPTED;
}

export async function receiveWooCommerceWebhook(em: EntityManager, connectionId: number, rawBody: Buffer, headers: HeaderBag, settings: IntegrationsSettings = integrationsSettings()): Promise<WebhookAnswer> {
  const connection = Number.isSafeInteger(connectionId) ? await em.findOne(PlatformConnection, { id: connectionId, platform: 'woocommerce' }) : null;
  if (!connection) return { status: 404, message: 'Unknown webhook address' };
  // WooCommerce pings a new webhook's address, unsigned, when the merchant saves it.
  if (isWooCommercePing(rawBody.toString('utf8'), headers)) return ACCEPTED;
  const secret = openCredentials(settings, connection)?.webhookSecret;
  if (!secret || !verifyWooCommerceWebhook(rawBody, headerValue(headers, 'x-wc-webhook-signature'), secret)) return INVALID_SIGNATURE;
  const delivery = wooCommerceWebhookDelivery(headers);
  if (!delivery.deliveryId || !delivery.topic) return { status: 400, message: 'X-WC-Webhook-Delivery-ID and X-WC-Webhook-Topic are required' };
  // WooCommerce's delivery id is one per webhook and second, not per delivery: stored once per what the body says.
  await storeDelivery(em, connection, wooCommerceDeliveryKey(delivery.topic, rawBody, delivery.deliveryId), delivery.topic, rawBody);
  return ACCEPTED;
}

/**
 * Our copy of a WooCommerce order the shop no longer has (deleted permanently), ingested again as
 * cancelled so that it counts nowhere; its figures, customer and attribution stay as they were.
 */
async function cancelStoredWooCommerceOrder(em: EntityManager, storeId: number, externalId: string, at: Date): Promise<void> {
  const [row] = await sqlRunner(em).rows<{
    order_number: string | null; placed_at: Date; updated_at: Date; currency: string; gross: string; discounts: string; shipping: string; taxes: string;
    landing_site: string | null; referrer: string | null; utm_source: string | null; utm_medium: string | null; utm_campaign: string | null;
    utm_content: string | null; utm_term: string | null; customer_external_id: string | null; email_hash: string | null;
  }>(
    `select o.order_number, o.placed_at, o.updated_at, o.currency, o.gross_minor::text as gross, o.discounts_minor::text as discounts,
            o.shipping_minor::text as shipping, o.taxes_minor::text as taxes, o.landing_site, o.referrer, o.utm_source, o.utm_medium,
            o.utm_campaign, o.utm_content, o.utm_term, c.external_id as customer_external_id, c.email_hash
       from orders o left join customers c on c.store_id = o.store_id and c.id = o.customer_id
      where o.store_id = $1 and o.platform = 'woocommerce' and o.external_id = $2`,
    [storeId, externalId],
  );
  if (!row) return;
  await ingestOrders(em, storeId, [
    {
      platform: 'woocommerce',
      externalId,
      orderNumber: row.order_number,
      placedAt: row.placed_at,
      updatedAt: new Date(Math.max(at.getTime(), new Date(row.updated_at).getTime())),
      currency: row.currency,
      grossMinor: Number(row.gross),
      discountsMinor: Number(row.discounts),
      shippingMinor: Number(row.shipping),
      taxesMinor: Number(row.taxes),
      status: 'cancelled',
      customer: row.customer_external_id ? { externalId: row.customer_external_id, emailHash: row.email_hash } : null,
      landingSite: row.landing_site,
      referrer: row.referrer,
      utmSource: row.utm_source,
      utmMedium: row.utm_medium,
      utmCampaign: row.utm_campaign,
      utmContent: row.utm_content,
      utmTerm: row.utm_term,
    },
  ]);
}

/** The order ids (of `platform`) neither stored for the store nor among `orders`. */
async function ordersNotStored(em: EntityManager, storeId: number, platform: PlatformKey, orderIds: string[], orders: IngestOrder[]): Promise<string[]> {
  const wanted = [...new Set(orderIds)].filter((id) => !orders.some((order) => order.externalId === id));
  if (wanted.length === 0) return [];
  const stored = await sqlRunner(em).rows<{ external_id: string }>(
    `select external_id from orders where store_id = $1 and platform = $2 and external_id = any($3::text[])`,
    [storeId, platform, wanted],
  );
  const known = new Set(stored.map((row) => row.external_id));
  return wanted.filter((id) => !known.has(id));
}

/** The job: applies a stored delivery (once; a delivery already processed is skipped). */
export async function processWebhookDelivery(em: EntityManager, deliveryId: number, settings: IntegrationsSettings = integrationsSettings()): Promise<void> {
  const delivery = await em.findOne(WebhookDelivery, { id: deliveryId });
  if (!delivery || delivery.processedAt) return;
  const connection = await em.findOneOrFail(PlatformConnection, { id: delivery.connection.id });
  const store = await em.findOneOrFail(Store, { id: delivery.store.id });
  try {
    delivery.error = null;
    const payload = JSON.parse(delivery.payload) as unknown;
    if (delivery.platform === 'shopify') {
      const effect = mapShopifyWebhook(delivery.topic, payload, { shopCurrency: connection.accountCurrency ?? store.currency });
      if (effect.kind === 'uninstalled') {
        const active = await activeRunOf(em, connection);
        if (active) await requestCancel(em, active);
        await disconnectConnection(em, connection, SHOPIFY_UNINSTALLED_REASON);
      } else if (effect.kind === 'ingest') {
        const orders = [...effect.orders];
        let refunds = [...effect.refunds];
        // Orders read from Shopify first: the refund's order when we have not stored it (placed before
        // the backfill's window, or its own delivery still on its way), and the order of every
        // refunds/create, whose refunds GraphQL gives in shop money and net of tax (the body says
        // neither the shop's tax mode nor, for a refund without lines, any shop-money amount).
        const credentials = openCredentials(settings, connection);
        const auth = credentials ? await connectionAuthOf(em, settings, connection, credentials, store) : null;
        const missing = await ordersNotStored(em, store.id, 'shopify', effect.refunds.map((refund) => refund.orderExternalId), orders);
        for (const orderId of [...new Set([...(effect.readOrders ?? []), ...missing])]) {
          const fetched = auth ? await auth.call((ctx) => fetchShopifyOrder(ctx, orderId)) : null;
          if (!fetched) {
            if (!missing.includes(orderId)) continue;
            delivery.error = `Order ${orderId} is not known here or at Shopify: its refund was skipped.`;
            refunds = refunds.filter((refund) => refund.orderExternalId !== orderId);
            continue;
          }
          orders.push(fetched.order);
          // Shopify's own copy of each refund (GraphQL) wins over the body's.
          const read = new Set(fetched.refunds.map((refund) => refund.externalId));
          refunds = [...refunds.filter((refund) => !read.has(refund.externalId)), ...fetched.refunds];
        }
        if (effect.products?.length) await upsertProducts(em, store.id, effect.products);
        if (orders.length) await ingestOrders(em, store.id, orders);
        if (refunds.length) await ingestRefunds(em, store.id, refunds);
      }
    } else if (delivery.platform === 'woocommerce') {
      const effect = mapWooCommerceWebhook(delivery.topic, payload);
      const credentials = openCredentials(settings, connection);
      const ctx = credentials ? connectorContext(settings, 'woocommerce' satisfies PlatformKey, credentials, store) : null;
      if (effect.kind === 'ingest') {
        await ingestOrders(em, store.id, effect.orders);
        // The body lists refunds without their dates: read them from the store.
        if (effect.refundsToFetch && ctx) {
          const fetched = await fetchWooCommerceOrder(ctx, effect.refundsToFetch);
          if (fetched?.refunds.length) await ingestRefunds(em, store.id, fetched.refunds);
        }
      } else if (effect.kind === 'deleted') {
        // The body is only the id: the order as the shop has it now (status "trash", or restored meanwhile).
        if (!ctx) throw new Error(`Order ${effect.orderId} was deleted at WooCommerce, but the connection has no credentials to read it.`);
        const fetched = await fetchWooCommerceOrder(ctx, effect.orderId);
        if (fetched) {
          await ingestOrders(em, store.id, [fetched.order]);
          if (fetched.refunds.length) await ingestRefunds(em, store.id, fetched.refunds);
        } else {
          // Deleted for good: our copy counts nowhere from now on.
          await cancelStoredWooCommerceOrder(em, store.id, effect.orderId, delivery.receivedAt);
        }
      }
    }
    delivery.processedAt = new Date();
    await em.flush();
  } catch (error) {
    delivery.error = (error as Error).message?.slice(0, 2000) ?? String(error);
    await em.flush();
    throw error;
  }
}
