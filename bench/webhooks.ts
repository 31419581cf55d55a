// Benchmark: Shopify webhook deliveries (orders/create, signed with the app's secret as Shopify signs
// them) posted at RATE a second (default 100) for SECONDS (default 60) to the real server
// (src/server/main.ts in a process of its own: bench/server-process.ts), spread over STORES stores
// (default 1), each delivery a new paid order. Prints the time to acknowledge (what Shopify waits for:
// 5 s at most) and the time until the order is in the store's daily rollups (what the dashboard
// reads), per delivery, and checks that every order counted once. `npm run bench:webhooks` (see
// BENCHMARKS.md). DATA_DIR (default /tmp/webhook-bench/data) or DATABASE_URL as for bench/demo.ts;
// SERVER_ROOT runs another checkout's server (e.g. an export of the previous commit, for "before").
// INGEST_PROFILE=1 prints the server's ingest timings.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startShopifyFake } from '../test/fakes/shopify.ts';
import { loadConfig } from '../src/server/config.ts';
import { openDatabase } from '../src/server/database/database.ts';
import { PlatformConnection } from '../src/server/modules/connections/platform-connection.entity.ts';
import { integrationsSettingsFrom } from '../src/server/modules/integrations/integrations-runtime.ts';
import { sealCredentials } from '../src/server/modules/integrations/sync-runner.ts';
import { Store } from '../src/server/modules/stores/store.entity.ts';
import { User } from '../src/server/modules/users/user.entity.ts';
import { startServerProcess } from '../test/server-process.ts';

if (!process.env.DATABASE_URL) process.env.DATA_DIR ??= '/tmp/webhook-bench/data';
const rate = Number(process.env.RATE ?? 100);
const seconds = Number(process.env.SECONDS ?? 60);
const storeCount = Number(process.env.STORES ?? 1);
const total = Math.round(rate * seconds);
const DAY_MS = 86_400_000;

const config = loadConfig();
const database = await openDatabase(config);
const encryptionKey = randomBytes(32).toString('hex');
// Enough generated orders that `total` of them count (a few are cancelled or test orders).
const fake = await startShopifyFake({ seed: 2027, orders: Math.ceil(total * 1.1) + 50, products: 200, from: new Date(Date.now() - 30 * DAY_MS), to: new Date(Date.now() - 60_000), rateLimit: false });
const indices: number[] = [];
for (let index = 0; indices.length < total; index++) if (!fake.order(index).cancelledMs && !fake.order(index).test) indices.push(index);

const em = database.orm.em.fork();
const suffix = randomBytes(4).toString('hex');
const owner = em.create(User, { username: `bench_webhooks_${suffix}`, email: `bench_webhooks_${suffix}@example.com`, passwordHash: 'not-a-real-hash' });
const settings = integrationsSettingsFrom({ encryptionKey, dataDir: path.join(os.tmpdir(), 'webhook-bench'), platforms: config.platforms });
const stores: { id: number; shop: string }[] = [];
for (let number = 0; number < storeCount; number++) {
  const shop = `bench-${suffix}-${number}.myshopify.com`;
  const store = em.create(Store, { owner, name: `Webhook bench ${suffix} ${number}`, currency: 'USD', timezone: 'America/New_York' });
  const connection = em.create(PlatformConnection, { store, platform: 'shopify', status: 'connected', connected: true, accountId: shop, accountCurrency: 'USD' });
  await em.flush();
  sealCredentials(settings, connection, { shop: fake.shop, accessToken: fake.initialToken! });
  await em.flush();
  stores.push({ id: store.id, shop });
}

// Every delivery signed up front: the sender only sends.
const deliveries = indices.map((index, position) => {
  const store = stores[position % stores.length]!;
  const delivery = fake.webhookDelivery('orders/create', fake.orderId(index), { webhookId: `bench-${suffix}-${position}` });
  delivery.headers['x-shopify-shop-domain'] = store.shop;
  return { ...delivery, store: store.id, sequence: Math.floor(position / stores.length) + 1 };
});

const server = await startServerProcess('bench', database.url, {
  ENCRYPTION_KEY: encryptionKey,
  SHOPIFY_CLIENT_ID: fake.clientId,
  SHOPIFY_CLIENT_SECRET: fake.clientSecret,
  PLATFORM_BASE_URL_SHOPIFY: fake.url,
  // INGEST_PROFILE=1: the server logs each ingest batch's phases (printed at the end).
  ...(process.env.INGEST_PROFILE ? { INGEST_PROFILE: process.env.INGEST_PROFILE } : {}),
}, { root: process.env.SERVER_ROOT });

/** CPU seconds a process used (user + system; with `children`, also its ended children's), from /proc (Linux; 100 ticks a second). */
function cpuSeconds(pid: number, children = false): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]) + (children ? Number(fields[13]) + Number(fields[14]) : 0);
    return ticks / 100;
  } catch {
    return 0;
  }
}

