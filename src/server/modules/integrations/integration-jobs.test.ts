import type { FastifyInstance } from 'fastify';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRollups } from '../../../../test/commerce-fixtures.ts';
import { startKlaviyoFake, type KlaviyoFake } from '../../../../test/fakes/klaviyo.ts';
import { startShopifyFake, type ShopifyFake } from '../../../../test/fakes/shopify.ts';
import { ownerWithStore } from '../../../../test/guests.ts';
import { createTestApp, createTestDatabase } from '../../../../test/harness.ts';
import { waitFor } from '../../../../test/two-instances.ts';
import { PLATFORM_KEYS, type PlatformKey } from '../../../shared/platforms.ts';
import type { PlatformSettings } from '../../config.ts';
import { createShopifyConnector } from '../../connectors/shopify/index.ts';
import { startJobs, type JobRunner } from '../../jobs/boss.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { PlatformConnection } from '../connections/platform-connection.entity.ts';
import { INTEGRATION_JOBS, recoverOrphanedRuns, requeueDeliveriesWithoutJob } from './integration-jobs.ts';
import { SyncRun, WebhookDelivery } from './integration.entities.ts';
import { configureIntegrations, integrationsSettingsFrom, setIntegrationJobSender, type IntegrationsSettings, type JobSender } from './integrations-runtime.ts';
import { RUN_KEEPS_STOPPING_MESSAGE, SYNC_QUEUE, queueSync, runSync, type RunSyncOptions } from './sync-runner.ts';
import { connectedStore } from './test-support.ts';
import { WEBHOOK_QUEUE } from './webhooks.ts';

// The sync engine's queues on a real pg-boss: connecting a platform sends the backfill job, which a
// worker of this process runs to its end; a burst of webhooks is applied in seconds; a run whose
// process died is taken over and continues from its cursor.

const DAY_MS = 86_400_000;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let app: FastifyInstance;
let jobs: JobRunner;
let klaviyo: KlaviyoFake;
let shopify: ShopifyFake;
let settings: IntegrationsSettings;
let realSender: JobSender;

beforeAll(async () => {
  database = await createTestDatabase();
  app = await createTestApp(database.orm);
  klaviyo = await startKlaviyoFake({ seed: 8, campaigns: 10, start: new Date(Date.now() - 30 * DAY_MS).toISOString().slice(0, 10), days: 30 });
  shopify = await startShopifyFake({ seed: 15, orders: 300, products: 8, from: new Date(Date.now() - 20 * DAY_MS), to: new Date(Date.now() - DAY_MS), rateLimit: false });
  const platforms = Object.fromEntries(PLATFORM_KEYS.map((key) => [key, {} as PlatformSettings])) as Record<PlatformKey, PlatformSettings>;
  platforms.klaviyo = { baseUrl: klaviyo.apiUrl };
  platforms.shopify = { baseUrl: shopify.url, clientId: shopify.clientId, clientSecret: shopify.clientSecret };
  settings = integrationsSettingsFrom({ encryptionKey: randomBytes(32).toString('hex'), dataDir: path.join(os.tmpdir(), 'storepulse-jobs-test'), platforms });
  configureIntegrations(settings);
  jobs = await startJobs({
    databaseUrl: database.url,
    orm: database.orm,
    baseUrl: 'http://localhost',
    logger: { info: () => {}, error: () => {} },
    jobs: INTEGRATION_JOBS,
    // The recurring checks are called by the tests themselves.
    checks: [],
    schedule: false,
  });
  realSender = (queue, data, options) => jobs.boss.send(queue, data, options);
  setIntegrationJobSender(realSender);
});
afterAll(async () => {
  setIntegrationJobSender(null);
  await jobs?.stop();
  await app?.close();
  await klaviyo?.close();
  await shopify?.close();
  await database?.close();
});

function shopifyStore(shop: string) {
  return connectedStore(database.orm, settings, 'shopify', { shop: shopify.shop, accessToken: shopify.initialToken! }, { accountId: shop });
}

describe('integrations.sync on pg-boss', () => {
  it('runs the backfill queued by connecting, in the background', async () => {
    const owner = await ownerWithStore(app, database.orm, 'Queued shop');
    const connected = await owner.client.post('/trpc/integrations.connect', { platform: 'klaviyo', credentials: { apiKey: klaviyo.options.apiKey } });
    expect(connected.status, JSON.stringify(connected.body)).toBe(200);
    const runId = connected.body.result.data.currentRun.id as number;
    const readRun = () => database.orm.em.fork().findOneOrFail(SyncRun, { id: runId });
    await expect.poll(async () => (await readRun()).status).toMatch(/^(succeeded|failed)$/);
    const run = await readRun();
    expect({ status: run.status, error: run.error }).toEqual({ status: 'succeeded', error: null });
    expect(run.rowsDone).toBeGreaterThan(0);
  });
});

