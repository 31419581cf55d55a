import { createHmac, randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCommerceStore } from '../../../../test/commerce-fixtures.ts';
import { startShopifyFake, type ShopifyFake } from '../../../../test/fakes/shopify.ts';
import { startWooCommerceFake, type WooCommerceFake } from '../../../../test/fakes/woocommerce.ts';
import { useTestApp } from '../../../../test/harness.ts';
import { trackingEvent, useEventWriter } from '../../../../test/tracking-fixtures.ts';
import { PLATFORM_KEYS, type PlatformKey } from '../../../shared/platforms.ts';
import type { PlatformSettings } from '../../config.ts';
import { auditLog } from '../admin/admin.service.ts';
import { hashEmail, ingestOrders } from '../commerce/ingest.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { runAttribution } from '../attribution/credits.ts';
import { PlatformConnection } from '../connections/platform-connection.entity.ts';
import { recomputeLoyalty } from '../loyalty/loyalty-job.ts';
import { buildSessions } from '../tracking/sessions.ts';
import { trackingSettingsOf } from '../tracking/tracking-settings.service.ts';
import { SHOPIFY_SHOP_REDACTED_REASON } from './compliance.ts';
import { WebhookDelivery } from './integration.entities.ts';
import { configureIntegrations, integrationsSettingsFrom, setIntegrationJobSender, type IntegrationsSettings } from './integrations-runtime.ts';
import { sealCredentials } from './sync-runner.ts';
import { SHOPIFY_UNINSTALLED_REASON, WEBHOOK_QUEUE, processWebhookDeliveries, processWebhookDelivery } from './webhooks.ts';

const testApp = useTestApp();
const tracking = useEventWriter(() => testApp.databaseUrl);
const DAY_MS = 86_400_000;

let shopify: ShopifyFake;
let woo: WooCommerceFake;
let settings: IntegrationsSettings;
const sentJobs: { queue: string; data: { deliveryId: number } }[] = [];
/** When set, sending a job fails with it (the queue unreachable, the process dying there). */
let sendFailure: Error | null = null;

beforeAll(async () => {
  const now = Date.now();
  shopify = await startShopifyFake({ seed: 4, orders: 30, products: 5, from: new Date(now - 20 * DAY_MS), to: new Date(now - DAY_MS), rateLimit: false });
  woo = await startWooCommerceFake({ seed: 4, orders: 30, products: 5, from: new Date(now - 20 * DAY_MS), to: new Date(now - DAY_MS) });
  const platforms = Object.fromEntries(PLATFORM_KEYS.map((key) => [key, {} as PlatformSettings])) as Record<PlatformKey, PlatformSettings>;
  platforms.shopify = { baseUrl: shopify.url, clientId: shopify.clientId, clientSecret: shopify.clientSecret };
  platforms.woocommerce = { baseUrl: woo.url };
  settings = integrationsSettingsFrom({ encryptionKey: randomBytes(32).toString('hex'), dataDir: path.join(os.tmpdir(), 'storepulse-webhooks-test'), platforms });
});
afterAll(async () => {
  setIntegrationJobSender(null);
  await Promise.all([shopify.close(), woo.close()]);
});
beforeEach(() => {
  configureIntegrations(settings);
  sentJobs.length = 0;
  sendFailure = null;
  setIntegrationJobSender(async (queue, data) => {
    if (sendFailure) throw sendFailure;
    sentJobs.push({ queue, data: data as { deliveryId: number } });
  });
});

async function connected(platform: 'shopify' | 'woocommerce', credentials: Record<string, string>, accountId: string) {
  const store = await createCommerceStore(testApp.orm, { timezone: 'UTC', currency: platform === 'shopify' ? 'USD' : 'EUR' });
  const em = testApp.orm.em.fork();
  const connection = em.create(PlatformConnection, { store: store.id, platform, status: 'connected', connected: true, accountId });
  await em.flush();
  sealCredentials(settings, connection, credentials);
  await em.flush();
  return { storeId: store.id, ownerId: store.ownerId, connectionId: connection.id };
}

function post(url: string, delivery: { headers: Record<string, string>; body: string }) {
  return testApp.app.inject({ method: 'POST', url, headers: delivery.headers, payload: delivery.body });
}

async function deliveries(storeId: number) {
  return testApp.orm.em.fork().find(WebhookDelivery, { store: storeId }, { orderBy: { id: 'asc' } });
}

async function ordersOf(storeId: number) {
  return sqlRunner(testApp.orm.em.fork()).rows<{ external_id: string; status: string }>(`select external_id, status from orders where store_id = $1 order by external_id`, [storeId]);
}

/** What the 'integrations.webhook' worker does with each job sent. */
async function processSentJobs() {
  for (const job of sentJobs.splice(0)) {
    expect(job.queue).toBe(WEBHOOK_QUEUE);
    await processWebhookDelivery(testApp.orm.em.fork(), job.data.deliveryId, settings);
  }
}

