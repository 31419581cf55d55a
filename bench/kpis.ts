// Benchmark: dashboard KPIs (commerce.kpis, compare previous_period) for 30/90/365-day ranges and the
// first page of orders (orders.list), over real HTTP against the store `npm run bench:demo` filled;
// then, with 10 requests each, the revenue and performance-distribution screens for 30 and 365 days.
// Starts the real server (buildApp) on BENCH_PORT (default 4401), signs in as the bench user, makes
// 5 warm-up requests and then REQUESTS (default 50) timed requests per case; prints median and p95.
// `npm run bench:kpis` (see BENCHMARKS.md). DATABASE_URL or DATA_DIR as for bench/demo.ts.
import os from 'node:os';
import { addDays, dayInZone } from '../src/shared/date-ranges.ts';
import { percentile, startBenchServer } from './http-bench.ts';
import { databaseCpuMs } from './proc-cpu.ts';

const requests = Number(process.env.REQUESTS ?? 50);
const server = await startBenchServer(4401);
const { base } = server;


try {
  const cookie = await server.signIn();
  const get = async (path: string, input: unknown) => {
    const response = await fetch(`${base}/trpc/${path}?input=${encodeURIComponent(JSON.stringify(input))}`, { headers: { cookie } });
    const body = await response.text();
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${body.slice(0, 300)}`);
    return JSON.parse(body).result.data;
  };

  const status = await get('commerce.dataStatus', {});
  const active = await (await fetch(`${base}/api/stores/active`, { headers: { cookie } })).json();
  const timezone = active.store?.timezone ?? 'Europe/London';
  const today = dayInZone(new Date(), timezone);
  console.log(`Machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, load average ${os.loadavg().map((value) => value.toFixed(2)).join(' ')}, ${new Date().toISOString()}`);
  console.log(`Store ${status.storeId}: ${status.orders.toLocaleString('en')} orders, ${status.firstDay} to ${status.lastDay}, ad platforms ${status.adPlatforms.join(', ')}`);

  const cases: { name: string; path: string; input: unknown; requests?: number }[] = [30, 90, 365].map((days) => ({
    name: `commerce.kpis ${days} days, compare previous_period`,
    path: 'commerce.kpis',
    input: { from: addDays(today, -(days - 1)), to: today, compare: 'previous_period' },
  }));
  cases.push(
    { name: 'orders.list first page (25, newest first)', path: 'orders.list', input: {} },
    { name: 'orders.list first page, last 30 days, new customers, Google Ads', path: 'orders.list', input: { from: addDays(today, -29), to: today, customerType: 'new', channels: ['googleads'] } },
    // Screens without a speed target, for the record (fewer requests: they take longer).
    ...[30, 365].flatMap((days) => {
      const range = { from: addDays(today, -(days - 1)), to: today };
      return [
        { name: `revenue.breakdown ${days} days, compare previous_period`, path: 'revenue.breakdown', input: { ...range, compare: 'previous_period' }, requests: 10 },
        { name: `analytics.distribution ${days} days`, path: 'analytics.distribution', input: range, requests: 10 },
      ];
    }),
  );

  for (const { name, path, input, requests: caseRequests = requests } of cases) {
    for (let warm = 0; warm < Math.min(5, caseRequests); warm += 1) await get(path, input);
    const timings: number[] = [];
    const cpuBefore = process.cpuUsage();
    const databaseBefore = databaseCpuMs();
    for (let index = 0; index < caseRequests; index += 1) {
      const started = performance.now();
      await get(path, input);
      timings.push(performance.now() - started);
    }
    const cpu = process.cpuUsage(cpuBefore);
    const databaseAfter = databaseCpuMs();
    timings.sort((a, b) => a - b);
    // CPU time per request of this process (server and client) and of the database: unlike the
    // round trip, they hardly depend on what else the machine runs.
    const nodeCpu = (cpu.user + cpu.system) / 1000 / caseRequests;
    const databaseCpu = databaseBefore === null || databaseAfter === null ? 'n/a' : `${((databaseAfter - databaseBefore) / caseRequests).toFixed(1)} ms`;
    console.log(
      `${name.padEnd(64)} median ${percentile(timings, 0.5).toFixed(1).padStart(7)} ms   p95 ${percentile(timings, 0.95).toFixed(1).padStart(7)} ms   CPU per request: node ${nodeCpu.toFixed(1)} ms, database ${databaseCpu}   (${caseRequests} requests)`,
    );
  }
} finally {
  await server.close();
}
