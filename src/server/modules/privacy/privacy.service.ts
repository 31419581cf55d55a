import type { EntityManager } from '@mikro-orm/postgresql';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PRIVACY_EXPORT_DAYS, type PrivacyRequestKind, type PrivacyRequestRow } from '../../../shared/privacy.ts';
import { AppError } from '../../errors.ts';
import type { SqlRunner } from '../commerce/raw-sql.ts';
import { loadConfig } from '../../config.ts';
import type { UserEntity } from '../users/user.entity.ts';
import { collectCustomerExport, customerExportZip, type CustomerExportTarget } from './customer-export.ts';

// Privacy requests about a store's customers and their exports (README, "Privacy"). The zips live
// under DATA_DIR/privacy-exports/<store id>/ (ARCHITECTURE: files never in the database); the rows
// say whose they are. Only the store's owner lists and downloads them: never an invited viewer, and
// never an administrator in guest mode (the export holds a customer's personal data).

export const PRIVACY_REQUEST_NOT_FOUND_MESSAGE = 'Privacy request not found';
export const PRIVACY_REQUEST_EXPIRED_MESSAGE = 'This export has expired';
export const PRIVACY_REQUEST_OWNER_ONLY_MESSAGE = "Only the store's owner can see its privacy requests";

const DAY_MS = 86_400_000;

let configuredDataDir: string | null = null;

/** The app's DATA_DIR, set once at start (buildApp); read from the environment when not set. */
export function configurePrivacyFiles(dataDir: string): void {
  configuredDataDir = dataDir;
}

export function privacyDataDir(): string {
  configuredDataDir ??= loadConfig().dataDir;
  return configuredDataDir;
}

function exportsDir(storeId: number, dataDir: string): string {
  return path.join(dataDir, 'privacy-exports', String(storeId));
}

export interface CustomerDataRequest {
  kind: PrivacyRequestKind;
  shop: string;
  customerExternalId: string;
  platformRequestId: string | null;
}

/** Builds the customer's export, stores the zip and records the request; returns its id. Runs in the caller's transaction. */
export async function createCustomerDataExport(
  q: SqlRunner,
  target: CustomerExportTarget,
  request: CustomerDataRequest,
  now = new Date(),
  dataDir = privacyDataDir(),
): Promise<{ id: number; ordersCount: number; sizeBytes: number }> {
  const data = await collectCustomerExport(q, target);
  const expiresAt = new Date(now.getTime() + PRIVACY_EXPORT_DAYS * DAY_MS);
  const [row] = await q.rows<{ id: number }>(
    `insert into privacy_requests (store_id, kind, shop, customer_external_id, platform_request_id, orders_count, file_name, size_bytes, created_at, expires_at)
     values ($1, $2, $3, $4, $5, $6, '', 0, $7, $8) returning id`,
    [target.storeId, request.kind, request.shop, request.customerExternalId, request.platformRequestId, data.ordersCount, now, expiresAt],
  );
  const id = row!.id;
  const zip = customerExportZip(data, {
    request: { id, kind: request.kind, shop: request.shop, customerId: request.customerExternalId, platformRequestId: request.platformRequestId, createdAt: now.toISOString(), expiresAt: expiresAt.toISOString() },
  });
  const fileName = `customer-data-${id}.zip`;
  const dir = exportsDir(target.storeId, dataDir);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, fileName), zip);
  await q.run(`update privacy_requests set file_name = $2, size_bytes = $3 where id = $1`, [id, fileName, zip.byteLength]);
  return { id, ordersCount: data.ordersCount, sizeBytes: zip.byteLength };
}

/** Deletes the store's exports (all, or those about the given platform customer ids): rows and files. */
export async function deletePrivacyExports(q: SqlRunner, storeId: number, customerExternalIds: readonly string[] | null = null, dataDir = privacyDataDir()): Promise<number> {
  const deleted = await q.rows<{ file_name: string }>(
    `delete from privacy_requests where store_id = $1 and ($2::text[] is null or customer_external_id = any($2::text[])) returning file_name`,
    [storeId, customerExternalIds],
  );
  for (const { file_name: fileName } of deleted) if (fileName) await rm(path.join(exportsDir(storeId, dataDir), fileName), { force: true });
  return deleted.length;
}

/** Deletes the exports past their expiry (rows and files); the daily cleanup. */
export async function deleteExpiredPrivacyExports(q: SqlRunner, now = new Date(), dataDir = privacyDataDir()): Promise<number> {
  const deleted = await q.rows<{ store_id: number; file_name: string }>(`delete from privacy_requests where expires_at <= $1 returning store_id, file_name`, [now]);
  for (const row of deleted) if (row.file_name) await rm(path.join(exportsDir(row.store_id, dataDir), row.file_name), { force: true });
  return deleted.length;
}

function ownerOnly(guestMode: boolean): void {
  if (guestMode) throw new AppError('FORBIDDEN', PRIVACY_REQUEST_OWNER_ONLY_MESSAGE);
}

/** The privacy requests of every store the user owns, newest first (expired ones left out). */
export async function listPrivacyRequests(em: EntityManager, user: UserEntity, guestMode: boolean, now = new Date()): Promise<PrivacyRequestRow[]> {
  ownerOnly(guestMode);
  const rows = await em.getConnection().execute<
    { id: number; kind: PrivacyRequestKind; store_id: number; store_name: string; shop: string; customer_external_id: string; orders_count: number; size_bytes: number; created_at: Date; expires_at: Date }[]
  >(
    `select r.id, r.kind, r.store_id, s.name as store_name, r.shop, r.customer_external_id, r.orders_count, r.size_bytes, r.created_at, r.expires_at
       from privacy_requests r join stores s on s.id = r.store_id
      where s.owner_id = ? and r.expires_at > ?
      order by r.created_at desc, r.id desc limit 200`,
    [user.id, now],
  );
  return rows.map((row) => ({
    id: row.id,
    kind: row.kind,
    storeId: row.store_id,
    storeName: row.store_name,
    shop: row.shop,
    customerId: row.customer_external_id,
    ordersCount: row.orders_count,
    sizeBytes: row.size_bytes,
    createdAt: new Date(row.created_at).toISOString(),
    expiresAt: new Date(row.expires_at).toISOString(),
  }));
}

/** Where the zip of one of the user's privacy requests is, for the download; not found for anyone else's. */
export async function privacyRequestFile(em: EntityManager, user: UserEntity, guestMode: boolean, id: number, now = new Date(), dataDir = privacyDataDir()): Promise<{ path: string; downloadName: string }> {
  ownerOnly(guestMode);
  const [row] = await em.getConnection().execute<{ store_id: number; file_name: string; expires_at: Date }[]>(
    `select r.store_id, r.file_name, r.expires_at from privacy_requests r join stores s on s.id = r.store_id where r.id = ? and s.owner_id = ?`,
    [id, user.id],
  );
  if (!row || !row.file_name) throw new AppError('NOT_FOUND', PRIVACY_REQUEST_NOT_FOUND_MESSAGE);
  if (new Date(row.expires_at).getTime() <= now.getTime()) throw new AppError('NOT_FOUND', PRIVACY_REQUEST_EXPIRED_MESSAGE);
  const file = path.join(exportsDir(row.store_id, dataDir), row.file_name);
  await stat(file).catch(() => {
    throw new AppError('NOT_FOUND', PRIVACY_REQUEST_NOT_FOUND_MESSAGE);
  });
  return { path: file, downloadName: row.file_name };
}