describe('POST /api/webhooks/shopify', () => {
  it('stores a valid delivery once, answers 200 and ingests the order in a job; a replay changes nothing', async () => {
    const { storeId } = await connected('shopify', { shop: shopify.shop, accessToken: shopify.initialToken! }, shopify.shop);
    const delivery = shopify.webhookDelivery('orders/create', shopify.orderId(3), { webhookId: 'wh-create-3' });
    const answer = await post('/api/webhooks/shopify', delivery);
    expect(answer.statusCode).toBe(200);
    expect((await deliveries(storeId)).map((row) => [row.deliveryId, row.topic, row.processedAt])).toEqual([['wh-create-3', 'orders/create', null]]);
    expect(await ordersOf(storeId)).toEqual([]);
    expect(sentJobs).toHaveLength(1);
    await processSentJobs();
    expect((await ordersOf(storeId)).map((order) => order.external_id)).toEqual([shopify.orderId(3)]);
    expect((await deliveries(storeId))[0]!.processedAt).toBeInstanceOf(Date);

    // Shopify retries the same delivery (same X-Shopify-Webhook-Id): 200, nothing stored or queued again.
    expect((await post('/api/webhooks/shopify', delivery)).statusCode).toBe(200);
    expect(await deliveries(storeId)).toHaveLength(1);
    expect(sentJobs).toEqual([]);
    // Processing a job twice (a pg-boss retry) does nothing either.
    await processWebhookDelivery(testApp.orm.em.fork(), (await deliveries(storeId))[0]!.id, settings);
    expect(await ordersOf(storeId)).toHaveLength(1);
  });

  it('refunds/create for an order never stored here reads the order from Shopify first, once', async () => {
    const { storeId } = await connected('shopify', { shop: shopify.shop, accessToken: shopify.initialToken! }, 'refund-first.myshopify.com');
    const orderId = shopify.orderId(7);
    const refundId = shopify.addRefund(orderId, { amountMinor: 1250, note: 'Too small' });
    const delivery = shopify.webhookDelivery('refunds/create', orderId, { webhookId: 'wh-refund-7' });
    delivery.headers['x-shopify-shop-domain'] = 'refund-first.myshopify.com';
    expect((await post('/api/webhooks/shopify', delivery)).statusCode).toBe(200);
    expect(await ordersOf(storeId)).toEqual([]);
    await processSentJobs();
    expect((await ordersOf(storeId)).map((order) => order.external_id)).toEqual([orderId]);
    const refunds = await sqlRunner(testApp.orm.em.fork()).rows<{ external_id: string; amount: string }>(
      `select external_id, amount_minor::text as amount from refunds where store_id = $1 order by external_id`,
      [storeId],
    );
    expect(refunds).toContainEqual({ external_id: refundId, amount: '1250' });
    const [stored] = await deliveries(storeId);
    expect(stored).toMatchObject({ processedAt: expect.any(Date), error: null });
  });

  it('refunds/create without refunded lines is stored in shop money (never the presentment transaction); products/update upserts the product', async () => {
    const { storeId } = await connected('shopify', { shop: shopify.shop, accessToken: shopify.initialToken! }, 'presentment.myshopify.com');
    // An order whose buyer paid in EUR (the shop sells in USD): presentment money is 0.92 of shop money.
    let index = 0;
    while (shopify.order(index).presentmentCurrency === 'USD') index++;
    const orderId = shopify.orderId(index);
    const refundId = shopify.addRefund(orderId, { lines: 0, adjustmentMinor: 1000 });
    const delivery = shopify.webhookDelivery('refunds/create', orderId, { webhookId: 'wh-presentment' });
    delivery.headers['x-shopify-shop-domain'] = 'presentment.myshopify.com';
    expect(JSON.parse(delivery.body).transactions[0]).toMatchObject({ amount: '9.20', currency: 'EUR' });
    expect((await post('/api/webhooks/shopify', delivery)).statusCode).toBe(200);
    const product = shopify.webhookDelivery('products/update', null, { webhookId: 'wh-product', payload: shopify.restProduct(2, { title: 'Renamed', priceMinor: 4200 }) });
    product.headers['x-shopify-shop-domain'] = 'presentment.myshopify.com';
    expect((await post('/api/webhooks/shopify', product)).statusCode).toBe(200);
    await processSentJobs();
    const refunds = await sqlRunner(testApp.orm.em.fork()).rows<{ external_id: string; amount: string; adjustments: string; currency: string }>(
      `select external_id, amount_minor::text as amount, adjustments_minor::text as adjustments, currency from refunds where store_id = $1`,
      [storeId],
    );
    // USD 10.00 returned as an adjustment (not EUR 9.20, and not merchandise).
    expect(refunds).toContainEqual({ external_id: refundId, amount: '0', adjustments: '1000', currency: 'USD' });
    const products = await sqlRunner(testApp.orm.em.fork()).rows<{ title: string; price: string }>(`select title, price_minor::text as price from products where store_id = $1`, [storeId]);
    expect(products).toEqual([{ title: 'Renamed', price: '4200' }]);
  });

  it('a refund of an order Shopify does not know either is recorded as skipped, not retried forever', async () => {
    const { storeId } = await connected('shopify', { shop: shopify.shop, accessToken: shopify.initialToken! }, 'refund-unknown.myshopify.com');
    shopify.addRefund(shopify.orderId(8), { amountMinor: 100 });
    const delivery = shopify.webhookDelivery('refunds/create', shopify.orderId(8), { webhookId: 'wh-refund-unknown' });
    // The refund names an order id the shop never had (signed by Shopify all the same).
    const unknownOrder = '999999';
    const body = JSON.stringify({ ...(JSON.parse(delivery.body) as Record<string, unknown>), order_id: Number(unknownOrder) });
    const headers = { ...delivery.headers, 'x-shopify-shop-domain': 'refund-unknown.myshopify.com', 'x-shopify-hmac-sha256': createHmac('sha256', shopify.clientSecret).update(body).digest('base64') };
    const signed = { body, headers };
    expect((await post('/api/webhooks/shopify', signed)).statusCode).toBe(200);
    await processSentJobs();
    const [stored] = await deliveries(storeId);
    expect(stored).toMatchObject({ processedAt: expect.any(Date), error: `Order ${unknownOrder} is not known here or at Shopify: its refund was skipped.` });
    expect(await ordersOf(storeId)).toEqual([]);
  });

  it('answers 401 to a forged or missing signature and stores nothing', async () => {
    const { storeId } = await connected('shopify', { shop: shopify.shop, accessToken: shopify.initialToken! }, `${shopify.shop}.other`);
    // The signature covers the body only: the shop header routes the delivery to this test's connection.
    const forged = shopify.webhookDelivery('orders/create', shopify.orderId(4), { secret: 'not-the-app-secret' });
    forged.headers['x-shopify-shop-domain'] = `${shopify.shop}.other`;
    const forgedAnswer = await post('/api/webhooks/shopify', forged);
    expect([forgedAnswer.statusCode, forgedAnswer.json()]).toEqual([401, { message: 'Invalid webhook signature' }]);
    const unsigned = shopify.webhookDelivery('orders/create', shopify.orderId(4));
    delete unsigned.headers['x-shopify-hmac-sha256'];
    expect((await post('/api/webhooks/shopify', unsigned)).statusCode).toBe(401);
    // The body changed after signing (the signature covers the raw bytes).
    const tampered = shopify.webhookDelivery('orders/create', shopify.orderId(4));
    tampered.body = tampered.body.replace('"test":false', '"test":true ');
    expect((await post('/api/webhooks/shopify', tampered)).statusCode).toBe(401);
    expect(await deliveries(storeId)).toEqual([]);
    expect(sentJobs).toEqual([]);
  });

  it('app/uninstalled disconnects the connection with the reason and keeps its data', async () => {
    const { storeId, connectionId } = await connected('shopify', { shop: shopify.shop, accessToken: shopify.initialToken! }, 'uninstall-test.myshopify.com');
    const order = shopify.webhookDelivery('orders/updated', shopify.orderId(5));
    order.headers['x-shopify-shop-domain'] = 'uninstall-test.myshopify.com';
    expect((await post('/api/webhooks/shopify', order)).statusCode).toBe(200);
    const uninstalled = shopify.webhookDelivery('app/uninstalled', null);
    uninstalled.headers['x-shopify-shop-domain'] = 'uninstall-test.myshopify.com';
    expect((await post('/api/webhooks/shopify', uninstalled)).statusCode).toBe(200);
    await processSentJobs();
    const connection = await testApp.orm.em.fork().findOneOrFail(PlatformConnection, { id: connectionId });
    expect(connection).toMatchObject({ status: 'disconnected', connected: false, sealedCredentials: null, disconnectReason: SHOPIFY_UNINSTALLED_REASON });
    expect(await ordersOf(storeId)).toHaveLength(1);
    // Later deliveries for the shop are acknowledged and dropped.
    expect((await post('/api/webhooks/shopify', { ...order, headers: { ...order.headers, 'x-shopify-webhook-id': 'after-uninstall' } })).statusCode).toBe(200);
    expect(await deliveries(storeId)).toHaveLength(2);
  });
});

