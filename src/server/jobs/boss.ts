import type { MikroORM } from '@mikro-orm/postgresql';
import { PgBoss } from 'pg-boss';
import { JOBS, type JobDefinition } from './queues.ts';

// pg-boss keeps its queues in the app's own database (schema `pgboss`), so jobs commit and fail with
// the data they touch and no other service is needed. The app runs the workers in-process.

export const JOBS_SCHEMA = 'pgboss';

export interface JobsLogger {
  info: (message: string) => void;
  error: (details: object, message: string) => void;
}

export interface JobRunner {
  boss: PgBoss;
  /** Waits for running jobs (up to 20 s) and closes pg-boss's connections. */
  stop: () => Promise<void>;
}

export interface StartJobsOptions {
  databaseUrl: string;
  orm: MikroORM;
  baseUrl: string;
  logger: JobsLogger;
  jobs?: readonly JobDefinition[];
  /** Install the cron schedules (the app does; a test that sends jobs itself may not). */
  schedule?: boolean;
}

/** Starts pg-boss, creates every queue (v12: before send/work), registers its worker and its schedule. */
export async function startJobs(options: StartJobsOptions): Promise<JobRunner> {
  const { orm, logger } = options;
  const boss = new PgBoss({ connectionString: options.databaseUrl, schema: JOBS_SCHEMA, application_name: 'storepulse-jobs', max: 4 });
  boss.on('error', (error) => logger.error({ err: error }, 'Background jobs error'));
  await boss.start();
  for (const job of options.jobs ?? JOBS) {
    await boss.createQueue(job.queue, { retryLimit: job.retryLimit, retryDelay: 60, retryBackoff: true });
    await boss.work(job.queue, async (batch) => {
      for (const item of batch) {
        await job.handle({ em: orm.em.fork(), baseUrl: options.baseUrl, log: (message) => logger.info(message) }, item.data);
      }
    });
    if (job.cron && options.schedule !== false) await boss.schedule(job.queue, job.cron, null, { tz: 'UTC' });
  }
  return { boss, stop: () => boss.stop({ graceful: true, timeout: 20_000 }) };
}
