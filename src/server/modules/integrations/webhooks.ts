import type { EntityManager } from '@mikro-orm/postgresql';
import type { PlatformKey } from '../../../shared/platforms.ts';
import { fetchShopifyOrder } from '../../connectors/shopify/index.ts';
import { fetchWooCommerceOrder } from '../../connectors/woocommerce/index.ts';
import { isShopifyComplianceTopic, mapShopifyWebhook, shopifyComplianceRequest, shopifyWebhookDelivery, verifyShopifyWebhook, type ShopifyWebhookDelivery } from '../../connectors/shopify/webhooks.ts';
import { headerValue, type HeaderBag } from '../../connectors/store-common.ts';
import { isWooCommercePing, mapWooCommerceWebhook, verifyWooCommerceWebhook, wooCommerceDeliveryKey, wooCommerceWebhookDelivery } from '../../connectors/woocommerce/webhooks.ts';
import { crashPoint } from '../../jobs/crash-points.ts';
import { jobDatabaseOf } from '../../jobs/job-database.ts';
import { ingestOrders, ingestRefunds, upsertProducts, type IngestOrder, type IngestProduct, type IngestRefund } from '../commerce/ingest.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { PlatformConnection, type PlatformConnectionEntity } from '../connections/platform-connection.entity.ts';
import { Store, type StoreEntity } from '../stores/store.entity.ts';
import { applyShopifyComplianceRequest, auditComplianceWithoutData, keptComplianceBody } from './compliance.ts';
import { WebhookDelivery, type WebhookDeliveryEntity } from './integration.entities.ts';
import { integrationsSettings, sendIntegrationJob, type IntegrationsSettings } from './integrations-runtime.ts';
import { activeRunOf, connectionAuthOf, connectorContext, disconnectConnection, openCredentials, requestCancel } from './sync-runner.ts';

// Webhook deliveries: checked against the raw body, stored once per delivery id (a replay changes
// nothing) together with the 'integrations.webhook' job that processes it, answered at once. The
// job's worker takes up to 100 jobs at a time and ingests the plain order and product deliveries of
// a store in one call; the others (a refund whose order is read from Shopify, an uninstall, a
// compliance request, a WooCommerce order read back) one by one.

export const WEBHOOK_QUEUE = 'integrations.webhook';
export const SHOPIFY_UNINSTALLED_REASON = 'The app was uninstalled from the Shopify admin';
/** A delivery the platform sends again while it is still unprocessed this long after it arrived gets its job again (it may have lost it). */
const REQUEUE_AFTER_SECONDS = 60;

export interface WebhookAnswer {
  status: number;
  message: string;
}

const INVALID_SIGNATURE: WebhookAnswer = { status: 401, message: 'Invalid webhook signature' };
const ACCEPTED: WebhookAnswer = { status: 200, message: 'ok' };

/** The connection a delivery is stored for. */
interface DeliveryTarget {
  id: number;
  storeId: number;
  platform: PlatformKey;
}

function targetOf(connection: PlatformConnectionEntity): DeliveryTarget {
  return { id: connection.id, storeId: connection.store.id, platform: connection.platform };
}

/**
 * Stores the delivery unless its id was seen before, and its job, in one transaction: the platform is
 * answered 200 only once both are committed, and a crash before that leaves neither (the platform
 * sends the delivery again). A delivery sent again while still unprocessed a minute on gets a job again.
 */
async function storeDelivery(em: EntityManager, connection: DeliveryTarget, deliveryId: string, topic: string, rawBody: Buffer): Promise<void> {
  await em.transactional(async (tx) => {
    const q = sqlRunner(tx);
    const key = [connection.storeId, connection.platform, deliveryId.slice(0, 255)];
    const [row] = await q.rows<{ id: number }>(
      `insert into webhook_deliveries (store_id, connection_id, platform, delivery_id, topic, payload, received_at)
       values ($1, $4, $2, $3, $5, $6, now())
       on conflict (store_id, platform, delivery_id) do nothing
       returning id`,
      [...key, connection.id, topic.slice(0, 100), rawBody.toString('utf8')],
    );
    crashPoint('webhook.stored');
    if (row) {
      await sendIntegrationJob(WEBHOOK_QUEUE, { deliveryId: row.id }, { db: jobDatabaseOf(tx) });
      return;
    }
    const [pending] = await q.rows<{ id: number }>(
      `select id from webhook_deliveries
        where store_id = $1 and platform = $2 and delivery_id = $3 and processed_at is null and received_at < now() - make_interval(secs => ${REQUEUE_AFTER_SECONDS})`,
      key,
    );
    if (pending) await sendIntegrationJob(WEBHOOK_QUEUE, { deliveryId: pending.id }, { db: jobDatabaseOf(tx), singletonKey: `webhook-delivery-${pending.id}`, singletonSeconds: REQUEUE_AFTER_SECONDS });
  });
}

/**
 * A compliance request is stored for every store connected to the shop, whatever the connection's
 * state: shop/redact comes 48 hours after the uninstall that disconnected it. A shop no store holds
 * data of is recorded in the audit log and answered 200.
 */
