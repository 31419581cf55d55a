import type { EntityManager } from '@mikro-orm/postgresql';
import { ATTRIBUTION_MODELS, DEFAULT_ATTRIBUTION_WINDOW } from '../../../shared/attribution.ts';
import { countingOrderSql } from '../../../shared/commerce.ts';
import { PLATFORM_KEYS } from '../../../shared/platforms.ts';
import { num, sqlRunner, type SqlRunner } from '../commerce/raw-sql.ts';
import { orderCredits, touchpointsInWindow, type AttributionOrder, type CreditRow, type Touchpoint } from './models.ts';

// Attribution credits, kept incrementally (README, "Attribution: credits"):
// - an order's touchpoints are those of its visitors before it was placed, within the window: the
//   browser of its purchase event (tracking_purchases: order id = the purchase's event id, matched to
//   the order's platform id or number), and every browser and server visitor that carried the e-mail
//   hash of that purchase or of the order's customer (cross-device journeys join on the customer);
// - per order and window, `attribution_orders` keeps what its credits were last computed from; a
//   change subtracts those credits from `attribution_daily` and adds the new ones, so the rollups
//   always equal the sum over the orders' current journeys (the same idea as commerce/rollups.ts);
// - what changes an order's credits: the order or its refunds (ingest marks it in
//   attribution_dirty_orders), a purchase event that names it, or a new touchpoint of one of its
//   visitors (the job follows tracking_purchases and tracking_touchpoints with cursors);
// - a new window (setting) is computed beside the current one, in chunks with progress, and
//   replaces it when complete; meanwhile the current window's rollups stay exact.

const LOCK = 'storepulse.attribution';
export const CHUNK = 1_000;
/** Purchases are read once they are this old, so a group commit still in flight is not skipped. */
export const PURCHASE_SETTLE_MS = 5_000;
const MAX_WINDOW_DAYS = 90;
const COUNTING = countingOrderSql('o');

/** Marks orders whose credits must be computed again (ingest calls it in the batch's transaction). */
export async function markOrdersForAttribution(q: SqlRunner, storeId: number, orderIds: readonly (number | string)[]): Promise<void> {
  if (orderIds.length === 0) return;
  await q.run(
    `insert into attribution_dirty_orders (store_id, order_id) select $1, id from unnest($2::bigint[]) as k(id) order by id on conflict do nothing`,
    [storeId, [...new Set(orderIds.map(String))]],
  );
}

/** Every order of the store credited again for `windowDays` (default: the current window), in the background. */
export async function requestRecompute(q: SqlRunner, storeId: number, windowDays?: number): Promise<void> {
  await ensureState(q, storeId);
  await q.run(
    `update attribution_state s
        set recompute_window_days = coalesce($2::int, s.window_days), recompute_cursor = 0, recompute_done = 0,
            recompute_total = (select count(*) from orders where store_id = $1), updated_at = now()
      where s.store_id = $1`,
    [storeId, windowDays ?? null],
  );
}

export interface AttributionState {
  windowDays: number;
  touchpointCursor: string;
  /** timestamptz as text (microseconds kept). */
  purchaseCursor: string;
  recomputeWindowDays: number | null;
  recomputeCursor: string;
  recomputeDone: number;
  recomputeTotal: number;
}

/** The store's state, made on first use with a recompute of every order it already has. */
async function ensureState(q: SqlRunner, storeId: number): Promise<void> {
  await q.run(
    `insert into attribution_state (store_id, window_days, recompute_window_days, recompute_total)
     select $1, w.days, w.days, (select count(*) from orders where store_id = $1)
       from (select coalesce((select attribution_window_days from tracking_settings where store_id = $1), ${DEFAULT_ATTRIBUTION_WINDOW}) as days) w
     on conflict (store_id) do nothing`,
    [storeId],
  );
}

/**
 * The store's state. Read first, made only when missing: ensureState counts the store's orders
 * (tens of ms on a 1M-order store), which every report read paid before (issue 17).
 */
export async function readState(q: SqlRunner, storeId: number): Promise<AttributionState> {
  const read = () => q.rows<AttributionState>(
    `select window_days as "windowDays", touchpoint_cursor::text as "touchpointCursor", purchase_cursor::text as "purchaseCursor",
            recompute_window_days as "recomputeWindowDays", recompute_cursor::text as "recomputeCursor", recompute_done as "recomputeDone", recompute_total as "recomputeTotal"
       from attribution_state where store_id = $1`,
    [storeId],
  );
  const [row] = await read();
  if (row) return row;
  await ensureState(q, storeId);
  return (await read())[0]!;
}

