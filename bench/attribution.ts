// Benchmark: the touchpoints report (README, "Attribution") for the last 365 days on the store
// `npm run bench:demo` filled (1,000,000 orders, ~3M visits), over loopback HTTP.
// 1. In this process: the sessions job and the attribution job brought up to date on the store (timed;
//    on a store fresh from bench:demo the attribution job credits every order once), then the
//    store's orders matched to their visits and purchases double-counted (journeyMatch, the same
//    figures bench:demo prints). RECOMPUTE=1: every order credited again first (as on a new store).
// 2. The real server (buildApp) in a child process of its own on BENCH_PORT (default 4481), signed in
//    as the bench user (the store's owner). For each procedure the screen reads (attribution.report
//    with comparison to the previous period and GET /api/attribution for each model;
//    attribution.modelsSideBySide, topPaths and distributions, which take no model): REQUESTS
//    (default 40) requests one at a time, then REQUESTS x 2 at 10 connections (10 senders, each sends
//    its next request when its answer arrived), each fewer when they take more than CASE_SECONDS
//    (default 20; n is printed): median / p95 / p99 latency and the CPU time per
//    request of the server's Node process and of the embedded PostgreSQL (Linux /proc). Before
//    those (warm: the answer cache may serve them), REQUESTS cold ones one at a time: the store's
//    data version moved before each (as any write to its credits does), so none is served from
//    the cache; the 100 ms target is judged on the cold median.
// `npm run bench:attribution` (see BENCHMARKS.md). DATABASE_URL or DATA_DIR as for bench/demo.ts.
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { ATTRIBUTION_MODELS } from '../src/shared/attribution.ts';
import { addDays, dayInZone } from '../src/shared/date-ranges.ts';
import { percentile, serveUntilStdinEnds, signInCookie, spawnBenchServer } from './http-bench.ts';
import { cpuMsOf, postmasterPid } from './proc-cpu.ts';

if (process.argv[2] === '--server') await serveUntilStdinEnds(4481);
else await main();

function loadAverage(): string {
  return os.loadavg().map((value) => value.toFixed(2)).join(' ');
}

