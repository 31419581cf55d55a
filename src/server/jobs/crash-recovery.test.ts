import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PgBoss } from 'pg-boss';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCommerceStore, readRollups } from '../../../test/commerce-fixtures.ts';
import { startShopifyFake, type ShopifyFake } from '../../../test/fakes/shopify.ts';
import { useTestDatabase } from '../../../test/harness.ts';
import { HANG_GUARD_MS, startServerProcess, type ServerProcess } from '../../../test/server-process.ts';
import { waitFor } from '../../../test/two-instances.ts';
import { PLATFORM_KEYS, type PlatformKey } from '../../shared/platforms.ts';
import type { PlatformSettings } from '../config.ts';
import { loadDemoData } from '../modules/demo/demo.service.ts';
import { sqlRunner } from '../modules/commerce/raw-sql.ts';
import { PlatformConnection } from '../modules/connections/platform-connection.entity.ts';
import { SyncRun } from '../modules/integrations/integration.entities.ts';
import { integrationsSettingsFrom, setIntegrationJobSender, type IntegrationsSettings } from '../modules/integrations/integrations-runtime.ts';
import { SCHEDULE_QUEUE } from '../modules/integrations/integration-jobs.ts';
import { queueSync } from '../modules/integrations/sync-runner.ts';
import { connectedStore } from '../modules/integrations/test-support.ts';
import { JOBS_SCHEMA } from './job-database.ts';

// Crash safety, measured the way it was found: the real server (src/server/main.ts) in a child process
// killed with SIGKILL at the worst moment (crash-points.ts, or from outside), then started again on the
// same database, and the rows counted. PostgreSQL (the test run's) stays up, as it would on a server
// whose app process died.

const database = useTestDatabase();
const DAY_MS = 86_400_000;
const ENCRYPTION_KEY = randomBytes(32).toString('hex');
let shopify: ShopifyFake;
let settings: IntegrationsSettings;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  shopify = await startShopifyFake({ seed: 21, orders: 6000, products: 20, from: new Date(Date.now() - 40 * DAY_MS), to: new Date(Date.now() - DAY_MS), rateLimit: false, bulkPollsBeforeComplete: 0 });
  const platforms = Object.fromEntries(PLATFORM_KEYS.map((key) => [key, {} as PlatformSettings])) as Record<PlatformKey, PlatformSettings>;
  platforms.shopify = { baseUrl: shopify.url, clientId: shopify.clientId, clientSecret: shopify.clientSecret };
  settings = integrationsSettingsFrom({ encryptionKey: ENCRYPTION_KEY, dataDir: path.join(os.tmpdir(), 'storepulse-crash-test'), platforms });
});
// A server left running by a failed test would take the next test's jobs.
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.kill()));
});
afterAll(async () => {
  setIntegrationJobSender(null);
  await shopify?.close();
});

/** The server on the test database, configured for the fake shop; `crashAt` arms a crash point. */
async function server(name: string, crashAt?: string): Promise<ServerProcess> {
  const started = await startServerProcess(name, database.url, {
    ENCRYPTION_KEY,
    SHOPIFY_CLIENT_ID: shopify.clientId,
    SHOPIFY_CLIENT_SECRET: shopify.clientSecret,
    PLATFORM_BASE_URL_SHOPIFY: shopify.url,
    // The fake is on loopback, which the server's outbound requests refuse unless named (src/server/outbound/).
    OUTBOUND_ALLOW_HOSTS: new URL(shopify.url).hostname,
    // The tests count what their own deliveries and syncs wrote: a quarter-hour tick of the scheduled
    // syncs would otherwise backfill the fake shop into the webhook test's store.
    SCHEDULED_SYNCS: 'false',
    ...(crashAt ? { STOREPULSE_CRASH_AT: crashAt } : {}),
  });
  servers.push(started);
  return started;
}

function shopifyStore(shop: string) {
  return connectedStore(database.orm, settings, 'shopify', { shop: shopify.shop, accessToken: shopify.initialToken! }, { accountId: shop, timezone: 'America/New_York' });
}

