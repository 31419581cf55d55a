import { beforeAll, describe, expect, it } from 'vitest';
import { createCommerceStore } from '../../../../test/commerce-fixtures.ts';
import { useTestDatabase } from '../../../../test/harness.ts';
import { trackingEvent, useEventWriter } from '../../../../test/tracking-fixtures.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { emailHashOf, type EventRow } from './event-schema.ts';
import { partitionOf } from './event-writer.ts';
import { DailySalt, deleteOldSalts } from './privacy.ts';
import { buildSessions } from './sessions.ts';
import { applyRetention, deleteTrackedCustomer, ensurePartitionsAhead } from './tracking-jobs.ts';
import { trackingSettingsOf, updateTrackingSettings } from './tracking-settings.service.ts';

// Sessions and touchpoints from hand-made event sequences, and the privacy jobs, on a real PostgreSQL.

const database = useTestDatabase();
const events = useEventWriter(() => database.url);
let storeId: number;
const MINUTE = 60_000;
const T0 = Date.now() - 6 * 60 * MINUTE;

beforeAll(async () => {
  storeId = (await createCommerceStore(database.orm)).id;
  await trackingSettingsOf(database.orm.em.fork(), storeId);
});

/** A page view of `visitor` `minutes` after T0. */
const event = (visitor: string, minutes: number, overrides: Partial<EventRow> & { url?: string } = {}): EventRow =>
  trackingEvent(storeId, visitor, new Date(T0 + minutes * MINUTE), overrides);

const sql = () => sqlRunner(database.orm.em.fork());
const build = () => buildSessions(database.orm.em.fork(), storeId, { settleMs: 0 });

async function sessionsOf(visitor: string) {
  return sql().rows<{ id: string; started_at: Date; last_event_at: Date; channel: string | null; payment_return: boolean; touchpoint_id: string | null; events: number; page_views: number }>(
    `select id::text, started_at, last_event_at, channel, payment_return, touchpoint_id::text, events, page_views from tracking_sessions where store_id = $1 and visitor_key = $2 order by started_at`,
    [storeId, visitor],
  );
}
async function touchpointsOf(visitor: string) {
  return sql().rows<{ channel: string; click_id_kind: string | null; click_id: string | null; utm_source: string | null; referrer_host: string | null; session_id: string }>(
    `select channel, click_id_kind, click_id, utm_source, referrer_host, session_id::text from tracking_touchpoints where store_id = $1 and visitor_key = $2 order by occurred_at`,
    [storeId, visitor],
  );
}