interface OrderRow {
  id: string;
  placed_at: Date;
  placed_day: string;
  currency: string;
  revenue: string;
  channel: string;
  campaign: string;
}

export interface Journey extends AttributionOrder {
  orderId: string;
}

/**
 * The counting orders among `orderIds` with their refunds and their visitors' touchpoints in the
 * window (oldest first). Orders that do not count (cancelled, unpaid, tests) are left out.
 */
export async function loadJourneys(q: SqlRunner, storeId: number, orderIds: readonly string[], windowDays: number): Promise<Journey[]> {
  if (orderIds.length === 0) return [];
  const orders = await q.rows<OrderRow>(
    `select o.id::text as id, o.placed_at, to_char(o.placed_day, 'YYYY-MM-DD') as placed_day, o.currency, (o.gross_minor - o.discounts_minor)::text as revenue,
            o.channel, coalesce(o.utm_campaign, '') as campaign
       from unnest($2::bigint[]) as k(id)
       join orders o on o.store_id = $1 and o.id = k.id
      where ${COUNTING}`,
    [storeId, orderIds],
  );
  if (orders.length === 0) return [];
  const ids = orders.map((order) => order.id);
  const refunds = await q.rows<{ order_id: string; day: string; amount: string }>(
    `select r.order_id::text as order_id, to_char(r.refunded_day, 'YYYY-MM-DD') as day, r.amount_minor::text as amount
       from refunds r where r.store_id = $1 and r.order_id = any($2::bigint[]) order by r.order_id, r.refunded_at, r.id`,
    [storeId, ids],
  );
  const touchpoints = await visitorTouchpoints(q, storeId, ids, windowDays);
  const refundsOf = new Map<string, { day: string; amountMinor: number }[]>();
  for (const refund of refunds) {
    const list = refundsOf.get(refund.order_id) ?? [];
    list.push({ day: refund.day, amountMinor: num(refund.amount) });
    refundsOf.set(refund.order_id, list);
  }
  const touchpointsOf = new Map<string, Touchpoint[]>();
  for (const touchpoint of touchpoints) {
    const list = touchpointsOf.get(touchpoint.order_id) ?? [];
    list.push({ at: new Date(touchpoint.at).getTime(), channel: touchpoint.channel, campaign: touchpoint.campaign });
    touchpointsOf.set(touchpoint.order_id, list);
  }
  return orders.map((order) => ({
    orderId: order.id,
    placedAt: new Date(order.placed_at).getTime(),
    placedDay: order.placed_day,
    currency: order.currency,
    revenueMinor: num(order.revenue),
    channel: order.channel,
    campaign: order.campaign,
    refunds: refundsOf.get(order.id) ?? [],
    touchpoints: touchpointsInWindow(touchpointsOf.get(order.id) ?? [], new Date(order.placed_at).getTime(), windowDays),
  }));
}

export interface TouchpointRow {
  order_id: string;
  id: string;
  at: Date;
  channel: string;
  campaign: string;
  referrer_host: string | null;
  landing_url: string | null;
}

/**
 * The touchpoints of the orders' visitors in the window before each order, oldest first. The events
 * of an e-mail and the touchpoints of a visitor are index probes per e-mail and per visitor (lateral,
 * `offset 0`): joined as sets, the planner misjudged the visitors' count and read every touchpoint
 * of the store per call (18 s per 1,000 orders on the 1M-order demo store).
 */
