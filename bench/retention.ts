// loyalty.retention's statement on a copy of a demo store's cluster: EXPLAIN (ANALYZE, BUFFERS) and 5 timed runs over
// the last 12 first-order months of its largest store. Usage: node bench/retention.ts <DATA_DIR of a stopped cluster> <port>.
// Reads only (run it on a copy: starting PostgreSQL writes to its directory).
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/server/database/embedded-postgres.ts';
import { RETENTION_SQL } from '../src/server/modules/loyalty/retention.service.ts';
const running = await startEmbeddedPostgres({ dataDir: process.argv[2]!, port: Number(process.argv[3]) });
const client = new pg.Client({ connectionString: running.url('storepulse') });
try {
  await client.connect();
  const stores = await client.query(`select s.id, s.timezone, (select count(*) from orders o where o.store_id = s.id)::int as orders, (select count(*) from customers c where c.store_id = s.id)::int as customers, (select to_char(max(placed_day), 'YYYY-MM') from orders o where o.store_id = s.id) as last from stores s order by 4 desc limit 1`);
  const store = stores.rows[0];
  console.log(JSON.stringify(store));
  const [y, m] = store.last.split('-').map(Number);
  const next = new Date(Date.UTC(y, m, 1)).toISOString().slice(0, 10);
  const first = new Date(Date.UTC(y, m - 12, 1)).toISOString().slice(0, 10);
  const params = [store.id, first, next, store.timezone];
  const plan = await client.query(`explain (analyze, buffers) ${RETENTION_SQL}`, params);
  console.log(plan.rows.map((row) => row['QUERY PLAN']).join('\n'));
  const times: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    const start = performance.now();
    const result = await client.query(RETENTION_SQL, params);
    times.push(performance.now() - start);
    if (i === 0) console.log(`rows: ${result.rowCount}`);
  }
  times.sort((a, b) => a - b);
  console.log(`12 first-order months ${first}..${next} (exclusive): ${times.map((t) => t.toFixed(0)).join(', ')} ms; median ${times[2]!.toFixed(0)} ms`);
} finally {
  await client.end();
  await running.stop();
}