/** How the server ended, waiting at most `ms` (its log in the failure otherwise). */
async function ending(server: ServerProcess, ms: number): Promise<NodeJS.Signals | number | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Server ${server.name} did not end within ${ms} ms:\n${server.output()}`)), ms);
  });
  try {
    return await Promise.race([server.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function count(sql: string, params: unknown[]): Promise<number> {
  const [row] = await sqlRunner(database.orm.em.fork()).rows<{ count: number }>(sql, params);
  return row!.count;
}

/** Indices of the fake shop's orders that count (not cancelled, not test). */
function countingOrders(howMany: number): number[] {
  const indices: number[] = [];
  for (let index = 0; indices.length < howMany; index++) {
    const order = shopify.order(index);
    if (!order.cancelledMs && !order.test) indices.push(index);
  }
  return indices;
}

describe('crash safety (the server killed with SIGKILL, then started again)', () => {
  it('a webhook burst with a kill between storing a delivery and queueing its job loses nothing', async () => {
    const shop = 'burst-kill.myshopify.com';
    const { storeId } = await shopifyStore(shop);
    const indices = countingOrders(100);
    const deliveries = indices.map((index) => {
      const delivery = shopify.webhookDelivery('orders/create', shopify.orderId(index), { webhookId: `burst-${index}` });
      delivery.headers['x-shopify-shop-domain'] = shop;
      return delivery;
    });
    const post = async (server: ServerProcess, delivery: (typeof deliveries)[number]): Promise<number | string> => {
      try {
        return (await fetch(`${server.baseUrl}/api/webhooks/shopify`, { method: 'POST', headers: delivery.headers, body: delivery.body })).status;
      } catch (error) {
        return (error as Error).message; // the process died under the request
      }
    };

    // The 40th delivery's row is written and the process is killed before its job is queued.
    const first = await server('A', 'webhook.stored:40');
    const answers: (number | string)[] = new Array(deliveries.length);
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < deliveries.length) {
          const index = next++;
          answers[index] = await post(first, deliveries[index]!);
        }
      }),
    );
    expect(await ending(first, HANG_GUARD_MS)).toBe('SIGKILL');
    const acknowledged = answers.filter((answer) => answer === 200).length;
    expect(acknowledged).toBeGreaterThanOrEqual(32);
    expect(acknowledged).toBeLessThan(100);

    // Started again; Shopify sends again every delivery it got no 2xx for (and a few it did: lost answers).
    const second = await server('B');
    // No quarter-hour sync can add the fake shop's orders to what the deliveries wrote.
    expect(await count(`select count(*)::int as count from ${JOBS_SCHEMA}.schedule where name = $1`, [SCHEDULE_QUEUE])).toBe(0);
    const retried = deliveries.filter((_, index) => answers[index] !== 200 || index % 20 === 0);
    for (const delivery of retried) expect(await post(second, delivery)).toBe(200);

    // All 100 deliveries applied (a delivery is marked once its rows are committed; those whose jobs
    // the killed process had taken are retried once their heartbeat lapses: 10 s, found within 15 s);
    // 100 different orders, each once; the rollups count 100 orders.
    const applied = () => count(`select count(*)::int as count from webhook_deliveries where store_id = $1 and processed_at is not null`, [storeId]);
    await waitFor('100 deliveries applied', async () => ((await applied()) === 100 ? true : undefined));
    expect(await count(`select count(*)::int as count from webhook_deliveries where store_id = $1`, [storeId])).toBe(100);
    expect(await count(`select count(*)::int as count from orders where store_id = $1`, [storeId])).toBe(100);
    expect(await count(`select count(distinct external_id)::int as count from orders where store_id = $1`, [storeId])).toBe(100);
    expect(await count(`select coalesce(sum(orders_count), 0)::int as count from daily_rollups where store_id = $1`, [storeId])).toBe(100);
    await second.stop();
  });

  it('a backfill killed after a batch is committed and before its cursor is stored is taken over once its owner is found gone, with exact totals', async () => {
    const { storeId, connectionId } = await shopifyStore('backfill-kill.myshopify.com');
    // 6,000 orders: a bulk operation whose file is read 1,000 orders at a time and ingested 2,000 at a
    // time. Killed after the second batch (4,000 orders) is committed, its cursor (2,000) not stored.
    const first = await server('A', 'sync.ingested:2');
    const boss = new PgBoss({ connectionString: database.url, schema: JOBS_SCHEMA, supervise: false, schedule: false, max: 2 });
    await boss.start();
    setIntegrationJobSender((queue, data, options) => boss.send(queue, data, options));
    let runId: number;
    try {
      const em = database.orm.em.fork();
      runId = (await queueSync(em, await em.findOneOrFail(PlatformConnection, { id: connectionId }))).id;
    } finally {
      setIntegrationJobSender(null);
      await boss.stop({ graceful: false });
    }
    // Killed at the crash point; a run that fails before it (the fake refused, say) has nothing to
    // kill, so the test says why at once instead of waiting for the hang guard.
    let killed = false;
    const outcome = await Promise.race([
      ending(first, HANG_GUARD_MS).then((signal) => ((killed = true), { signal })),
      waitFor('the run to fail', async () => {
        if (killed) return { signal: 'seen' };
        const current = await database.orm.em.fork().findOneOrFail(SyncRun, { id: runId });
        return current.status === 'failed' ? { error: current.error } : undefined;
      }),
    ]);
    expect(outcome).toEqual({ signal: 'SIGKILL' });
    const crashed = await database.orm.em.fork().findOneOrFail(SyncRun, { id: runId });
    expect({ status: crashed.status, rowsDone: crashed.rowsDone }).toEqual({ status: 'running', rowsDone: 2000 });
    expect(await count(`select count(*)::int as count from orders where store_id = $1`, [storeId])).toBe(4000);

    // Started again: it finds the run's owner gone (not seen for 30 s) and takes the run over. How soon
    // depends on the machine's load, so it is not timed here; before run owners, the run waited for
    // pg-boss's 15-minute expiry, beyond the tests' 5-minute hang guard.
    const second = await server('B');
    const run = await waitFor('the run to end', async () => {
      const current = await database.orm.em.fork().findOneOrFail(SyncRun, { id: runId });
      return current.status !== 'running' ? current : undefined;
    });
    const expected = shopify.ordersUpdatedBetween(run.windowSince, run.windowUntil);
    expect(expected).toBe(6000);
    // 2,000 counted by the first process and 4,000 by the second (batch 2 read again, counted once).
    expect({ status: run.status, error: run.error, rowsDone: run.rowsDone, takeovers: run.takeovers }).toEqual({ status: 'succeeded', error: null, rowsDone: 6000, takeovers: 1 });
    expect(await count(`select count(*)::int as count from orders where store_id = $1`, [storeId])).toBe(6000);
    expect(await count(`select count(distinct external_id)::int as count from orders where store_id = $1`, [storeId])).toBe(6000);
    let counting = 0;
    for (let index = 0; index < 6000; index++) if (!shopify.order(index).cancelledMs && !shopify.order(index).test) counting++;
    const rollups = await readRollups(database.orm.em.fork(), storeId);
    expect(rollups.daily.reduce((sum, row) => sum + Number(row.orders_count), 0)).toBe(counting);
    await second.stop();
  });

  it('a demo load killed half-way leaves the store empty, and loadable', async () => {
    const store = await createCommerceStore(database.orm, { timezone: 'Europe/London', currency: 'GBP' });
    const root = fileURLToPath(new URL('../../..', import.meta.url));
    const child = spawn(process.execPath, [path.join(root, 'src/scripts/demo.ts'), '--store', String(store.id), '--orders', '300000', '--seed', '3'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(), DATABASE_URL: database.url, NODE_ENV: 'test' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
    // Killed once it reports orders written (inside the load's one transaction).
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (/orders [1-9][\d,]* /.test(output)) {
          child.kill('SIGKILL');
          resolve();
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      void exited.then(() => reject(new Error(`The demo ended before it was killed:\n${output}`)));
    });
    expect(await exited).toBe('SIGKILL');
    expect(output).not.toMatch(/Loaded /);
    for (const table of ['orders', 'order_lines', 'refunds', 'customers', 'products', 'ad_metrics_daily', 'email_metrics_daily', 'daily_rollups', 'channel_daily_rollups', 'product_daily_rollups']) {
      expect(await count(`select count(*)::int as count from ${table} where store_id = $1`, [store.id]), table).toBe(0);
    }
    // Nothing of the killed load holds the store: a new load (once PostgreSQL has ended the dead one's transaction) fills it.
    const loaded = await loadDemoData(database.orm.em.fork(), store, { orders: 500, seed: 3, months: 2 });
    // About 500 (the generator spreads the orders over the days by their weight, rounding per day).
    expect(Math.abs(loaded.orders - 500)).toBeLessThanOrEqual(10);
    expect(await count(`select count(*)::int as count from orders where store_id = $1`, [store.id])).toBe(loaded.orders);
  });
});
