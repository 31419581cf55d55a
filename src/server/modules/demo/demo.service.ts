import type { EntityManager } from '@mikro-orm/postgresql';
import { DEMO_ALREADY_LOADING_MESSAGE, STORE_HAS_DATA_MESSAGE, type DemoLoadOutput } from '../../../shared/demo.ts';
import { AppError } from '../../errors.ts';
import { bulkLoad, ingestAdMetrics, ingestEmailMetrics, ingestOrders, ingestRefunds, upsertProducts } from '../commerce/ingest.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { demoAdMetricBatches, demoEmailMetrics, demoPlan, demoProductAdSlices, type DemoOptions } from './generator.ts';
import { replaceProductAdMetrics } from '../commerce/product-ad-metrics.ts';
import { demoOrderBatchesAhead } from './order-batches-ahead.ts';
import type pg from 'pg';
import { serverEventRows } from '../tracking/event-schema.ts';
import { EventWriter } from '../tracking/event-writer.ts';
import { buildSessions } from '../tracking/sessions.ts';
import { trackingSettingsOf } from '../tracking/tracking-settings.service.ts';
import { DemoJourneys, type JourneyCounts } from './journeys.ts';
import { queueLoyaltyScores, recomputeLoyalty } from '../loyalty/loyalty-job.ts';

export interface DemoProgress {
  phase: 'products' | 'orders' | 'ad metrics' | 'e-mail metrics' | 'totals' | 'sessions' | 'done';
  orders: number;
  /** Journey events (visits and purchases) stored through the collector's writer. */
  events: number;
  refunds: number;
  adMetricRows: number;
  emailMetricRows: number;
  milliseconds: number;
}

/** Events per write to the collector's writer, and writes under way at once (memory stays small). */
const JOURNEY_WRITE_EVENTS = 10_000;
const JOURNEY_WRITES_AHEAD = 2;
/** Events per transaction of the sessions job on the demo's bulk of events. */
const SESSION_CHUNK = 50_000;

export interface DemoJourneyReport extends JourneyCounts {
  eventsStored: number;
  eventsDropped: number;
  sessions: number;
  touchpoints: number;
  /** Orders of the store, those with a purchase event, and those whose purchase joins visits (a touchpoint of its visitor at or before the order). */
  orders: number;
  ordersWithPurchase: number;
  ordersMatched: number;
  /** Orders whose purchase was stored more than once (must be 0: the order id is the event id). */
  doubleCounted: number;
}

/** How many of the store's orders have their purchase and visits tracked, and how many purchases were stored twice. */
export async function journeyMatch(em: EntityManager, storeId: number) {
  const sql = sqlRunner(em);
  const [match] = await sql.rows<{ orders: number; with_purchase: number; matched: number }>(
    `select count(*)::int as orders, count(p.order_id)::int as with_purchase,
            count(*) filter (where exists (select 1 from tracking_touchpoints t where t.store_id = o.store_id and t.visitor_key = p.anonymous_id and t.occurred_at <= o.placed_at))::int as matched
       from orders o left join tracking_purchases p on p.store_id = o.store_id and p.order_id = o.external_id
      where o.store_id = $1`,
    [storeId],
  );
  const [doubles] = await sql.rows<{ n: number }>(
    `select count(*)::int as n from (select order_id from tracking_events where store_id = $1 and name = 'purchase' group by order_id having count(*) > 1) d`,
    [storeId],
  );
  return { orders: match!.orders, ordersWithPurchase: match!.with_purchase, ordersMatched: match!.matched, doubleCounted: doubles!.n };
}

async function deleteJourneys(em: EntityManager, storeId: number): Promise<void> {
  const sql = sqlRunner(em);
  for (const table of ['tracking_touchpoints', 'tracking_sessions', 'tracking_session_cursors', 'tracking_purchases', 'tracking_events']) {
    await sql.run(`delete from ${table} where store_id = $1`, [storeId]);
  }
}

