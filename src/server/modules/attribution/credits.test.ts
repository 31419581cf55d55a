import { beforeAll, describe, expect, it } from 'vitest';
import { createCommerceStore, testOrder } from '../../../../test/commerce-fixtures.ts';
import { useTestDatabase } from '../../../../test/harness.ts';
import { trackingEvent, useEventWriter } from '../../../../test/tracking-fixtures.ts';
import { ATTRIBUTION_MODELS } from '../../../shared/attribution.ts';
import { hashEmail, ingestOrders, ingestRefunds } from '../commerce/ingest.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import type { EventRow } from '../tracking/event-schema.ts';
import { buildSessions } from '../tracking/sessions.ts';
import { trackingSettingsOf } from '../tracking/tracking-settings.service.ts';
import { markOrdersForAttribution, readState, requestRecompute, runAttribution } from './credits.ts';
import { attributionStatus, setAttributionWindow } from './attribution.service.ts';

// Credits kept incrementally from real orders, refunds, purchase events and touchpoints (sessions
// built by the collector's session job) on a real PostgreSQL; checked against the commerce rollups.

const database = useTestDatabase();
const events = useEventWriter(() => database.url);
let storeId: number;
const DAY = 86_400_000;
const HOUR = 3_600_000;
// Noon UTC (Europe/London: the same calendar day), 20 days ago.
const T = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate(), 12) - 20 * DAY;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

beforeAll(async () => {
  storeId = (await createCommerceStore(database.orm)).id;
  await trackingSettingsOf(database.orm.em.fork(), storeId);
});

const sql = () => sqlRunner(database.orm.em.fork());
const event = (visitor: string, at: number, overrides: Partial<EventRow> & { url?: string } = {}): EventRow => trackingEvent(storeId, visitor, new Date(at), overrides);
function purchase(visitor: string, at: number, orderId: string, overrides: Partial<Omit<EventRow, 'url'>> = {}): EventRow {
  return event(visitor, at, { name: 'purchase', orderId, eventId: orderId, valueMinor: 1, currency: 'GBP', url: 'https://shop.example/thanks', referrer: 'https://checkout.stripe.com/', ...overrides });
}
const run = () => runAttribution(database.orm.em.fork(), storeId);
const sessions = () => buildSessions(database.orm.em.fork(), storeId, { settleMs: 0 });
/** Purchases are read once settled: the test moves their arrival back instead of waiting. */
const settlePurchases = () => sql().run(`update tracking_purchases set created_at = created_at - interval '1 minute' where store_id = $1`, [storeId]);

/** channel -> revenue (minor) credited by the model over the days, in the given window's rollups. */
async function credited(model: string, from: string, to: string, windowDays = 30): Promise<Record<string, number>> {
  const rows = await sql().rows<{ channel: string; revenue: string; orders: string }>(
    `select channel, sum(revenue_minor)::text as revenue, sum(orders)::text as orders from attribution_daily
      where store_id = $1 and window_days = $2 and model = $3 and day between $4::date and $5::date group by channel having sum(revenue_minor) <> 0 or sum(orders) <> 0 order by channel`,
    [storeId, windowDays, model, from, to],
  );
  return Object.fromEntries(rows.map((row) => [row.channel, Number(row.revenue)]));
}
async function netSales(from: string, to: string): Promise<number> {
  const [row] = await sql().rows<{ net: string }>(`select coalesce(sum(net_sales_minor), 0)::text as net from daily_rollups where store_id = $1 and day between $2::date and $3::date`, [storeId, from, to]);
  return Number(row!.net);
}
async function snapshot(windowDays: number) {
  return sql().rows<Record<string, unknown>>(
    `select model, to_char(day, 'YYYY-MM-DD') as day, channel, campaign, currency, orders::text, revenue_minor::text, own_source_orders::text, own_source_revenue_minor::text
       from attribution_daily where store_id = $1 and window_days = $2 and (orders <> 0 or revenue_minor <> 0) order by 1, 2, 3, 4, 5`,
    [storeId, windowDays],
  );
}

