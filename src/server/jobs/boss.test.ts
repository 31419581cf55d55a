import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase } from '../../../test/harness.ts';
import { sqlRunner } from '../modules/commerce/raw-sql.ts';
import { startJobs } from './boss.ts';

// PostgreSQL closing the jobs' connections (57P01: it is stopping, or an administrator terminated them)
// is said once as information; other errors stay errors.

let database: Awaited<ReturnType<typeof createTestDatabase>>;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

it("says once that PostgreSQL closed the jobs' connections, instead of an error per connection", async () => {
  const infos: string[] = [];
  const errors: string[] = [];
  const jobs = await startJobs({
    databaseUrl: database.url,
    orm: database.orm,
    baseUrl: 'http://localhost',
    logger: { info: (message) => infos.push(message), error: (_details, message) => errors.push(message) },
    jobs: [],
    checks: [],
    schedule: false,
  });
  try {
    const sql = sqlRunner(database.orm.em.fork());
    const said = () => infos.filter((message) => message.includes('PostgreSQL closed their connections')).length;
    // pg-boss's pooled connections, terminated by the server (each reports 57P01), until pg-boss heard of it.
    await expect
      .poll(async () => {
        await sql.rows(`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'storepulse-jobs' and datname = current_database()`);
        return said() + errors.length;
      })
      .toBeGreaterThan(0);
    expect(said()).toBe(1);
    expect(errors).toEqual([]);
  } finally {
    await jobs.stop();
  }
});
