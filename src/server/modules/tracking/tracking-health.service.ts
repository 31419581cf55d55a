import type { EntityManager } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { TEST_EVENT_NAME, TEST_EVENT_SOURCE, type TrackingHealth } from '../../../shared/tracking.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { campaignOf, type EventRow } from './event-schema.ts';
import { EventWriter } from './event-writer.ts';

// The tracking screen's health figures, and its "Send test event" button (README, "Tracking: the
// set-up screen").

const HEALTH_SQL = `
  with purchases as (
    select order_id from tracking_purchases where store_id = $1 and occurred_at > now() - interval '30 days'
  ), recent_orders as (
    -- The same 30 days, and a day more for purchases tracked just before their order's own time.
    select external_id, order_number, placed_at from orders where store_id = $1 and placed_at > now() - interval '31 days'
  )
  select
    (select count(*)::int from tracking_events where store_id = $1 and occurred_at > now() - interval '24 hours' and occurred_at <= now() + interval '5 minutes') as "eventsLast24h",
    (select to_char(received_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') from tracking_events where store_id = $1 order by store_id, seq desc limit 1) as "lastEventAt",
    (select count(*)::int from purchases) as "purchasesLast30d",
    (select count(*)::int from purchases p
      where p.order_id in (select external_id from recent_orders) or p.order_id in (select order_number from recent_orders where order_number is not null)) as "purchasesMatched",
    (select count(*)::int from recent_orders where placed_at > now() - interval '30 days') as "ordersLast30d",
    (select count(*)::int from recent_orders o
      where o.placed_at > now() - interval '30 days'
        and (o.external_id in (select order_id from purchases) or o.order_number in (select order_id from purchases))) as "ordersTracked"`;

/**
 * Events in the last 24 hours, the latest event's arrival, and how well tracked purchases match the
 * store's orders over 30 days: the share of tracked purchases whose order id is one of the store's
 * orders (by the platform's order id or its order number), and how many of the store's orders the
 * tracking saw. Every figure is the one store's.
 */
export async function trackingHealth(em: EntityManager, storeId: number): Promise<TrackingHealth> {
  const [row] = await sqlRunner(em).rows<Omit<TrackingHealth, 'matchedPercent'>>(HEALTH_SQL, [storeId]);
  const health = row!;
  const matchedPercent = health.purchasesLast30d === 0 ? null : Math.round((health.purchasesMatched / health.purchasesLast30d) * 1000) / 10;
  return { ...health, matchedPercent };
}

/** One writer per connection pool for test events: the collector's group-commit writer class, so the event takes the collector's path to disk. */
const writers = new WeakMap<pg.Pool, EventWriter>();

async function writerOf(em: EntityManager): Promise<EventWriter> {
  const pool = (await em.getConnection().getNativeClient()) as pg.Pool;
  let writer = writers.get(pool);
  if (!writer) {
    writer = new EventWriter(pool);
    writers.set(pool, writer);
  }
  return writer;
}

/**
 * Writes a test event for the store through the collector's writer (one committed statement with the
 * events of that moment), answered once it is on disk. It is marked as a test (source `test`, name
 * `test_event`) and carries no visitor id, so it shows in the live view and the health figures but
 * never starts a session or a touchpoint.
 */
export async function sendTestEvent(em: EntityManager, storeId: number, origin: string | null): Promise<{ eventId: string; occurredAt: string }> {
  const occurredAt = new Date();
  const url = origin ? `${origin}/tracking-setup` : null;
  const row: EventRow = {
    storeId,
    occurredAt,
    eventId: `test_${randomBytes(12).toString('base64url')}`,
    name: TEST_EVENT_NAME,
    source: TEST_EVENT_SOURCE,
    consent: true,
    anonymousId: null,
    visitorHash: null,
    url,
    referrer: null,
    title: 'StorePulse test event',
    ...campaignOf(url),
    screen: null,
    language: null,
    country: null,
    emailHash: null,
    customerId: null,
    checkoutToken: null,
    orderId: null,
    valueMinor: null,
    currency: null,
    props: { test: true },
  };
  const result = await (await writerOf(em)).write([row], []);
  if (result.stored !== 1) throw new Error('The test event was not stored');
  return { eventId: row.eventId, occurredAt: occurredAt.toISOString() };
}
