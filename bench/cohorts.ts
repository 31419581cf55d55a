// Benchmark: acquisition cohorts (attribution.acquisitionCohorts) over real HTTP against the store
// `npm run bench:demo` filled: the last 12 first-order months by channel and by campaign, and the
// last 3 months by channel. Starts the real server (buildApp) on BENCH_PORT (default 4402), signs in
// as the bench user, makes 2 warm-up requests and then REQUESTS (default 10) timed requests per case;
// prints median, p95 and CPU per request. `npm run bench:cohorts` (see BENCHMARKS.md, "i17-cohorts").
import os from 'node:os';
import { monthsBefore } from '../src/shared/cohorts.ts';
import { dayInZone } from '../src/shared/date-ranges.ts';
import { percentile, startBenchServer } from './http-bench.ts';
import { databaseCpuMs } from './proc-cpu.ts';

const requests = Number(process.env.REQUESTS ?? 10);
const server = await startBenchServer(4402);
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
  const thisMonth = dayInZone(new Date(), active.store?.timezone ?? 'Europe/London').slice(0, 7);
  console.log(`Machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, load average ${os.loadavg().map((value) => value.toFixed(2)).join(' ')}, ${new Date().toISOString()}`);
  console.log(`Store ${status.storeId}: ${status.orders.toLocaleString('en')} orders, ${status.firstDay} to ${status.lastDay}`);
  const cases = [
    { name: 'acquisitionCohorts 12 months by channel', input: { from: monthsBefore(thisMonth, 11), to: thisMonth, group: 'channel' } },
    { name: 'acquisitionCohorts 12 months by campaign', input: { from: monthsBefore(thisMonth, 11), to: thisMonth, group: 'campaign' } },
    { name: 'acquisitionCohorts 3 months by channel', input: { from: monthsBefore(thisMonth, 2), to: thisMonth, group: 'channel' } },
  ];
  for (const { name, input } of cases) {
    const first = await get('attribution.acquisitionCohorts', input);
    await get('attribution.acquisitionCohorts', input);
    const timings: number[] = [];
    const cpuBefore = process.cpuUsage();
    const databaseBefore = databaseCpuMs();
    for (let index = 0; index < requests; index += 1) {
      const started = performance.now();
      await get('attribution.acquisitionCohorts', input);
      timings.push(performance.now() - started);
    }
    const cpu = process.cpuUsage(cpuBefore);
    const databaseAfter = databaseCpuMs();
    timings.sort((a, b) => a - b);
    const nodeCpu = (cpu.user + cpu.system) / 1000 / requests;
    const databaseCpu = databaseBefore === null || databaseAfter === null ? 'n/a' : `${((databaseAfter - databaseBefore) / requests).toFixed(1)} ms`;
    console.log(`${name.padEnd(44)} ${first.total.customers} customers, ${first.sources.length} sources   median ${percentile(timings, 0.5).toFixed(1)} ms   p95 ${percentile(timings, 0.95).toFixed(1)} ms   CPU per request: node ${nodeCpu.toFixed(1)} ms, database ${databaseCpu}   (${requests} requests)`);
  }
} finally {
  await server.close();
}
