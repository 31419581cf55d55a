import { queueAnomalyDetection } from '../anomalies/anomalies-jobs.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { SyncRunKind, SyncRunStatus } from '../../../shared/integrations.ts';
import type { PlatformKey } from '../../../shared/platforms.ts';
import { ConnectorAuthError, ConnectorRequestError, MalformedResponseError, type Connector, type ConnectorContext, type ConnectorCredentials, type PlatformAccount, type SyncBatch, type SyncWindow } from '../../connectors/connector.ts';
import { CredentialDecryptionError } from '../../connectors/credential-vault.ts';
import { PlatformHttp, type PlatformHttpOptions } from '../../connectors/http.ts';
import { connectorFor } from '../../connectors/registry.ts';
import { dayStartInZone } from '../../connectors/store-common.ts';
import { AppError } from '../../errors.ts';
import { crashPoint } from '../../jobs/crash-points.ts';
import { jobDatabaseOf } from '../../jobs/job-database.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { addDays, dayInZone } from '../commerce/days.ts';
import { replaceProductAdMetrics } from '../commerce/product-ad-metrics.ts';
import { INGEST_BATCH_SIZE, ingestAdMetrics, ingestEmailMetrics, ingestOrders, ingestRefunds, upsertProducts } from '../commerce/ingest.ts';
import { PlatformConnection, type PlatformConnectionEntity } from '../connections/platform-connection.entity.ts';
import { Store, type StoreEntity } from '../stores/store.entity.ts';
import { ConnectionAccount, SyncRun, type SyncRunEntity } from './integration.entities.ts';
import { ConnectionAuth } from './connection-auth.ts';
import { openCredentials } from './sealed-credentials.ts';
import { queueLoyaltyScores } from '../loyalty/loyalty-job.ts';
import { baseUrlFor, integrationsSettings, runningSyncs, sendIntegrationJob, type IntegrationsSettings } from './integrations-runtime.ts';
import { syncFailureMessage } from './platform-messages.ts';
import { reconcileAfterSync } from './reconciliation.ts';

// Runs one sync: page after page from the connector into ingest, the cursor stored after each page's
// rows are committed. A job retried after a crash finds the run 'running' with its cursor and goes on
// from there; ingest being idempotent, the one page that may be read twice changes nothing.
//
// A run belongs to the process running it (`owner`), which says so every 10 s (`owner_seen_at`). A
// run whose owner has not been seen for 30 s lost its process (kill -9, a crash, a machine gone):
// any process may take it over and continue from its cursor (the recurring check in
// integration-jobs.ts does within the next 10 s, "Sync now" at once). Two processes never run one run:
// taking a run is one conditional UPDATE, and an owner that finds its run taken stops.

export const SYNC_QUEUE = 'integrations.sync';

/** This process as the owner of the runs it executes (a restarted process is a new owner). */
export const RUN_OWNER = `${hostname().slice(0, 40)}:${process.pid}:${randomUUID().slice(0, 8)}`;
/** How often an owner says it is alive. */
const OWNER_REFRESH_MS = 10_000;
/** A running run whose owner has not been seen for this long lost its process. */
export const OWNER_LOST_SECONDS = 30;
/** The run's owner is gone (SQL over sync_runs): not seen for OWNER_LOST_SECONDS (runs of older versions: no progress for as long). */
const OWNER_LOST_SQL = `coalesce(owner_seen_at, heartbeat_at, created_at) < now() - make_interval(secs => ${OWNER_LOST_SECONDS})`;
/** A run taken over more often than this is failed instead: it may be what stops its process. */
const MAX_TAKEOVERS = 3;
export const RUN_KEEPS_STOPPING_MESSAGE = 'The sync stopped unexpectedly several times in a row and was given up; the next scheduled sync starts again from where the data ends.';

