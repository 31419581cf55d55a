// Benchmark: a backfill of ORDERS (default 100,000) Shopify orders from the fake (its rate limit
// switched off) through the real sync runner into a fresh store; prints the seconds taken, the time
// spent in the platform's pages vs our ingest, and the peak RSS of this process: the runner's, as the
// fake runs in a process of its own (bench/shopify-fake-process.ts). `npm run bench:shopify-backfill` (see BENCHMARKS.md). DATA_DIR (default /tmp/sync-bench/data)
// or DATABASE_URL as for bench/demo.ts; INGEST_ROWS overrides the runner's rows per ingest call.
// The backfill goes through a bulk operation (the connector's default for more than 2,500 orders);
// SHOPIFY_PATH=pages reads it page by page instead (each page sized under Shopify's cost ceiling).
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import os from 'node:os';
import { loadConfig } from '../src/server/config.ts';
import type { Connector } from '../src/server/connectors/connector.ts';
import { createShopifyConnector } from '../src/server/connectors/shopify/index.ts';
import { openDatabase } from '../src/server/database/database.ts';
import { allowOutboundHosts } from '../src/server/outbound/outbound-http.ts';
import { PlatformConnection } from '../src/server/modules/connections/platform-connection.entity.ts';
import { SyncRun } from '../src/server/modules/integrations/integration.entities.ts';
import { integrationsSettingsFrom } from '../src/server/modules/integrations/integrations-runtime.ts';
import { queueSync, runSync, sealCredentials } from '../src/server/modules/integrations/sync-runner.ts';
import { Store } from '../src/server/modules/stores/store.entity.ts';
import { User } from '../src/server/modules/users/user.entity.ts';

if (!process.env.DATABASE_URL) process.env.DATA_DIR ??= '/tmp/sync-bench/data';
const orders = Number(process.env.ORDERS ?? 100_000);
/** Rows per ingest call (the runner's default when unset). */
const ingestBatchRows = process.env.INGEST_ROWS ? Number(process.env.INGEST_ROWS) : undefined;
const path = process.env.SHOPIFY_PATH === 'pages' ? 'pages' : 'bulk';
const shopifyConnector = createShopifyConnector(path === 'pages' ? { bulkThreshold: Number.POSITIVE_INFINITY } : {});
const DAY_MS = 86_400_000;

const config = loadConfig();
const database = await openDatabase(config);
const now = Date.now();
const fakeProcess = fork(new URL('./shopify-fake-process.ts', import.meta.url), [
  JSON.stringify({ seed: 2026, orders, products: 200, from: new Date(now - 360 * DAY_MS), to: new Date(now - 60_000), rateLimit: false, bulkPollsBeforeComplete: 0 }),
]);
const [fake] = (await once(fakeProcess, 'message')) as [{ url: string; shop: string; initialToken: string }];
let peak = process.memoryUsage();
const sampler = setInterval(() => {
  const usage = process.memoryUsage();
  if (usage.rss > peak.rss) peak = usage;
}, 100);

try {
  const em = database.orm.em.fork();
  const suffix = randomBytes(4).toString('hex');
  const owner = em.create(User, { username: `bench_sync_${suffix}`, email: `bench_sync_${suffix}@example.com`, passwordHash: 'not-a-real-hash' });
  const store = em.create(Store, { owner, name: `Shopify backfill bench ${suffix}`, currency: 'USD', timezone: 'America/New_York' });
  await em.flush();
  const settings = integrationsSettingsFrom({ ...config, platforms: { ...config.platforms, shopify: { baseUrl: fake.url } } });
  // The fake (API and bulk files) listens on loopback ports, which outbound requests may reach only when allowed.
  allowOutboundHosts('127.0.0.1');
  const connection = em.create(PlatformConnection, { store, platform: 'shopify', status: 'connected', connected: true, accountId: fake.shop });
  await em.flush();
  sealCredentials(settings, connection, { shop: fake.shop, accessToken: fake.initialToken! });
  await em.flush();
  const run = await queueSync(em, connection);

  // The real connector, timed: the platform's pages vs the rest (ingest, cursor, reconciliation).
  let fetchMs = 0;
  let sourceTotalsMs = 0;
  const timed: Connector = {
    ...shopifyConnector,
    async fetchBatch(ctx, window, cursor) {
      const started = performance.now();
      try {
        return await shopifyConnector.fetchBatch(ctx, window, cursor);
      } finally {
        fetchMs += performance.now() - started;
      }
    },
    async sourceTotals(ctx, window) {
      const started = performance.now();
      try {
        return await shopifyConnector.sourceTotals!(ctx, window);
      } finally {
        sourceTotalsMs += performance.now() - started;
      }
    },
  };
  console.log(`Machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), load average ${os.loadavg().map((value) => value.toFixed(2)).join(' ')}, ${new Date().toISOString()}`);
  const baseline = process.memoryUsage();
  console.log(`RSS of the runner's process before the sync: ${(baseline.rss / 2 ** 20).toFixed(0)} MB (JS heap ${(baseline.heapUsed / 2 ** 20).toFixed(0)} MB used)`);
  console.log(`Backfilling ${orders.toLocaleString('en')} Shopify orders (fake, rate limit off) into store ${store.id} through ${path === 'bulk' ? 'a bulk operation (JSONL streamed)' : 'paginated queries'}...`);
  const started = performance.now();
  const status = await runSync(database.orm.em.fork(), run.id, { settings, connector: timed, ingestBatchRows });
  const seconds = (performance.now() - started) / 1000;
  const finished = await database.orm.em.fork().findOneOrFail(SyncRun, { id: run.id });
  if (status !== 'succeeded') throw new Error(`The backfill ${status}: ${finished.error}`);
  const [stored] = await database.orm.em.getConnection().execute<{ count: string }[]>('select count(*)::text as count from orders where store_id = ?', [store.id]);
  console.log(`Stored ${Number(stored!.count).toLocaleString('en')} orders (run counted ${finished.rowsDone.toLocaleString('en')}) in ${seconds.toFixed(1)} s: ` +
    `${(fetchMs / 1000).toFixed(1)} s of it reading pages (read ahead while the previous batch is written), ${(sourceTotalsMs / 1000).toFixed(1)} s reconciliation counts`);
  const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
  console.log(`${Math.round(orders / seconds).toLocaleString('en')} orders/s; peak RSS of the runner's process ${mb(peak.rss)} (JS heap ${mb(peak.heapUsed)} used of ${mb(peak.heapTotal)}, buffers ${mb(peak.arrayBuffers)}) (targets: < 60 s, < 300 MB)`);
} finally {
  clearInterval(sampler);
  fakeProcess.disconnect();
  await database.close();
}
