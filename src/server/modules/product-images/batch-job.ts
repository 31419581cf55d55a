import type { EntityManager } from '@mikro-orm/postgresql';
import type { JobDefinition, RecurringCheck } from '../../jobs/queues.ts';
import { accessOf } from '../subscriptions/subscriptions.service.ts';
import { User } from '../users/user.entity.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { removeDeletedStoresImages } from './image-storage.ts';
import { ProductImageBatch } from './product-images.entities.ts';
import { PRODUCT_IMAGE_QUEUE, quotaBytesFor, runBatch } from './product-images.service.ts';

/** The quota a batch runs under: its requester's, as when they started it (an admin's own view included). */
async function batchQuota(em: EntityManager, storeId: number, batchId: number): Promise<number> {
  const batch = await em.findOne(ProductImageBatch, { store: storeId, id: batchId });
  const userId = batch?.requestedBy?.id;
  if (!userId) return 0;
  const user = await em.findOne(User, { id: userId });
  const access = await accessOf(em, userId);
  return quotaBytesFor(access.tier, Boolean(user?.isAdmin));
}

export async function runBatchJob(em: EntityManager, storeId: number, batchId: number): Promise<void> {
  await runBatch(em, storeId, batchId, await batchQuota(em, storeId, batchId));
}

/** A batch still queued or running this long after it started was lost with its process (the job's own limit is 30 min). */
export const STALE_BATCH_MS = 40 * 60 * 1000;
export const STALE_BATCH_MESSAGE = 'The batch was interrupted before it finished. Start it again for the remaining products.';

/** Marks batches whose job was lost as failed, so their screens stop waiting. */
export async function failStaleBatches(em: EntityManager, now = new Date()): Promise<number> {
  return em.nativeUpdate(
    ProductImageBatch,
    { status: { $in: ['queued', 'running'] }, createdAt: { $lt: new Date(now.getTime() - STALE_BATCH_MS) } },
    { status: 'failed', finishedAt: now },
  );
}

export const PRODUCT_IMAGE_CHECKS: readonly RecurringCheck[] = [{ name: 'product-images.stale-batches', everySeconds: 60, run: (context) => failStaleBatches(context.em) }];

export const PRODUCT_IMAGE_BATCH_JOB: JobDefinition = {
  queue: PRODUCT_IMAGE_QUEUE,
  retryLimit: 1,
  expireInSeconds: 30 * 60,
  handle: async (context, data) => {
    const { storeId, batchId } = (data ?? {}) as { storeId?: unknown; batchId?: unknown };
    if (typeof storeId !== 'number' || typeof batchId !== 'number') return;
    await runBatchJob(context.em.fork(), storeId, batchId);
  },
};

export const PRODUCT_IMAGE_REMOVAL_QUEUE = 'product-images.removals';

/** Hourly: the files of deleted stores that the storage refused to delete at the time (image-storage.ts). */
export const PRODUCT_IMAGE_REMOVAL_JOB: JobDefinition = {
  queue: PRODUCT_IMAGE_REMOVAL_QUEUE,
  cron: '37 * * * *',
  retryLimit: 1,
  handle: async (context) => {
    const { removed, failed } = await removeDeletedStoresImages(sqlRunner(context.em.fork()));
    if (removed + failed > 0) context.log(`product images: files of ${removed} deleted store(s) removed, ${failed} refused by the storage (retried next hour)`);
  },
};