const DAY_MS = 86_400_000;
/**
 * Rows of pages ingested together: one ingest transaction's worth. Each batch recomputes the
 * contributions of every order of its customers, so a returning customer's history is read once per
 * batch they appear in: 100,000 Shopify orders took 53-64 s in 1,000-row batches, 37 s in 2,000-row
 * ones (BENCHMARKS.md), at ~10 MB more peak RSS.
 */
export const DEFAULT_INGEST_BATCH_ROWS = INGEST_BATCH_SIZE;
/** Incremental syncs of store platforms re-read this much before the last sync's end (orders edited late). */
const STORE_OVERLAP_MS = DAY_MS;
/**
 * Ads and e-mail platforms restate past days: conversions land on the day of the click for as long
 * as the attribution window runs (Meta 7-day click by default, Google Ads up to 90 days), invalid
 * clicks are credited back, late opens and clicks of an e-mail count on its send day (see
 * docs/platform-notes.md). Incremental syncs re-read the last 28 days, and once a week the last 90.
 */
export const RESTATED_DAYS = 28;
export const DEEP_RESTATED_DAYS = 90;
const DEEP_RESTATEMENT_EVERY_MS = 7 * DAY_MS;
/** A batch being read is handed over after this long even when it holds few rows (a platform still preparing a report): the run's cursor and heartbeat move on. */
const MAX_BATCH_READ_MS = 30_000;
export const CONNECTION_DISCONNECTED_STORED_CREDENTIALS = 'The stored credentials could not be decrypted (the encryption key changed?). Connect the platform again.';

export { credentialBinding, openCredentials, sealCredentials } from './sealed-credentials.ts';

function monthsBefore(instant: Date, months: number): Date {
  const result = new Date(instant);
  result.setUTCMonth(result.getUTCMonth() - months);
  return result;
}

/**
 * The window of a new run: the backfill's months, or since the last successful sync (with its
 * overlap). Store platforms read "changed in [since, until)" instants; ads and e-mail platforms read
 * reporting days, so their window runs from a day's start to the start of tomorrow (today included)
 * in the store's time zone.
 */
export function syncWindowFor(connection: PlatformConnectionEntity, kind: SyncRunKind, now: Date, timezone: string): SyncWindow {
  const connector = connectorFor(connection.platform);
  let since: Date;
  if (kind === 'backfill' || !connection.syncedUntil) since = monthsBefore(now, connection.backfillMonths);
  else if (connector.kind === 'store') since = new Date(connection.syncedUntil.getTime() - STORE_OVERLAP_MS);
  else since = new Date(Math.min(connection.syncedUntil.getTime(), now.getTime() - restatedDays(connection, now) * DAY_MS));
  if (connector.kind === 'store') return { since, until: now };
  const today = dayInZone(now, timezone);
  return { since: dayStartInZone(dayInZone(since, timezone), timezone), until: dayStartInZone(addDays(today, 1), timezone) };
}

/** How many past days an incremental sync of an ads or e-mail platform re-reads now. */
export function restatedDays(connection: Pick<PlatformConnectionEntity, 'deepRestatedAt'>, now: Date): number {
  const due = !connection.deepRestatedAt || now.getTime() - connection.deepRestatedAt.getTime() >= DEEP_RESTATEMENT_EVERY_MS;
  return due ? DEEP_RESTATED_DAYS : RESTATED_DAYS;
}

/** The run a connection has queued or running, if any. */
export async function activeRunOf(em: EntityManager, connection: PlatformConnectionEntity): Promise<SyncRunEntity | null> {
  return em.findOne(SyncRun, { connection: connection.id, status: { $in: ['queued', 'running'] }, cancelRequested: false }, { orderBy: { id: 'desc' } });
}

/**
 * Queues a sync of the connection (a backfill when it never synced, else incremental), unless one is
 * already queued or running: that one is returned instead (and taken over when its process is gone).
 */