/** Sessions and credits up to date, and the store's match figures; the jobs' times. */
async function prepare(): Promise<void> {
  const { loadConfig } = await import('../src/server/config.ts');
  const { openDatabase } = await import('../src/server/database/database.ts');
  const { buildSessions } = await import('../src/server/modules/tracking/sessions.ts');
  const { requestRecompute, runAttribution } = await import('../src/server/modules/attribution/credits.ts');
  const { journeyMatch } = await import('../src/server/modules/demo/demo.service.ts');
  const { sqlRunner } = await import('../src/server/modules/commerce/raw-sql.ts');
  const database = await openDatabase(loadConfig());
  try {
    const em = database.orm.em.fork();
    const [store] = await sqlRunner(em).rows<{ id: number }>(
      `select s.id from users u join stores s on s.id = u.active_store_id where u.username = $1`,
      [process.env.BENCH_USER ?? 'bench'],
    );
    if (!store) throw new Error('No store of the bench user: run `npm run bench:demo` first');
    let started = performance.now();
    const sessions = await buildSessions(em.fork(), store.id, { settleMs: 0, chunk: 50_000 });
    console.log(`Sessions job: ${sessions.events.toLocaleString('en')} new events in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    if (process.env.RECOMPUTE === '1') await requestRecompute(sqlRunner(em), store.id);
    started = performance.now();
    const credits = await runAttribution(em.fork(), store.id);
    console.log(
      `Attribution job: ${credits.credited.toLocaleString('en')} orders credited, ${credits.recomputed.toLocaleString('en')} recomputed in ${((performance.now() - started) / 1000).toFixed(1)} s (load average ${loadAverage()})`,
    );
    const match = await journeyMatch(em.fork(), store.id);
    const percent = (part: number) => `${((100 * part) / match.orders).toFixed(2)} %`;
    console.log(
      `Orders matched to their visits: ${match.ordersMatched.toLocaleString('en')} of ${match.orders.toLocaleString('en')} (${percent(match.ordersMatched)}; ` +
        `${match.ordersWithPurchase.toLocaleString('en')} with a purchase event); double-counted: ${match.doubleCounted.toLocaleString('en')} (${percent(match.doubleCounted)})`,
    );
  } finally {
    await database.close();
  }
}

async function main() {
  if (!process.env.DATABASE_URL) process.env.DATA_DIR ??= '/tmp/engine-bench/data';
  const requests = Number(process.env.REQUESTS ?? 40);
  console.log(`Machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, load average ${loadAverage()}, ${new Date().toISOString()}`);
  if (process.env.SKIP_JOBS !== '1') await prepare();
  const { child, base, stop } = await spawnBenchServer(fileURLToPath(import.meta.url));
  const { loadConfig } = await import('../src/server/config.ts');
  const { openDatabase } = await import('../src/server/database/database.ts');
  const { poolOf } = await import('../src/server/modules/answer-cache/answer-cache.ts');
  try {
    const cookie = await signInCookie(base);
    const active = await (await fetch(`${base}/api/stores/active`, { headers: { cookie } })).json();
    const to = dayInZone(new Date(), active.store?.timezone ?? 'Europe/London');
    const from = addDays(to, -364);
    const trpc = (procedure: string, input: unknown) => `/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`;
    const postmaster = postmasterPid();
    console.log(`Store ${active.store?.id} (${active.store?.name}), ${from} to ${to}; ${requests} requests one at a time, ${requests * 2} at 10 connections; server pid ${child.pid}, PostgreSQL ${postmaster ?? 'n/a'}`);

    const cases: { name: string; path: string }[] = [
      ...ATTRIBUTION_MODELS.map((model) => ({ name: `attribution.report ${model}, compare previous_period`, path: trpc('attribution.report', { from, to, model, compare: 'previous_period' }) })),
      ...ATTRIBUTION_MODELS.map((model) => ({ name: `GET /api/attribution ${model}`, path: `/api/attribution?from=${from}&to=${to}&model=${model}` })),
      { name: 'attribution.modelsSideBySide', path: trpc('attribution.modelsSideBySide', { from, to }) },
      { name: 'attribution.topPaths', path: trpc('attribution.topPaths', { from, to }) },
      { name: 'attribution.distributions', path: trpc('attribution.distributions', { from, to }) },
    ];
    const get = async (path: string): Promise<number> => {
      const started = performance.now();
      const answer = await fetch(base + path, { headers: { cookie } });
      const body = await answer.arrayBuffer();
      if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${Buffer.from(body).toString().slice(0, 300)}`);
      return performance.now() - started;
    };
    // `count` requests from `connections` senders (fewer when they take over CASE_SECONDS, default
    // 20, but at least 5); latencies sorted, and CPU per request.
    const budgetMs = Number(process.env.CASE_SECONDS ?? 20) * 1000;
    const run = async (path: string, count: number, connections: number, before?: () => Promise<unknown>) => {
      const serverBefore = cpuMsOf(child.pid!);
      const databaseBefore = postmaster === null ? null : cpuMsOf(postmaster, true);
      const started = performance.now();
      const times: number[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: connections }, async () => {
          while (next < count && (next < 5 || performance.now() - started < budgetMs)) {
            next += 1;
            if (before) await before();
            times.push(await get(path));
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      const serverMs = (cpuMsOf(child.pid!) - serverBefore) / times.length;
      const databaseMs = databaseBefore === null ? null : (cpuMsOf(postmaster!, true) - databaseBefore) / times.length;
      times.sort((a, b) => a - b);
      return { n: times.length, p50: percentile(times, 0.5), p95: percentile(times, 0.95), p99: percentile(times, 0.99), rate: times.length / seconds, serverMs, databaseMs };
    };
    const format = (r: Awaited<ReturnType<typeof run>>) =>
      `n ${String(r.n).padStart(3)}  p50 ${r.p50.toFixed(1).padStart(7)}  p95 ${r.p95.toFixed(1).padStart(7)}  p99 ${r.p99.toFixed(1).padStart(7)} ms  ${r.rate.toFixed(1).padStart(6)} req/s  CPU/req server ${r.serverMs.toFixed(1)} ms, db ${r.databaseMs === null ? 'n/a' : `${r.databaseMs.toFixed(1)} ms`}`;
    // Cold: the store's data version moved before each request (what any write to its credits,
    // spend or settings does), so no cached answer can serve it. Warm: the same request again
    // (answered from the answer cache where the procedure has one).
    const database = await openDatabase(loadConfig());
    const pool = await poolOf(database.orm.em);
    const dataChange = () =>
      pool.query(`insert into cache_versions (scope, version) values ($1, 1) on conflict (scope) do update set version = cache_versions.version + 1`, [`store:${active.store?.id}`]);
    const misses: string[] = [];
    try {
      for (const { name, path } of cases.filter(({ name }) => !process.env.ONLY || name.includes(process.env.ONLY))) {
        for (let index = 0; index < 2; index += 1) await get(path); // warm-up (JIT, plans, caches), not counted
        const cold = await run(path, requests, 1, dataChange);
        const single = await run(path, requests, 1);
        const ten = await run(path, requests * 2, 10);
        console.log(`${name.padEnd(58)}  cold  1 conn  ${format(cold)}`);
        console.log(`${''.padEnd(58)}  warm  1 conn  ${format(single)}`);
        console.log(`${''.padEnd(58)}  warm 10 conn  ${format(ten)}`);
        if (cold.p50 >= 100) misses.push(`${name} (cold median ${cold.p50.toFixed(0)} ms, warm ${single.p50.toFixed(0)} ms)`);
      }
    } finally {
      await database.close();
    }
    console.log(misses.length === 0 ? 'Target (cold median under 100 ms one at a time): met by every case' : `Target (cold median under 100 ms one at a time) MISSED by: ${misses.join('; ')}`);
    console.log(`Load average at the end: ${loadAverage()}, ${new Date().toISOString()}`);
  } finally {
    await stop();
  }
}