describe('attribution credits, incrementally', () => {
  it('credits an order to its visitor’s touchpoints (the purchase’s browser), or to its own source until they arrive', async () => {
    // Initial run: the store's state, nothing to credit yet.
    await run();
    // The order arrives first (placed at T, landed from an e-mail): no touchpoint known yet.
    await ingestOrders(database.orm.em.fork(), storeId, [testOrder({ externalId: 'A-1', placedAt: new Date(T), grossMinor: 12_000, landingSite: '/?utm_source=klaviyo&utm_medium=email&utm_campaign=spring' })]);
    expect((await run()).credited).toBe(1);
    for (const model of ATTRIBUTION_MODELS) expect(await credited(model, dayOf(T), dayOf(T))).toEqual({ klaviyo: 12_000 });
    const [own] = await sql().rows<{ own: string }>(`select sum(own_source_revenue_minor)::text as own from attribution_daily where store_id = $1 and model = 'linear'`, [storeId]);
    expect(Number(own!.own)).toBe(12_000);

    // Then the visits: Meta 10 days before, Google 3 days before, direct 1 hour before; the
    // purchase comes back from Stripe (a payment page: no touchpoint).
    await events.writer.write([
      event('v1', T - 10 * DAY, { url: 'https://shop.example/?fbclid=F1&utm_campaign=meta-spring', referrer: 'https://www.facebook.com/' }),
      event('v1', T - 3 * DAY, { url: 'https://shop.example/?gclid=G1&utm_campaign=brand', referrer: 'https://www.google.com/' }),
      event('v1', T - HOUR),
      purchase('v1', T + 60_000, 'A-1'),
    ], []);
    await sessions();
    await settlePurchases();
    expect((await run()).credited).toBeGreaterThanOrEqual(1);
    expect(await credited('first_click', dayOf(T), dayOf(T))).toEqual({ metaads: 12_000 });
    expect(await credited('last_click', dayOf(T), dayOf(T))).toEqual({ googleads: 12_000 });
    expect(await credited('linear', dayOf(T), dayOf(T))).toEqual({ direct: 4_000, googleads: 4_000, metaads: 4_000 });
    expect(await credited('position_based', dayOf(T), dayOf(T))).toEqual({ direct: 4_800, googleads: 2_400, metaads: 4_800 });
    // The 7-day window is not computed until it is the store's window.
    expect(await credited('linear', dayOf(T), dayOf(T), 7)).toEqual({});
    // Running again changes nothing.
    expect(await run()).toEqual({ credited: 0, recomputed: 0 });
  });

  it('a refund lowers the credit on its own day in the same proportions', async () => {
    await ingestRefunds(database.orm.em.fork(), storeId, [{ platform: 'shopify', externalId: 'R-1', orderExternalId: 'A-1', refundedAt: new Date(T + 5 * DAY), amountMinor: 3_000, currency: 'GBP' }]);
    await run();
    expect(await credited('linear', dayOf(T + 5 * DAY), dayOf(T + 5 * DAY))).toEqual({ direct: -1_000, googleads: -1_000, metaads: -1_000 });
    expect(await credited('last_click', dayOf(T + 5 * DAY), dayOf(T + 5 * DAY))).toEqual({ googleads: -3_000 });
    expect(await credited('linear', dayOf(T), dayOf(T))).toEqual({ direct: 4_000, googleads: 4_000, metaads: 4_000 });
  });

  it('joins another device on the customer’s e-mail; a touchpoint after the order or before the window does not count; a cancelled order drops out', async () => {
    const email = 'buyer@example.com';
    // Phone: came from TikTok 2 days before the order, identified later.
    await events.writer.write([
      event('phone', T + 8 * DAY, { url: 'https://shop.example/?ttclid=TT1', referrer: 'https://www.tiktok.com/' }),
      event('phone', T + 8 * DAY + 60_000, { name: 'identify', emailHash: hashEmail(email) }),
      // A visit after the order and one 40 days before (outside 30 days) do not count.
      event('phone', T + 10 * DAY + 3 * HOUR, { url: 'https://shop.example/?msclkid=B1' }),
      event('laptop', T + 10 * DAY - 40 * DAY, { url: 'https://shop.example/?msclkid=B0' }),
      event('laptop', T + 10 * DAY - 40 * DAY + 60_000, { name: 'identify', emailHash: hashEmail(email) }),
    ], []);
    await sessions();
    await run();
    // Laptop purchase, customer with that e-mail: the phone's TikTok visit is its touchpoint.
    await ingestOrders(database.orm.em.fork(), storeId, [
      testOrder({ externalId: 'B-1', placedAt: new Date(T + 10 * DAY), grossMinor: 5_001, customer: { externalId: 'c1', email } }),
      testOrder({ externalId: 'C-1', placedAt: new Date(T + 10 * DAY), grossMinor: 7_000, status: 'cancelled' }),
      testOrder({ externalId: 'D-1', placedAt: new Date(T + 10 * DAY), grossMinor: 999, landingSite: '/?gclid=X', isTest: true }),
    ]);
    await run();
    for (const model of ATTRIBUTION_MODELS) expect(await credited(model, dayOf(T + 10 * DAY), dayOf(T + 10 * DAY))).toEqual({ tiktokads: 5_001 });
  });

  it('every model’s credited revenue over a range equals the range’s net sales from the rollups, to the cent', async () => {
    await ingestOrders(database.orm.em.fork(), storeId, [
      testOrder({ externalId: 'E-1', placedAt: new Date(T + 2 * DAY), grossMinor: 3_333, discountsMinor: 1 }),
      testOrder({ externalId: 'E-2', placedAt: new Date(T + 12 * DAY), grossMinor: 10_007, landingSite: '/?utm_source=google&utm_medium=organic' }),
    ]);
    await events.writer.write([
      event('v2', T + 11 * DAY, { url: 'https://shop.example/?gclid=G2' }),
      event('v2', T + 11 * DAY + HOUR, { url: 'https://shop.example/?fbclid=F2' }),
      event('v2', T + 12 * DAY - HOUR, { url: 'https://shop.example/?utm_source=newsletter&utm_medium=email' }),
      purchase('v2', T + 12 * DAY + 1_000, 'E-2'),
    ], []);
    await sessions();
    await settlePurchases();
    await ingestRefunds(database.orm.em.fork(), storeId, [{ platform: 'shopify', externalId: 'R-2', orderExternalId: 'E-2', refundedAt: new Date(T + 13 * DAY), amountMinor: 1_001, currency: 'GBP' }]);
    await run();
    for (const [from, to] of [[dayOf(T - DAY), dayOf(T + 20 * DAY)], [dayOf(T + 1 * DAY), dayOf(T + 12 * DAY)], [dayOf(T + 13 * DAY), dayOf(T + 13 * DAY)], [dayOf(T), dayOf(T)]] as const) {
      const net = await netSales(from, to);
      for (const model of ATTRIBUTION_MODELS) {
        const total = Object.values(await credited(model, from, to)).reduce((a, b) => a + b, 0);
        expect(total, `${model} ${from}..${to}`).toBe(net);
      }
    }
    expect(await netSales(dayOf(T - DAY), dayOf(T + 20 * DAY))).toBe(12_000 - 3_000 + 5_001 + 3_332 + 10_007 - 1_001);
    // Orders too: one per counting order, shared.
    const [orders] = await sql().rows<{ orders: string }>(`select sum(orders)::text as orders from attribution_daily where store_id = $1 and window_days = 30 and model = 'time_decay'`, [storeId]);
    expect(Number(orders!.orders)).toBe(4);
  });

  it('incremental equals a recompute from scratch', async () => {
    const incremental = await snapshot(30);
    expect(incremental.length).toBeGreaterThan(10);
    await requestRecompute(sql(), storeId);
    await run();
    expect(await snapshot(30)).toEqual(incremental);
  });

  it('a new window recomputes the store in the background with progress, then replaces the old one', async () => {
    const em = database.orm.em.fork();
    const status = await setAttributionWindow(em, storeId, 7, { runNow: false });
    expect(status.windowDays).toBe(30);
    expect(status.recomputing).toEqual({ windowDays: 7, done: 0, total: 6 });
    // Two orders per step: progress is readable between steps.
    await runAttribution(database.orm.em.fork(), storeId, { chunk: 2, maxSteps: 1 });
    expect((await attributionStatus(em, storeId)).recomputing).toEqual({ windowDays: 7, done: 2, total: 6 });
    // Meanwhile the 30-day rollups are still whole.
    expect(await credited('last_click', dayOf(T), dayOf(T))).toEqual({ googleads: 12_000 });
    await runAttribution(database.orm.em.fork(), storeId, { chunk: 2 });
    const state = await readState(sql(), storeId);
    expect(state.windowDays).toBe(7);
    expect(state.recomputeWindowDays).toBeNull();
    expect(await snapshot(30)).toEqual([]);
    // 7 days: the Meta visit (10 days before A-1) is out of the window.
    expect(await credited('first_click', dayOf(T), dayOf(T), 7)).toEqual({ googleads: 12_000 });
    const net = await netSales(dayOf(T - DAY), dayOf(T + 20 * DAY));
    for (const model of ATTRIBUTION_MODELS) expect(Object.values(await credited(model, dayOf(T - DAY), dayOf(T + 20 * DAY), 7)).reduce((a, b) => a + b, 0)).toBe(net);
  });

  it('a recompute of the current window credits each order once: the orders it has not reached yet are left to it', async () => {
    const before = await snapshot(7);
    const ids = (await sql().rows<{ id: string }>(`select id::text from orders where store_id = $1 order by id`, [storeId])).map((row) => row.id);
    // As on a new store: every touchpoint and purchase not read yet.
    await sql().run(`update attribution_state set touchpoint_cursor = 0, purchase_cursor = '-infinity' where store_id = $1`, [storeId]);
    await requestRecompute(sql(), storeId);
    // One order recomputed (a step reads 5 touchpoints per order of its chunk), then every order
    // changes (as a new store's load marks them all).
    expect(await runAttribution(database.orm.em.fork(), storeId, { chunk: 1, maxSteps: 1 })).toEqual({ credited: 0, recomputed: 1 });
    // The touchpoints and purchases that were there are the recompute's: not read again.
    const [last] = await sql().rows<{ id: string }>(`select max(id)::text as id from tracking_touchpoints where store_id = $1`, [storeId]);
    const state = await readState(sql(), storeId);
    expect(state.touchpointCursor).toBe(last!.id);
    expect(state.purchaseCursor).not.toBe('-infinity');
    await markOrdersForAttribution(sql(), storeId, ids);
    // The one behind the recompute's cursor is credited again; the others only by the recompute.
    expect(await runAttribution(database.orm.em.fork(), storeId, { chunk: 2 })).toEqual({ credited: 1, recomputed: ids.length - 1 });
    expect(await sql().rows(`select order_id from attribution_dirty_orders where store_id = $1`, [storeId])).toEqual([]);
    expect(await snapshot(7)).toEqual(before);
  });
});

describe('attribution recompute over order ids of different lengths', () => {
  it('credits every order, in id order, when the ids pass from 4 to 5 digits (…9998, 9999, 10000…), not in text order', async () => {
    const other = (await createCommerceStore(database.orm)).id;
    // The next order ids cross a power of ten: as text, '10000' sorts before '9996'.
    const [max] = await sql().rows<{ max: string }>(`select coalesce(max(id), 0)::text as max from orders`);
    let power = 10_000;
    while (power < Number(max!.max) + 10) power *= 10;
    await sql().run(`select setval('orders_id_seq', $1::bigint)`, [power - 5]);
    await ingestOrders(database.orm.em.fork(), other, Array.from({ length: 10 }, (_, index) => testOrder({ externalId: `R-${index}`, placedAt: new Date(T + index * HOUR), grossMinor: 1_000 })));
    await requestRecompute(sql(), other);
    expect(await runAttribution(database.orm.em.fork(), other, { chunk: 2 })).toEqual({ credited: 0, recomputed: 10 });
    const [stored] = await sql().rows<{ n: number }>(`select count(*)::int as n from attribution_orders where store_id = $1`, [other]);
    expect(stored!.n).toBe(10);
  });
});