export async function queueSync(em: EntityManager, connection: PlatformConnectionEntity, options: QueueOptions = {}): Promise<SyncRunEntity> {
  const active = await activeRunOf(em, connection);
  if (!active) return queueNewSync(em, connection, options);
  // "Sync now" on a run whose process is gone: taken over at once, continuing from its cursor.
  if ((await orphanedRuns(em, connection.id)).includes(active.id)) await takeOverRun(active.id);
  return active;
}

interface QueueOptions {
  kind?: SyncRunKind;
  now?: Date;
}

/** Queues a sync of a connection the caller knows has none queued or running. */
export async function queueNewSync(em: EntityManager, connection: PlatformConnectionEntity, options: QueueOptions = {}): Promise<SyncRunEntity> {
  const now = options.now ?? new Date();
  const kind: SyncRunKind = options.kind ?? (connection.syncedUntil ? 'incremental' : 'backfill');
  const store = await em.findOneOrFail(Store, { id: connection.store.id });
  const window = syncWindowFor(connection, kind, now, store.timezone);
  const run = em.create(SyncRun, { store: connection.store, connection, kind, windowSince: window.since, windowUntil: window.until });
  // The run and its job commit together: a crash cannot leave a queued run that no job will run.
  await em.transactional(async (tx) => {
    await tx.flush();
    await sendIntegrationJob(SYNC_QUEUE, { runId: run.id }, { db: jobDatabaseOf(tx) });
  });
  return run;
}

/**
 * The runs that lost their process: running, their owner not seen for OWNER_LOST_SECONDS. With
 * `connectionId`, that connection's only.
 */
export async function orphanedRuns(em: EntityManager, connectionId?: number): Promise<number[]> {
  const rows = await sqlRunner(em).rows<{ id: number }>(
    `select id from sync_runs where status = 'running' and not cancel_requested and ${OWNER_LOST_SQL} ${connectionId === undefined ? '' : 'and connection_id = $1'} order by id`,
    connectionId === undefined ? [] : [connectionId],
  );
  return rows.map((row) => row.id);
}

/**
 * Queues a job that takes the run over from its lost process (and continues it from its cursor); at
 * most one such job per run a minute, however often it is asked for.
 */
export async function takeOverRun(runId: number): Promise<void> {
  await sendIntegrationJob(SYNC_QUEUE, { runId }, { singletonKey: `sync-run-${runId}`, singletonSeconds: 60 });
}

/**
 * Makes `owner` the run's owner unless a live process owns it; returns how often the run has been
 * taken over, or null when it is not this owner's to run (another process runs it, or it ended).
 */
async function claimRun(em: EntityManager, runId: number, owner: string): Promise<number | null> {
  const [row] = await sqlRunner(em).rows<{ takeovers: number }>(
    `update sync_runs
        set takeovers = takeovers + case when owner is not null and owner <> $2 then 1 else 0 end,
            owner = $2, owner_seen_at = now()
      where id = $1 and status in ('queued', 'running')
        and ((status = 'queued' and owner is null) or owner = $2 or ${OWNER_LOST_SQL})
      returning takeovers`,
    [runId, owner],
  );
  return row ? row.takeovers : null;
}

/** Refreshes the owner's sign of life every OWNER_REFRESH_MS; calls `onLost` if the run was taken over meanwhile. */
function holdRun(em: EntityManager, runId: number, owner: string, onLost: () => void) {
  const q = sqlRunner(em.fork());
  let lost = false;
  let refreshing: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    refreshing = q
      .run(`update sync_runs set owner_seen_at = now() where id = $1 and owner = $2`, [runId, owner])
      .then((updated) => {
        if (updated === 0 && !lost) {
          lost = true;
          onLost();
        }
      })
      // The database unreachable for a moment: the next refresh tries again.
      .catch(() => undefined);
  }, OWNER_REFRESH_MS);
  timer.unref();
  return {
    get lost() {
      return lost;
    },
    async release() {
      clearInterval(timer);
      await refreshing;
    },
  };
}