describe('POST /api/webhooks/woocommerce/:connectionId', () => {
  const credentials = () => ({ storeUrl: 'https://shop.example.com', consumerKey: woo.consumerKey, consumerSecret: woo.consumerSecret, webhookSecret: woo.webhookSecret });

  it("checks the connection's secret, stores each delivery id once and ingests the order with its refunds", async () => {
    const { storeId, connectionId } = await connected('woocommerce', credentials(), 'shop.example.com');
    const url = `/api/webhooks/woocommerce/${connectionId}`;
    const orderId = woo.orderId(2);
    woo.addRefund(orderId, { amountMinor: 500, reason: 'damaged' });

    const forged = woo.webhookDelivery('order.updated', orderId, { secret: 'wrong-secret' });
    expect((await post(url, forged)).statusCode).toBe(401);
    expect(await deliveries(storeId)).toEqual([]);

    const delivery = woo.webhookDelivery('order.updated', orderId, { deliveryId: 'wc-delivery-1' });
    expect((await post(url, delivery)).statusCode).toBe(200);
    expect((await post(url, delivery)).statusCode).toBe(200);
    expect(await deliveries(storeId)).toHaveLength(1);
    expect(sentJobs).toHaveLength(1);
    await processSentJobs();
    expect((await ordersOf(storeId)).map((order) => order.external_id)).toEqual([orderId]);
    const refunds = await sqlRunner(testApp.orm.em.fork()).rows<{ amount: string }>(`select amount_minor::text as amount from refunds where store_id = $1`, [storeId]);
    expect(refunds.map((refund) => refund.amount)).toContain('500');

    // WooCommerce's unsigned ping when the merchant saves the webhook.
    const ping = await testApp.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'webhook_id=12' });
    expect(ping.statusCode).toBe(200);
    expect((await testApp.app.inject({ method: 'POST', url: '/api/webhooks/woocommerce/999999', headers: delivery.headers, payload: delivery.body })).statusCode).toBe(404);
  });

  /** Generated orders of the fake that count (paid, no refunds), from `from` on. */
  function countingOrders(from: number, count: number): string[] {
    const ids: string[] = [];
    for (let index = from; ids.length < count; index++) {
      const order = woo.order(index);
      if (['completed', 'processing'].includes(order.status) && order.refunds.length === 0) ids.push(woo.orderId(index));
    }
    return ids;
  }

  async function countedOrders(storeId: number): Promise<number> {
    const [row] = await sqlRunner(testApp.orm.em.fork()).rows<{ orders: number }>(`select coalesce(sum(orders_count), 0)::int as orders from daily_rollups where store_id = $1`, [storeId]);
    return row!.orders;
  }

  it('two orders cancelled in the same second share WooCommerce\'s delivery id: both are applied', async () => {
    const { storeId, connectionId } = await connected('woocommerce', credentials(), 'bulk.example.com');
    const url = `/api/webhooks/woocommerce/${connectionId}`;
    const [first, second] = countingOrders(10, 2) as [string, string];
    for (const id of [first, second]) expect((await post(url, woo.webhookDelivery('order.created', id))).statusCode).toBe(200);
    await processSentJobs();
    expect(await countedOrders(storeId)).toBe(2);

    // A bulk action: both orders cancelled within one second, both deliveries sent that second.
    const at = new Date(Date.now() - 30_000);
    at.setUTCMilliseconds(100);
    woo.updateOrder(first, { status: 'cancelled', at });
    woo.updateOrder(second, { status: 'cancelled', at });
    const deliveriesSent = [woo.webhookDelivery('order.updated', first, { at }), woo.webhookDelivery('order.updated', second, { at: new Date(at.getTime() + 600) })];
    expect(deliveriesSent[0]!.headers['x-wc-webhook-delivery-id']).toBe(deliveriesSent[1]!.headers['x-wc-webhook-delivery-id']);
    for (const delivery of deliveriesSent) expect((await post(url, delivery)).statusCode).toBe(200);
    expect(await deliveries(storeId)).toHaveLength(4);
    await processSentJobs();
    // 2 - 2 = 0 counted orders (not 1: the second delivery is not taken for a replay).
    expect(await ordersOf(storeId)).toEqual([first, second].sort().map((id) => ({ external_id: id, status: 'cancelled' })));
    expect(await countedOrders(storeId)).toBe(0);
  });

  it('order.deleted (the order was trashed) stops it counting; order.restored counts it again', async () => {
    const { storeId, connectionId } = await connected('woocommerce', credentials(), 'trash.example.com');
    const url = `/api/webhooks/woocommerce/${connectionId}`;
    const [id] = countingOrders(15, 1) as [string];
    expect((await post(url, woo.webhookDelivery('order.created', id))).statusCode).toBe(200);
    await processSentJobs();
    expect(await countedOrders(storeId)).toBe(1);

    woo.trashOrder(id, new Date(Date.now() - 20_000));
    const deleted = woo.webhookDelivery('order.deleted', id, { at: new Date(Date.now() - 20_000) });
    expect(JSON.parse(deleted.body)).toEqual({ id: Number(id) });
    expect((await post(url, deleted)).statusCode).toBe(200);
    await processSentJobs();
    expect(await ordersOf(storeId)).toEqual([{ external_id: id, status: 'cancelled' }]);
    expect(await countedOrders(storeId)).toBe(0);

    woo.restoreOrder(id, new Date(Date.now() - 10_000));
    expect((await post(url, woo.webhookDelivery('order.restored', id))).statusCode).toBe(200);
    await processSentJobs();
    expect(await ordersOf(storeId)).toEqual([{ external_id: id, status: 'paid' }]);
    expect(await countedOrders(storeId)).toBe(1);
    expect((await deliveries(storeId)).map((row) => [row.topic, row.error])).toEqual([['order.created', null], ['order.deleted', null], ['order.restored', null]]);
  });

  it('order.deleted for an order WooCommerce no longer has: our copy stops counting', async () => {
    const { storeId, connectionId } = await connected('woocommerce', credentials(), 'gone.example.com');
    const url = `/api/webhooks/woocommerce/${connectionId}`;
    const [id] = countingOrders(20, 1) as [string];
    const created = woo.webhookDelivery('order.created', id);
    // The same order under an id the shop does not know (deleted for good there).
    const body = created.body.replace(`"id":${id},`, '"id":987654,');
    expect((await post(url, { body, headers: { ...created.headers, 'x-wc-webhook-signature': createHmac('sha256', woo.webhookSecret).update(body).digest('base64') } })).statusCode).toBe(200);
    await processSentJobs();
    expect(await countedOrders(storeId)).toBe(1);
    const deleted = woo.webhookDelivery('order.deleted', id);
    const gone = JSON.stringify({ id: 987654 });
    expect((await post(url, { body: gone, headers: { ...deleted.headers, 'x-wc-webhook-signature': createHmac('sha256', woo.webhookSecret).update(gone).digest('base64') } })).statusCode).toBe(200);
    await processSentJobs();
    expect(await ordersOf(storeId)).toEqual([{ external_id: '987654', status: 'cancelled' }]);
    expect(await countedOrders(storeId)).toBe(0);
  });
});

