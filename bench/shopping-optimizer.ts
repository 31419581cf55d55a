// Benchmark: the shopping optimizer's product list (shoppingOptimizer.audit) on a store with 20,000
// active products, 5,000 of them with 30 days of Google Ads shopping rows (150,000 rows, a third in
// USD converted into the store's GBP at each day's rate), over real HTTP. Seeds its own admin user
// (bench-optimizer) and store once in its own database (DATA_DIR, default /tmp/optimizer-bench/data),
// then makes 2 warm-up requests and REQUESTS (default 10) timed ones per case; prints median and p95.
// `bash scripts/bench.sh shopping-optimizer` (see BENCHMARKS.md). The target: every page under 1 s.
import os from 'node:os';
import { loadConfig } from '../src/server/config.ts';
import { percentile, startBenchServer } from './http-bench.ts';

process.env.DATA_DIR ??= '/tmp/optimizer-bench/data';
process.env.BENCH_USER = 'bench-optimizer';
process.env.BENCH_PASSWORD = 'bench-password-123';
const PRODUCTS = 20_000;
const WITH_ADS = 5_000;
const requests = Number(process.env.REQUESTS ?? 10);

const { openDatabase } = await import('../src/server/database/database.ts');
const { sqlRunner } = await import('../src/server/modules/commerce/raw-sql.ts');
const { seedFxRates } = await import('../src/server/modules/commerce/fx.ts');
const seeding = await openDatabase(loadConfig());
try {
  const em = seeding.orm.em.fork();
  const { adminCaller } = await import('../src/scripts/admin-commands.ts');
  const { User } = await import('../src/server/modules/users/user.entity.ts');
  const { Store } = await import('../src/server/modules/stores/store.entity.ts');
  let user = await em.findOne(User, { username: 'bench-optimizer' });
  if (!user) {
    await (await adminCaller(em)).createUser({ username: 'bench-optimizer', email: 'bench-optimizer@example.com', password: 'bench-password-123', isAdmin: true });
    user = await em.findOneOrFail(User, { username: 'bench-optimizer' });
  }
  if (!(await em.findOne(Store, { owner: user.id }))) {
    const store = em.create(Store, { owner: user, name: 'Optimizer bench', currency: 'GBP', timezone: 'Europe/London' });
    await em.flush();
    await seedFxRates(em);
    const q = sqlRunner(em);
    await q.run(
      `insert into products (store_id, platform, external_id, title, sku, price_minor, currency, image_url, active, updated_at)
       select $1, 'bench', 'BENCH-' || n, 'Bench product ' || n || case when n % 7 = 0 then ' - FREE SHIPPING' else '' end, 'SKU-' || n,
              1000 + n % 9000, 'GBP', case when n % 3 = 0 then null else 'https://cdn.example/' || n || '.jpg' end, true, now()
         from generate_series(1, $2::int) n`,
      [store.id, PRODUCTS],
    );
    await q.run(
      `insert into product_ad_metrics_daily (store_id, platform, account_id, product_item_id, day, currency, clicks, impressions, cost, conversions, conversion_value)
       select $1, 'googleads', case when n % 3 = 0 then '2222222222' else '1111111111' end, 'bench-' || n, current_date - d,
              case when n % 3 = 0 then 'USD' else 'GBP' end, n % 40, (n % 40) * 25, ((n * 7 + d) % 500) / 100.0, (n % 5) / 2.0, (n % 5) * 12.5
         from generate_series(1, $2::int) n, generate_series(0, 29) d`,
      [store.id, WITH_ADS],
    );
    await q.run(`analyze products, product_ad_metrics_daily`);
    console.log(`Seeded store ${store.id}: ${PRODUCTS} products, ${WITH_ADS * 30} product ad rows`);
  }
} finally {
  await seeding.close();
}

const server = await startBenchServer(4403);
try {
  const cookie = await server.signIn();
  console.log(`Machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, load average ${os.loadavg().map((value) => value.toFixed(2)).join(' ')}, ${new Date().toISOString()}`);
  const get = async (input: unknown) => {
    const response = await fetch(`${server.base}/trpc/shoppingOptimizer.audit?input=${encodeURIComponent(JSON.stringify(input))}`, { headers: { cookie } });
    return { status: response.status, body: JSON.parse(await response.text()), bytes: Number(response.headers.get('content-length') ?? 0) };
  };
  const cases: [string, Record<string, unknown>][] = [
    ['first page, by score', {}],
    ['by spend, biggest first', { sort: 'spend', direction: 'desc' }],
    ['by title, page 400', { sort: 'title', page: 400 }],
    ['missing image filter', { issue: 'missing_image' }],
    ['search "product 1999"', { search: 'product 1999' }],
    ['90-day window, by spend', { sort: 'spend', direction: 'desc', days: 90 }],
  ];
  for (const [name, input] of cases) {
    for (let warm = 0; warm < 2; warm += 1) await get(input);
    const timings: number[] = [];
    let summary = '';
    for (let index = 0; index < requests; index += 1) {
      const started = performance.now();
      const answer = await get(input);
      timings.push(performance.now() - started);
      if (answer.status !== 200) throw new Error(`${name}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
      const data = answer.body.result.data;
      summary = `${data.matching} matching, ${data.products.length} rows, spend status ${data.adsPerformance.status}`;
    }
    timings.sort((a, b) => a - b);
    console.log(`${name.padEnd(30)} median ${percentile(timings, 0.5).toFixed(0).padStart(5)} ms  p95 ${percentile(timings, 0.95).toFixed(0).padStart(5)} ms  (${summary})`);
  }
} finally {
  await server.close();
}
