import { strFromU8, unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { testOrder } from '../../../../test/commerce-fixtures.ts';
import { newGuestOf, ownerWithStore } from '../../../../test/guests.ts';
import { signedInAdmin, signedInClient, trpcQuery, useTestApp, type ApiClient } from '../../../../test/harness.ts';
import { trackingEvent, useEventWriter } from '../../../../test/tracking-fixtures.ts';
import { auditLog } from '../admin/admin.service.ts';
import { hashEmail, ingestOrders } from '../commerce/ingest.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { PlatformConnection } from '../connections/platform-connection.entity.ts';
import { applyShopifyComplianceRequest } from '../integrations/compliance.ts';
import { recomputeLoyalty } from '../loyalty/loyalty-job.ts';
import { SESSION_COOKIE_NAME } from '../sessions/session-control.ts';
import { Store } from '../stores/store.entity.ts';
import { buildSessions } from '../tracking/sessions.ts';
import { trackingSettingsOf } from '../tracking/tracking-settings.service.ts';
import { deleteExpiredPrivacyExports } from './privacy.service.ts';

// Shopify's customers/data_request answered with an export the store's owner downloads from the
// privacy requests list: its content read back from the zip, and who may download it.

const testApp = useTestApp();
const tracking = useEventWriter(() => testApp.databaseUrl);
const DAY_MS = 86_400_000;
const jane = { id: '880001', email: 'Jane.Roe@example.com', name: 'Jane Roe' };


/** An owner's store with Jane's two orders (one refunded in part), her visits and loyalty scores, and another customer's order. */
async function storeWithJane(shop: string) {
  const owner = await ownerWithStore(testApp.app, testApp.orm, 'Privacy Shop');
  const storeId = owner.store.id;
  const placed = Date.now() - 5 * DAY_MS;
  await ingestOrders(testApp.orm.em.fork(), storeId, [
    testOrder({ platform: 'shopify', externalId: 'jane-1', orderNumber: '#1001', placedAt: new Date(placed), grossMinor: 5_000, customer: { externalId: jane.id, email: jane.email, name: jane.name }, landingSite: '/?gclid=jane-gclid' }),
    testOrder({ platform: 'shopify', externalId: 'jane-2', orderNumber: '#1002', placedAt: new Date(placed + DAY_MS), grossMinor: 7_000, customer: { externalId: jane.id, email: jane.email, name: jane.name } }),
    testOrder({ platform: 'shopify', externalId: 'other-1', orderNumber: '#1003', placedAt: new Date(placed), grossMinor: 9_000, customer: { externalId: '880002', email: 'other@example.com', name: 'Other Person' } }),
  ]);
  await trackingSettingsOf(testApp.orm.em.fork(), storeId);
  await tracking.writer.write([
    trackingEvent(storeId, 'anon-jane', new Date(placed - 3_600_000), { url: 'https://shop.example/?gclid=jane-gclid' }),
    trackingEvent(storeId, 'anon-jane', new Date(placed + 60_000), { name: 'purchase', eventId: 'jane-1', orderId: 'jane-1', emailHash: hashEmail(jane.email), valueMinor: 5_000, currency: 'GBP' }),
    trackingEvent(storeId, 'anon-other', new Date(placed - 60_000), { url: 'https://shop.example/?fbclid=other-click' }),
  ], []);
  await buildSessions(testApp.orm.em.fork(), storeId, { settleMs: 0 });
  await recomputeLoyalty(testApp.orm.em.fork(), storeId);
  const em = testApp.orm.em.fork();
  const connection = em.create(PlatformConnection, { store: storeId, platform: 'shopify', status: 'connected', connected: true, accountId: shop });
  await em.flush();
  return { owner, storeId, connectionId: connection.id };
}

async function dataRequest(storeId: number, connectionId: number, shop: string) {
  const em = testApp.orm.em.fork();
  const store = await em.findOneOrFail(Store, { id: storeId }, { populate: ['owner'] });
  const connection = await em.findOneOrFail(PlatformConnection, { id: connectionId });
  await applyShopifyComplianceRequest(
    em,
    store,
    connection,
    { topic: 'customers/data_request', shopDomain: shop, shopId: '1', customer: { id: jane.id, email: jane.email, phone: null }, orderIds: ['jane-1'], dataRequestId: '4242' },
    0,
  );
}

async function download(client: ApiClient, id: number) {
  const response = await testApp.app.inject({ method: 'GET', url: `/api/privacy-requests/${id}/download`, headers: client.sessionCookie ? { cookie: `${SESSION_COOKIE_NAME}=${client.sessionCookie}` } : {} });
  return response;
}

describe('privacy requests (customers/data_request)', () => {
  it("exports everything we hold of the customer for the store's owner, listed with its expiry and audited with the export's id", async () => {
    const shop = 'privacy-export.myshopify.com';
    const { owner, storeId, connectionId } = await storeWithJane(shop);
    await dataRequest(storeId, connectionId, shop);

    const list = await trpcQuery(owner.client, 'privacy.requests');
    expect(list.status).toBe(200);
    const rows = list.body.result.data as { id: number; shop: string; customerId: string; storeName: string; ordersCount: number; createdAt: string; expiresAt: string }[];
    expect(rows).toEqual([expect.objectContaining({ shop, customerId: jane.id, storeName: 'Privacy Shop', ordersCount: 2 })]);
    const [request] = rows;
    expect(Date.parse(request!.expiresAt) - Date.parse(request!.createdAt)).toBe(30 * DAY_MS);
    const [entry] = await auditLog(testApp.orm.em.fork(), { limit: 1, aboutUserId: owner.user.id });
    expect(entry).toMatchObject({ action: 'shopify.customer_data_request', details: { exportId: request!.id, dataRequestId: '4242' } });

    const response = await download(owner.client, request!.id);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/zip');
    const files = unzipSync(new Uint8Array(response.rawPayload));
    expect(Object.keys(files).sort()).toEqual(['customer-data.json', 'customers.csv', 'loyalty.csv', 'order_lines.csv', 'orders.csv', 'refunds.csv', 'touchpoints.csv', 'tracking_events.csv', 'visits.csv']);
    const data = JSON.parse(strFromU8(files['customer-data.json']!)) as Record<string, Record<string, unknown>[]> & { request: Record<string, unknown> };
    expect(data.request).toMatchObject({ customerId: jane.id, platformRequestId: '4242', shop });
    // The sealed contact opened: the merchant sees the name and e-mail address they hold.
    expect(data.customers).toEqual([expect.objectContaining({ external_id: jane.id, name: jane.name, email: jane.email })]);
    expect(data.orders!.map((order) => order.external_id)).toEqual(['jane-1', 'jane-2']);
    expect(data.tracking_events!.map((event) => event.name).sort()).toEqual(['page_view', 'purchase']);
    expect(data.visits!.length).toBeGreaterThan(0);
    expect(data.touchpoints).toContainEqual(expect.objectContaining({ click_id: 'jane-gclid', visitor_key: 'anon-jane' }));
    expect(data.loyalty).toHaveLength(1);
    // Nothing of the other customer.
    expect(strFromU8(files['customer-data.json']!)).not.toMatch(/other-1|880002|anon-other|other-click|Other Person/);
    const ordersCsv = strFromU8(files['orders.csv']!);
    expect(ordersCsv).toMatch(/^id,platform,external_id,order_number/);
    expect(ordersCsv).toContain('jane-2');
  });

  it("only the store's owner lists and downloads it: not another user, not an invited viewer, not an administrator in guest mode", async () => {
    const shop = 'privacy-access.myshopify.com';
    const { owner, storeId, connectionId } = await storeWithJane(shop);
    await dataRequest(storeId, connectionId, shop);
    const [request] = (await trpcQuery(owner.client, 'privacy.requests')).body.result.data as { id: number }[];

    const stranger = await signedInClient(testApp.app, 'stranger');
    expect((await trpcQuery(stranger.client, 'privacy.requests')).body.result.data).toEqual([]);
    expect((await download(stranger.client, request!.id)).statusCode).toBe(404);

    const guest = await newGuestOf(testApp.app, testApp.orm, owner, storeId);
    expect((await trpcQuery(guest.client, 'privacy.requests')).body.result.data).toEqual([]);
    expect((await download(guest.client, request!.id)).statusCode).toBe(404);

    const admin = await signedInAdmin(testApp.app, testApp.orm);
    expect((await admin.client.post('/api/admin/enter-guest-mode', { userId: owner.user.id })).status).toBe(200);
    expect((await trpcQuery(admin.client, 'privacy.requests')).status).toBe(403);
    expect((await download(admin.client, request!.id)).statusCode).toBe(403);

    const signedOut = await testApp.app.inject({ method: 'GET', url: `/api/privacy-requests/${request!.id}/download` });
    expect(signedOut.statusCode).toBe(401);
    expect((await download(owner.client, request!.id)).statusCode).toBe(200);
  });

  it('expires after 30 days; customers/redact and shop/redact delete the exports', async () => {
    const shop = 'privacy-expiry.myshopify.com';
    const { owner, storeId, connectionId } = await storeWithJane(shop);
    await dataRequest(storeId, connectionId, shop);
    const [request] = (await trpcQuery(owner.client, 'privacy.requests')).body.result.data as { id: number }[];
    const q = sqlRunner(testApp.orm.em.fork());
    expect(await deleteExpiredPrivacyExports(q, new Date(Date.now() + 29 * DAY_MS))).toBe(0);
    await q.run(`update privacy_requests set expires_at = now() - interval '1 second' where id = $1`, [request!.id]);
    expect((await trpcQuery(owner.client, 'privacy.requests')).body.result.data).toEqual([]);
    expect((await download(owner.client, request!.id)).statusCode).toBe(404);
    expect(await deleteExpiredPrivacyExports(q)).toBeGreaterThanOrEqual(1);

    const em = testApp.orm.em.fork();
    const store = await em.findOneOrFail(Store, { id: storeId }, { populate: ['owner'] });
    // A new request, then Jane asks to be forgotten: her export goes with her data.
    await dataRequest(storeId, connectionId, shop);
    const [second] = (await trpcQuery(owner.client, 'privacy.requests')).body.result.data as { id: number }[];
    expect((await download(owner.client, second!.id)).statusCode).toBe(200);
    await applyShopifyComplianceRequest(em, store, await em.findOneOrFail(PlatformConnection, { id: connectionId }), { topic: 'customers/redact', shopDomain: shop, shopId: '1', customer: { id: jane.id, email: jane.email, phone: null }, orderIds: [], dataRequestId: null }, 0);
    expect((await trpcQuery(owner.client, 'privacy.requests')).body.result.data).toEqual([]);
    expect((await download(owner.client, second!.id)).statusCode).toBe(404);

    // Another request, then Shopify asks for the shop's data to be erased: the export goes with it.
    await dataRequest(storeId, connectionId, shop);
    const [third] = (await trpcQuery(owner.client, 'privacy.requests')).body.result.data as { id: number }[];
    expect((await download(owner.client, third!.id)).statusCode).toBe(200);
    await applyShopifyComplianceRequest(em, store, await em.findOneOrFail(PlatformConnection, { id: connectionId }), { topic: 'shop/redact', shopDomain: shop, shopId: '1', customer: null, orderIds: [], dataRequestId: null }, 0);
    expect((await trpcQuery(owner.client, 'privacy.requests')).body.result.data).toEqual([]);
    expect((await download(owner.client, third!.id)).statusCode).toBe(404);
  });
});