/** Stores being loaded in this process: a second click must not load the demo twice. */
const loading = new Set<number>();

export async function storeHasOrders(em: EntityManager, storeId: number): Promise<boolean> {
  const rows = await sqlRunner(em).rows(`select 1 from orders where store_id = $1 limit 1`, [storeId]);
  return rows.length > 0;
}

/**
 * Writes each item, starting the next write before the previous one has finished: while the
 * database works on one batch's statement, this process prepares the other batch's (validation,
 * parameters), instead of the two taking turns; the load's connection is pipelined (see bulkLoad),
 * so each statement is sent as soon as it is ready and waits in the database's queue, not ours. The batches
 * are independent: a batch's customers, orders, lines and refunds (of its own orders) are written by
 * its own statements, in order, and whatever a batch cannot know of another (new vs returning,
 * totals) the bulk load settles at its end. On a failure it waits for the other write to stop before throwing: no statement of ours
 * may reach the connection after the transaction ends.
 */
async function writeTwoAtATime<T>(items: AsyncIterable<T> | Iterable<T>, write: (item: T) => Promise<void>): Promise<void> {
  const writing: Promise<void>[] = [];
  try {
    for await (const item of items) {
      const current = write(item);
      current.catch(() => {}); // awaited below; until then a failure must not count as unhandled
      writing.push(current);
      if (writing.length > 1) await writing.shift();
    }
    while (writing.length > 0) await writing.shift();
  } catch (error) {
    await Promise.allSettled(writing);
    throw error;
  }
}

/**
 * Generates the demo store's data (generator.ts) and writes it through ingest.ts, the path every
 * connector takes, in batches: products, orders with their refunds, ad metrics, e-mail metrics.
 * Refuses a store that already has orders.
 */
