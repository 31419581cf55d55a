// Benchmark: the dashboard under concurrent users. The real server (buildApp) runs in a child process
// of its own on BENCH_PORT (default 4451) over the store `npm run bench:demo` filled, with
// SCHEDULED_SYNCS=false; this process signs in as the bench user and drives it with autocannon
// (closed loop: each connection sends its next request when the previous answer arrived):
//   - commerce.kpis (compare previous_period) for 30/90/365 days and the first page of orders.list,
//     at CONNECTIONS (default 50) connections for SECONDS_PER_CASE (default 8) s each;
//   - the 365-day KPIs one at a time (1 connection), for the median of a single user;
//   - GET /api/user (the authenticated floor: session, user, subscription) at 10 and CONNECTIONS.
// Prints p50/p99 latency and requests/s per case, and the CPU time per request of the server's Node
// process and of the embedded PostgreSQL's processes (Linux /proc), which depend far less on what
// else the machine runs than the latencies do. Every request sends the same cookie, so cached
// answers (and the per-session cache) are what a user who reloads the dashboard gets; no
// If-None-Match is sent, so every answer is a full 200 with its body.
// `npm run bench:load` (see BENCHMARKS.md). DATABASE_URL or DATA_DIR as for bench/demo.ts.
import autocannon from 'autocannon';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { addDays, dayInZone } from '../src/shared/date-ranges.ts';
import { serveUntilStdinEnds, signInCookie, spawnBenchServer } from './http-bench.ts';
import { cpuMsOf, postmasterPid } from './proc-cpu.ts';


if (process.argv[2] === '--server') await serveUntilStdinEnds(4451);
else await main();

async function main() {
  if (!process.env.DATABASE_URL) process.env.DATA_DIR ??= '/tmp/engine-bench/data';
  const seconds = Number(process.env.SECONDS_PER_CASE ?? 8);
  const connections = Number(process.env.CONNECTIONS ?? 50);
  const { child, base, stop } = await spawnBenchServer(fileURLToPath(import.meta.url));
  try {
    const cookie = await signInCookie(base);
    const active = await (await fetch(`${base}/api/stores/active`, { headers: { cookie } })).json();
    const today = dayInZone(new Date(), active.store?.timezone ?? 'Europe/London');
    const trpc = (procedure: string, input: unknown) => `/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`;
    const kpis = (days: number) => trpc('commerce.kpis', { from: addDays(today, -(days - 1)), to: today, compare: 'previous_period' });

    const postmaster = postmasterPid();
    console.log(
      `Machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, load average ${os
        .loadavg()
        .map((value) => value.toFixed(2))
        .join(' ')}, ${new Date().toISOString()}`,
    );
    console.log(`Store ${active.store?.id} (${active.store?.name}); ${seconds} s per case; server pid ${child.pid}, PostgreSQL ${postmaster ?? 'n/a'}`);
    const cases: { name: string; path: string; connections: number }[] = [
      { name: 'commerce.kpis 365 days, one at a time', path: kpis(365), connections: 1 },
      ...[30, 90, 365].map((days) => ({ name: `commerce.kpis ${days} days, compare previous_period`, path: kpis(days), connections })),
      { name: 'orders.list first page (25, newest first)', path: trpc('orders.list', {}), connections },
      { name: 'GET /api/user (authenticated floor)', path: '/api/user', connections: 10 },
      { name: 'GET /api/user (authenticated floor)', path: '/api/user', connections },
    ];
    // ONLY=<text>: just the cases whose name contains it (e.g. ONLY=/api/user).
    for (const { name, path: url, connections: caseConnections } of cases.filter(({ name }) => !process.env.ONLY || name.includes(process.env.ONLY))) {
      const check = await fetch(base + url, { headers: { cookie } });
      if (check.status !== 200) throw new Error(`${name}: ${check.status} ${(await check.text()).slice(0, 300)}`);
      // Warm-up (JIT, caches), not counted.
      await autocannon({ url: base + url, headers: { cookie }, connections: caseConnections, duration: 1 });
      const serverBefore = cpuMsOf(child.pid!);
      const databaseBefore = postmaster === null ? null : cpuMsOf(postmaster, true);
      const result = await autocannon({ url: base + url, headers: { cookie }, connections: caseConnections, duration: seconds });
      const serverMs = cpuMsOf(child.pid!) - serverBefore;
      const databaseMs = databaseBefore === null ? null : cpuMsOf(postmaster!, true) - databaseBefore;
      const answered = result.requests.total;
      const failures = result.non2xx + result.errors + result.timeouts;
      console.log(
        `${name.padEnd(52)} ${String(caseConnections).padStart(3)} conn  p50 ${result.latency.p50.toFixed(1).padStart(7)} ms  p99 ${result.latency.p99
          .toFixed(1)
          .padStart(7)} ms  ${result.requests.average.toFixed(0).padStart(6)} req/s  CPU per request: server ${(serverMs / answered).toFixed(2)} ms, database ${
          databaseMs === null ? 'n/a' : `${(databaseMs / answered).toFixed(2)} ms`
        }${failures ? `  FAILED: ${failures} (non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts})` : ''}`,
      );
    }
  } finally {
    await stop();
  }
}
