import { createHmac, randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCommerceStore } from '../../../../test/commerce-fixtures.ts';
import { startShopifyFake, type ShopifyFake } from '../../../../test/fakes/shopify.ts';
import { startWooCommerceFake, type WooCommerceFake } from '../../../../test/fakes/woocommerce.ts';
import { useTestApp } from '../../../../test/harness.ts';
import { PLATFORM_KEYS, type PlatformKey } from '../../../shared/platforms.ts';
import type { PlatformSettings } from '../../config.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { PlatformConnection } from '../connections/platform-connection.entity.ts';
import { WebhookDelivery } from './integration.entities.ts';
import { configureIntegrations, integrationsSettingsFrom, setIntegrationJobSender, type IntegrationsSettings } from './integrations-runtime.ts';
import { sealCredentials } from './sync-runner.ts';
import { SHOPIFY_UNINSTALLED_REASON, WEBHOOK_QUEUE, processWebhookDelivery } from './webhooks.ts';

const testApp = useTestApp();
const DAY_MS = 86_400_000;

let shopify: ShopifyFake;
let woo: WooCommerceFake;
let settings: IntegrationsSettings;
const sentJobs: { queue: string; data: { deliveryId: number } }[] = [];

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
  setIntegrationJobSender(async (queue, data) => void sentJobs.push({ queue, data: data as { deliveryId: number } }));
});

async function connected(platform: 'shopify' | 'woocommerce', credentials: Record<string, string>, accountId: string) {
  const store = await createCommerceStore(testApp.orm, { timezone: 'UTC', currency: platform === 'shopify' ? 'USD' : 'EUR' });
  const em = testApp.orm.em.fork();
  const connection = em.create(PlatformConnection, { store: store.id, platform, status: 'connected', connected: true, accountId });
  await em.flush();
  sealCredentials(settings, connection, credentials);
  await em.flush();
  return { storeId: store.id, connectionId: connection.id };
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
