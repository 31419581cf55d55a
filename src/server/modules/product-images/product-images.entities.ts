import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { BATCH_STATUSES, GALLERY_FORMATS, type GenerationOptions, type MainImageChecks } from '../../../shared/product-images.ts';
import { Store } from '../stores/store.entity.ts';
import { User } from '../users/user.entity.ts';

/**
 * One generated image: metadata only. Its bytes are two files (WebP and JPEG) under
 * DATA_DIR/product-images/<store_id>/<id>.webp|.jpg or objects in an S3 bucket (image-storage.ts), never in the database.
 */
export const ProductImage = defineEntity({
  name: 'ProductImage',
  tableName: 'product_images',
  properties: {
    store: () => p.manyToOne(Store).primary().deleteRule('cascade'),
    id: p.integer().primary().autoincrement(),
    batchId: p.integer().nullable(),
    /** The store's product it was made from (null for an upload), and its title then (or the file name). */
    productId: p.bigint('number').nullable(),
    title: p.text(),
    format: p.enum(GALLERY_FORMATS),
    width: p.integer(),
    height: p.integer(),
    webpBytes: p.integer(),
    jpegBytes: p.integer(),
    /** The main image's checks, measured on the output's pixels; null for social formats. */
    checks: p.json<MainImageChecks>().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  primaryKeys: ['store', 'id'],
  indexes: [{ properties: ['store', 'createdAt'] }, { properties: ['store', 'batchId'] }],
});
export type ProductImageEntity = InferEntity<typeof ProductImage>;

/** A batch: the products and options asked for, and the job's progress (n of m, failures per product). */
export const ProductImageBatch = defineEntity({
  name: 'ProductImageBatch',
  tableName: 'product_image_batches',
  properties: {
    store: () => p.manyToOne(Store).primary().deleteRule('cascade'),
    id: p.integer().primary().autoincrement(),
    status: p.enum(BATCH_STATUSES).default('queued'),
    productIds: p.json<number[]>(),
    options: p.json<GenerationOptions>(),
    total: p.integer(),
    done: p.integer().default(0),
    failures: p.json<{ productId: number; title: string; reason: string }[]>(),
    requestedBy: () => p.manyToOne(User).deleteRule('set null').nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    finishedAt: p.datetime().nullable(),
  },
  primaryKeys: ['store', 'id'],
  indexes: [{ properties: ['store', 'createdAt'] }],
});
export type ProductImageBatchEntity = InferEntity<typeof ProductImageBatch>;

/** Per store: the brand colour of the social formats. */
export const ProductImageSettings = defineEntity({
  name: 'ProductImageSettings',
  tableName: 'product_image_settings',
  properties: {
    store: () => p.manyToOne(Store).primary().deleteRule('cascade'),
    brandColor: p.string().length(7),
  },
});

/**
 * The image files of a deleted store still to remove: written in the deleting transaction, removed
 * once the storage has deleted them, so a bucket that refuses at that moment is retried by a job
 * instead of leaving the files behind. Not a `store_id` column: the store row is gone.
 */
export const ProductImageRemoval = defineEntity({
  name: 'ProductImageRemoval',
  tableName: 'product_image_removals',
  properties: {
    deletedStoreId: p.integer().primary().autoincrement(false),
    requestedAt: p.datetime().onCreate(() => new Date()),
    attempts: p.integer().default(0),
    lastError: p.text().nullable(),
  },
});
