// Benchmark: the tracking collector (POST /p/e) under a load generator over loopback HTTP. The real
// server (src/server/main.ts in a process of its own, test/server-process.ts) on PORT (default
// BENCH_PORT, else 4471), its database embedded under DATA_DIR (default /tmp/i17-collector-bench/data,
// port EMBEDDED_POSTGRES_PORT, default PORT + 1000) or DATABASE_URL. For each batch size of BATCHES
// (default "10,1,50"), CONCURRENCY senders (default 64) post batches of that many page views for
// SECONDS (default 20): events stored a second, requests a second, acknowledgement latency
// (p50/p95/p99/max: every answer is a 204 sent after the group commit), the server's CPU time per
// 1,000 events, and a check that every acknowledged event is in the table. `npm run bench:collector`
// (BENCHMARKS.md, "i17-collector"); the goal is 10,000 events/s sustained with every acknowledged
// event on disk.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { loadConfig } from '../src/server/config.ts';
import { openDatabase } from '../src/server/database/database.ts';
import { sqlRunner } from '../src/server/modules/commerce/raw-sql.ts';
import { Store } from '../src/server/modules/stores/store.entity.ts';
import { trackingSettingsOf } from '../src/server/modules/tracking/tracking-settings.service.ts';
import { User } from '../src/server/modules/users/user.entity.ts';
import { startServerProcess } from '../test/server-process.ts';

const port = Number(process.env.PORT ?? process.env.BENCH_PORT ?? 4471);
if (!process.env.DATABASE_URL) {
  process.env.DATA_DIR ??= '/tmp/i17-collector-bench/data';
  process.env.EMBEDDED_POSTGRES_PORT ??= String(port + 1000);
}
const seconds = Number(process.env.SECONDS ?? 20);
const concurrency = Number(process.env.CONCURRENCY ?? 64);
const batchSizes = (process.env.BATCHES ?? '10,1,50').split(',').map(Number);

const config = loadConfig({ ...process.env, PORT: undefined });
const database = await openDatabase(config);
const em = database.orm.em.fork();
const suffix = randomBytes(4).toString('hex');
const owner = em.create(User, { username: `bench_collector_${suffix}`, email: `bench_collector_${suffix}@example.com`, passwordHash: 'not-a-real-hash' });
const store = em.create(Store, { owner, name: `Collector bench ${suffix}`, currency: 'USD', timezone: 'UTC' });
await em.flush();
const { storeKey } = await trackingSettingsOf(em, store.id);

const server = await startServerProcess(
  'bench',
  database.url,
  {
    TRACKING_REQUESTS_PER_IP_PER_SECOND: '100000000',
    TRACKING_EVENTS_PER_STORE_PER_SECOND: '100000000',
    SCHEDULED_SYNCS: 'false',
    LOG_LEVEL: 'warn',
    // BENCH_SERVER_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=/tmp/x": the server's CPU profile (written when it stops).
    ...(process.env.BENCH_SERVER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_SERVER_NODE_OPTIONS } : {}),
  },
  // BENCH_SERVER_ROOT: another checkout's server on the same database (a before figure in the same conditions).
  { port, root: process.env.BENCH_SERVER_ROOT },
);

/** CPU seconds a process used (user + system), from /proc (Linux; 100 ticks a second). */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const ms = (value: number) => `${value.toFixed(1)} ms`;
const USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

console.log(`Machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), load average ${os.loadavg().map((value) => value.toFixed(2)).join(' ')}, ${new Date().toISOString()}`);
console.log(`Server ${server.baseUrl} (pid ${server.pid}); ${concurrency} concurrent senders, ${seconds} s per batch size; batch sizes ${batchSizes.join(', ')}`);

const client = new Pool(server.baseUrl, { connections: concurrency, pipelining: 1 });
let failed = false;
try {
  for (const size of batchSizes) {
    const prefix = `b${size}_${suffix}`;
    const latencies: number[] = [];
    const statuses = new Map<number, number>();
    let acknowledged = 0;
    let counter = 0;
    const cpuBefore = cpuSeconds(server.pid);
    const started = performance.now();
    const end = started + seconds * 1000;
    const sender = async (number: number) => {
      const aid = `bench_${suffix}_${number}`;
      while (performance.now() < end) {
        const now = Date.now();
        let events = '';
        for (let index = 0; index < size; index++) {
          counter += 1;
          events += `${index ? ',' : ''}{"name":"page_view","id":"${prefix}_${counter}","ts":${now},"url":"https://shop.example/products/${counter % 500}?utm_source=google&utm_medium=cpc","ref":"https://www.google.com/","title":"Product","screen":"1920x1080","lang":"en-US"}`;
        }
        const body = `{"key":"${storeKey}","aid":"${aid}","consent":1,"now":${now},"events":[${events}]}`;
        const sent = performance.now();
        const answer = await client.request({ path: '/p/e', method: 'POST', headers: { 'content-type': 'text/plain;charset=UTF-8', origin: 'https://shop.example', 'user-agent': USER_AGENT }, body });
        await answer.body.dump();
        latencies.push(performance.now() - sent);
        statuses.set(answer.statusCode, (statuses.get(answer.statusCode) ?? 0) + 1);
        if (answer.statusCode === 204) acknowledged += size;
      }
    };
    await Promise.all(Array.from({ length: concurrency }, (_, number) => sender(number)));
    const elapsed = (performance.now() - started) / 1000;
    const cpu = cpuSeconds(server.pid) - cpuBefore;
    const [stored] = await sqlRunner(database.orm.em.fork()).rows<{ n: number }>(
      `select count(*)::int as n from tracking_events where store_id = $1 and event_id like $2`,
      [store.id, `${prefix}\\_%`],
    );
    latencies.sort((a, b) => a - b);
    const requests = latencies.length;
    console.log(
      `batch ${size}: ${(acknowledged / elapsed).toFixed(0)} events/s acknowledged (${(requests / elapsed).toFixed(0)} requests/s) over ${elapsed.toFixed(1)} s; ` +
        `ack latency p50 ${ms(percentile(latencies, 50))}, p95 ${ms(percentile(latencies, 95))}, p99 ${ms(percentile(latencies, 99))}, max ${ms(latencies[latencies.length - 1] ?? 0)}; ` +
        `server CPU ${((cpu / Math.max(1, acknowledged)) * 1000 * 1000).toFixed(1)} ms per 1,000 events; answers ${[...statuses].map(([status, count]) => `${count} × ${status}`).join(', ')}; ` +
        `stored ${stored!.n} of ${acknowledged} acknowledged`,
    );
    if (stored!.n !== acknowledged) failed = true;
  }
  console.log(`Load average after: ${os.loadavg().map((value) => value.toFixed(2)).join(' ')}`);
} finally {
  await client.close();
  await server.stop();
  await database.close();
}
if (failed) {
  console.error('FAILED: an acknowledged event is missing from the table');
  process.exit(1);
}
