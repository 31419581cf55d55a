import { mkdir, open, readdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { loadConfig, type ImageStorageSettings } from '../../config.ts';
import { AppError } from '../../errors.ts';
import type { SqlRunner } from '../commerce/raw-sql.ts';

// Generated images are files <store_id>/<image id>.<webp|jpg>: on disk under DATA_DIR/product-images
// (IMAGE_STORAGE=local, the default) or as objects <S3_PREFIX>product-images/<store_id>/... in a bucket
// (IMAGE_STORAGE=s3). Every name is built here from numbers, and checked to stay inside the store's own folder.

export const IMAGE_EXTENSIONS = ['webp', 'jpg'] as const;
export type ImageExtension = (typeof IMAGE_EXTENSIONS)[number];
export const FILE_REFUSED_MESSAGE = 'This file name is not allowed.';
export const FILE_MISSING_MESSAGE = 'No such image file.';

/** Where a store's image files live. `fileName` is always a checked "<digits>.<webp|jpg>". */
export interface ImageStore {
  put(storeId: number, fileName: string, bytes: Buffer): Promise<void>;
  /** The file's bytes as a stream; NOT_FOUND when there is no such file. */
  get(storeId: number, fileName: string): Promise<Readable>;
  delete(storeId: number, fileName: string): Promise<void>;
  /** Every file of the store. */
  deleteStore(storeId: number): Promise<void>;
  /** Bytes the store's files hold (what the quota counts). */
  usageBytes(storeId: number): Promise<number>;
}

/** The store id as a folder name: a positive integer, never anything else. */
export function storeSegment(storeId: number): string {
  if (!Number.isSafeInteger(storeId) || storeId <= 0) throw new AppError('BAD_REQUEST', FILE_REFUSED_MESSAGE);
  return String(storeId);
}

export function checkedFileName(fileName: string): string {
  if (!/^[0-9]{1,12}\.(webp|jpg)$/.test(fileName)) throw new AppError('BAD_REQUEST', FILE_REFUSED_MESSAGE);
  return fileName;
}

export function imageFileName(imageId: number, extension: ImageExtension): string {
  return `${imageId}.${extension}`;
}

// ---------------------------------------------------------------------------------------------
// Local disk: DATA_DIR/product-images/<store_id>/<file>.

let root: string | null = null;

/** Another root than DATA_DIR/product-images (tests). */
export function configureImageStorage(directory: string): void {
  root = directory;
}

export function imageStorageRoot(): string {
  root ??= path.join(loadConfig().dataDir, 'product-images');
  return root;
}

export function storeFolder(storeId: number): string {
  return path.join(imageStorageRoot(), storeSegment(storeId));
}

/** The file of a store's image; a name that is not "<digits>.<webp|jpg>" or that resolves elsewhere is refused. */
export function storeFilePath(storeId: number, fileName: string): string {
  const folder = storeFolder(storeId);
  const resolved = path.resolve(folder, fileName);
  if (!/^[0-9]{1,12}\.(webp|jpg)$/.test(fileName) || path.dirname(resolved) !== folder) throw new AppError('BAD_REQUEST', FILE_REFUSED_MESSAGE);
  return resolved;
}

export const localImageStore: ImageStore = {
  async put(storeId, fileName, bytes) {
    await mkdir(storeFolder(storeId), { recursive: true });
    await writeFile(storeFilePath(storeId, fileName), bytes);
  },
  async get(storeId, fileName) {
    const handle = await open(storeFilePath(storeId, fileName)).catch((error: NodeJS.ErrnoException) => {
      throw error.code === 'ENOENT' ? new AppError('NOT_FOUND', FILE_MISSING_MESSAGE) : error;
    });
    return handle.createReadStream();
  },
  async delete(storeId, fileName) {
    await rm(storeFilePath(storeId, fileName), { force: true });
  },
  async deleteStore(storeId) {
    await rm(storeFolder(storeId), { recursive: true, force: true });
  },
  async usageBytes(storeId) {
    const folder = storeFolder(storeId);
    const names = await readdir(folder).catch(() => [] as string[]);
    let total = 0;
    for (const name of names) total += (await stat(path.join(folder, name)).catch(() => null))?.size ?? 0;
    return total;
  },
};

// ---------------------------------------------------------------------------------------------
// The store the configuration chooses.

let selected: Promise<ImageStore> | null = null;

/** The S3 client is loaded only when a bucket is configured. */
export async function imageStoreFor(settings: ImageStorageSettings): Promise<ImageStore> {
  if (settings.kind === 'local') return localImageStore;
  const { S3ImageStore } = await import('./s3-image-store.ts');
  return new S3ImageStore(settings);
}

/** Another store than the configuration's (tests); null goes back to the configuration's. */
export function useImageStore(store: ImageStore | null): void {
  selected = store ? Promise.resolve(store) : null;
}

export function imageStore(): Promise<ImageStore> {
  selected ??= imageStoreFor(loadConfig().imageStorage);
  return selected;
}

export async function writeImageFiles(storeId: number, imageId: number, files: { webp: Buffer; jpeg: Buffer }): Promise<void> {
  const store = await imageStore();
  await store.put(storeId, imageFileName(imageId, 'webp'), files.webp);
  await store.put(storeId, imageFileName(imageId, 'jpg'), files.jpeg);
}

export async function readImageFile(storeId: number, imageId: number, extension: ImageExtension): Promise<Readable> {
  return (await imageStore()).get(storeId, imageFileName(imageId, extension));
}

export async function readImageBytes(storeId: number, imageId: number, extension: ImageExtension): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await readImageFile(storeId, imageId, extension)) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