export interface RunSyncOptions {
  settings?: IntegrationsSettings;
  /** PlatformHttp settings (tests: a sleep that only records the wait). */
  http?: Partial<PlatformHttpOptions>;
  /** Another connector for the run's platform (tests: smaller pages). */
  connector?: Connector;
  /** After a batch's rows are committed and before its cursor is stored: tests simulate a crash here. */
  afterIngest?: (batchNumber: number) => void | Promise<void>;
  /** The process the run belongs to while it runs (default RUN_OWNER; tests: another process). */
  owner?: string;
  /** Pages are read until they hold this many rows, then ingested at once (1: every page on its own). */
  ingestBatchRows?: number;
  now?: () => Date;
  log?: (message: string) => void;
}

class SyncCancelled extends Error {}
/** The run was taken over by another process (this one was taken for lost): it stops without touching the run. */
class RunTakenOver extends Error {}

/** Consecutive pages read from the platform, merged, and the cursor after them (null: the source has no more). */
interface PagesRead {
  batch: SyncBatch;
  rows: number;
  cursor: string | null;
}

/** The connector context of a connection (base URL from the configuration, the store's zone and currency). */
export function connectorContext(
  settings: IntegrationsSettings,
  platform: PlatformKey,
  credentials: ConnectorCredentials,
  store: Pick<StoreEntity, 'timezone' | 'currency'>,
  http: Partial<PlatformHttpOptions> = {},
  accounts: PlatformAccount[] = [],
): ConnectorContext {
  return {
    baseUrl: baseUrlFor(settings, platform, credentials),
    credentials,
    http: new PlatformHttp({ platform, ...http }),
    store: { timezone: store.timezone, currency: store.currency },
    accounts,
  };
}

/** The accounts of a connection the user chose to sync (ads platforms whose login reaches several). */
export async function chosenAccounts(em: EntityManager, connection: Pick<PlatformConnectionEntity, 'id' | 'store'>): Promise<PlatformAccount[]> {
  const rows = await em.find(ConnectionAccount, { store: connection.store.id, connection: connection.id, selected: true, isManager: false }, { orderBy: { id: 'asc' } });
  return rows.map((row) => ({
    accountId: row.accountId,
    name: row.name,
    currency: row.currency ?? null,
    timezone: row.timezone ?? null,
    ...(row.access ? { access: row.access } : {}),
  }));
}

/** The context a connection's calls run in, with its chosen accounts, and the ConnectionAuth that keeps its token fresh. */
export async function connectionAuthOf(
  em: EntityManager,
  settings: IntegrationsSettings,
  connection: PlatformConnectionEntity,
  credentials: ConnectorCredentials,
  store: Pick<StoreEntity, 'timezone' | 'currency'>,
  options: { http?: Partial<PlatformHttpOptions>; connector?: Connector; now?: () => Date } = {},
): Promise<ConnectionAuth> {
  const ctx = connectorContext(settings, connection.platform, credentials, store, options.http, await chosenAccounts(em, connection));
  return new ConnectionAuth(em, options.connector ?? connectorFor(connection.platform), connection, ctx, settings, options.now);
}

/** Rows that count as progress: what the connectors' estimatedTotal counts (orders, campaign days). */
function progressRows(batch: SyncBatch): number {
  return (batch.orders?.length ?? 0) + (batch.adMetrics?.length ?? 0) + (batch.emailMetrics?.length ?? 0);
}