/** Indices of the fake shop's orders that count (not cancelled, not test), from `from` on. */
function countingShopifyOrders(from: number, count: number): number[] {
  const indices: number[] = [];
  for (let index = from; indices.length < count; index++) {
    const order = shopify.order(index);
    if (!order.cancelledMs && !order.test) indices.push(index);
  }
  return indices;
}

/** A delivery of `topic` for the shop `shop`, signed with the app's secret. */
function shopDelivery(shop: string, topic: string, payload: unknown, webhookId?: string) {
  const delivery = shopify.webhookDelivery(topic, null, { payload, ...(webhookId ? { webhookId } : {}) });
  delivery.headers['x-shopify-shop-domain'] = shop;
  return delivery;
}

async function rollupTotals(storeId: number) {
  const [row] = await sqlRunner(testApp.orm.em.fork()).rows<{ orders: number; net: string }>(
    `select coalesce(sum(orders_count), 0)::int as orders, coalesce(sum(net_sales_minor), 0)::text as net from daily_rollups where store_id = $1`,
    [storeId],
  );
  return { orders: row!.orders, net: Number(row!.net) };
}

describe('storing a delivery with its job', () => {
  it('a delivery whose job cannot be queued is not stored: the answer is 500 and Shopify\'s retry is stored and processed', async () => {
    const { storeId } = await connected('shopify', { shop: shopify.shop, accessToken: shopify.initialToken! }, 'atomic.myshopify.com');
    const [index] = countingShopifyOrders(11, 1) as [number];
    const delivery = shopDelivery('atomic.myshopify.com', 'orders/create', shopify.restOrder(index), 'wh-atomic');
    // The job cannot be queued (the process dies there, the queue's database is gone): the row written
    // before it is rolled back with it, and Shopify, answered 500, sends the delivery again.
    sendFailure = new Error('queue unreachable');
    expect((await post('/api/webhooks/shopify', delivery)).statusCode).toBe(500);
    expect(await deliveries(storeId)).toEqual([]);
    sendFailure = null;
    expect((await post('/api/webhooks/shopify', delivery)).statusCode).toBe(200);
    expect(sentJobs).toHaveLength(1);
    await processSentJobs();
    expect((await ordersOf(storeId)).map((order) => order.external_id)).toEqual([shopify.orderId(index)]);
  });

  it('a delivery sent again while still unprocessed a minute after it arrived is queued again; a quick retry is not', async () => {
    const { storeId, connectionId } = await connected('shopify', { shop: shopify.shop, accessToken: shopify.initialToken! }, 'orphan.myshopify.com');
    const [first, second] = countingShopifyOrders(12, 2) as [number, number];
    // Stored 5 minutes ago by a version that queued the job after the commit, and died in between.
    const orphan = shopDelivery('orphan.myshopify.com', 'orders/create', shopify.restOrder(first), 'wh-orphan');
    await sqlRunner(testApp.orm.em.fork()).run(
      `insert into webhook_deliveries (store_id, connection_id, platform, delivery_id, topic, payload, received_at) values ($1, $2, 'shopify', 'wh-orphan', 'orders/create', $3, now() - interval '5 minutes')`,
      [storeId, connectionId, orphan.body],
    );
    expect((await post('/api/webhooks/shopify', orphan)).statusCode).toBe(200);
    const [stored] = await deliveries(storeId);
    expect(sentJobs.map((job) => job.data.deliveryId)).toEqual([stored!.id]);
    // A delivery stored a moment ago and sent again: its job is on its way, nothing more is queued.
    const fresh = shopDelivery('orphan.myshopify.com', 'orders/create', shopify.restOrder(second), 'wh-fresh');
    expect((await post('/api/webhooks/shopify', fresh)).statusCode).toBe(200);
    expect((await post('/api/webhooks/shopify', fresh)).statusCode).toBe(200);
    expect(sentJobs).toHaveLength(2);
    await processSentJobs();
    expect((await ordersOf(storeId)).map((order) => order.external_id)).toEqual([shopify.orderId(first), shopify.orderId(second)].sort());
  });
});