export async function removeImageFiles(storeId: number, imageId: number): Promise<void> {
  const store = await imageStore();
  for (const extension of IMAGE_EXTENSIONS) await store.delete(storeId, imageFileName(imageId, extension));
}

/** Every image file of a deleted store (its rows went with the store). */
export async function removeStoreImages(storeId: number): Promise<void> {
  await (await imageStore()).deleteStore(storeId);
}

/** Records that the stores' files must go: in the transaction that deletes the stores, so none is forgotten. */
export async function scheduleStoreImageRemoval(q: SqlRunner, storeIds: readonly number[]): Promise<void> {
  if (storeIds.length === 0) return;
  await q.run(`insert into product_image_removals (deleted_store_id, requested_at) select unnest($1::int[]), now() on conflict do nothing`, [storeIds]);
}

/** Deleted stores' files per removal run: one run of the job stays short even after a long outage of the bucket. */
export const REMOVALS_PER_RUN = 200;

/**
 * Removes the files of deleted stores (the ones given, or the oldest pending): a store whose files are
 * gone leaves the list, one the storage refused stays on it with the error for the next run. Never
 * throws: the deletion that asked has already happened, and its user is not told it failed.
 */
export async function removeDeletedStoresImages(q: SqlRunner, storeIds?: readonly number[]): Promise<{ removed: number; failed: number }> {
  const pending = storeIds
    ? await q.rows<{ deleted_store_id: number }>(`select deleted_store_id from product_image_removals where deleted_store_id = any($1::int[]) order by deleted_store_id`, [storeIds])
    : await q.rows<{ deleted_store_id: number }>(`select deleted_store_id from product_image_removals order by requested_at, deleted_store_id limit ${REMOVALS_PER_RUN}`);
  const outcome = { removed: 0, failed: 0 };
  for (const { deleted_store_id: storeId } of pending) {
    try {
      await removeStoreImages(storeId);
      await q.run(`delete from product_image_removals where deleted_store_id = $1`, [storeId]);
      outcome.removed += 1;
    } catch (error) {
      await q.run(`update product_image_removals set attempts = attempts + 1, last_error = $2 where deleted_store_id = $1`, [storeId, (error as Error).message.slice(0, 1000)]);
      outcome.failed += 1;
    }
  }
  return outcome;
}

/** Bytes the store's files hold (what the quota counts). */
export async function storeUsageBytes(storeId: number): Promise<number> {
  return (await imageStore()).usageBytes(storeId);
}
