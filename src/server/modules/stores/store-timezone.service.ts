import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { z } from 'zod';
import {
  TIMEZONE_CHANGE_RUNNING_MESSAGE,
  TIMEZONE_MAX_LENGTH,
  isKnownTimeZone,
  unknownTimeZoneMessage,
  type TimezoneChange,
} from '../../../shared/stores.ts';
import { AppError } from '../../errors.ts';
import type { JobDefinition } from '../../jobs/queues.ts';
import { settleCustomerAggregates } from '../commerce/ingest.ts';
import { sqlRunner, type SqlRunner } from '../commerce/raw-sql.ts';
import { requestRecompute } from '../attribution/credits.ts';
import { analyzeCommerceTables, lockStoreForIngest, recomputeRollups } from '../commerce/rollups.ts';
import { sendIntegrationJob } from '../integrations/integrations-runtime.ts';

// A store's days are bucketed in its time zone (stores.timezone): orders.placed_day and
// refunds.refunded_day are stored, and the three rollup tables are built from them (the cohort day of
// the LTV columns too). customers.total_spent_minor converts each order at its placed day's rate.
// Everything else that speaks of a store's days computes them when asked (dashboard, reports,
// syncs). Ad and e-mail rows keep their day: it is the platform's reporting day in the ad account's
// own zone, which our zone does not change.
//
// Changing the zone of a store with data is a job: ONE transaction, holding the store's ingest lock
// (so no batch writes meanwhile), recomputes those days chunk by chunk, settles the customers' totals,
// rebuilds the rollups from the raw rows and sets stores.timezone. Readers see the old zone and the
// old figures until it commits, then the new ones. Its progress is written after each chunk through
// another connection of the pool, outside the transaction, so the screen can show it meanwhile.

export const STORE_TIMEZONE_QUEUE = 'stores.timezone';

/** Rows per recompute statement: a progress write after each (a 1M-order store: 200 of them). */
export const TIMEZONE_CHANGE_CHUNK_ROWS = 5000;

/** A running change whose progress has not moved for this long lost its worker (its transaction rolled back). */
export const STALE_TIMEZONE_CHANGE_MS = 15 * 60_000;
export const STALE_TIMEZONE_CHANGE_MESSAGE =
  'The recomputation stopped unexpectedly (the server may have restarted). The store kept its previous time zone: choose the new one again.';

/** Serialises the requests to change one store's zone (not its ingest). */
const CHANGE_REQUEST_LOCK = 'storepulse.stores.timezone';

const CHANGE_COLUMNS = `store_id, id, from_timezone, to_timezone, status, rows_done, rows_total, error,
  to_json(created_at)#>>'{}' as created_at, to_json(started_at)#>>'{}' as started_at, to_json(finished_at)#>>'{}' as finished_at,
  updated_at < now() - make_interval(secs => ${STALE_TIMEZONE_CHANGE_MS / 1000}) as stale`;

interface ChangeRow {
  store_id: number;
  id: number;
  from_timezone: string;
  to_timezone: string;
  status: TimezoneChange['status'];
  rows_done: number;
  rows_total: number | null;
  error: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  stale: boolean;
}

/** A change as the screens see it; a running change that stopped moving reads as failed. */
function toTimezoneChange(row: ChangeRow): TimezoneChange {
  const lost = row.status === 'running' && row.stale;
  return {
    id: row.id,
    storeId: row.store_id,
    fromTimezone: row.from_timezone,
    toTimezone: row.to_timezone,
    status: lost ? 'failed' : row.status,
    rowsDone: row.rows_done,
    rowsTotal: row.rows_total,
    error: lost ? STALE_TIMEZONE_CHANGE_MESSAGE : row.error,
    createdAt: new Date(row.created_at).toISOString(),
    startedAt: row.started_at && new Date(row.started_at).toISOString(),
    finishedAt: row.finished_at && new Date(row.finished_at).toISOString(),
  };
}

async function readChange(q: SqlRunner, storeId: number, changeId: number): Promise<TimezoneChange> {
  const [row] = await q.rows<ChangeRow>(`select ${CHANGE_COLUMNS} from store_timezone_changes where store_id = $1 and id = $2`, [storeId, changeId]);
  if (!row) throw new AppError('NOT_FOUND', 'Time zone change not found');
  return toTimezoneChange(row);
}