describe('sessions (30 minutes of inactivity) and touchpoints', () => {
  it('splits after 30 quiet minutes, not before, and classifies each session’s source with the orders’ channel code', async () => {
    await events.writer.write([
      event('visitor_a', 0, { url: 'https://shop.example/?gclid=G1', referrer: 'https://www.google.com/' }),
      event('visitor_a', 10, { url: 'https://shop.example/p/1' }),
      event('visitor_a', 39, { url: 'https://shop.example/p/2', referrer: 'https://shop.example/p/1' }), // 29 min after the last
      event('visitor_a', 70, { url: 'https://shop.example/p/3', referrer: 'https://shop.example/p/2' }), // 31 min: a new session
      event('visitor_a', 71, { name: 'add_to_cart' }),
    ], []);
    expect(await build()).toEqual({ events: 5, sessionsCreated: 2, touchpoints: 2 });
    const sessions = await sessionsOf('visitor_a');
    expect(sessions.map((s) => [s.channel, s.events, s.page_views])).toEqual([['googleads', 3, 3], ['direct', 2, 1]]);
    expect(new Date(sessions[0]!.last_event_at).getTime()).toBe(T0 + 39 * MINUTE);
    expect((await touchpointsOf('visitor_a')).map((t) => [t.channel, t.click_id_kind, t.click_id])).toEqual([['googleads', 'gclid', 'G1'], ['direct', null, null]]);
    // Run again: nothing new, nothing counted twice.
    expect(await build()).toEqual({ events: 0, sessionsCreated: 0, touchpoints: 0 });
  });

  it('a return from a payment page (defaults and the store’s own checkout domain) starts no touchpoint', async () => {
    await updateTrackingSettings(database.orm.em.fork(), storeId, { paymentReferrers: ['paypal.com', 'stripe.com', 'klarna.com', 'shop.app', 'afterpay.com', 'pay.myshop.example'] });
    await events.writer.write([
      event('visitor_b', 0, { url: 'https://shop.example/', referrer: 'https://www.facebook.com/' }),
      event('visitor_b', 5, { name: 'begin_checkout' }),
      event('visitor_b', 50, { url: 'https://shop.example/thanks', referrer: 'https://www.paypal.com/checkoutnow?token=x' }),
      event('visitor_b', 120, { url: 'https://shop.example/thanks', referrer: 'https://pay.myshop.example/order/1' }),
      event('visitor_b', 200, { url: 'https://shop.example/', referrer: 'https://blog.example/' }),
    ], []);
    await build();
    const sessions = await sessionsOf('visitor_b');
    expect(sessions.map((s) => [s.channel, s.payment_return, s.touchpoint_id === null])).toEqual([
      ['organic_social', false, false],
      [null, true, true],
      [null, true, true],
      ['referral', false, false],
    ]);
    expect((await touchpointsOf('visitor_b')).map((t) => [t.channel, t.referrer_host])).toEqual([['organic_social', 'facebook.com'], ['referral', 'blog.example']]);
  });

  it('a new campaign within 30 minutes starts a new session; a page without one does not', async () => {
    await events.writer.write([
      event('visitor_c', 0, { url: 'https://shop.example/', referrer: 'https://www.google.com/' }),
      event('visitor_c', 5, { url: 'https://shop.example/?utm_source=newsletter&utm_medium=email&utm_campaign=nov' }),
      event('visitor_c', 8, { url: 'https://shop.example/p/1', referrer: 'https://shop.example/' }),
    ], []);
    await build();
    expect((await sessionsOf('visitor_c')).map((s) => [s.channel, s.events])).toEqual([['organic_search', 1], ['email', 2]]);
    expect((await touchpointsOf('visitor_c')).map((t) => [t.channel, t.utm_source])).toEqual([['organic_search', null], ['email', 'newsletter']]);
  });

  it('an event that arrives late joins the session it belongs to', async () => {
    await events.writer.write([event('visitor_d', 10, { url: 'https://shop.example/p/9' })], []);
    await build();
    await events.writer.write([event('visitor_d', 0, { url: 'https://shop.example/?utm_source=tiktok&utm_medium=paid' })], []);
    await build();
    const sessions = await sessionsOf('visitor_d');
    expect(sessions).toHaveLength(1);
    expect(new Date(sessions[0]!.started_at).getTime()).toBe(T0);
    expect(sessions[0]!.events).toBe(2);
    // The earlier event is the session's source: its one touchpoint moves to it.
    expect(sessions[0]!.channel).toBe('tiktokads');
    expect((await touchpointsOf('visitor_d')).map((t) => [t.channel, t.utm_source, t.session_id])).toEqual([['tiktokads', 'tiktok', sessions[0]!.id]]);
  });

  it('a purchase that arrives before the visit it ends (a backend event, then the browser’s beacon) still credits that visit', async () => {
    await events.writer.write([event('visitor_f', 20, { name: 'purchase', url: 'https://shop.example/thanks', referrer: 'https://www.paypal.com/checkoutnow', orderId: 'f-1', valueMinor: 4200, currency: 'GBP' })], []);
    await build();
    expect(await touchpointsOf('visitor_f')).toEqual([]);
    await events.writer.write([
      event('visitor_f', 0, { url: 'https://shop.example/?gclid=abc123', referrer: 'https://www.google.com/' }),
      event('visitor_f', 8, { url: 'https://shop.example/p/2' }),
    ], []);
    await build();
    const sessions = await sessionsOf('visitor_f');
    expect(sessions.map((s) => [s.channel, s.payment_return, s.events])).toEqual([['googleads', false, 3]]);
    expect((await touchpointsOf('visitor_f')).map((t) => [t.channel, t.click_id_kind, t.click_id, t.session_id])).toEqual([['googleads', 'gclid', 'abc123', sessions[0]!.id]]);
    // A late return from a payment page before it does not take the source away.
    await events.writer.write([event('visitor_f', -5, { url: 'https://shop.example/thanks', referrer: 'https://www.paypal.com/checkoutnow' })], []);
    await build();
    expect((await sessionsOf('visitor_f')).map((s) => [s.channel, s.payment_return, s.events])).toEqual([['googleads', false, 4]]);
  });

  it('reads events in stored order across many runs of the job (12,000 events, more than one chunk), skipping none', async () => {
    const visitors = Array.from({ length: 12_000 }, (_, index) => `bulk_${index}`);
    await events.writer.write(visitors.map((visitor, index) => event(visitor, index / 1_000)), []);
    const built = await build();
    expect(built.events).toBeGreaterThanOrEqual(12_000);
    const [row] = await sql().rows<{ n: number }>(`select count(distinct visitor_key)::int as n from tracking_sessions where store_id = $1 and visitor_key like 'bulk\\_%'`, [storeId]);
    expect(row!.n).toBe(12_000);
  });

  it('counts cookieless visitors by their daily hash, and leaves events not yet settled for the next run', async () => {
    await events.writer.write([event('unused', 0, { anonymousId: null, consent: false, visitorHash: 'hash_visitor_e' }), event('unused', 3, { anonymousId: null, consent: false, visitorHash: 'hash_visitor_e' })], []);
    expect((await buildSessions(database.orm.em.fork(), storeId, { settleMs: 60 * MINUTE })).events).toBe(0);
    await build();
    expect((await sessionsOf('hash_visitor_e')).map((s) => s.events)).toEqual([2]);
  });
});