describe('processing deliveries in batches', () => {
  it("a store's burst is applied in one call, an order's later version wins, and a bad body fails alone", async () => {
    const { storeId } = await connected('shopify', { shop: shopify.shop, accessToken: shopify.initialToken! }, 'burst.myshopify.com');
    const indices = countingShopifyOrders(0, 12);
    for (const index of indices) {
      expect((await post('/api/webhooks/shopify', shopDelivery('burst.myshopify.com', 'orders/create', shopify.restOrder(index)))).statusCode).toBe(200);
    }
    // orders/updated of the first order, cancelled since: a newer version of the same order in the same batch.
    const cancelled = { ...shopify.restOrder(indices[0]!), cancelled_at: new Date().toISOString(), updated_at: new Date().toISOString() };
    expect((await post('/api/webhooks/shopify', shopDelivery('burst.myshopify.com', 'orders/updated', cancelled))).statusCode).toBe(200);
    // A signed body that is not an order (no created_at): refused by the mapping, on its own.
    const broken = { ...shopify.restOrder(indices[1]!), id: 99_999_999, created_at: undefined };
    expect((await post('/api/webhooks/shopify', shopDelivery('burst.myshopify.com', 'orders/create', broken, 'wh-broken'))).statusCode).toBe(200);
    expect(sentJobs).toHaveLength(14);

    const errors = await processWebhookDeliveries(testApp.orm.em.fork(), sentJobs.map((job) => job.data.deliveryId), settings);
    // 13 applied, the broken one failed (and is retried by its job).
    expect(errors.filter((error) => error === null)).toHaveLength(13);
    expect(errors.at(-1)).toMatch(/not an order/);
    const stored = await deliveries(storeId);
    expect(stored.filter((row) => row.processedAt).length).toBe(13);
    expect(stored.find((row) => row.deliveryId === 'wh-broken')).toMatchObject({ processedAt: null, error: expect.stringMatching(/not an order/) });
    // 12 orders stored; the first cancelled by its later version: 12 - 1 = 11 count.
    expect(await ordersOf(storeId)).toHaveLength(12);
    expect((await rollupTotals(storeId)).orders).toBe(11);
    // Processing the same jobs again (a retry of the batch) changes nothing.
    await processWebhookDeliveries(testApp.orm.em.fork(), sentJobs.map((job) => job.data.deliveryId).slice(0, 13), settings);
    expect((await rollupTotals(storeId)).orders).toBe(11);
  });
});