/** The store's latest change of zone with a rebuild (queued, running or finished), or null. */
export async function latestTimezoneChange(em: EntityManager, storeId: number): Promise<TimezoneChange | null> {
  const [row] = await sqlRunner(em).rows<ChangeRow>(
    `select ${CHANGE_COLUMNS} from store_timezone_changes where store_id = $1 order by id desc limit 1`,
    [storeId],
  );
  return row ? toTimezoneChange(row) : null;
}

/**
 * The zone if this runtime and PostgreSQL both know it by exactly this name (see isKnownTimeZone;
 * PostgreSQL buckets the days, and its list, pg_timezone_names, has the IANA names with their case:
 * https://www.postgresql.org/docs/current/view-pg-timezone-names.html); else 400 "Unknown time zone: X".
 */
export async function assertKnownTimeZone(em: EntityManager, timezone: string): Promise<string> {
  const refused = () => new AppError('BAD_REQUEST', unknownTimeZoneMessage(timezone), { fieldErrors: [{ field: 'timezone', message: unknownTimeZoneMessage(timezone) }] });
  if (typeof timezone !== 'string' || timezone.length === 0 || timezone.length > TIMEZONE_MAX_LENGTH || !isKnownTimeZone(timezone)) throw refused();
  const [known] = await sqlRunner(em).rows<{ known: boolean }>(`select exists (select 1 from pg_timezone_names where name = $1) as known`, [timezone]);
  if (!known?.known) throw refused();
  return timezone;
}

/** Whether the store has any row whose figures depend on its days (orders, refunds) or feed its rollups (ad, e-mail rows). */
async function hasCommerceRows(q: SqlRunner, storeId: number): Promise<boolean> {
  const [row] = await q.rows<{ any: boolean }>(
    `select exists (select 1 from orders where store_id = $1) or exists (select 1 from refunds where store_id = $1)
         or exists (select 1 from ad_metrics_daily where store_id = $1) or exists (select 1 from email_metrics_daily where store_id = $1) as any`,
    [storeId],
  );
  return row!.any;
}

export interface ChangeStoreTimezoneOptions {
  /**
   * Run the rebuild in this process before returning (the admin CLI, tests) instead of putting it on
   * the `stores.timezone` queue. Without it, and without a queue in this process (no pg-boss), the
   * change stays queued until it is requested again where a queue runs.
   */
  runNow?: boolean | RunTimezoneChangeOptions;
}

/**
 * Sets a store's time zone (an IANA name, e.g. 'America/New_York') and moves its figures to the new
 * days. The caller decides who may (stores.update: the owner, never in guest mode); the integrations
 * module calls it when a Shopify or WooCommerce shop connects, with the shop's own zone.
 *
 * - An unknown zone: 400 "Unknown time zone: X".
 * - The store's zone already: nothing happens; returns null.
 * - A store without orders, refunds, ad or e-mail rows: the zone is set at once; returns null.
 * - Otherwise a change is recorded and its rebuild queued (or run, with `runNow`); returns the change
 *   (its progress: latestTimezoneChange). Until the rebuild commits the store keeps its old zone.
 * - A change already queued gets this target instead (the job reads the target when it starts, so the
 *   latest choice wins at no cost). A change already running refuses with 409: it is one transaction
 *   that cannot change course, and a second rebuild queued behind it would recompute everything twice
 *   while the progress bar showed the first. Asking for a running change's own target returns it.
 */