export async function visitorTouchpoints(q: SqlRunner, storeId: number, ids: readonly string[], windowDays: number): Promise<TouchpointRow[]> {
  return q.rows<TouchpointRow>(
    `with o as (
       select o.id, o.platform, o.external_id, o.order_number, o.placed_at, c.email_hash as customer_email
         from unnest($2::bigint[]) as k(id)
         join orders o on o.store_id = $1 and o.id = k.id
         left join customers c on c.store_id = $1 and c.id = o.customer_id
     ),
     p as (
       select o.id, tp.anonymous_id, tp.email_hash
         from o join tracking_purchases tp on tp.store_id = $1 and tp.order_id = o.external_id
       union
       select o.id, tp.anonymous_id, tp.email_hash
         from o join tracking_purchases tp on tp.store_id = $1 and tp.order_id = o.order_number
     ),
     emails as (
       select id, email_hash from p where email_hash is not null
       union select id, customer_email from o where customer_email is not null
     ),
     visitor_keys as (
       select id, anonymous_id as key from p where anonymous_id is not null
       union select id, 'e:' || left(email_hash, 62) from emails
       union select e.id, ev.anonymous_id from emails e cross join lateral (
               select ev.anonymous_id from tracking_events ev where ev.store_id = $1 and ev.email_hash = e.email_hash and ev.anonymous_id is not null offset 0) ev
     )
     select o.id::text as order_id, t.id::text as id, t.occurred_at as at, t.channel, coalesce(t.utm_campaign, '') as campaign, t.referrer_host, t.landing_url
       from visitor_keys k
       join o on o.id = k.id
       cross join lateral (
         select t.id, t.occurred_at, t.channel, t.utm_campaign, t.referrer_host, t.landing_url from tracking_touchpoints t
          where t.store_id = $1 and t.visitor_key = k.key and t.occurred_at <= o.placed_at and t.occurred_at >= o.placed_at - make_interval(days => $3::int) offset 0) t
      order by o.id, t.occurred_at, t.id`,
    [storeId, ids, windowDays],
  );
}

/** Every model's credit rows of the journeys. */
export function journeyCredits(journeys: readonly AttributionOrder[], windowDays: number): CreditRow[] {
  const rows: CreditRow[] = [];
  for (const journey of journeys) for (const model of ATTRIBUTION_MODELS) rows.push(...orderCredits(model, journey, windowDays));
  return rows;
}

interface StoredJourney {
  order_id: string;
  placed_at: Date;
  placed_day: string;
  currency: string;
  revenue_minor: string;
  channel: string;
  campaign: string;
  refunds: { day: string; amountMinor: number }[];
  touchpoints: Touchpoint[];
}

interface DeltaValues {
  orders: number;
  revenue: number;
  ownOrders: number;
  ownRevenue: number;
}

function addCredits(delta: Map<string, DeltaValues>, rows: readonly CreditRow[], sign: 1 | -1): void {
  for (const row of rows) {
    const key = [row.model, row.day, row.channel, row.currency, row.campaign].join('\u0000');
    let values = delta.get(key);
    if (!values) delta.set(key, (values = { orders: 0, revenue: 0, ownOrders: 0, ownRevenue: 0 }));
    values.orders += sign * row.ordersMillionths;
    values.revenue += sign * row.revenueMinor;
    if (row.ownSource) {
      values.ownOrders += sign * row.ordersMillionths;
      values.ownRevenue += sign * row.revenueMinor;
    }
  }
}

/**
 * Credits the orders again for the window: their stored journeys' credits out of the rollups, their
 * current ones in, and the stored journeys replaced (removed for orders that no longer count).
 */
