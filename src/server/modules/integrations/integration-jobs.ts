import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { ConnectorAuthError } from '../../connectors/connector.ts';
import { CredentialDecryptionError } from '../../connectors/credential-vault.ts';
import { connectorFor } from '../../connectors/registry.ts';
import { JOBS_SCHEMA } from '../../jobs/job-database.ts';
import type { JobContext, JobDefinition, RecurringCheck } from '../../jobs/queues.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { PlatformConnection } from '../connections/platform-connection.entity.ts';
import { SyncRun } from './integration.entities.ts';
import { integrationsSettings, sendIntegrationJob, type IntegrationsSettings } from './integrations-runtime.ts';
import { CONNECTION_DISCONNECTED_STORED_CREDENTIALS, SYNC_QUEUE, activeRunOf, connectionAuthOf, disconnectConnection, openCredentials, orphanedRuns, queueNewSync, runSync, takeOverRun } from './sync-runner.ts';
import { WEBHOOK_QUEUE, processWebhookDeliveries } from './webhooks.ts';

// The sync engine's background jobs: running syncs and webhook deliveries, the 15-minute incremental
// schedule and the 10-minute health check behind the header's API Connection Status.

export const SCHEDULE_QUEUE = 'integrations.schedule';
export const HEALTH_QUEUE = 'integrations.health';

/** A running run whose progress has not moved for this long lost its worker (the job gave up). */
const STALE_RUN_MS = 60 * 60_000;
export const STALE_RUN_MESSAGE = 'The sync stopped unexpectedly; the next scheduled sync continues it.';

const LIVE_STATUSES = ['connected', 'syncing', 'error'] as const;

/** Finished runs, processed webhook deliveries and OAuth states are kept this long. */
const HISTORY_DAYS = 30;

/** Forgets what no screen shows any more (a connection collects a run every 15 minutes). */
async function pruneHistory(em: EntityManager, now: Date): Promise<void> {
  const before = new Date(now.getTime() - HISTORY_DAYS * 86_400_000);
  const q = sqlRunner(em);
  // The latest run of each connection stays: the integrations screen shows it.
  await q.run(
    `delete from sync_runs r where r.finished_at < $1
        and r.id <> (select max(l.id) from sync_runs l where l.store_id = r.store_id and l.connection_id = r.connection_id)`,
    [before],
  );
  await q.run(`delete from webhook_deliveries where processed_at < $1`, [before]);
  await q.run(`delete from oauth_states where expires_at < $1`, [now]);
}

/** The connections with credentials, each with its store loaded (its zone and currency are needed). */
function liveConnections(em: EntityManager) {
  return em.find(PlatformConnection, { status: { $in: [...LIVE_STATUSES] }, sealedCredentials: { $ne: null } }, { populate: ['store'] });
}

/** A connection whose last sync ended a little after a schedule tick is still due at the tick one interval later. */
const SCHEDULE_SLACK_MS = 2 * 60_000;

/**
 * Queues an incremental sync for every connected connection without one queued or running (and, for
 * platforms with a minimum interval, whose last sync is at least that old); returns how many.
 */
export async function scheduleIncrementalSyncs(em: EntityManager, now: Date = new Date()): Promise<number> {
  await failStaleRuns(em, now);
  await pruneHistory(em, now);
  const connections = await liveConnections(em);
  let queued = 0;
  for (const connection of connections) {
    const interval = connectorFor(connection.platform).minSyncIntervalMinutes;
    if (interval && connection.lastSyncAt && now.getTime() - connection.lastSyncAt.getTime() < interval * 60_000 - SCHEDULE_SLACK_MS) continue;
    if (await activeRunOf(em, connection)) continue;
    await queueNewSync(em, connection, { now });
    queued++;
  }
  return queued;
}

async function failStaleRuns(em: EntityManager, now: Date): Promise<void> {
  const stale = await em.find(SyncRun, { status: 'running', heartbeatAt: { $lt: new Date(now.getTime() - STALE_RUN_MS) } });
  for (const run of stale) {
    run.status = 'failed';
    run.error = STALE_RUN_MESSAGE;
    run.finishedAt = now;
    const connection = await em.findOneOrFail(PlatformConnection, { id: run.connection.id });
    if (connection.status === 'syncing') connection.status = 'connected';
  }
  await em.flush();
}

/**
 * verify() for every connected connection: lastCheckedAt moves on when the platform accepts the
 * credentials; refused credentials disconnect the connection with the platform's reason. A platform
 * that cannot be reached right now changes nothing (the next check tries again).
 */
export async function checkConnectionHealth(em: EntityManager, options: { settings?: IntegrationsSettings; now?: Date; log?: (message: string) => void } = {}): Promise<{ checked: number; disconnected: number }> {
  const settings = options.settings ?? integrationsSettings();
  const connections = await liveConnections(em);
  let checked = 0;
  let disconnected = 0;
  for (const connection of connections) {
    const store = connection.store;
    try {
      const credentials = openCredentials(settings, connection)!;
      const auth = await connectionAuthOf(em, settings, connection, credentials, store, { http: { maxAttempts: 2 } });
      await auth.call((ctx) => connectorFor(connection.platform).verify(ctx));
      connection.lastCheckedAt = options.now ?? new Date();
      checked++;
    } catch (error) {
      if (error instanceof ConnectorAuthError || error instanceof CredentialDecryptionError) {
        connection.lastCheckedAt = options.now ?? new Date();
        await disconnectConnection(em, connection, error instanceof ConnectorAuthError ? error.reason : CONNECTION_DISCONNECTED_STORED_CREDENTIALS);
        disconnected++;
      } else {
        options.log?.(`Health check of ${connection.platform} for store ${store.id} failed: ${(error as Error).message}`);
      }
    }
    await em.flush();
  }
  return { checked, disconnected };
}