export async function changeStoreTimezone(
  em: EntityManager,
  store: { id: number },
  timezone: string,
  options: ChangeStoreTimezoneOptions = {},
): Promise<TimezoneChange | null> {
  await assertKnownTimeZone(em, timezone);
  const changeId = await em.transactional(async (tx) => {
    const q = sqlRunner(tx);
    await q.run(`select pg_advisory_xact_lock(hashtext($1), $2::int)`, [CHANGE_REQUEST_LOCK, store.id]);
    await failLostChange(q, store.id);
    const [pending] = await q.rows<{ id: number; status: string; to_timezone: string }>(
      `select id, status, to_timezone from store_timezone_changes where store_id = $1 and status in ('queued', 'running')`,
      [store.id],
    );
    if (pending) {
      if (pending.to_timezone === timezone) return pending.id;
      if (pending.status === 'queued') {
        // The job may claim it right now: only a change still queued takes the new target.
        const replaced = await q.run(
          `update store_timezone_changes set to_timezone = $3, updated_at = now() where store_id = $1 and id = $2 and status = 'queued'`,
          [store.id, pending.id, timezone],
        );
        if (replaced === 1) return pending.id;
      }
      throw new AppError('CONFLICT', TIMEZONE_CHANGE_RUNNING_MESSAGE(pending.to_timezone));
    }
    const [current] = await q.rows<{ timezone: string }>(`select timezone from stores where id = $1`, [store.id]);
    if (!current) throw new AppError('NOT_FOUND', 'Store not found');
    if (current.timezone === timezone) return null;
    if (!(await hasCommerceRows(q, store.id))) {
      // Under the ingest lock no batch can be writing the store's first rows meanwhile (a demo load
      // that is, finishes first: then the store has rows and a rebuild is queued below).
      await lockStoreForIngest(q, store.id);
      if (!(await hasCommerceRows(q, store.id))) {
        await q.run(`update stores set timezone = $2, updated_at = now() where id = $1`, [store.id, timezone]);
        return null;
      }
    }
    const [created] = await q.rows<{ id: number }>(
      `insert into store_timezone_changes (store_id, from_timezone, to_timezone, status, created_at, updated_at)
       values ($1, $2, $3, 'queued', now(), now()) returning id`,
      [store.id, current.timezone, timezone],
    );
    return created!.id;
  });
  if (changeId === null) return null;
  const ref = { storeId: store.id, changeId };
  if (options.runNow) await runTimezoneChange(em, ref, options.runNow === true ? {} : options.runNow);
  else await sendIntegrationJob(STORE_TIMEZONE_QUEUE, ref);
  return readChange(sqlRunner(em), store.id, changeId);
}

/** Marks the store's running change failed when it stopped moving long ago (its worker died; its transaction rolled back). */
async function failLostChange(q: SqlRunner, storeId: number): Promise<void> {
  await q.run(
    `update store_timezone_changes set status = 'failed', error = $2, finished_at = now(), updated_at = now()
      where store_id = $1 and status = 'running' and updated_at < now() - make_interval(secs => $3)`,
    [storeId, STALE_TIMEZONE_CHANGE_MESSAGE, STALE_TIMEZONE_CHANGE_MS / 1000],
  );
}

export interface TimezoneChangeStep {
  phase: 'days' | 'committing';
  rowsDone: number;
  rowsTotal: number;
}

export interface RunTimezoneChangeOptions {
  chunkRows?: number;
  /**
   * Called inside the transaction after each chunk's progress is written ('days') and once all is
   * written, just before the commit ('committing'). Tests read the database from elsewhere here.
   */
  afterStep?: (step: TimezoneChangeStep) => void | Promise<void>;
  log?: (message: string) => void;
}

// One chunk of rows after a cursor (by id, the primary key's second column): the day of each in the
// new zone, written only where it moves. Returns the chunk's size and last id.
function recomputeDaysSql(table: 'orders' | 'refunds', instant: string, day: string): string {
  return `with chunk as (
       select t.id, (t.${instant} at time zone $4)::date as day, t.${day} as old_day
         from ${table} t where t.store_id = $1 and t.id > $2::bigint order by t.id limit $3
     ), moved as (
       update ${table} t set ${day} = c.day from chunk c
        where t.store_id = $1 and t.id = c.id and c.old_day <> c.day
       returning 1
     )
     select count(*)::int as rows, max(c.id)::text as last, (select count(*)::int from moved) as moved from chunk c`;
}

const RECOMPUTE_PLACED_DAYS_SQL = recomputeDaysSql('orders', 'placed_at', 'placed_day');
const RECOMPUTE_REFUNDED_DAYS_SQL = recomputeDaysSql('refunds', 'refunded_at', 'refunded_day');

/**
 * The job: claims the queued change, then in one transaction under the store's ingest lock moves
 * every order and refund to its day in the new zone, settles the customers' totals (each order is
 * converted at its day's rate), rebuilds the rollups from the raw rows, sets stores.timezone and
 * marks the change succeeded, all in the same commit. Progress goes through another connection. A
 * failure rolls everything back and records the error. A change already claimed (a repeated job) is
 * left alone. Returns the change as it ends, or null when there was nothing to do.
 */