/** Consecutive pages as one batch (rows in page order; the last estimate wins). */
function mergePages(pages: SyncBatch[]): SyncBatch {
  if (pages.length === 1) return pages[0]!;
  const merged: Required<Omit<SyncBatch, 'estimatedTotal' | 'nextCursor'>> & Pick<SyncBatch, 'estimatedTotal' | 'nextCursor'> = {
    products: [], orders: [], refunds: [], adMetrics: [], emailMetrics: [], productAdSlices: [], warnings: [], nextCursor: pages.at(-1)!.nextCursor,
  };
  for (const page of pages) {
    if (page.products) merged.products.push(...page.products);
    if (page.orders) merged.orders.push(...page.orders);
    if (page.refunds) merged.refunds.push(...page.refunds);
    if (page.adMetrics) merged.adMetrics.push(...page.adMetrics);
    if (page.emailMetrics) merged.emailMetrics.push(...page.emailMetrics);
    if (page.productAdSlices) merged.productAdSlices.push(...page.productAdSlices);
    for (const warning of page.warnings ?? []) if (!merged.warnings.includes(warning)) merged.warnings.push(warning);
    if (page.estimatedTotal !== undefined) merged.estimatedTotal = page.estimatedTotal;
  }
  return merged;
}

async function ingestBatch(em: EntityManager, storeId: number, batch: SyncBatch): Promise<void> {
  if (batch.products?.length) await upsertProducts(em, storeId, batch.products);
  if (batch.orders?.length) await ingestOrders(em, storeId, batch.orders);
  if (batch.refunds?.length) await ingestRefunds(em, storeId, batch.refunds);
  if (batch.adMetrics?.length) await ingestAdMetrics(em, storeId, batch.adMetrics);
  if (batch.emailMetrics?.length) await ingestEmailMetrics(em, storeId, batch.emailMetrics);
  if (batch.productAdSlices?.length) await replaceProductAdMetrics(em, storeId, batch.productAdSlices);
}

/** Marks the connection disconnected: its credentials no longer work (they are deleted); its data stays. */
export async function disconnectConnection(em: EntityManager, connection: PlatformConnectionEntity, reason: string | null): Promise<void> {
  connection.status = 'disconnected';
  connection.connected = false;
  connection.sealedCredentials = null;
  connection.disconnectReason = reason;
  await em.flush();
}

function errorMessage(error: unknown): string {
  return (error as Error)?.message ?? String(error);
}

/** Failures that end the run (shown to the user) rather than a crash for pg-boss to retry. */
function isRunFailure(error: unknown): boolean {
  return error instanceof ConnectorRequestError || error instanceof MalformedResponseError || error instanceof AppError;
}

/**
 * Runs (or resumes) the sync run `runId` to its end; returns its final status. A run already finished
 * is left alone. Errors the run cannot recover from end it ('failed', or the connection disconnected
 * on an auth failure); anything else (the database went away...) is thrown for the job to be retried.
 */
