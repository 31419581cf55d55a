// Benchmark: the orders table's search and its deep pages on the store `npm run bench:demo` filled
// (1,000,000 orders), over real HTTP (orders.list, as the /orders screen calls it). Starts the real
// server (buildApp) on BENCH_PORT (default 4402), signs in as the bench user, makes 2 warm-up
// requests and then REQUESTS (default 10) timed requests per case; prints median and p95 and how many
// orders matched. `bash scripts/bench.sh orders-search` (see BENCHMARKS.md). DATABASE_URL or DATA_DIR as for
// bench/demo.ts. The target: every search settles under 300 ms.
import { demoCustomerEmail } from '../src/server/modules/demo/demo-names.ts';
import os from 'node:os';
import { addDays, dayInZone } from '../src/shared/date-ranges.ts';
import { percentile, startBenchServer } from './http-bench.ts';

const requests = Number(process.env.REQUESTS ?? 10);
const server = await startBenchServer(4402);
const { base } = server;

try {
  const cookie = await server.signIn();
  const get = async (input: unknown) => {
    const response = await fetch(`${base}/trpc/orders.list?input=${encodeURIComponent(JSON.stringify(input))}`, { headers: { cookie } });
    return { status: response.status, body: JSON.parse(await response.text()) };
  };

  const active = await (await fetch(`${base}/api/stores/active`, { headers: { cookie } })).json();
  const today = dayInZone(new Date(), active.store?.timezone ?? 'Europe/London');
  const last30 = { from: addDays(today, -29), to: today };
  console.log(`Machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, load average ${os.loadavg().map((value) => value.toFixed(2)).join(' ')}, ${new Date().toISOString()}`);

  // The demo's orders are numbered #1001.., its customers demo-customer-N with demoCustomerEmail(N) (stores made before 2026-11-28 13:00 UTC: customerN@demo.storepulse.invalid), its SKUs SP-0001..
  const searches: [string, string][] = [
    ['order number with #', '#500123'],
    ['order number without #', '500123'],
    ['order number prefix', '#50012'],
    ['SKU', 'SP-0042'],
    ['product title word (common)', 'Merino'],
    ['product title and colour', 'jumper — navy'],
    ['customer e-mail (exact)', demoCustomerEmail(12345)],
    ['customer id', 'demo-customer-12345'],
    ['customer id prefix', 'demo-customer-1234'],
    ['no match', 'zzzz-nothing'],
  ];
  const cases: { name: string; input: Record<string, unknown>; status?: number }[] = [];
  for (const [name, search] of searches) {
    cases.push({ name: `search ${name} "${search}", all time`, input: { search } });
    cases.push({ name: `search ${name} "${search}", last 30 days`, input: { search, ...last30 } });
  }
  cases.push({ name: 'page 9,999 (25 per page): refused at once', input: { page: 9_999 }, status: 400 });
  cases.push({ name: 'page 400 (25 per page), the deepest allowed', input: { page: 400 } });

  for (const { name, input, status = 200 } of cases) {
    for (let warm = 0; warm < 2; warm += 1) await get(input);
    const timings: number[] = [];
    let matched = '';
    for (let index = 0; index < requests; index += 1) {
      const started = performance.now();
      const answer = await get(input);
      timings.push(performance.now() - started);
      if (answer.status !== status) throw new Error(`${name}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
      matched = status === 200 ? `${answer.body.result.data.total}${answer.body.result.data.totalIsExact ? '' : '+'} matching` : `HTTP ${answer.status}`;
    }
    timings.sort((a, b) => a - b);
    console.log(`${name.padEnd(78)} median ${percentile(timings, 0.5).toFixed(1).padStart(7)} ms   p95 ${percentile(timings, 0.95).toFixed(1).padStart(7)} ms   ${matched}`);
  }
} finally {
  await server.close();
}