/**
 * Every run whose process is gone (kill -9, a crash, the machine lost) is handed to a live worker,
 * which continues it from its cursor: within OWNER_LOST_SECONDS + this check's interval (40 s) of
 * the owner's last sign of life, instead of pg-boss's 15-minute expiry plus its retry delay.
 */
export async function recoverOrphanedRuns(em: EntityManager, log?: (message: string) => void): Promise<number> {
  const runs = await orphanedRuns(em);
  for (const runId of runs) {
    log?.(`Sync ${runId} lost its process: a worker takes it over.`);
    await takeOverRun(runId);
  }
  return runs.length;
}

/**
 * Deliveries stored without a job (by versions that queued the job after storing the delivery, and
 * crashed in between) get one. Run at start: since a delivery and its job commit together, no new
 * such delivery appears while the app runs.
 */
export async function requeueDeliveriesWithoutJob(em: EntityManager, log?: (message: string) => void): Promise<number> {
  const rows = await sqlRunner(em).rows<{ id: number }>(
    `select d.id from webhook_deliveries d
      where d.processed_at is null and d.error is null
        and not exists (select 1 from ${JOBS_SCHEMA}.job j
                         where j.name = $1 and j.state in ('created', 'retry', 'active') and j.data ->> 'deliveryId' = d.id::text)
      order by d.id`,
    [WEBHOOK_QUEUE],
  );
  for (const row of rows) await sendIntegrationJob(WEBHOOK_QUEUE, { deliveryId: row.id });
  if (rows.length > 0) log?.(`${rows.length} webhook deliveries had no job: queued.`);
  return rows.length;
}

const runJobData = z.object({ runId: z.number().int() });
const deliveryJobData = z.object({ deliveryId: z.number().int() });

/**
 * Webhook jobs fetched together, every 0.5 s (at once after a full fetch). A store's deliveries of a
 * fetch are ingested in one call, whose fixed cost (a transaction, the store's lock, the rollup
 * statements) dwarfs an order's: the larger a backlog, the larger the calls, so the worker catches
 * up instead of falling behind (at 100/s over 20 stores, fetches of 100 applied 52/s: BENCHMARKS.md).
 */
export const WEBHOOK_BATCH = { size: 1000, pollingIntervalSeconds: 0.5 };

export const INTEGRATION_JOBS: readonly JobDefinition[] = [
  {
    queue: SYNC_QUEUE,
    retryLimit: 3,
    // A backfill may take hours (a large shop read page by page): pg-boss's 15-minute expiry would
    // start it a second time while the first still runs. A dead worker is found by its heartbeat
    // (and, sooner, by the run's owner: recoverOrphanedRuns); 24 hours is pg-boss's maximum.
    expireInSeconds: 24 * 3600,
    heartbeatSeconds: 60,
    handle: (context: JobContext, data) => runSync(context.em, runJobData.parse(data).runId, { log: context.log }),
  },
  {
    queue: WEBHOOK_QUEUE,
    retryLimit: 5,
    retryDelaySeconds: 10,
    // Jobs a killed process had taken are retried 10 s after its last heartbeat (found within pg-boss's
    // 15 s pass: boss.ts), not after pg-boss's 15-minute expiry; a batch that runs 5 minutes is stuck.
    heartbeatSeconds: 10,
    expireInSeconds: 300,
    // The delivery rows are the record; 100 a second would otherwise keep 60 million finished jobs.
    deleteAfterSeconds: 3600,
    batch: WEBHOOK_BATCH,
    handle: async (context: JobContext, data) => {
      const [error] = await processWebhookDeliveries(context.em, [deliveryJobData.parse(data).deliveryId]);
      if (error) throw new Error(error);
    },
    handleBatch: (context: JobContext, data) => processWebhookDeliveries(context.em, data.map((item) => deliveryJobData.parse(item).deliveryId)),
  },
  {
    queue: SCHEDULE_QUEUE,
    cron: '*/15 * * * *',
    retryLimit: 1,
    handle: (context: JobContext) => scheduleIncrementalSyncs(context.em),
  },
  {
    queue: HEALTH_QUEUE,
    cron: '*/10 * * * *',
    retryLimit: 1,
    handle: (context: JobContext) => checkConnectionHealth(context.em, { log: context.log }),
  },
];

export const INTEGRATION_CHECKS: readonly RecurringCheck[] = [
  { name: 'integrations.orphaned-runs', everySeconds: 10, run: (context) => recoverOrphanedRuns(context.em, context.log) },
  // Once at start is what it is for; once a day after that costs nothing.
  { name: 'integrations.deliveries-without-job', everySeconds: 86_400, run: (context) => requeueDeliveriesWithoutJob(context.em, context.log) },
];