export async function runTimezoneChange(
  em: EntityManager,
  ref: { storeId: number; changeId: number },
  options: RunTimezoneChangeOptions = {},
): Promise<TimezoneChange | null> {
  const { storeId, changeId } = ref;
  const chunkRows = options.chunkRows ?? TIMEZONE_CHANGE_CHUNK_ROWS;
  // Statements on the pool itself take a connection of their own: never the transaction's.
  const pool = (await em.getConnection().getNativeClient()) as pg.Pool;
  const claimed = await pool.query<{ to_timezone: string }>(
    `update store_timezone_changes set status = 'running', started_at = now(), updated_at = now(), rows_done = 0, rows_total = null, error = null
      where store_id = $1 and id = $2 and status = 'queued' returning to_timezone`,
    [storeId, changeId],
  );
  const target = claimed.rows[0]?.to_timezone;
  if (target === undefined) return null;
  const writeProgress = (rowsDone: number, rowsTotal: number) =>
    pool.query(
      `update store_timezone_changes set rows_done = $3, rows_total = $4, updated_at = now() where store_id = $1 and id = $2 and status = 'running'`,
      [storeId, changeId, rowsDone, rowsTotal],
    );

  const started = performance.now();
  try {
    await em.transactional(async (tx) => {
      const q = sqlRunner(tx);
      const store = await lockStoreForIngest(q, storeId);
      // The settle and the rebuild sort and hash every order of the store (see bulkLoad).
      await q.run(`set local work_mem = '256MB'`);
      const [counts] = await q.rows<{ orders: number; refunds: number }>(
        `select (select count(*) from orders where store_id = $1)::int as orders, (select count(*) from refunds where store_id = $1)::int as refunds`,
        [storeId],
      );
      const rowsTotal = counts!.orders + counts!.refunds;
      let rowsDone = 0;
      await writeProgress(rowsDone, rowsTotal);
      for (const sql of [RECOMPUTE_PLACED_DAYS_SQL, RECOMPUTE_REFUNDED_DAYS_SQL]) {
        let after = '0';
        for (;;) {
          const [chunk] = await q.rows<{ rows: number; last: string | null }>(sql, [storeId, after, chunkRows, target]);
          if (!chunk || chunk.rows === 0) break;
          rowsDone += chunk.rows;
          after = chunk.last!;
          await writeProgress(rowsDone, rowsTotal);
          await options.afterStep?.({ phase: 'days', rowsDone, rowsTotal });
          if (chunk.rows < chunkRows) break;
        }
      }
      await analyzeCommerceTables(q);
      await settleCustomerAggregates(q, storeId, store.currency);
      await recomputeRollups(q, storeId);
      // The attribution credits' days move too: every order credited again in the background.
      await requestRecompute(q, storeId);
      await q.run(`update stores set timezone = $2, updated_at = now() where id = $1`, [storeId, target]);
      // Last, so that no progress write of the pool waits for this row's lock.
      await q.run(
        `update store_timezone_changes set status = 'succeeded', from_timezone = $3, rows_done = $4, rows_total = $4, finished_at = now(), updated_at = now()
          where store_id = $1 and id = $2`,
        [storeId, changeId, store.timezone, rowsTotal],
      );
      await options.afterStep?.({ phase: 'committing', rowsDone, rowsTotal });
    });
    options.log?.(`Store ${storeId}: time zone changed to ${target}, figures rebuilt in ${Math.round(performance.now() - started)} ms`);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await pool.query(
      `update store_timezone_changes set status = 'failed', error = $3, finished_at = now(), updated_at = now() where store_id = $1 and id = $2 and status = 'running'`,
      [storeId, changeId, message],
    );
    options.log?.(`Store ${storeId}: changing the time zone to ${target} failed: ${message}`);
  }
  return readChange(sqlRunner(em), storeId, changeId);
}

const jobData = z.object({ storeId: z.number().int(), changeId: z.number().int() });

export const STORE_TIMEZONE_JOB: JobDefinition = {
  queue: STORE_TIMEZONE_QUEUE,
  // The job records its own failures on the change; a retry (after a crash) finds it claimed and does nothing.
  retryLimit: 2,
  handle: (context, data) => runTimezoneChange(context.em, jobData.parse(data), { log: context.log }),
};
