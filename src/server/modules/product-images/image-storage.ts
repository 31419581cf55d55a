import { mkdir, open, readdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { loadConfig, type ImageStorageSettings } from '../../config.ts';
import { AppError } from '../../errors.ts';

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

/** Bytes the store's files hold (what the quota counts). */
export async function storeUsageBytes(storeId: number): Promise<number> {
  return (await imageStore()).usageBytes(storeId);
}