export async function loadDemoData(
  em: EntityManager,
  store: { id: number; currency: string; timezone: string },
  options: DemoOptions = {},
  onProgress?: (progress: DemoProgress) => void,
): Promise<DemoLoadOutput & { journeys: DemoJourneyReport }> {
  if (loading.has(store.id)) throw new AppError('CONFLICT', DEMO_ALREADY_LOADING_MESSAGE);
  loading.add(store.id);
  try {
    const started = performance.now();
    const plan = demoPlan(store, options);
    const progress: DemoProgress = { phase: 'products', orders: 0, events: 0, refunds: 0, adMetricRows: 0, emailMetricRows: 0, milliseconds: 0 };
    const report = (phase: DemoProgress['phase']) => {
      progress.phase = phase;
      progress.milliseconds = Math.round(performance.now() - started);
      onProgress?.({ ...progress });
    };

    // One transaction (see bulkLoad): the store shows nothing of the demo until all of it is in and
    // its numbers are settled, and a failed load leaves it empty. Another process loading the same
    // store waits for the lock, then finds the orders.
    // The journeys (journeys.ts) go through the server API's validation and the collector's writer,
    // on connections of their own, beside the orders' transaction; their sessions are built once
    // the orders are in.
    const settings = await trackingSettingsOf(em.fork(), store.id);
    const writer = new EventWriter((await em.getConnection().getNativeClient()) as pg.Pool);
    const journeys = new DemoJourneys(plan);
    const writing: Promise<unknown>[] = [];
    let dropped = 0;
    let journeysWritten = false;
    const writeJourneys = async (orders: Parameters<DemoJourneys['eventsFor']>[0]) => {
      journeysWritten = true;
      const events = journeys.eventsFor(orders);
      const now = Date.now();
      for (let from = 0; from < events.length; from += JOURNEY_WRITE_EVENTS) {
        const { rows, drops } = serverEventRows(store.id, settings.retentionMonths, events.slice(from, from + JOURNEY_WRITE_EVENTS), now);
        for (const count of drops.values()) dropped += count;
        const written = writer.write(rows, [...drops].map(([reason, count]) => ({ storeId: store.id, reason, count }))).then((result) => {
          progress.events += result.stored;
        });
        written.catch(() => {});
        writing.push(written);
        while (writing.length > JOURNEY_WRITES_AHEAD) await writing.shift();
      }
    };
    let products;
    try {
    products = await bulkLoad(em, store.id, async (tx) => {
      if (await storeHasOrders(tx, store.id)) throw new AppError('CONFLICT', STORE_HAS_DATA_MESSAGE);
      const written = await upsertProducts(tx, store.id, plan.products.map(({ weight, ...product }) => product));
      report('orders');
      await writeTwoAtATime(demoOrderBatchesAhead(plan), async (batch) => {
        const journeyWrite = writeJourneys(batch.orders);
        journeyWrite.catch(() => {});
        const orders = await ingestOrders(tx, store.id, batch.orders);
        await journeyWrite;
        progress.orders += orders.inserted + orders.updated;
        if (batch.refunds.length > 0) {
          const refunds = await ingestRefunds(tx, store.id, batch.refunds);
          progress.refunds += refunds.inserted + refunds.updated;
        }
        report('orders');
      });
      await writeTwoAtATime(demoAdMetricBatches(plan), async (rows) => {
        const result = await ingestAdMetrics(tx, store.id, rows);
        progress.adMetricRows += result.inserted + result.updated;
        report('ad metrics');
      });
      const email = await ingestEmailMetrics(tx, store.id, demoEmailMetrics(plan));
      progress.emailMetricRows = email.inserted + email.updated;
      report('totals');
      return written;
    });
      while (writing.length > 0) await writing.shift();
    } catch (error) {
      await Promise.allSettled(writing);
      await writer.close();
      // Nothing of a failed load stays: its journeys neither (written only into a store without orders).
      if (journeysWritten) await deleteJourneys(em.fork(), store.id);
      throw error;
    }
    await writer.close();
    // Outside the bulk load: its transaction holds the store row, which these rows' key references.
    await replaceProductAdMetrics(em.fork(), store.id, demoProductAdSlices(plan));
    report('sessions');
    const sessions = await buildSessions(em.fork(), store.id, { settleMs: 0, chunk: SESSION_CHUNK });
    // Rows written in one transaction have no visibility map until they are vacuumed: until then,
    // index reads of the rollups visit the table (a 365-day dashboard read took 500 ms instead of 67
    // on 1M orders). Autovacuum would get there; the first dashboard view should not wait for it.
    // The raw tables (analyzed by the load) are left to autovacuum: they are most of what there is to
    // vacuum, and the screens that read them fetch their rows from the table anyway. The product
    // rollups, new to the planner, need their statistics too (a year's revenue by product: a sort
    // instead of a hash, 459 ms instead of 208 on 1M orders).
    await sqlRunner(em).run(`vacuum (analyze) daily_rollups, channel_daily_rollups, product_daily_rollups, customers`);
    // The demo's customers are scored now (a second or two; the job's own code, loyalty-job.ts), so
    // /customer-loyalty shows them with the rest of the demo. Should that fail, the store's loyalty
    // job is queued instead (the screen waits for its scores), and the nightly run is the last resort:
    // the demo itself is loaded either way.
    try {
      await recomputeLoyalty(em.fork(), store.id);
    } catch {
      await queueLoyaltyScores(store.id).catch(() => false);
    }
    report('done');
    return {
      orders: progress.orders,
      refunds: progress.refunds,
      products: products.inserted + products.updated,
      adMetricRows: progress.adMetricRows,
      emailMetricRows: progress.emailMetricRows,
      milliseconds: progress.milliseconds,
      journeys: { ...journeys.counts, eventsStored: progress.events, eventsDropped: dropped, sessions: sessions.sessionsCreated, touchpoints: sessions.touchpoints, ...(await journeyMatch(em.fork(), store.id)) },
    };
  } finally {
    loading.delete(store.id);
  }
}