describe('privacy jobs', () => {
  it('deletes a customer’s events, purchases, sessions and touchpoints by e-mail hash, across their browsers', async () => {
    const hash = emailHashOf('gone@example.com');
    await events.writer.write([
      event('browser_1', 0, { url: 'https://shop.example/?fbclid=F1' }),
      event('browser_1', 2, { name: 'identify', emailHash: hash }),
      event('browser_2', 0, { name: 'purchase', orderId: 'gdpr-1', eventId: 'gdpr-1', valueMinor: 500, currency: 'GBP', emailHash: hash }),
      event('browser_3', 0),
    ], []);
    await build();
    const removed = await deleteTrackedCustomer(database.orm.em.fork(), storeId, hash);
    expect(removed).toMatchObject({ events: 3, purchases: 1 });
    expect(removed.sessions).toBeGreaterThanOrEqual(2);
    const [left] = await sql().rows<{ events: number; sessions: number; touchpoints: number }>(
      `select (select count(*) from tracking_events where store_id = $1 and anonymous_id in ('browser_1', 'browser_2'))::int as events,
              (select count(*) from tracking_sessions where store_id = $1 and visitor_key in ('browser_1', 'browser_2'))::int as sessions,
              (select count(*) from tracking_touchpoints where store_id = $1 and visitor_key in ('browser_1', 'browser_2'))::int as touchpoints`,
      [storeId],
    );
    expect(left).toEqual({ events: 0, sessions: 0, touchpoints: 0 });
    expect((await sessionsOf('browser_3')).length).toBe(1);
  });

  it('applies each store’s retention, drops partitions older than every retention, and makes partitions ahead', async () => {
    const short = (await createCommerceStore(database.orm)).id;
    await updateTrackingSettings(database.orm.em.fork(), short, { retentionMonths: 1 });
    const now = new Date();
    const old = new Date(now.getTime() - 45 * 86_400_000);
    const ancient = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 27, 15));
    await events.writer.write([
      { ...event('ret_1', 0), storeId: short, occurredAt: old },
      { ...event('ret_1', 0), storeId: short, occurredAt: now },
      { ...event('ret_2', 0), occurredAt: old },
      { ...event('ret_3', 0), occurredAt: ancient },
    ], []);
    const result = await applyRetention(database.orm.em.fork(), now);
    expect(result.droppedPartitions).toContain(partitionOf(ancient).name);
    const counts = await sql().rows<{ store_id: number; n: number }>(
      `select store_id, count(*)::int as n from tracking_events where anonymous_id in ('ret_1', 'ret_2', 'ret_3') group by store_id order by store_id`,
    );
    // The 1-month store keeps today's event; the 25-month store keeps its 45-day-old one.
    expect(counts).toEqual([{ store_id: storeId, n: 1 }, { store_id: short, n: 1 }].sort((a, b) => a.store_id - b.store_id));
    const ahead = await ensurePartitionsAhead(database.orm.em.fork(), now);
    expect(ahead).toHaveLength(3);
    const [made] = await sql().rows<{ n: number }>(`select count(*)::int as n from pg_class where relname = any($1::text[])`, [ahead]);
    expect(made!.n).toBe(3);
  });

  it('keeps one salt per day for every process, and deletes the salts of days before yesterday', async () => {
    const salt = new DailySalt(() => database.orm.em.fork());
    const other = new DailySalt(() => database.orm.em.fork());
    const day = new Date('2026-01-10T12:00:00Z');
    expect((await salt.current(day)).equals(await other.current(day))).toBe(true);
    expect((await salt.current(new Date('2026-01-11T12:00:00Z'))).equals(await salt.current(day))).toBe(false);
    await deleteOldSalts(database.orm.em.fork(), new Date('2026-01-12T01:00:00Z'));
    const days = await sql().rows<{ day: string }>(`select to_char(day, 'YYYY-MM-DD') as day from tracking_salts where day < '2026-02-01' order by day`);
    expect(days.map((row) => row.day)).toEqual(['2026-01-11']);
  });
});