describe("Shopify's compliance webhooks", () => {
  // Bodies as Shopify sends them (Shopify's app template, web/privacy.js; help.shopify.com/api/guides/gdpr-resources).
  const jane = { id: 777001, email: 'Jane.Doe@example.com', phone: '555-625-1199' };

  /** A store connected to `shop` with two orders of Jane (arrived by webhook, with her visit's click id) and one of someone else. */
  async function storeWithJane(shop: string) {
    const ids = await connected('shopify', { shop: shopify.shop, accessToken: shopify.initialToken! }, shop);
    const [a, b, c] = countingShopifyOrders(20, 3) as [number, number, number];
    const visit = { landing_site: '/products/1?gclid=jane-click', referring_site: 'https://www.google.com/' };
    const bodies = [
      { ...shopify.restOrder(a), ...visit, customer: { id: jane.id, email: jane.email, first_name: 'Jane', last_name: 'Doe' }, email: jane.email },
      { ...shopify.restOrder(b), ...visit, customer: { id: jane.id, email: jane.email, first_name: 'Jane', last_name: 'Doe' }, email: jane.email },
      { ...shopify.restOrder(c), ...visit, customer: { id: 777002, email: 'other@example.com' }, email: 'other@example.com' },
    ];
    for (const body of bodies) expect((await post('/api/webhooks/shopify', shopDelivery(shop, 'orders/create', body))).statusCode).toBe(200);
    await processSentJobs();
    return { ...ids, janeOrders: [shopify.orderId(a), shopify.orderId(b)], otherOrder: shopify.orderId(c) };
  }

  async function customersOf(storeId: number) {
    return sqlRunner(testApp.orm.em.fork()).rows<{ external_id: string; email_hash: string | null; orders_count: number; has_contact: boolean }>(
      `select external_id, email_hash, orders_count, (contact_sealed is not null or contact_digest is not null or name_search is not null) as has_contact
         from customers where store_id = $1 order by id`,
      [storeId],
    );
  }

  async function auditFor(ownerId: number) {
    return auditLog(testApp.orm.em.fork(), { limit: 10, aboutUserId: ownerId });
  }

  it('customers/data_request records for the owner what we hold of the customer; the stored body keeps no e-mail or phone', async () => {
    const shop = 'data-request.myshopify.com';
    const { storeId, ownerId, janeOrders } = await storeWithJane(shop);
    const request = { shop_id: 954889, shop_domain: shop, orders_requested: [Number(janeOrders[0])], customer: jane, data_request: { id: 9999 } };
    expect((await post('/api/webhooks/shopify', shopDelivery(shop, 'customers/data_request', request, 'wh-data-request'))).statusCode).toBe(200);
    await processSentJobs();
    const [entry] = await auditFor(ownerId);
    // Jane: one customer record with an e-mail hash, her two orders (the one requested and the other).
    expect(entry).toMatchObject({
      action: 'shopify.customer_data_request',
      actorUserId: null,
      targetUserId: ownerId,
      details: { shop, storeId, customerId: '777001', dataRequestId: '9999', ordersRequested: [janeOrders[0]], held: { customerRecords: 1, emailHashes: 1, ordersCount: 2 } },
    });
    expect((entry!.details!.held as { orders: { id: string }[] }).orders.map((order) => order.id)).toEqual(janeOrders);
    const stored = (await deliveries(storeId)).find((row) => row.deliveryId === 'wh-data-request')!;
    expect(stored.processedAt).toBeInstanceOf(Date);
    expect(stored.payload).not.toMatch(/Jane|555-625/i);
  });

  it('customers/redact leaves no way to tell who the customer was, and the store\'s figures unchanged', async () => {
    const shop = 'customer-redact.myshopify.com';
    const { storeId, ownerId, janeOrders, otherOrder } = await storeWithJane(shop);
    const before = await rollupTotals(storeId);
    expect(before.orders).toBe(3);
    expect((await customersOf(storeId)).map((row) => row.email_hash)).toContain(hashEmail(jane.email));
    expect((await customersOf(storeId)).map((row) => row.has_contact)).toEqual([true, true]);

    const request = { shop_id: 954889, shop_domain: shop, customer: jane, orders_to_redact: janeOrders.map(Number) };
    expect((await post('/api/webhooks/shopify', shopDelivery(shop, 'customers/redact', request, 'wh-redact'))).statusCode).toBe(200);
    await processSentJobs();

    const customers = await customersOf(storeId);
    // Jane's record: no Shopify id, no e-mail hash, no sealed name and e-mail, still her 2 orders; the other customer as before.
    expect(customers).toEqual([
      { external_id: expect.stringMatching(/^redacted-\d+$/), email_hash: null, orders_count: 2, has_contact: false },
      { external_id: '777002', email_hash: hashEmail('other@example.com'), orders_count: 1, has_contact: true },
    ]);
    const visits = await sqlRunner(testApp.orm.em.fork()).rows<{ external_id: string; landing_site: string | null; referrer: string | null; gclid: string | null }>(
      `select external_id, landing_site, referrer, gclid from orders where store_id = $1 order by external_id`,
      [storeId],
    );
    expect(visits).toEqual(
      [
        ...janeOrders.map((id) => ({ external_id: id, landing_site: null, referrer: null, gclid: null })),
        { external_id: otherOrder, landing_site: '/products/1?gclid=jane-click', referrer: 'https://www.google.com/', gclid: 'jane-click' },
      ].sort((x, y) => x.external_id.localeCompare(y.external_id)),
    );
    // Her two orders' webhook bodies (name, e-mail, addresses) are gone; the other's and the request's stay.
    const kept = await deliveries(storeId);
    expect(kept.map((row) => row.topic)).toEqual(['orders/create', 'customers/redact']);
    expect(kept.map((row) => row.payload).join('\n')).not.toMatch(/jane\.doe|555-625/i);
    // 3 orders and the same net sales as before: figures are the shop's, not Jane's.
    expect(await rollupTotals(storeId)).toEqual(before);
    const [entry] = await auditFor(ownerId);
    expect(entry).toMatchObject({ action: 'shopify.customer_redact', targetUserId: ownerId, details: { shop, customersRedacted: 1, ordersRedacted: 2, deliveriesDeleted: 2, ordersToRedact: 2 } });
    expect(JSON.stringify(entry!.details)).not.toMatch(/777001|jane/i);
  });

  /**
   * Jane's visits as the pixel saw them (her browser, an ad click, an identify with her e-mail and
   * Shopify id, the purchase of her first order) and another visitor's purchase of the other order;
   * then the sessions, attribution credits and loyalty scores computed from them by their jobs.
   */
  async function janeTracked(storeId: number, janeOrders: string[], otherOrder: string) {
    const placed = await sqlRunner(testApp.orm.em.fork()).rows<{ external_id: string; placed_at: Date }>(`select external_id, placed_at from orders where store_id = $1`, [storeId]);
    const at = (orderId: string, minutes: number) => new Date(new Date(placed.find((row) => row.external_id === orderId)!.placed_at).getTime() + minutes * 60_000);
    await trackingSettingsOf(testApp.orm.em.fork(), storeId);
    const janeIds = { emailHash: hashEmail(jane.email), customerId: String(jane.id) };
    await tracking.writer.write([
      trackingEvent(storeId, 'anon-jane', at(janeOrders[0]!, -120), { url: 'https://shop.example/?gclid=jane-gclid&utm_source=google&utm_campaign=brand', referrer: 'https://www.google.com/search?q=jane+doe', title: 'Hello Jane' }),
      trackingEvent(storeId, 'anon-jane', at(janeOrders[0]!, -5), { name: 'identify', ...janeIds }),
      trackingEvent(storeId, 'anon-jane', at(janeOrders[0]!, 1), { name: 'purchase', eventId: janeOrders[0]!, orderId: janeOrders[0]!, ...janeIds, valueMinor: 1, currency: 'USD', url: 'https://shop.example/thanks?email=jane.doe%40example.com' }),
      trackingEvent(storeId, 'anon-other', at(otherOrder, -60), { url: 'https://shop.example/?fbclid=other-click', referrer: 'https://www.facebook.com/' }),
      trackingEvent(storeId, 'anon-other', at(otherOrder, 1), { name: 'purchase', eventId: otherOrder, orderId: otherOrder, valueMinor: 1, currency: 'USD' }),
    ], []);
    await buildSessions(testApp.orm.em.fork(), storeId, { settleMs: 0 });
    // Purchases are read once settled: moved back instead of waiting.
    await sqlRunner(testApp.orm.em.fork()).run(`update tracking_purchases set created_at = created_at - interval '1 minute' where store_id = $1`, [storeId]);
    await runAttribution(testApp.orm.em.fork(), storeId);
    await runAttribution(testApp.orm.em.fork(), storeId);
    await recomputeLoyalty(testApp.orm.em.fork(), storeId);
  }

  /** The store's figures built from tracking, attribution and loyalty: what a redaction must not change (loyalty: one row fewer). */
  async function trackedFigures(storeId: number) {
    const q = sqlRunner(testApp.orm.em.fork());
    const one = async (sql: string) => (await q.rows<{ value: unknown }>(sql, [storeId]))[0]!.value;
    return {
      events: await one(`select count(*)::int as value from tracking_events where store_id = $1`),
      eventsByName: await one(`select jsonb_object_agg(name, n) as value from (select name, count(*) as n from tracking_events where store_id = $1 group by name) x`),
      sessions: await one(`select count(*)::int as value from tracking_sessions where store_id = $1`),
      touchpointsByChannel: await one(`select jsonb_object_agg(channel, n) as value from (select channel, count(*) as n from tracking_touchpoints where store_id = $1 group by channel) x`),
      purchases: await one(`select count(*)::int as value from tracking_purchases where store_id = $1`),
      credits: await one(`select jsonb_object_agg(model || '/' || channel, revenue) as value from (select model, channel, sum(revenue_minor)::text as revenue from attribution_daily where store_id = $1 group by 1, 2) x`),
      journeys: await one(`select jsonb_agg(jsonb_build_array(order_id::text, channel, touchpoint_count) order by order_id) as value from attribution_orders where store_id = $1`),
      loyaltyRows: await one(`select count(*)::int as value from customer_loyalty where store_id = $1`),
    };
  }

  /**
   * Every row of the store's in every table (a query over information_schema, not a list of the
   * tables we know: tables with a store_id column by it, the audit log by its details' store id,
   * the others whole) whose text mentions one of `markers`.
   */
  async function rowsMentioning(storeId: number, markers: string[]): Promise<Record<string, number>> {
    const q = sqlRunner(testApp.orm.em.fork());
    const columns = await q.rows<{ table_name: string; column_name: string; by_store: boolean }>(
      `select c.table_name, c.column_name,
              exists (select 1 from information_schema.columns s where s.table_schema = 'public' and s.table_name = c.table_name and s.column_name = 'store_id') as by_store
         from information_schema.columns c join information_schema.tables t using (table_schema, table_name)
        where c.table_schema = 'public' and t.table_type = 'BASE TABLE' and c.data_type in ('text', 'character varying', 'character', 'jsonb', 'json', 'ARRAY')`,
    );
    const found: Record<string, number> = {};
    const patterns = markers.map((marker) => `%${marker}%`);
    for (const { table_name: table, column_name: column, by_store: byStore } of columns) {
      const scope = byStore ? 'store_id = $2' : table === 'audit_log_entries' ? `details ->> 'storeId' = $2::text` : '$2::int is not null';
      const [row] = await q.rows<{ n: number }>(`select count(*)::int as n from "${table}" where ${scope} and "${column}"::text ilike any($1::text[])`, [patterns, storeId]);
      if (row!.n > 0) found[`${table}.${column}`] = row!.n;
    }
    return found;
  }

  it("customers/redact also makes Jane's tracking data anonymous and deletes her loyalty scores; visits, credits and sales unchanged", async () => {
    const shop = 'tracking-redact.myshopify.com';
    const { storeId, janeOrders, otherOrder } = await storeWithJane(shop);
    await janeTracked(storeId, janeOrders, otherOrder);
    const janeHash = hashEmail(jane.email);
    // (Not 'jane-click': storeWithJane gives the other customer's order the same visit.)
    const markers = [String(jane.id), janeHash, janeHash.slice(0, 62), 'anon-jane', 'jane-gclid', 'jane.doe', 'Hello Jane', 'jane+doe'];
    const before = { sales: await rollupTotals(storeId), tracked: await trackedFigures(storeId) };
    // The set-up is what it should be: Jane's first order credited to her Google visit, her loyalty row, her traces in the tracking tables.
    expect(before.tracked.journeys).toContainEqual([expect.any(String), expect.any(String), 1]);
    expect(before.tracked.loyaltyRows).toBe(2);
    const traces = await rowsMentioning(storeId, markers);
    for (const table of ['tracking_events', 'tracking_sessions', 'tracking_touchpoints', 'tracking_purchases', 'customers', 'webhook_deliveries']) {
      expect(Object.keys(traces).some((key) => key.startsWith(`${table}.`)), table).toBe(true);
    }

    const request = { shop_id: 954889, shop_domain: shop, customer: jane, orders_to_redact: janeOrders.map(Number) };
    expect((await post('/api/webhooks/shopify', shopDelivery(shop, 'customers/redact', request, 'wh-tracking-redact'))).statusCode).toBe(200);
    await processSentJobs();

    expect(await rowsMentioning(storeId, markers)).toEqual({});
    // The other visitor's click and browser stay.
    expect(await rowsMentioning(storeId, ['anon-other', 'other-click'])).toMatchObject({ 'tracking_events.anonymous_id': 2, 'tracking_touchpoints.click_id': 1 });
    expect(await rollupTotals(storeId)).toEqual(before.sales);
    expect(await trackedFigures(storeId)).toEqual({ ...before.tracked, loyaltyRows: 1 });
    // Her first order credited again (it changes later): its journey is still found through its purchase's pseudonymous browser.
    await sqlRunner(testApp.orm.em.fork()).run(
      `insert into attribution_dirty_orders (store_id, order_id) select store_id, id from orders where store_id = $1 and external_id = $2 on conflict do nothing`,
      [storeId, janeOrders[0]],
    );
    await runAttribution(testApp.orm.em.fork(), storeId);
    expect((await trackedFigures(storeId)).credits).toEqual(before.tracked.credits);
  });

  it("shop/redact, 48 hours after the uninstall, deletes everything the shop brought and keeps the store's other data", async () => {
    const shop = 'shop-redact.myshopify.com';
    const { storeId, ownerId, connectionId } = await storeWithJane(shop);
    // The same store also sells on WooCommerce: one order of 100.00 that must stay.
    await ingestOrders(testApp.orm.em.fork(), storeId, [{ platform: 'woocommerce', externalId: 'woo-1', placedAt: new Date(Date.now() - 3 * DAY_MS), currency: 'USD', grossMinor: 10_000, status: 'paid' }]);
    expect((await rollupTotals(storeId)).orders).toBe(4);
    expect((await post('/api/webhooks/shopify', shopDelivery(shop, 'app/uninstalled', { id: 1, myshopify_domain: shop }))).statusCode).toBe(200);
    await processSentJobs();

    expect((await post('/api/webhooks/shopify', shopDelivery(shop, 'shop/redact', { shop_id: 954889, shop_domain: shop }, 'wh-shop-redact'))).statusCode).toBe(200);
    await processSentJobs();
    // Only the WooCommerce order is left: 1 order, 10,000 of net sales (no discount, tax or shipping).
    expect(await ordersOf(storeId)).toEqual([{ external_id: 'woo-1', status: 'paid' }]);
    expect(await rollupTotals(storeId)).toEqual({ orders: 1, net: 10_000 });
    expect(await customersOf(storeId)).toEqual([]);
    const [products] = await sqlRunner(testApp.orm.em.fork()).rows<{ count: number }>(`select count(*)::int as count from products where store_id = $1 and platform = 'shopify'`, [storeId]);
    expect(products!.count).toBe(0);
    expect((await deliveries(storeId)).map((row) => row.topic)).toEqual(['shop/redact']);
    const connection = await testApp.orm.em.fork().findOneOrFail(PlatformConnection, { id: connectionId });
    expect(connection).toMatchObject({ status: 'not_connected', connected: false, sealedCredentials: null, accountId: null, disconnectReason: SHOPIFY_SHOP_REDACTED_REASON });
    const [entry] = await auditFor(ownerId);
    expect(entry).toMatchObject({ action: 'shopify.shop_redact', targetUserId: ownerId, details: { shop, storeId, ordersDeleted: 3, customersDeleted: 2 } });

    // Shopify sends it again (or for a shop no store has): answered 200 and recorded, nothing to delete.
    expect((await post('/api/webhooks/shopify', shopDelivery(shop, 'shop/redact', { shop_id: 954889, shop_domain: shop }, 'wh-shop-redact-2'))).statusCode).toBe(200);
    const all = await auditLog(testApp.orm.em.fork(), { limit: 20 });
    expect(all.find((row) => row.action === 'shopify.shop_redact' && row.details?.shop === shop && row.targetUserId === null)).toMatchObject({ details: { held: expect.stringMatching(/nothing/) } });
    expect(await ordersOf(storeId)).toHaveLength(1);
  });

  it('a forged compliance request gets 401 and changes nothing; a body without a customer gets 400', async () => {
    const shop = 'forged-redact.myshopify.com';
    const { storeId, ownerId } = await storeWithJane(shop);
    const request = { shop_id: 954889, shop_domain: shop, customer: jane, orders_to_redact: [] };
    const forged = shopify.webhookDelivery('customers/redact', null, { payload: request, secret: 'not-the-app-secret' });
    forged.headers['x-shopify-shop-domain'] = shop;
    expect((await post('/api/webhooks/shopify', forged)).statusCode).toBe(401);
    const noCustomer = shopDelivery(shop, 'customers/redact', { shop_id: 954889, shop_domain: shop, orders_to_redact: [] });
    expect((await post('/api/webhooks/shopify', noCustomer)).statusCode).toBe(400);
    expect(sentJobs).toEqual([]);
    expect((await customersOf(storeId)).map((row) => row.external_id)).toEqual(['777001', '777002']);
    expect(await auditFor(ownerId)).toEqual([]);
  });
});
