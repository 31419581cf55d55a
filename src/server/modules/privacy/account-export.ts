import type { EntityManager } from '@mikro-orm/postgresql';
import { Zip, ZipDeflate, strToU8 } from 'fflate';
import { createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import { ACCOUNT_EXPORT_DAYS, type AccountExportRow } from '../../../shared/privacy.ts';
import { csvRow, type CsvCell } from '../../../shared/csv.ts';
import type { JobDefinition } from '../../jobs/queues.ts';
import { AppError } from '../../errors.ts';
import { sqlRunner, type SqlRunner } from '../commerce/raw-sql.ts';
import { sendEmail } from '../email/email.service.ts';
import { sendIntegrationJob } from '../integrations/integrations-runtime.ts';
import type { UserEntity } from '../users/user.entity.ts';
import { privacyDataDir } from './privacy.service.ts';

// A user's export of all their data (README, "Privacy"): asked for on /settings, built by the
// `privacy.account-export` job into a zip under DATA_DIR/account-exports/<user id>/ (a JSON and a CSV
// per table), downloadable by that user for ACCOUNT_EXPORT_DAYS, announced by e-mail. A store of a
// million orders never sits in memory: every table is read through a server-side cursor in batches
// and streamed into the zip on disk.

export const ACCOUNT_EXPORT_QUEUE = 'privacy.account-export';
export const ACCOUNT_EXPORT_NOT_FOUND_MESSAGE = 'Export not found';
const DAY_MS = 86_400_000;
export const EXPORT_BATCH = 5_000;

type Row = Record<string, unknown>;

function exportsDir(userId: number, dataDir: string): string {
  return path.join(dataDir, 'account-exports', String(userId));
}

/** What goes into the export: per file name, the query ($1 = the user's id, $2 = the ids of the stores they own). */
const TABLES: [string, string][] = [
  ['account', `select id, username, email, is_admin, is_guest, created_at, trial_started_at, deletion_scheduled_for from users where id = $1 and $2::int[] is not null`],
  ['preferences', `select marketing_emails from users where id = $1 and $2::int[] is not null`],
  ['subscriptions', `select s.id, p.name as plan, s.status, s.provider, s.current_period_start, s.current_period_end, s.canceled_at, s.created_at from subscriptions s join plans p on p.id = s.plan_id where s.user_id = $1 and $2::int[] is not null order by s.id`],
  ['stores', `select id, name, currency, timezone, created_at from stores where id = any($2::int[]) and $1::int is not null order by id`],
  ['orders', `select * from orders where store_id = any($2::int[]) and $1::int is not null order by store_id, id`],
  ['order_lines', `select * from order_lines where store_id = any($2::int[]) and $1::int is not null order by store_id, order_id, id`],
  ['refunds', `select * from refunds where store_id = any($2::int[]) and $1::int is not null order by store_id, id`],
  // The sealed name and e-mail stay sealed: they are the shops' customers' data, not the user's.
  ['customers', `select id, store_id, platform, external_id, email_hash, first_order_at, orders_count, total_spent_minor, updated_at from customers where store_id = any($2::int[]) and $1::int is not null order by store_id, id`],
  ['products', `select * from products where store_id = any($2::int[]) and $1::int is not null order by store_id, id`],
  ['ad_metrics', `select * from ad_metrics_daily where store_id = any($2::int[]) and $1::int is not null order by store_id, day`],
  ['expenses', `select * from expenses where store_id = any($2::int[]) and $1::int is not null order by store_id, id`],
  ['reports', `select * from saved_reports where store_id = any($2::int[]) and $1::int is not null order by store_id, id`],
  ['guests', `select g.store_id, u.username, u.email, g.created_at from store_guests g join users u on u.id = g.user_id where g.store_id = any($2::int[]) and $1::int is not null order by g.store_id, g.created_at`],
  ['guest_invitations', `select id, store_id, email, expires_at, accepted_at, revoked_at, created_at from guest_invitations where store_id = any($2::int[]) and $1::int is not null order by id`],
  ['audit_log', `select id, action, actor_user_id, target_user_id, details, created_at from audit_log_entries where (actor_user_id = $1 or target_user_id = $1) and $2::int[] is not null order by id`],
];

function cell(value: unknown): CsvCell {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return value as CsvCell;
}

/** Rows of `query` in batches through a cursor (in the caller's transaction). */
async function* batches(q: SqlRunner, name: string, query: string, values: unknown[], batchSize: number): AsyncGenerator<Row[]> {
  const cursor = `export_${name}`;
  await q.run(`declare ${cursor} no scroll cursor for ${query}`, values);
  try {
    for (;;) {
      const rows = await q.rows<Row>(`fetch forward ${batchSize} from ${cursor}`);
      if (rows.length === 0) return;
      yield rows;
    }
  } finally {
    await q.run(`close ${cursor}`);
  }
}

/** Writes the zip to `file`, each table as `<name>.json` (an array) and `<name>.csv`; returns its size. */
async function writeExportZip(q: SqlRunner, file: string, userId: number, storeIds: number[], batchSize: number): Promise<number> {
  const out = createWriteStream(file);
  const pending: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((error, chunk) => {
    if (error) failure = error;
    else pending.push(chunk);
  });
  const flush = async () => {
    if (failure) throw failure;
    while (pending.length > 0) {
      if (!out.write(pending.shift()!)) await once(out, 'drain');
    }
  };
  for (const [name, query] of TABLES) {
    const json = new ZipDeflate(`${name}.json`, { level: 6 });
    zip.add(json);
    json.push(strToU8('['));
    let first = true;
    for await (const rows of batches(q, name, query, [userId, storeIds], batchSize)) {
      let text = '';
      for (const row of rows) {
        text += `${first ? '' : ','}\n${JSON.stringify(row)}`;
        first = false;
      }
      json.push(strToU8(text));
      await flush();
    }
    json.push(strToU8('\n]\n'), true);
    await flush();

    const csv = new ZipDeflate(`${name}.csv`, { level: 6 });
    zip.add(csv);
    let header: string[] | null = null;
    for await (const rows of batches(q, name, query, [userId, storeIds], batchSize)) {
      let text = '';
      if (!header) {
        header = Object.keys(rows[0]!);
        text += csvRow(header);
      }
      for (const row of rows) text += csvRow(header.map((column) => cell(row[column])));
      csv.push(strToU8(text));
      await flush();
    }
    csv.push(new Uint8Array(0), true);
    await flush();
  }
  zip.end();
  await flush();
  out.end();
  await once(out, 'finish');
  return (await stat(file)).size;
}

export function toAccountExportRow(row: { id: number; status: AccountExportRow['status']; size_bytes: number; created_at: Date; finished_at: Date | null; expires_at: Date | null }): AccountExportRow {
  return {
    id: row.id,
    status: row.status,
    sizeBytes: row.size_bytes,
    createdAt: new Date(row.created_at).toISOString(),
    finishedAt: row.finished_at ? new Date(row.finished_at).toISOString() : null,
    expiresAt: row.expires_at ? new Date(row.expires_at).toISOString() : null,
  };
}

const SELECT = `select id, status, size_bytes, created_at, finished_at, expires_at from account_exports`;

/** The user's latest export that has not expired, if any. */
export async function latestAccountExport(em: EntityManager, user: UserEntity, now = new Date()): Promise<AccountExportRow | null> {
  const [row] = await sqlRunner(em).rows<Parameters<typeof toAccountExportRow>[0]>(
    `${SELECT} where user_id = $1 and (expires_at is null or expires_at > $2) order by id desc limit 1`,
    [user.id, now],
  );
  return row ? toAccountExportRow(row) : null;
}

/** Queues an export of everything the user holds (one at a time: an export still being built is returned). */
export async function requestAccountExport(em: EntityManager, user: UserEntity): Promise<AccountExportRow> {
  const q = sqlRunner(em);
  const [building] = await q.rows<Parameters<typeof toAccountExportRow>[0]>(`${SELECT} where user_id = $1 and status in ('queued', 'running') order by id desc limit 1`, [user.id]);
  if (building) return toAccountExportRow(building);
  const [row] = await q.rows<Parameters<typeof toAccountExportRow>[0]>(
    `insert into account_exports (user_id, status, size_bytes, created_at) values ($1, 'queued', 0, now()) returning id, status, size_bytes, created_at, finished_at, expires_at`,
    [user.id],
  );
  await sendIntegrationJob(ACCOUNT_EXPORT_QUEUE, { exportId: row!.id }, { singletonKey: `account-export:${row!.id}` });
  return toAccountExportRow(row!);
}

/** The job: builds the zip, marks it ready for ACCOUNT_EXPORT_DAYS and e-mails the user. Idempotent: a ready export is left as it is. */
export async function runAccountExport(em: EntityManager, exportId: number, options: { baseUrl?: string; batchSize?: number; dataDir?: string; now?: Date } = {}): Promise<void> {
  const q = sqlRunner(em);
  const [job] = await q.rows<{ user_id: number; status: string; username: string; email: string }>(
    `select e.user_id, e.status, u.username, u.email from account_exports e join users u on u.id = e.user_id where e.id = $1`,
    [exportId],
  );
  if (!job || job.status === 'ready') return;
  await q.run(`update account_exports set status = 'running' where id = $1`, [exportId]);
  const dir = exportsDir(job.user_id, options.dataDir ?? privacyDataDir());
  await mkdir(dir, { recursive: true });
  const fileName = `storepulse-export-${exportId}.zip`;
  const file = path.join(dir, fileName);
  try {
    const size = await em.transactional(async (tx) => {
      const txq = sqlRunner(tx);
      const stores = (await txq.rows<{ id: number }>(`select id from stores where owner_id = $1 order by id`, [job.user_id])).map((row) => row.id);
      return writeExportZip(txq, file, job.user_id, stores, options.batchSize ?? EXPORT_BATCH);
    });
    const now = options.now ?? new Date();
    const expiresAt = new Date(now.getTime() + ACCOUNT_EXPORT_DAYS * DAY_MS);
    await q.run(`update account_exports set status = 'ready', file_name = $2, size_bytes = $3, finished_at = $4, expires_at = $5, error = null where id = $1`, [exportId, fileName, size, now, expiresAt]);
    await sendEmail(em, {
      to: job.email,
      template: 'account_export_ready',
      userId: job.user_id,
      variables: { username: job.username, expiryDate: expiresAt.toISOString().slice(0, 10), settingsUrl: `${options.baseUrl ?? ''}/settings#export-data` },
    });
  } catch (error) {
    await rm(file, { force: true });
    await q.run(`update account_exports set status = 'failed', error = $2 where id = $1`, [exportId, (error as Error).message.slice(0, 500)]);
    throw error;
  }
}

/** Where the zip of one of the user's own ready exports is; not found for anyone else's or an expired one. */
export async function accountExportFile(em: EntityManager, user: UserEntity, id: number, now = new Date()): Promise<{ path: string; downloadName: string }> {
  const [row] = await sqlRunner(em).rows<{ file_name: string | null; expires_at: Date | null }>(
    `select file_name, expires_at from account_exports where id = $1 and user_id = $2 and status = 'ready'`,
    [id, user.id],
  );
  if (!row?.file_name || !row.expires_at || new Date(row.expires_at).getTime() <= now.getTime()) throw new AppError('NOT_FOUND', ACCOUNT_EXPORT_NOT_FOUND_MESSAGE);
  const file = path.join(exportsDir(user.id, privacyDataDir()), row.file_name);
  await stat(file).catch(() => {
    throw new AppError('NOT_FOUND', ACCOUNT_EXPORT_NOT_FOUND_MESSAGE);
  });
  return { path: file, downloadName: row.file_name };
}

/** Every export file of the user (their account is being deleted). */
export async function deleteAccountExportFiles(userId: number, dataDir = privacyDataDir()): Promise<void> {
  await rm(exportsDir(userId, dataDir), { recursive: true, force: true });
}

/** The daily cleanup: expired exports' files and rows. */
export async function deleteExpiredAccountExports(q: SqlRunner, now = new Date(), dataDir = privacyDataDir()): Promise<number> {
  const deleted = await q.rows<{ user_id: number; file_name: string | null }>(`delete from account_exports where expires_at <= $1 returning user_id, file_name`, [now]);
  for (const row of deleted) if (row.file_name) await rm(path.join(exportsDir(row.user_id, dataDir), row.file_name), { force: true });
  return deleted.length;
}

export const ACCOUNT_EXPORT_JOB: JobDefinition = {
  queue: ACCOUNT_EXPORT_QUEUE,
  retryLimit: 2,
  retryDelaySeconds: 60,
  expireInSeconds: 2 * 60 * 60,
  handle: async (context, data) => {
    const exportId = (data as { exportId?: unknown } | null)?.exportId;
    if (typeof exportId !== 'number') return;
    await runAccountExport(context.em.fork(), exportId, { baseUrl: context.baseUrl });
  },
};
