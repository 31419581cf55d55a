import type { EntityManager } from '@mikro-orm/postgresql';
import { DEMO_ALREADY_LOADING_MESSAGE, STORE_HAS_DATA_MESSAGE, type DemoLoadOutput } from '../../../shared/demo.ts';
import { AppError } from '../../errors.ts';
import { bulkLoad, ingestAdMetrics, ingestEmailMetrics, ingestOrders, ingestRefunds, upsertProducts } from '../commerce/ingest.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { demoAdMetricBatches, demoEmailMetrics, demoPlan, type DemoOptions } from './generator.ts';
import { demoOrderBatchesAhead } from './order-batches-ahead.ts';

export interface DemoProgress {
  phase: 'products' | 'orders' | 'ad metrics' | 'e-mail metrics' | 'totals' | 'done';
  orders: number;
  refunds: number;
  adMetricRows: number;
  emailMetricRows: number;
  milliseconds: number;
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
): Promise<DemoLoadOutput> {
  if (loading.has(store.id)) throw new AppError('CONFLICT', DEMO_ALREADY_LOADING_MESSAGE);
  loading.add(store.id);
  try {
    const started = performance.now();
    const plan = demoPlan(store, options);
    const progress: DemoProgress = { phase: 'products', orders: 0, refunds: 0, adMetricRows: 0, emailMetricRows: 0, milliseconds: 0 };
    const report = (phase: DemoProgress['phase']) => {
      progress.phase = phase;
      progress.milliseconds = Math.round(performance.now() - started);
      onProgress?.({ ...progress });
    };

    // One transaction (see bulkLoad): the store shows nothing of the demo until all of it is in and
    // its numbers are settled, and a failed load leaves it empty. Another process loading the same
    // store waits for the lock, then finds the orders.
    const products = await bulkLoad(em, store.id, async (tx) => {
      if (await storeHasOrders(tx, store.id)) throw new AppError('CONFLICT', STORE_HAS_DATA_MESSAGE);
      const written = await upsertProducts(tx, store.id, plan.products.map(({ weight, ...product }) => product));
      report('orders');
      await writeTwoAtATime(demoOrderBatchesAhead(plan), async (batch) => {
        const orders = await ingestOrders(tx, store.id, batch.orders);
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
    // Rows written in one transaction have no visibility map until they are vacuumed: until then,
    // index reads of the rollups visit the table (a 365-day dashboard read took 500 ms instead of 67
    // on 1M orders). Autovacuum would get there; the first dashboard view should not wait for it.
    // The raw tables (analyzed by the load) are left to autovacuum: they are most of what there is to
    // vacuum, and the screens that read them fetch their rows from the table anyway. The product
    // rollups, new to the planner, need their statistics too (a year's revenue by product: a sort
    // instead of a hash, 459 ms instead of 208 on 1M orders).
    await sqlRunner(em).run(`vacuum (analyze) daily_rollups, channel_daily_rollups, product_daily_rollups, customers`);
    report('done');
    return {
      orders: progress.orders,
      refunds: progress.refunds,
      products: products.inserted + products.updated,
      adMetricRows: progress.adMetricRows,
      emailMetricRows: progress.emailMetricRows,
      milliseconds: progress.milliseconds,
    };
  } finally {
    loading.delete(store.id);
  }
}