async function receiveComplianceRequest(em: EntityManager, delivery: ShopifyWebhookDelivery, rawBody: Buffer): Promise<WebhookAnswer> {
  let request;
  try {
    request = shopifyComplianceRequest(delivery.topic as Parameters<typeof shopifyComplianceRequest>[0], JSON.parse(rawBody.toString('utf8')) as unknown);
  } catch (error) {
    return { status: 400, message: (error as Error).message };
  }
  const shop = (delivery.shopDomain ?? request.shopDomain).toLowerCase();
  const connections = await em.find(PlatformConnection, { platform: 'shopify', accountId: shop }, { orderBy: { id: 'asc' } });
  if (connections.length === 0) {
    await auditComplianceWithoutData(em, { ...request, shopDomain: shop }, delivery.webhookId!);
    return ACCEPTED;
  }
  for (const connection of connections) await storeDelivery(em, targetOf(connection), delivery.webhookId!, delivery.topic, rawBody);
  return ACCEPTED;
}

export async function receiveShopifyWebhook(em: EntityManager, rawBody: Buffer, headers: HeaderBag, settings: IntegrationsSettings = integrationsSettings()): Promise<WebhookAnswer> {
  const secret = settings.platforms.shopify?.clientSecret;
  if (!secret || !verifyShopifyWebhook(rawBody, headerValue(headers, 'x-shopify-hmac-sha256'), secret)) return INVALID_SIGNATURE;
  const delivery = shopifyWebhookDelivery(headers);
  if (!delivery.webhookId || !delivery.topic) return { status: 400, message: 'X-Shopify-Webhook-Id and X-Shopify-Topic are required' };
  if (isShopifyComplianceTopic(delivery.topic)) return receiveComplianceRequest(em, delivery, rawBody);
  // The connection with credentials for the shop (a plain read: this runs for every delivery of a burst).
  const [connection] = delivery.shopDomain
    ? await sqlRunner(em).rows<{ id: number; store_id: number }>(
        `select id, store_id from platform_connections where platform = 'shopify' and account_id = $1 and sealed_credentials is not null order by id limit 1`,
        [delivery.shopDomain.toLowerCase()],
      )
    : [];
  // A shop no store has connected (any more): acknowledged so that Shopify stops retrying.
  if (!connection) return ACCEPTED;
  await storeDelivery(em, { id: connection.id, storeId: connection.store_id, platform: 'shopify' }, delivery.webhookId, delivery.topic, rawBody);
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
  await storeDelivery(em, targetOf(connection), wooCommerceDeliveryKey(delivery.topic, rawBody, delivery.deliveryId), delivery.topic, rawBody);
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

/** Rows a delivery brings that need no call to the platform: ingested together with the other such deliveries of its store. */
interface DirectRows {
  products: IngestProduct[];
  orders: IngestOrder[];
  refunds: IngestRefund[];
}

async function ingestDirect(em: EntityManager, storeId: number, rows: DirectRows): Promise<void> {
  if (rows.products.length) await upsertProducts(em, storeId, rows.products);
  if (rows.orders.length) await ingestOrders(em, storeId, rows.orders);
  if (rows.refunds.length) await ingestRefunds(em, storeId, rows.refunds);
}

/** The delivery's rows when applying it is only ingesting its body; null when it needs more (a read from the platform, a disconnect, a compliance request). */
function directRowsOf(delivery: WebhookDeliveryEntity, connection: PlatformConnectionEntity, store: StoreEntity): DirectRows | null {
  const payload = JSON.parse(delivery.payload) as unknown;
  if (delivery.platform === 'shopify') {
    const effect = mapShopifyWebhook(delivery.topic, payload, { shopCurrency: connection.accountCurrency ?? store.currency });
    if (effect.kind === 'ignored') return { products: [], orders: [], refunds: [] };
    // An orders/* body carries the order's own refunds; refunds/create needs its order read from Shopify.
    if (effect.kind !== 'ingest' || effect.readOrders?.length) return null;
    return { products: effect.products ?? [], orders: effect.orders, refunds: effect.refunds };
  }
  if (delivery.platform === 'woocommerce') {
    const effect = mapWooCommerceWebhook(delivery.topic, payload);
    if (effect.kind === 'ignored') return { products: [], orders: [], refunds: [] };
    if (effect.kind !== 'ingest' || effect.refundsToFetch) return null;
    return { products: [], orders: effect.orders, refunds: [] };
  }
  return { products: [], orders: [], refunds: [] };
}

function errorText(error: unknown): string {
  return ((error as Error)?.message ?? String(error)).slice(0, 2000);
}

/** Stores whose deliveries are applied at the same time: their ingest calls overlap in PostgreSQL (each store's are serialised by its lock anyway). */
const STORES_AT_ONCE = 4;

/**
 * The job: applies stored deliveries (each once; one already processed, or no longer stored, is
 * skipped) and returns, per id, null when it is done or the error that leaves it to be retried
 * (also kept on the delivery). A store's plain deliveries are ingested in one call; when that call
 * fails, each is tried on its own so that one bad body does not hold back the others. Up to
 * STORES_AT_ONCE connections are worked on at once, each with an EntityManager of its own.
 */
export async function processWebhookDeliveries(em: EntityManager, deliveryIds: number[], settings: IntegrationsSettings = integrationsSettings()): Promise<(string | null)[]> {
  const errors = new Map<number, string>();
  const pending = await sqlRunner(em).rows<{ id: number; connection_id: number }>(
    `select id, connection_id from webhook_deliveries where id = any($1::int[]) and processed_at is null order by id`,
    [[...new Set(deliveryIds)]],
  );
  const byConnection = new Map<number, number[]>();
  for (const row of pending) byConnection.set(row.connection_id, [...(byConnection.get(row.connection_id) ?? []), row.id]);
  const groups = [...byConnection];
  const work = async () => {
    for (let group = groups.shift(); group; group = groups.shift()) await processConnectionDeliveries(em.fork(), group[0], group[1], settings, errors);
  };
  await Promise.all(Array.from({ length: Math.min(STORES_AT_ONCE, groups.length) }, work));
  return deliveryIds.map((id) => errors.get(id) ?? null);
}

/** One connection's deliveries (see processWebhookDeliveries); failures are put in `errors`. */
async function processConnectionDeliveries(em: EntityManager, connectionId: number, ids: number[], settings: IntegrationsSettings, errors: Map<number, string>): Promise<void> {
  const connection = await em.findOneOrFail(PlatformConnection, { id: connectionId });
  const store = await em.findOneOrFail(Store, { id: connection.store.id });
  const group = await em.find(WebhookDelivery, { id: { $in: ids }, processedAt: null }, { orderBy: { id: 'asc' } });
  const failed = async (delivery: WebhookDeliveryEntity, error: unknown) => {
    delivery.error = errorText(error);
    errors.set(delivery.id, delivery.error);
    await em.flush();
  };
  const done = async (applied: WebhookDeliveryEntity[]) => {
    for (const delivery of applied) delivery.processedAt = new Date();
    await em.flush();
  };
  const direct: { delivery: WebhookDeliveryEntity; rows: DirectRows }[] = [];
  const others: WebhookDeliveryEntity[] = [];
  for (const delivery of group) {
    try {
      const rows = directRowsOf(delivery, connection, store);
      if (rows) direct.push({ delivery, rows });
      else others.push(delivery);
    } catch (error) {
      await failed(delivery, error);
    }
  }
  if (direct.length > 0) {
    try {
      await ingestDirect(em, store.id, {
        products: direct.flatMap((entry) => entry.rows.products),
        orders: direct.flatMap((entry) => entry.rows.orders),
        refunds: direct.flatMap((entry) => entry.rows.refunds),
      });
      for (const entry of direct) entry.delivery.error = null;
      await done(direct.map((entry) => entry.delivery));
    } catch {
      for (const entry of direct) {
        try {
          await ingestDirect(em, store.id, entry.rows);
          entry.delivery.error = null;
          await done([entry.delivery]);
        } catch (error) {
          await failed(entry.delivery, error);
        }
      }
    }
  }
  for (const delivery of others) {
    try {
      delivery.error = null;
      await applyDelivery(em, delivery, connection, store, settings);
      await done([delivery]);
    } catch (error) {
      await failed(delivery, error);
    }
  }
}

/** One delivery applied (once; a delivery already processed is skipped); throws what leaves it to be retried. */
export async function processWebhookDelivery(em: EntityManager, deliveryId: number, settings: IntegrationsSettings = integrationsSettings()): Promise<void> {
  const [error] = await processWebhookDeliveries(em, [deliveryId], settings);
  if (error) throw new Error(error);
}

/** A delivery that needs more than its body's rows ingested: reads from the platform, a disconnect, a compliance request. */
async function applyDelivery(em: EntityManager, delivery: WebhookDeliveryEntity, connection: PlatformConnectionEntity, store: StoreEntity, settings: IntegrationsSettings): Promise<void> {
  const payload = JSON.parse(delivery.payload) as unknown;
  if (delivery.platform === 'shopify') {
    const effect = mapShopifyWebhook(delivery.topic, payload, { shopCurrency: connection.accountCurrency ?? store.currency });
    if (effect.kind === 'uninstalled') {
      const active = await activeRunOf(em, connection);
      if (active) await requestCancel(em, active);
      await disconnectConnection(em, connection, SHOPIFY_UNINSTALLED_REASON);
    } else if (effect.kind === 'compliance') {
      await applyShopifyComplianceRequest(em, store, connection, effect.request, delivery.id);
      // The customer's e-mail address and phone number are not kept once the request is acted on.
      delivery.payload = keptComplianceBody(effect.request);
      // shop/redact rewrote the connection in SQL: what the ORM holds of it is stale.
      await em.refresh(connection);
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
      await ingestDirect(em, store.id, { products: effect.products ?? [], orders, refunds });
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
}