/** CPU seconds of the embedded PostgreSQL (the postmaster, its live backends and the ones that ended); null with DATABASE_URL. */
function postgresCpuSeconds(): number | null {
  if (process.env.DATABASE_URL) return null;
  const postmaster = Number(readFileSync(path.join(config.dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
  let total = cpuSeconds(postmaster, true);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
      if (Number(fields[1]) === postmaster) total += cpuSeconds(Number(entry));
    } catch {
      // ended meanwhile
    }
  }
  return total;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};
const ms = (value: number) => `${Math.round(value).toLocaleString('en')} ms`;
const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

try {
  console.log(`Machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), load average ${os.loadavg().map((value) => value.toFixed(2)).join(' ')}, ${new Date().toISOString()}`);
  console.log(`Posting ${total.toLocaleString('en')} signed orders/create deliveries at ${rate}/s for ${seconds} s to ${server.baseUrl} (${storeCount} store${storeCount === 1 ? '' : 's'})...`);

  // Each store's counted orders, polled every 100 ms: the k-th delivery of a store is taken as visible
  // when the store's rollups count k orders (deliveries are applied in the order they arrive).
  const storeIds = stores.map((store) => store.id);
  const visibleAt = new Map<number, number[]>(storeIds.map((id) => [id, []]));
  let polling = true;
  const poller = (async () => {
    const q = database.orm.em.getConnection();
    while (polling) {
      const rows = await q.execute<{ store_id: number; orders: number }[]>(
        `select store_id, coalesce(sum(orders_count), 0)::int as orders from daily_rollups where store_id in (${storeIds.join(',')}) group by store_id`,
      );
      const now = performance.now();
      for (const row of rows) {
        const seen = visibleAt.get(row.store_id)!;
        while (seen.length < row.orders) seen.push(now);
      }
      await sleep(100);
    }
  })();

  const serverCpuBefore = cpuSeconds(server.pid);
  const postgresCpuBefore = postgresCpuSeconds();
  const sentAt: number[] = new Array(total);
  const ackMs: number[] = new Array(total);
  const statuses = new Map<string, number>();
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  for (let position = 0; position < total; position++) {
    const due = started + (position * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    const delivery = deliveries[position]!;
    sentAt[position] = performance.now();
    inFlight.push(
      fetch(`${server.baseUrl}/api/webhooks/shopify`, { method: 'POST', headers: delivery.headers, body: delivery.body })
        .then(async (response) => {
          await response.arrayBuffer();
          return String(response.status);
        })
        .catch((error: Error) => error.message)
        .then((status) => {
          ackMs[position] = performance.now() - sentAt[position]!;
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }),
    );
  }
  await Promise.all(inFlight);
  const sendSeconds = (performance.now() - started) / 1000;
  // Every order counted, or two minutes without it.
  const deadline = performance.now() + 120_000;
  while (deliveries.some((delivery) => visibleAt.get(delivery.store)!.length < delivery.sequence) && performance.now() < deadline) await sleep(100);
  polling = false;
  await poller;
  const serverCpu = cpuSeconds(server.pid) - serverCpuBefore;
  const postgresCpu = postgresCpuBefore === null ? null : postgresCpuSeconds()! - postgresCpuBefore;

  const lags = deliveries.map((delivery, position) => (visibleAt.get(delivery.store)![delivery.sequence - 1] ?? Number.NaN) - sentAt[position]!);
  const applied = lags.filter((lag) => Number.isFinite(lag));
  const lastVisible = Math.max(...[...visibleAt.values()].flat());
  const [counted] = await database.orm.em.getConnection().execute<{ orders: number; distinct: number }[]>(
    `select count(*)::int as orders, count(distinct external_id)::int as distinct from orders where store_id in (${storeIds.join(',')})`,
  );
  const [processed] = await database.orm.em.getConnection().execute<{ p50: number; p95: number; max: number }[]>(
    `select percentile_cont(0.5) within group (order by ms) as p50, percentile_cont(0.95) within group (order by ms) as p95, max(ms) as max
       from (select extract(epoch from processed_at - received_at) * 1000 as ms from webhook_deliveries where store_id in (${storeIds.join(',')})) as d`,
  );
  console.log(`Answers: ${[...statuses].map(([status, count]) => `${count.toLocaleString('en')} × ${status}`).join(', ')}; sent in ${sendSeconds.toFixed(1)} s (${(total / sendSeconds).toFixed(1)}/s)`);
  console.log(`Time to acknowledge: p50 ${ms(percentile(ackMs, 50))}, p95 ${ms(percentile(ackMs, 95))}, p99 ${ms(percentile(ackMs, 99))}, max ${ms(Math.max(...ackMs))}`);
  console.log(
    `Time until the order is in the daily rollups (polled every 100 ms): p50 ${ms(percentile(applied, 50))}, p95 ${ms(percentile(applied, 95))}, p99 ${ms(percentile(applied, 99))}, max ${ms(Math.max(...applied))}; ` +
      `${applied.length.toLocaleString('en')} of ${total.toLocaleString('en')} visible, over 5 s: ${applied.filter((lag) => lag > 5000).length}`,
  );
  console.log(`Server side, received -> processed: p50 ${ms(processed!.p50)}, p95 ${ms(processed!.p95)}, max ${ms(processed!.max)}`);
  console.log(
    `CPU: the server process ${serverCpu.toFixed(1)} s (${((serverCpu * 1000) / total).toFixed(2)} ms a delivery)` +
      (postgresCpu === null ? '' : `, PostgreSQL ${postgresCpu.toFixed(1)} s (${((postgresCpu * 1000) / total).toFixed(2)} ms a delivery, the poller's reads included)`),
  );
  console.log(`Applied ${(applied.length / ((lastVisible - started) / 1000)).toFixed(1)}/s from the first post to the last order counted; stored ${counted!.orders.toLocaleString('en')} orders (${counted!.distinct.toLocaleString('en')} distinct) (targets: 100/s sustained, each within 5 s)`);
} finally {
  await server.stop();
  if (process.env.INGEST_PROFILE) console.log(server.output());
  await fake.close();
  await database.close();
}