describe('a run whose process died', () => {
  // Pages of 20 orders ingested 60 at a time: the fake's 300 orders are 5 batches.
  const connector = createShopifyConnector({ bulkThreshold: Number.POSITIVE_INFINITY, ordersPageSize: 20 });
  const options = (extra: Partial<RunSyncOptions>): RunSyncOptions => ({ settings, connector, ingestBatchRows: 60, ...extra });
  class ProcessKilled extends Error {}

  /** The run as process A left it: batch 2's rows committed, its cursor not stored, A gone. */
  async function crashedBackfill(shop: string) {
    const { storeId, connectionId } = await shopifyStore(shop);
    const em = database.orm.em.fork();
    const run = await queueSync(em, await em.findOneOrFail(PlatformConnection, { id: connectionId }));
    await expect(
      runSync(database.orm.em.fork(), run.id, options({ owner: 'process-A', afterIngest: (batch) => { if (batch === 2) throw new ProcessKilled('kill -9'); } })),
    ).rejects.toThrow(ProcessKilled);
    return { storeId, connectionId, runId: run.id };
  }

  async function runOf(runId: number) {
    return database.orm.em.fork().findOneOrFail(SyncRun, { id: runId });
  }

  /** Process A stopped saying it is alive `seconds` ago. */
  async function ownerLastSeen(runId: number, seconds: number) {
    await sqlRunner(database.orm.em.fork()).run(`update sync_runs set owner_seen_at = now() - make_interval(secs => $2) where id = $1`, [runId, seconds]);
  }

  it('"Sync now" takes it over once its owner is gone, and it ends with exact totals and no duplicates', async () => {
    const sent: { queue: string; data: { runId: number } }[] = [];
    setIntegrationJobSender(async (queue, data) => void sent.push({ queue, data: data as { runId: number } }));
    try {
      const { storeId, connectionId, runId } = await crashedBackfill('takeover.myshopify.com');
      sent.length = 0; // the backfill's own job
      const crashed = await runOf(runId);
      // 2 batches of 60 committed, the cursor after the first: 60 rows counted, the UI stuck at "syncing".
      expect({ status: crashed.status, owner: crashed.owner, rowsDone: crashed.rowsDone }).toEqual({ status: 'running', owner: 'process-A', rowsDone: 60 });
      const syncNow = async () => {
        const em = database.orm.em.fork();
        return queueSync(em, await em.findOneOrFail(PlatformConnection, { id: connectionId }));
      };
      // A said it was alive 5 s ago: "Sync now" shows its run and queues nothing (a live process may hold it).
      await ownerLastSeen(runId, 5);
      expect((await syncNow()).id).toBe(runId);
      expect(sent).toEqual([]);
      // Nor may another worker run it meanwhile.
      expect(await runSync(database.orm.em.fork(), runId, options({ owner: 'process-B' }))).toBe('running');
      expect((await runOf(runId)).rowsDone).toBe(60);

      // 31 s without a sign of life (OWNER_LOST_SECONDS = 30): A is gone; "Sync now" hands the run to a worker.
      await ownerLastSeen(runId, 31);
      expect((await syncNow()).id).toBe(runId);
      expect(sent).toEqual([{ queue: SYNC_QUEUE, data: { runId } }]);
      expect(await runSync(database.orm.em.fork(), runId, options({ owner: 'process-B' }))).toBe('succeeded');

      const run = await runOf(runId);
      const expected = shopify.ordersUpdatedBetween(run.windowSince, run.windowUntil);
      expect(expected).toBe(300);
      // Batch 2 read twice (once by A, once by B from A's last cursor), counted once: 60 + 240 = 300.
      expect({ status: run.status, owner: run.owner, takeovers: run.takeovers, rowsDone: run.rowsDone }).toEqual({ status: 'succeeded', owner: 'process-B', takeovers: 1, rowsDone: 300 });
      const [orders] = await sqlRunner(database.orm.em.fork()).rows<{ total: number; distinct: number }>(
        `select count(*)::int as total, count(distinct external_id)::int as distinct from orders where store_id = $1`,
        [storeId],
      );
      expect(orders).toEqual({ total: 300, distinct: 300 });
      // The same figures as a backfill nobody interrupted.
      const control = await shopifyStore('control.myshopify.com');
      const em = database.orm.em.fork();
      const controlRun = await queueSync(em, await em.findOneOrFail(PlatformConnection, { id: control.connectionId }));
      expect(await runSync(database.orm.em.fork(), controlRun.id, options({}))).toBe('succeeded');
      const [ours, theirs] = [await readRollups(database.orm.em.fork(), storeId), await readRollups(database.orm.em.fork(), control.storeId)];
      expect(ours).toEqual(theirs);
      let counting = 0;
      for (let index = 0; index < 300; index++) if (!shopify.order(index).cancelledMs && !shopify.order(index).test) counting++;
      expect(ours.daily.reduce((sum, row) => sum + Number(row.orders_count), 0)).toBe(counting);
    } finally {
      setIntegrationJobSender(realSender);
    }
  });

  it('the recurring check hands every lost run to a worker; a run that keeps losing its process is given up', async () => {
    const sent: { runId: number }[] = [];
    setIntegrationJobSender(async (_queue, data) => void sent.push(data as { runId: number }));
    try {
      const { runId } = await crashedBackfill('check.myshopify.com');
      sent.length = 0; // the backfill's own job
      await ownerLastSeen(runId, 5);
      expect(await recoverOrphanedRuns(database.orm.em.fork())).toBe(0);
      await ownerLastSeen(runId, 40);
      expect(await recoverOrphanedRuns(database.orm.em.fork())).toBe(1);
      expect(sent).toEqual([{ runId }]);
      // Taken over and lost again three times (each worker killed at its first batch), then given up.
      for (const owner of ['process-B', 'process-C', 'process-D']) {
        await expect(runSync(database.orm.em.fork(), runId, options({ owner, afterIngest: () => { throw new ProcessKilled('kill -9'); } }))).rejects.toThrow(ProcessKilled);
        await ownerLastSeen(runId, 40);
      }
      expect(await runSync(database.orm.em.fork(), runId, options({ owner: 'process-E' }))).toBe('failed');
      expect(await runOf(runId)).toMatchObject({ status: 'failed', takeovers: 4, error: RUN_KEEPS_STOPPING_MESSAGE });
    } finally {
      setIntegrationJobSender(realSender);
    }
  });
});