export async function runSync(em: EntityManager, runId: number, options: RunSyncOptions = {}): Promise<SyncRunStatus> {
  const settings = options.settings ?? integrationsSettings();
  const now = options.now ?? (() => new Date());
  const run = await em.findOne(SyncRun, { id: runId });
  if (!run) return 'failed';
  if (run.status !== 'queued' && run.status !== 'running') return run.status;
  const owner = options.owner ?? RUN_OWNER;
  const takeovers = await claimRun(em, run.id, owner);
  if (takeovers === null) {
    options.log?.(`Sync ${run.id} is run by another process: left to it.`);
    return run.status;
  }
  const connection = await em.findOneOrFail(PlatformConnection, { id: run.connection.id });
  const store = await em.findOneOrFail(Store, { id: run.store.id });
  const connector = options.connector ?? connectorFor(connection.platform);

  const finish = async (status: SyncRunStatus, error: string | null = null, finishedAt: Date = now()) => {
    run.status = status;
    run.error = error;
    run.finishedAt = finishedAt;
    run.heartbeatAt = run.finishedAt;
    await em.flush();
  };

  if (run.cancelRequested) {
    await finish('cancelled');
    return 'cancelled';
  }
  if (takeovers > MAX_TAKEOVERS) {
    options.log?.(`Sync ${run.id} (${connection.platform}) lost its process ${takeovers} times: given up.`);
    if (connection.status === 'syncing') connection.status = 'connected';
    await finish('failed', RUN_KEEPS_STOPPING_MESSAGE);
    return 'failed';
  }
  let credentials: ConnectorCredentials | null;
  try {
    credentials = openCredentials(settings, connection);
  } catch (error) {
    if (!(error instanceof CredentialDecryptionError)) throw error;
    await disconnectConnection(em, connection, CONNECTION_DISCONNECTED_STORED_CREDENTIALS);
    await finish('failed', CONNECTION_DISCONNECTED_STORED_CREDENTIALS);
    return 'failed';
  }
  if (!credentials) {
    await finish('failed', 'The platform is not connected.');
    return 'failed';
  }

  run.status = 'running';
  run.startedAt ??= now();
  run.heartbeatAt = now();
  connection.status = 'syncing';
  await em.flush();

  const controller = new AbortController();
  runningSyncs.set(run.id, controller);
  const hold = holdRun(em, run.id, owner, () => controller.abort(new RunTakenOver('taken over')));
  try {
    const auth = await connectionAuthOf(em, settings, connection, credentials, store, { http: { ...options.http, signal: controller.signal }, connector, now });
    const ctx = auth.ctx;
    const window: SyncWindow = { since: run.windowSince, until: run.windowUntil };
    const warnings = new Set<string>(run.warnings ?? []);
    let reading: Promise<PagesRead> | undefined;
    try {
      // Pages are ingested together up to ingestBatchRows rows: ingest's cost per call (one transaction,
      // rollup deltas, customer aggregates) dwarfs a 100-order page. The cursor stored is the one after
      // the last page ingested, so a crash re-reads at most one ingest batch, which changes nothing.
      const ingestBatchRows = options.ingestBatchRows ?? DEFAULT_INGEST_BATCH_ROWS;
      // Each page with a fresh token: refreshed before it when it expires soon, and after a refusal,
      // once (ConnectionAuth), however long the sync runs.
      const readBatch = async (from: string | null): Promise<PagesRead> => {
        const pages: SyncBatch[] = [];
        const started = Date.now();
        let rows = 0;
        let cursor = from;
        do {
          if (await cancelRequested(em, run.id)) throw new SyncCancelled();
          const page = await auth.call((context) => connector.fetchBatch(context, window, cursor));
          pages.push(page);
          rows += progressRows(page);
          cursor = page.nextCursor;
        } while (cursor !== null && rows < ingestBatchRows && Date.now() - started < MAX_BATCH_READ_MS);
        return { batch: mergePages(pages), rows, cursor };
      };
      let batchCursor = run.cursor ?? null;
      reading = readBatch(batchCursor);
      for (let batchNumber = 1; ; batchNumber++) {
        const read = await reading!;
        // The platform's next pages are read while this batch is written.
        if (read.cursor !== null) {
          reading = readBatch(read.cursor);
          reading.catch(() => undefined); // awaited (and its error handled) at the next turn
        }
        // Pages read ahead may predate a cancel: nothing more is written after one.
        if (hold.lost) throw new RunTakenOver();
        if (controller.signal.aborted || (await cancelRequested(em, run.id))) throw new SyncCancelled();
        await ingestBatch(em, store.id, read.batch);
        await options.afterIngest?.(batchNumber);
        crashPoint('sync.ingested');
        if (hold.lost) throw new RunTakenOver();
        run.cursor = batchCursor = read.cursor;
        run.rowsDone += read.rows;
        for (const warning of read.batch.warnings ?? []) warnings.add(warning);
        run.warnings = [...warnings];
        if (read.batch.estimatedTotal !== undefined) run.estimatedTotal = read.batch.estimatedTotal;
        run.heartbeatAt = now();
        await em.flush();
        if (read.cursor === null) break;
      }
    } catch (error) {
      runningSyncs.delete(run.id);
      const takenOver = hold.lost || error instanceof RunTakenOver;
      const cancelled = !takenOver && (error instanceof SyncCancelled || controller.signal.aborted);
      // Pages being read ahead are of no use now: stopped, and waited for, before anything else.
      controller.abort(new SyncCancelled('stopped'));
      await reading?.catch(() => undefined);
      if (takenOver) {
        options.log?.(`Sync ${run.id} (${connection.platform}) was taken over by another process: this one stops.`);
        return 'running';
      }
      // The user may have disconnected meanwhile: work on the connection as it is now.
      await em.findOne(PlatformConnection, { id: connection.id }, { refresh: true });
      if (cancelled) {
        if (connection.status === 'syncing') connection.status = 'connected';
        await finish('cancelled');
        return 'cancelled';
      }
      if (error instanceof ConnectorAuthError) {
        options.log?.(`Sync ${run.id} (${connection.platform}): credentials refused: ${error.reason}`);
        if (connection.sealedCredentials) await disconnectConnection(em, connection, error.reason);
        await finish('failed', error.reason);
        return 'failed';
      }
      if (isRunFailure(error)) {
        options.log?.(`Sync ${run.id} (${connection.platform}) failed: ${errorMessage(error)}`);
        const message = syncFailureMessage(connection.platform, error);
        if (connection.sealedCredentials) connection.status = 'error';
        connection.lastError = message;
        await finish('failed', message);
        return 'failed';
      }
      throw error;
    }
    runningSyncs.delete(run.id);
    if (hold.lost) return 'running';

    const finishedAt = now();
    await em.findOne(PlatformConnection, { id: connection.id }, { refresh: true });
    if (connection.sealedCredentials) {
      connection.status = 'connected';
      connection.connected = true;
      connection.lastError = null;
    }
    connection.lastSyncAt = finishedAt;
    if (!connection.syncedUntil || connection.syncedUntil < run.windowUntil) connection.syncedUntil = run.windowUntil;
    if (connector.kind !== 'store' && run.windowUntil.getTime() - run.windowSince.getTime() >= DEEP_RESTATED_DAYS * DAY_MS) connection.deepRestatedAt = finishedAt;
    connection.rowsSynced += run.rowsDone;

    // The comparison is stored before the run is marked done, so a screen that sees the run succeed
    // sees its comparison too.
    try {
      await reconcileAfterSync(em, { connection, store, connector, ctx, window, checkedAt: finishedAt });
    } catch (error) {
      // The data is in; a platform that cannot say its own totals right now is no reason to fail the sync.
      options.log?.(`Reconciliation of ${connection.platform} for store ${store.id} failed: ${errorMessage(error)}`);
    }
    await finish('succeeded', null, finishedAt);
    // New orders: the store's loyalty scores are recomputed (modules/loyalty/loyalty-job.ts). A
    // failed enqueue does not fail a finished sync: the nightly run catches the store up.
    if (connector.kind === 'store') {
      await queueLoyaltyScores(store.id).catch((error: unknown) => options.log?.(`Queueing the loyalty scores of store ${store.id} failed: ${errorMessage(error)}`));
    }
    // The store's anomalies are judged again with the data just synced (modules/anomalies).
    await queueAnomalyDetection(store.id).catch((error: unknown) => options.log?.(`Queueing anomaly detection for store ${store.id} failed: ${errorMessage(error)}`));
    return 'succeeded';
  } finally {
    runningSyncs.delete(run.id);
    // Until the run is finished, it stays this process's.
    await hold.release();
  }
}

async function cancelRequested(em: EntityManager, runId: number): Promise<boolean> {
  const rows = await em.getConnection().execute<{ cancel_requested: boolean }[]>('select cancel_requested from sync_runs where id = ?', [runId]);
  return rows[0]?.cancel_requested === true;
}

/** Asks a run to stop: at once when it runs in this process, else at its next page. */
export async function requestCancel(em: EntityManager, run: SyncRunEntity): Promise<void> {
  if (run.status === 'queued') {
    run.status = 'cancelled';
    run.finishedAt = new Date();
  }
  run.cancelRequested = true;
  await em.flush();
  runningSyncs.get(run.id)?.abort(new SyncCancelled('cancelled'));
}
