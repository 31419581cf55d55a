import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { signedInStoreOwner, testOrder, type StoreOwner } from '../../../../test/commerce-fixtures.ts';
import { ApiClient, trpcQuery, useTestApp } from '../../../../test/harness.ts';
import { ingestOrders } from '../commerce/ingest.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { buildSessions } from './sessions.ts';

// tracking.health and tracking.sendTestEvent through the app (tRPC over HTTP), on a real PostgreSQL,
// with events arriving through the collector itself.

const testApp = useTestApp();
const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
let a: StoreOwner;
let b: StoreOwner;
let keyA: string;
let keyB: string;

beforeAll(async () => {
  a = await signedInStoreOwner(testApp, 'healtha');
  b = await signedInStoreOwner(testApp, 'healthb');
  keyA = (await a.client.get('/api/tracking/setup')).body.storeKey;
  keyB = (await b.client.get('/api/tracking/setup')).body.storeKey;
});

async function beacon(key: string, events: Record<string, unknown>[]) {
  const answer = await testApp.app.inject({
    method: 'POST',
    url: '/p/e',
    headers: { 'content-type': 'text/plain;charset=UTF-8', origin: 'https://shop.example', 'user-agent': BROWSER_UA },
    payload: JSON.stringify({ key, aid: `anon_${randomBytes(6).toString('hex')}`, consent: 1, now: Date.now(), events }),
  });
  expect(answer.statusCode).toBe(204);
}

const pageView = () => ({ name: 'page_view', id: `pv_${randomBytes(6).toString('hex')}`, ts: Date.now(), url: 'https://shop.example/' });
const purchase = (orderId: string) => ({ name: 'purchase', id: `pu_${randomBytes(6).toString('hex')}`, ts: Date.now(), url: 'https://shop.example/thanks', props: { order_id: orderId, value: 20, currency: 'GBP' } });

/** A mutation without input as the browser's batch link sends it (a batch of one, no input). */
async function sendTestEvent(client: ApiClient) {
  const answer = await client.post('/trpc/tracking.sendTestEvent?batch=1', {});
  return { status: answer.status, body: Array.isArray(answer.body) ? answer.body[0] : answer.body };
}

async function health(owner: StoreOwner) {
  const answer = await trpcQuery(owner.client, 'tracking.health');
  expect(answer.status).toBe(200);
  return answer.body.result.data;
}

describe('tracking.health', () => {
  it('is empty for a store that never received an event', async () => {
    expect(await health(a)).toEqual({
      eventsLast24h: 0,
      lastEventAt: null,
      purchasesLast30d: 0,
      purchasesMatched: 0,
      matchedPercent: null,
      ordersLast30d: 0,
      ordersTracked: 0,
    });
  });

  it("counts the store's events of the last 24 hours and its last event, and matches tracked purchases to its orders by id or number", async () => {
    const now = Date.now();
    await ingestOrders(testApp.orm.em.fork(), a.store.id, [
      testOrder({ externalId: '5001', orderNumber: '#1001', placedAt: new Date(now - 60_000).toISOString() }),
      testOrder({ externalId: '5002', orderNumber: '#1002', placedAt: new Date(now - 2 * 86_400_000).toISOString() }),
      testOrder({ externalId: '5003', orderNumber: '#1003', placedAt: new Date(now - 3 * 86_400_000).toISOString() }),
      testOrder({ externalId: '5004', orderNumber: '#1004', placedAt: new Date(now - 4 * 86_400_000).toISOString() }),
      // Outside the 30 days: neither counted nor matched.
      testOrder({ externalId: '4000', placedAt: new Date(now - 60 * 86_400_000).toISOString() }),
    ]);
    // Three purchases: one by the platform's id, one by the order number, one unknown.
    await beacon(keyA, [pageView(), pageView(), purchase('5001'), purchase('#1002'), purchase('no-such-order')]);
    // Store B's events and orders never count for A (same order id too).
    await ingestOrders(testApp.orm.em.fork(), b.store.id, [testOrder({ externalId: '5003', placedAt: new Date(now - 60_000).toISOString() })]);
    await beacon(keyB, [pageView(), purchase('5003'), purchase('5004')]);

    const figures = await health(a);
    expect(figures).toMatchObject({ eventsLast24h: 5, purchasesLast30d: 3, purchasesMatched: 2, matchedPercent: 66.7, ordersLast30d: 4, ordersTracked: 2 });
    expect(Date.now() - Date.parse(figures.lastEventAt)).toBeLessThan(5 * 60_000);

    expect(await health(b)).toMatchObject({ eventsLast24h: 3, purchasesLast30d: 2, purchasesMatched: 1, matchedPercent: 50, ordersLast30d: 1, ordersTracked: 1 });
  });

  it('needs a signed-in owner with an active store', async () => {
    expect((await trpcQuery(new ApiClient(testApp.app), 'tracking.health')).status).toBe(401);
  });
});

describe('tracking.sendTestEvent', () => {
  it('writes a test event that the live view and the health figures show at once, for this store only, without a session', async () => {
    const before = await health(b);
    const sent = await sendTestEvent(b.client);
    expect(sent.status).toBe(200);
    const { eventId } = sent.body.result.data;
    expect(eventId).toMatch(/^test_/);

    const recent = (await trpcQuery(b.client, 'tracking.recentEvents')).body.result.data as { eventId: string; name: string; source: string }[];
    expect(recent[0]).toMatchObject({ eventId, name: 'test_event', source: 'test' });
    expect((await health(b)).eventsLast24h).toBe(before.eventsLast24h + 1);

    const recentOfA = (await trpcQuery(a.client, 'tracking.recentEvents')).body.result.data as { eventId: string }[];
    expect(recentOfA.map((event) => event.eventId)).not.toContain(eventId);

    // The session builder leaves it alone: it carries no visitor.
    await buildSessions(testApp.orm.em.fork(), b.store.id, { settleMs: 0 });
    const [row] = await sqlRunner(testApp.orm.em.fork()).rows<{ sessions: number; events: number }>(
      `select count(*)::int as sessions, coalesce(sum(events), 0)::int as events from tracking_sessions where store_id = $1`,
      [b.store.id],
    );
    // The one visitor of B's beacon (a page view and two purchases); the test event is in none.
    expect(row).toEqual({ sessions: 1, events: 3 });
  });

  it('is refused to the signed-out', async () => {
    expect((await sendTestEvent(new ApiClient(testApp.app))).status).toBe(401);
  });
});