describe('integrations.webhook on pg-boss', () => {
  async function processed(storeId: number): Promise<number> {
    const [row] = await sqlRunner(database.orm.em.fork()).rows<{ count: number }>(`select count(*)::int as count from webhook_deliveries where store_id = $1 and processed_at is not null`, [storeId]);
    return row!.count;
  }

  // Speed is bench:webhooks' measure (BENCHMARKS.md); here, that a burst is applied whole and once.
  it('150 deliveries posted at once are all applied, each order once', async () => {
    const { storeId } = await shopifyStore('burst-jobs.myshopify.com');
    const answers = await Promise.all(
      Array.from({ length: 150 }, (_, index) => {
        const delivery = shopify.webhookDelivery('orders/create', shopify.orderId(index));
        delivery.headers['x-shopify-shop-domain'] = 'burst-jobs.myshopify.com';
        return app.inject({ method: 'POST', url: '/api/webhooks/shopify', headers: delivery.headers, payload: delivery.body });
      }),
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(150).fill(200));
    await waitFor('150 deliveries applied', async () => ((await processed(storeId)) === 150 ? true : undefined));
    const [orders] = await sqlRunner(database.orm.em.fork()).rows<{ count: number }>(`select count(*)::int as count from orders where store_id = $1`, [storeId]);
    expect(orders!.count).toBe(150);
  });

  it('a delivery stored without a job (by an older version that crashed) gets one at start, and is applied', async () => {
    const { storeId, connectionId } = await shopifyStore('no-job.myshopify.com');
    const delivery = shopify.webhookDelivery('orders/create', shopify.orderId(200));
    await sqlRunner(database.orm.em.fork()).run(
      `insert into webhook_deliveries (store_id, connection_id, platform, delivery_id, topic, payload, received_at) values ($1, $2, 'shopify', 'wh-no-job', 'orders/create', $3, now())`,
      [storeId, connectionId, delivery.body],
    );
    // Every other stored delivery has its job (or was applied): only this one is queued.
    expect(await requeueDeliveriesWithoutJob(database.orm.em.fork())).toBe(1);
    await waitFor('the delivery applied', async () => ((await processed(storeId)) === 1 ? true : undefined));
    expect(await requeueDeliveriesWithoutJob(database.orm.em.fork())).toBe(0);
    const stored = await database.orm.em.fork().findOneOrFail(WebhookDelivery, { store: storeId, deliveryId: 'wh-no-job' });
    expect(await jobs.boss.findJobs(WEBHOOK_QUEUE, { data: { deliveryId: stored.id } })).toHaveLength(1);
  });
});