export async function creditOrders(q: SqlRunner, storeId: number, orderIds: readonly string[], windowDays: number): Promise<number> {
  if (orderIds.length === 0) return 0;
  const stored = await q.rows<StoredJourney>(
    `select order_id::text as order_id, placed_at, to_char(placed_day, 'YYYY-MM-DD') as placed_day, currency, revenue_minor::text as revenue_minor,
            channel, campaign, refunds, touchpoints
       from attribution_orders where store_id = $1 and window_days = $2 and order_id = any($3::bigint[])`,
    [storeId, windowDays, orderIds],
  );
  const journeys = await loadJourneys(q, storeId, orderIds, windowDays);
  const delta = new Map<string, DeltaValues>();
  addCredits(
    delta,
    journeyCredits(
      stored.map((row) => ({
        placedAt: new Date(row.placed_at).getTime(), placedDay: row.placed_day, currency: row.currency, revenueMinor: num(row.revenue_minor),
        channel: row.channel, campaign: row.campaign, refunds: row.refunds, touchpoints: row.touchpoints,
      })),
      windowDays,
    ),
    -1,
  );
  addCredits(delta, journeyCredits(journeys, windowDays), 1);
  const changes = [...delta.entries()].filter(([, v]) => v.orders !== 0 || v.revenue !== 0 || v.ownOrders !== 0 || v.ownRevenue !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (changes.length > 0) {
    const keys = changes.map(([key]) => key.split('\u0000'));
    await q.run(
      `insert into attribution_daily as d (store_id, window_days, model, day, channel, currency, campaign, orders, revenue_minor, own_source_orders, own_source_revenue_minor)
       select $1, $2, x.model, x.day, x.channel, x.currency, x.campaign, x.orders / 1000000.0, x.revenue, x.own_orders / 1000000.0, x.own_revenue
         from unnest($3::text[], $4::date[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[])
              as x(model, day, channel, currency, campaign, orders, revenue, own_orders, own_revenue)
       on conflict (store_id, window_days, model, day, channel, campaign, currency) do update set
         orders = d.orders + excluded.orders, revenue_minor = d.revenue_minor + excluded.revenue_minor,
         own_source_orders = d.own_source_orders + excluded.own_source_orders, own_source_revenue_minor = d.own_source_revenue_minor + excluded.own_source_revenue_minor`,
      [
        storeId, windowDays, ...[0, 1, 2, 3, 4].map((index) => keys.map((key) => key[index])),
        changes.map(([, v]) => v.orders), changes.map(([, v]) => v.revenue), changes.map(([, v]) => v.ownOrders), changes.map(([, v]) => v.ownRevenue),
      ],
    );
  }
  await q.run(`delete from attribution_orders where store_id = $1 and window_days = $2 and order_id = any($3::bigint[])`, [storeId, windowDays, orderIds]);
  if (journeys.length > 0) {
    await q.run(
      `insert into attribution_orders (store_id, window_days, order_id, placed_at, placed_day, currency, revenue_minor, refunded_minor, channel, campaign, refunds, touchpoints, touchpoint_count, first_touch_at)
       select $1, $2, x.* from unnest($3::bigint[], $4::timestamptz[], $5::date[], $6::text[], $7::bigint[], $8::bigint[], $9::text[], $10::text[], $11::jsonb[], $12::jsonb[], $13::int[], $14::timestamptz[]) as x`,
      [
        storeId, windowDays, journeys.map((j) => j.orderId), journeys.map((j) => new Date(j.placedAt).toISOString()), journeys.map((j) => j.placedDay), journeys.map((j) => j.currency),
        journeys.map((j) => j.revenueMinor), journeys.map((j) => j.refunds.reduce((sum, r) => sum + r.amountMinor, 0)), journeys.map((j) => j.channel), journeys.map((j) => j.campaign),
        journeys.map((j) => JSON.stringify(j.refunds)), journeys.map((j) => JSON.stringify(j.touchpoints)), journeys.map((j) => j.touchpoints.length),
        journeys.map((j) => (j.touchpoints.length > 0 ? new Date(j.touchpoints[0]!.at).toISOString() : null)),
      ],
    );
  }
  return orderIds.length;
}

/**
 * Orders (placed at or after `from`, within the longest window after `to`) of visitors with these keys
 * or of these e-mail hashes, ids up to `maxOrderId` when given. Every lookup is an index probe per key
 * or per e-mail (the `offset 0` keeps each lateral subquery a parameterized index scan): joined as
 * sets, the planner read every event of the store per run and compared each with every e-mail key
 * (a 500-touchpoint run took 25 s on the 100,000-order demo store).
 */
async function ordersOfVisitors(q: SqlRunner, storeId: number, visitorKeys: string[], from: Date, to: Date, maxOrderId?: string): Promise<string[]> {
  const [row] = await q.rows<{ ids: string[] | null }>(
    `with keys as (select distinct unnest($2::text[]) as key),
     emails as (
       select ev.email_hash from keys cross join lateral (
         select ev.email_hash from tracking_events ev where ev.store_id = $1 and ev.anonymous_id = keys.key and ev.email_hash is not null offset 0) ev
       union
       select ev.email_hash from keys cross join lateral (
         select ev.email_hash from tracking_events ev
          where ev.store_id = $1 and ev.email_hash >= substr(keys.key, 3) || '00' and ev.email_hash <= substr(keys.key, 3) || 'ff' offset 0) ev
        where keys.key like 'e:%'
     ),
     purchase_orders as (
       select tp.order_id from keys cross join lateral (select tp.order_id from tracking_purchases tp where tp.store_id = $1 and tp.anonymous_id = keys.key offset 0) tp
       union select tp.order_id from emails e cross join lateral (select tp.order_id from tracking_purchases tp where tp.store_id = $1 and tp.email_hash = e.email_hash offset 0) tp
     ),
     matched as (
       select o.id from purchase_orders p cross join lateral (
         select o.id from orders o where o.store_id = $1 and o.platform = any($5::text[]) and o.external_id = p.order_id offset 0) o
       union select o.id from purchase_orders p cross join lateral (select o.id from orders o where o.store_id = $1 and o.order_number = p.order_id offset 0) o
       union select o.id from emails e join customers c on c.store_id = $1 and c.email_hash = e.email_hash
               cross join lateral (select o.id from orders o where o.store_id = $1 and o.customer_id = c.id offset 0) o
     )
     select array_agg(o.id::text) as ids from matched m cross join lateral (select o.id, o.placed_at from orders o where o.store_id = $1 and o.id = m.id offset 0) o
      where o.placed_at >= $3 and o.placed_at <= $4::timestamptz + interval '${MAX_WINDOW_DAYS} days' and ($6::bigint is null or o.id <= $6::bigint)`,
    [storeId, visitorKeys, from, to, [...PLATFORM_KEYS], maxOrderId ?? null],
  );
  return row?.ids ?? [];
}

async function ordersOfPurchases(q: SqlRunner, storeId: number, orderIds: string[]): Promise<string[]> {
  const [row] = await q.rows<{ ids: string[] | null }>(
    `select array_agg(distinct o.id::text) as ids from (
       select o.id from unnest($2::text[]) as p(order_id) join orders o on o.store_id = $1 and o.platform = any($3::text[]) and o.external_id = p.order_id
       union select o.id from unnest($2::text[]) as p(order_id) join orders o on o.store_id = $1 and o.order_number = p.order_id) o`,
    [storeId, orderIds, [...PLATFORM_KEYS]],
  );
  return row?.ids ?? [];
}

export interface AttributionRunResult {
  credited: number;
  recomputed: number;
}

/** One step under the store's lock, in one transaction; null when another process holds the store. */
async function step(em: EntityManager, storeId: number, chunk: number): Promise<{ credited: number; recomputed: number; more: boolean } | null> {
  return em.transactional(async (tx) => {
    const q = sqlRunner(tx);
    const [lock] = await q.rows<{ locked: boolean }>(`select pg_try_advisory_xact_lock(hashtext($1), $2) as locked`, [LOCK, storeId]);
    if (!lock?.locked) return null;
    const state = await readState(q, storeId);
    // While the current window is being recomputed (a new store's first run: every order), the
    // orders the recompute has not reached yet are left to it: it credits them from what is there
    // when it gets to them, so marking and crediting them now would be work done twice.
    const recomputeCursor = state.recomputeWindowDays === state.windowDays ? state.recomputeCursor : null;
    const notAhead = (ids: string[]) => (recomputeCursor === null ? ids : ids.filter((id) => BigInt(id) <= BigInt(recomputeCursor)));
    if (recomputeCursor === '0') {
      // Not started: every touchpoint and purchase there is now, the recompute reads itself.
      await q.run(
        `update attribution_state set touchpoint_cursor = greatest(touchpoint_cursor, coalesce((select max(id) from tracking_touchpoints where store_id = $1), 0)),
                purchase_cursor = greatest(purchase_cursor, now() - $2::float8 * interval '1 millisecond'), updated_at = now()
          where store_id = $1`,
        [storeId, PURCHASE_SETTLE_MS],
      );
      Object.assign(state, await readState(q, storeId));
    }

    // New touchpoints: the orders of their visitors placed after them.
    const touchpoints = await q.rows<{ id: string; visitor_key: string; occurred_at: Date }>(
      `select id::text, visitor_key, occurred_at from tracking_touchpoints where store_id = $1 and id > $2::bigint order by tracking_touchpoints.id limit ${chunk * 5}`, // the column: the output `id` is text
      [storeId, state.touchpointCursor],
    );
    if (touchpoints.length > 0) {
      const times = touchpoints.map((t) => new Date(t.occurred_at).getTime());
      const keys = [...new Set(touchpoints.map((t) => t.visitor_key))];
      await markOrdersForAttribution(q, storeId, await ordersOfVisitors(q, storeId, keys, new Date(Math.min(...times)), new Date(Math.max(...times)), recomputeCursor ?? undefined));
      await q.run(`update attribution_state set touchpoint_cursor = $2::bigint, updated_at = now() where store_id = $1`, [storeId, touchpoints[touchpoints.length - 1]!.id]);
    }
    // New purchase events: the orders they name.
    const purchases = await q.rows<{ order_id: string; created_at: string }>(
      `select order_id, created_at::text as created_at from tracking_purchases
        where store_id = $1 and created_at > $2::timestamptz and created_at < now() - $3::float8 * interval '1 millisecond'
        order by created_at limit ${chunk * 5}`,
      [storeId, state.purchaseCursor, PURCHASE_SETTLE_MS],
    );
    if (purchases.length > 0) {
      await markOrdersForAttribution(q, storeId, notAhead(await ordersOfPurchases(q, storeId, purchases.map((p) => p.order_id))));
      // (Microseconds kept: the cursor is text.) A limit may cut between rows of the same instant:
      // then the cursor stays just before the last instant.
      await q.run(
        `update attribution_state set purchase_cursor = greatest(purchase_cursor, $2::timestamptz - $3::int * interval '1 microsecond'), updated_at = now() where store_id = $1`,
        [storeId, purchases[purchases.length - 1]!.created_at, purchases.length === chunk * 5 ? 1 : 0],
      );
    }

    // Orders waiting: credited for the current window, and for the window being recomputed when
    // the recompute has passed them (those after its cursor it credits itself).
    const dirty = (
      await q.rows<{ order_id: string }>(
        `delete from attribution_dirty_orders d using (
           select order_id from attribution_dirty_orders where store_id = $1 order by order_id limit ${chunk} for update skip locked) x
          where d.store_id = $1 and d.order_id = x.order_id returning d.order_id::text as order_id`,
        [storeId],
      )
    ).map((row) => row.order_id);
    let credited = 0;
    if (dirty.length > 0) {
      credited += await creditOrders(q, storeId, notAhead(dirty), state.windowDays);
      if (state.recomputeWindowDays !== null && state.recomputeWindowDays !== state.windowDays) {
        await creditOrders(q, storeId, dirty.filter((id) => BigInt(id) <= BigInt(state.recomputeCursor)), state.recomputeWindowDays);
      }
    }
    let recomputed = 0;
    let recomputeMore = false;
    if (state.recomputeWindowDays !== null && dirty.length < chunk) {
      const ids = (await q.rows<{ id: string }>(`select id::text from orders where store_id = $1 and id > $2::bigint order by orders.id limit ${chunk}`, [storeId, state.recomputeCursor])).map((row) => row.id);
      recomputed = await creditOrders(q, storeId, ids, state.recomputeWindowDays);
      if (ids.length === chunk) {
        recomputeMore = true;
        await q.run(`update attribution_state set recompute_cursor = $2::bigint, recompute_done = recompute_done + $3, updated_at = now() where store_id = $1`, [storeId, ids[ids.length - 1], ids.length]);
      } else {
        // Complete: the new window replaces the old.
        await q.run(`delete from attribution_daily where store_id = $1 and window_days <> $2`, [storeId, state.recomputeWindowDays]);
        await q.run(`delete from attribution_orders where store_id = $1 and window_days <> $2`, [storeId, state.recomputeWindowDays]);
        await q.run(
          `update attribution_state set window_days = $2, recompute_window_days = null, recompute_cursor = 0, recompute_done = 0, recompute_total = 0, updated_at = now() where store_id = $1`,
          [storeId, state.recomputeWindowDays],
        );
      }
    }
    const more = touchpoints.length === chunk * 5 || purchases.length === chunk * 5 || dirty.length === chunk || recomputeMore;
    return { credited, recomputed, more };
  });
}

/** Brings the store's credits up to date (and advances a recompute to its end); returns what it did. */
export async function runAttribution(em: EntityManager, storeId: number, options: { chunk?: number; maxSteps?: number } = {}): Promise<AttributionRunResult> {
  const total: AttributionRunResult = { credited: 0, recomputed: 0 };
  for (let steps = 1; ; steps += 1) {
    const result = await step(em, storeId, options.chunk ?? CHUNK);
    if (!result) return total;
    total.credited += result.credited;
    total.recomputed += result.recomputed;
    if (!result.more || steps === options.maxSteps) return total;
  }
}

/** Every store with attribution work: the job's run (each store on its own). */
export async function runAllAttribution(fork: () => EntityManager, log: (message: string) => void = () => {}): Promise<AttributionRunResult> {
  const stores = await sqlRunner(fork()).rows<{ store_id: number }>(
    `select store_id from tracking_settings union select store_id from attribution_state union select distinct store_id from attribution_dirty_orders order by 1`,
  );
  const total: AttributionRunResult = { credited: 0, recomputed: 0 };
  for (const { store_id: storeId } of stores) {
    try {
      const result = await runAttribution(fork(), storeId);
      total.credited += result.credited;
      total.recomputed += result.recomputed;
    } catch (error) {
      log(`Attribution of store ${storeId} failed: ${(error as Error).message}`);
    }
  }
  return total;
}
