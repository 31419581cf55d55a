import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../../config.ts';
import { AppError } from '../../errors.ts';

// Generated images live on disk under DATA_DIR/product-images/<store_id>/<image id>.<webp|jpg>.
// Every path is built here from numbers, and checked to stay inside the store's own folder.

export const IMAGE_EXTENSIONS = ['webp', 'jpg'] as const;
export type ImageExtension = (typeof IMAGE_EXTENSIONS)[number];
export const FILE_REFUSED_MESSAGE = 'This file name is not allowed.';

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
  if (!Number.isSafeInteger(storeId) || storeId <= 0) throw new AppError('BAD_REQUEST', FILE_REFUSED_MESSAGE);
  return path.join(imageStorageRoot(), String(storeId));
}

/** The file of a store's image; a name that is not "<digits>.<webp|jpg>" or that resolves elsewhere is refused. */
export function storeFilePath(storeId: number, fileName: string): string {
  const folder = storeFolder(storeId);
  const resolved = path.resolve(folder, fileName);
  if (!/^[0-9]{1,12}\.(webp|jpg)$/.test(fileName) || path.dirname(resolved) !== folder) throw new AppError('BAD_REQUEST', FILE_REFUSED_MESSAGE);
  return resolved;
}

export function imageFileName(imageId: number, extension: ImageExtension): string {
  return `${imageId}.${extension}`;
}

export async function writeImageFiles(storeId: number, imageId: number, files: { webp: Buffer; jpeg: Buffer }): Promise<void> {
  await mkdir(storeFolder(storeId), { recursive: true });
  await writeFile(storeFilePath(storeId, imageFileName(imageId, 'webp')), files.webp);
  await writeFile(storeFilePath(storeId, imageFileName(imageId, 'jpg')), files.jpeg);
}

export async function removeImageFiles(storeId: number, imageId: number): Promise<void> {
  for (const extension of IMAGE_EXTENSIONS) await rm(storeFilePath(storeId, imageFileName(imageId, extension)), { force: true });
}

/** Every image file of a deleted store (its rows went with the store). */
export async function removeStoreImages(storeId: number): Promise<void> {
  await rm(storeFolder(storeId), { recursive: true, force: true });
}

/** Bytes the store's folder holds on disk (what the quota counts). */
export async function storeUsageBytes(storeId: number): Promise<number> {
  const folder = storeFolder(storeId);
  const names = await readdir(folder).catch(() => [] as string[]);
  let total = 0;
  for (const name of names) total += (await stat(path.join(folder, name)).catch(() => null))?.size ?? 0;
  return total;
}
