import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../src/server/app.ts';
import { loadConfig } from '../src/server/config.ts';
import { startJobs, type JobRunner } from '../src/server/jobs/boss.ts';
import type { JobDefinition } from '../src/server/jobs/queues.ts';
import { bulkLoad, ingestOrders } from '../src/server/modules/commerce/ingest.ts';
import { sqlRunner } from '../src/server/modules/commerce/raw-sql.ts';
import { createCommerceStore, dailyRollup, testOrder } from './commerce-fixtures.ts';
import { ApiClient, GENEROUS_AUTH_LIMITS, testServices, uniqueUser } from './harness.ts';
import { useTwoApps, waitFor } from './two-instances.ts';

// Two app instances in this process on one database, each with its own connection pool and its own
// services, as two processes behind a load balancer would be (test/two-processes.test.ts starts real
// ones). Sign-in failures: 3 per username and address.
const instances = useTwoApps({ ...GENEROUS_AUTH_LIMITS, loginFailuresPerUsernameAndIp: { max: 3, windowMs: 15 * 60_000 } });

describe('two app instances on one database', () => {
  it('a session created on A works on B', async () => {
    const onA = new ApiClient(instances.a.app);
    const registered = await onA.post('/api/register', uniqueUser('twoapps'));
    expect(registered.status).toBe(201);
    const onB = new ApiClient(instances.b.app);
    onB.sessionCookie = onA.sessionCookie;
    const me = await onB.get('/api/user');
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(registered.body.id);
  });

  it('counts failed sign-ins on A and B together', async () => {
    const credentials = uniqueUser('shared');
    expect((await new ApiClient(instances.a.app).post('/api/register', credentials)).status).toBe(201);
    const attempt = (app: typeof instances.a.app, password: string) =>
      new ApiClient(app, { remoteAddress: '10.15.0.1' }).post('/api/login', { username: credentials.username, password });
    // 2 failures on A and 1 on B are the 3 allowed: the 4th attempt, on B, is refused (B alone saw 1).
    expect((await attempt(instances.a.app, 'wrong-password-1')).status).toBe(401);
    expect((await attempt(instances.b.app, 'wrong-password-2')).status).toBe(401);
    expect((await attempt(instances.a.app, 'wrong-password-3')).status).toBe(401);
    const fourth = await attempt(instances.b.app, credentials.password);
    expect(fourth.status).toBe(429);
    expect(fourth.body.message).toBe('Too many failed sign-in attempts. Please try again in 15 minutes.');
  });

  it('runs each job queued on A once, across the workers of A and B', async () => {
    const q = sqlRunner(instances.orm.em.fork());
    await q.run(`create table job_runs (n int not null, worker text not null)`);
    const queue = 'test.two-workers';
    const JOBS = 6;
    const countingJob = (worker: string): JobDefinition => ({
      queue,
      retryLimit: 2,
      handle: async (context, data) => {
        await sqlRunner(context.em).run(`insert into job_runs (n, worker) values ($1, $2)`, [(data as { n: number }).n, worker]);
      },
    });
    const runners: JobRunner[] = [];
    try {
      for (const [worker, instance] of [['A', instances.a], ['B', instances.b]] as const) {
        runners.push(await startJobs({ databaseUrl: instances.url, orm: instance.orm, baseUrl: 'http://localhost', logger: { info: () => {}, error: () => {} }, jobs: [countingJob(worker)], schedule: false }));
      }
      // pg-boss 12 as configured hands each worker one job per 2-second poll: 6 jobs keep this short.
      const jobIds = await Promise.all(Array.from({ length: JOBS }, (_, n) => runners[0]!.boss.send(queue, { n })));
      expect(new Set(jobIds).size).toBe(JOBS);
      await waitFor('the jobs to complete', async () => {
        const [row] = await q.rows<{ completed: number }>(`select count(*)::int as completed from pgboss.job where name = $1 and state = 'completed'`, [queue]);
        return row!.completed === JOBS ? true : undefined;
      });
    } finally {
      await Promise.all(runners.map((runner) => runner.stop()));
    }
    // 6 jobs, 6 runs: each n once, whichever worker took it.
    const runs = await q.rows<{ n: number; runs: number }>(`select n, count(*)::int as runs from job_runs group by n order by n`);
    expect(runs).toEqual(Array.from({ length: JOBS }, (_, n) => ({ n, runs: 1 })));
  });

  it('serialises two ingest batches of one store from A and B: the second waits for the first, and the totals hold both', async () => {
    const store = await createCommerceStore(instances.orm);
    const placedAt = new Date('2026-07-02T12:00:00Z');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let fromAWritten = false;
    // A: a load that has written its order and still holds the store's ingest lock.
    const fromA = bulkLoad(instances.a.orm.em.fork(), store.id, async (tx) => {
      await ingestOrders(tx, store.id, [testOrder({ externalId: 'from-a', placedAt, grossMinor: 10_000 })]);
      fromAWritten = true;
      await held;
    });
    await waitFor('A to hold the lock', async () => (fromAWritten ? true : undefined));
    let fromBDone = false;
    const fromB = ingestOrders(instances.b.orm.em.fork(), store.id, [testOrder({ externalId: 'from-b', placedAt, grossMinor: 25_000 })]).then(() => {
      fromBDone = true;
    });
    // B waits on the advisory lock A holds (pg_locks: one advisory lock request not granted).
    await waitFor('B to wait for the lock', async () => {
      const [row] = await sqlRunner(instances.orm.em.fork()).rows<{ waiting: number }>(
        `select count(*)::int as waiting from pg_locks where locktype = 'advisory' and not granted and database = (select oid from pg_database where datname = current_database())`,
      );
      return row!.waiting > 0 ? true : undefined;
    });
    expect(fromBDone).toBe(false);
    release();
    await Promise.all([fromA, fromB]);
    // 2 orders, 10,000 + 25,000 = 35,000 minor units on 2 July (Europe/London).
    expect(await dailyRollup(instances.orm.em.fork(), store.id, '2026-07-02')).toMatchObject({ orders_count: 2, gross_minor: 35_000 });
  });

  it('warns at start, in production on a DATABASE_URL, when the secrets every process must share are generated per process', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'storepulse-secrets-'));
    const warnings: string[] = [];
    const start = async (env: Record<string, string>) => {
      const config = { ...loadConfig({ NODE_ENV: 'production', DATABASE_URL: instances.url, DATA_DIR: dataDir, PUBLIC_URL: 'https://app.example.com', ...env }), clientDistDir: path.join(dataDir, 'no-client') };
      const stream = { write: (line: string) => void warnings.push(JSON.parse(line).msg) };
      const app = await buildApp({ config, orm: instances.orm, services: testServices(), logger: { level: 'warn', stream } });
      await app.close();
    };
    try {
      await start({});
      expect(warnings.filter((line) => line.includes('SESSION_SECRET'))).toEqual([
        `SESSION_SECRET and ENCRYPTION_KEY not set: this process uses values generated into ${dataDir}. Every other app process on this database must use the same ones (a session signed here is refused there, credentials sealed there cannot be opened here): set SESSION_SECRET and ENCRYPTION_KEY to the same values on all of them.`,
      ]);
      warnings.length = 0;
      await start({ SESSION_SECRET: 's'.repeat(40), ENCRYPTION_KEY: 'a'.repeat(64) });
      expect(warnings.filter((line) => line.includes('SESSION_SECRET') || line.includes('ENCRYPTION_KEY'))).toEqual([]);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
