import type { MikroORM } from '@mikro-orm/postgresql';
import { PgBoss, type JobResult, type QueueOptions } from 'pg-boss';
import { JOBS_SCHEMA } from './job-database.ts';
import { CHECKS, JOBS, type JobContext, type JobDefinition, type RecurringCheck } from './queues.ts';

// pg-boss keeps its queues in the app's own database (schema `pgboss`), so jobs commit and fail with
// the data they touch and no other service is needed. The app runs the workers in-process.

export { JOBS_SCHEMA };

/** PostgreSQL error codes of a server that is stopping or dropped our connections (https://www.postgresql.org/docs/current/errcodes-appendix.html). */
const DATABASE_GOING_AWAY = new Set(['57P01', '57P03']);

export interface JobsLogger {
  info: (message: string) => void;
  error: (details: object, message: string) => void;
}

export interface JobRunner {
  boss: PgBoss;
  /** Stops the recurring checks, waits for running jobs (up to 20 s) and closes pg-boss's connections. */
  stop: () => Promise<void>;
}

export interface StartJobsOptions {
  databaseUrl: string;
  orm: MikroORM;
  baseUrl: string;
  logger: JobsLogger;
  jobs?: readonly JobDefinition[];
  /** The recurring checks (default: all of queues.ts's CHECKS). */
  checks?: readonly RecurringCheck[];
  /** Install the cron schedules (the app does; a test that sends jobs itself may not). */
  schedule?: boolean;
  /** Queues whose cron schedule is left out (and removed if an earlier start installed it). */
  unscheduled?: readonly string[];
}

/** A queue's options as pg-boss takes them (https://pgboss.io/api/queues#createqueue-name-queue). */
function queueOptionsOf(job: JobDefinition): QueueOptions {
  return {
    retryLimit: job.retryLimit,
    retryDelay: job.retryDelaySeconds ?? 60,
    retryBackoff: true,
    ...(job.expireInSeconds !== undefined ? { expireInSeconds: job.expireInSeconds } : {}),
    ...(job.heartbeatSeconds !== undefined ? { heartbeatSeconds: job.heartbeatSeconds } : {}),
    ...(job.deleteAfterSeconds !== undefined ? { deleteAfterSeconds: job.deleteAfterSeconds } : {}),
  };
}

/**
 * Starts pg-boss, creates every queue (v12: before send/work) or brings an existing queue's options
 * up to date (createQueue leaves an existing queue as it is), registers its worker and its schedule,
 * and starts the recurring checks.
 */
export async function startJobs(options: StartJobsOptions): Promise<JobRunner> {
  const { orm, logger } = options;
  const boss = new PgBoss({
    connectionString: options.databaseUrl,
    schema: JOBS_SCHEMA,
    application_name: 'storepulse-jobs',
    max: 4,
    // How often jobs whose worker stopped (heartbeat lapsed, or expired) are failed and so retried:
    // every 15 s rather than pg-boss's 60, so that a delivery a killed process had taken is applied
    // by another well within a minute. The pass also counts the queues (a scan of the job table,
    // kept small by the deletions below).
    superviseIntervalSeconds: 15,
    monitorIntervalSeconds: 15,
    // Completed jobs past their queue's deleteAfterSeconds are deleted hourly instead of daily.
    maintenanceIntervalSeconds: 3600,
  });
  let lastTerminationSaid = 0;
  boss.on('error', (error) => {
    // 57P01 admin_shutdown: PostgreSQL closed our connections because it is stopping (the embedded server
    // stops with the app and may be quicker than pg-boss's own stop) or an administrator terminated them;
    // 57P03 cannot_connect_now: a new connection while it is shutting down. pg-boss reconnects. Said once
    // for the burst (one per pooled connection), not as an error each.
    if (DATABASE_GOING_AWAY.has(String((error as { code?: unknown }).code))) {
      if (Date.now() - lastTerminationSaid > 10_000) logger.info('Background jobs: PostgreSQL closed their connections (shutting down, or terminated by an administrator)');
      lastTerminationSaid = Date.now();
      return;
    }
    logger.error({ err: error }, 'Background jobs error');
  });
  await boss.start();
  const context = (): JobContext => ({ em: orm.em.fork(), baseUrl: options.baseUrl, log: (message) => logger.info(message) });
  for (const job of options.jobs ?? JOBS) {
    await boss.createQueue(job.queue, queueOptionsOf(job));
    await boss.updateQueue(job.queue, queueOptionsOf(job));
    if (job.batch && job.handleBatch) {
      const handleBatch = job.handleBatch;
      // Up to `size` jobs a fetch, each settled on its own (https://pgboss.io/api/workers): a failed
      // one is retried without failing the others; a full batch is followed by the next fetch at once.
      await boss.work(
        job.queue,
        { batchSize: job.batch.size, pollingIntervalSeconds: job.batch.pollingIntervalSeconds, burstWhenBatchFull: true, perJobResults: true },
        async (batch): Promise<JobResult[]> => {
          const errors = await handleBatch(context(), batch.map((item) => item.data));
          return batch.map((item, index) => {
            const error = errors[index] ?? null;
            return error === null ? { id: item.id, status: 'completed' } : { id: item.id, status: 'failed', output: { message: error } };
          });
        },
      );
    } else {
      await boss.work(job.queue, async (batch) => {
        for (const item of batch) await job.handle(context(), item.data);
      });
    }
    if (job.cron && options.unscheduled?.includes(job.queue)) await boss.unschedule(job.queue);
    else if (job.cron && options.schedule !== false) await boss.schedule(job.queue, job.cron, null, { tz: 'UTC' });
  }
  const checks = startChecks(options.checks ?? CHECKS, context, logger);
  return {
    boss,
    stop: async () => {
      await checks.stop();
      await boss.stop({ graceful: true, timeout: 20_000 });
    },
  };
}

/** Runs each check now and then every `everySeconds` (never two runs of one check at once). */
function startChecks(checks: readonly RecurringCheck[], context: () => JobContext, logger: JobsLogger) {
  const running = new Set<Promise<void>>();
  const timers = checks.map((check) => {
    let current: Promise<void> | null = null;
    const tick = () => {
      if (current) return;
      current = check
        .run(context())
        .then(() => undefined, (error: unknown) => logger.error({ err: error }, `Check ${check.name} failed`))
        .finally(() => {
          running.delete(current!);
          current = null;
        });
      running.add(current);
    };
    tick();
    const timer = setInterval(tick, check.everySeconds * 1000);
    timer.unref();
    return timer;
  });
  return {
    async stop() {
      for (const timer of timers) clearInterval(timer);
      await Promise.allSettled([...running]);
    },
  };
}
