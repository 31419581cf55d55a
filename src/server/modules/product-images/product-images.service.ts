import type { EntityManager } from '@mikro-orm/postgresql';
import sharp from 'sharp';
import {
  ADMIN_STORAGE_QUOTA_BYTES, DEFAULT_BRAND_COLOUR, QUOTA_FULL_MESSAGE, STORAGE_QUOTA_BYTES,
  type BatchAnswer, type GalleryFormat, type GalleryImage, type GenerationOptions, type ImageFormat, type SourceProduct,
} from '../../../shared/product-images.ts';
import type { PlanTier } from '../../../shared/plans.ts';
import { AppError } from '../../errors.ts';
import type { OutboundPolicy } from '../../outbound/outbound-http.ts';
import { Product } from '../commerce/product.entity.ts';
import { sendIntegrationJob } from '../integrations/integrations-runtime.ts';
import { discountBadge, formatPrice, renderMainImage, renderSocialImage, type RenderedImage } from './image-generator.ts';
import { demoProductPhoto, fetchProductImage, isDemoProduct } from './image-source.ts';
import { IMAGE_MODEL_FAILED_MESSAGE, IMAGE_MODEL_NOT_CONFIGURED_MESSAGE, type ImageModel } from './image-model.ts';
import { readImageBytes, removeImageFiles, storeUsageBytes, writeImageFiles } from './image-storage.ts';
import { ProductImage, ProductImageBatch, ProductImageSettings, type ProductImageBatchEntity, type ProductImageEntity } from './product-images.entities.ts';

// The product image generator of the active store. Every query is scoped by store id, so another
// store's image, batch or product id is simply not found.

export const PRODUCT_IMAGE_QUEUE = 'product-images.batch';
export const IMAGE_NOT_FOUND_MESSAGE = 'This image does not exist, or it belongs to another store.';
export const BATCH_NOT_FOUND_MESSAGE = 'This batch does not exist, or it belongs to another store.';
export const SOURCE_PRODUCT_NOT_FOUND_MESSAGE = 'This product does not exist in the active store.';
export const NO_PRODUCT_IMAGE_MESSAGE = 'This product has no image. Upload one instead.';
export const SOURCE_PRODUCTS_LIMIT = 200;
export const GALLERY_LIMIT = 500;

export function quotaBytesFor(tier: PlanTier | null, adminOwnView: boolean): number {
  if (adminOwnView) return Math.max(ADMIN_STORAGE_QUOTA_BYTES, tier ? STORAGE_QUOTA_BYTES[tier] : 0);
  return tier ? STORAGE_QUOTA_BYTES[tier] : 0;
}

export interface SourceImage {
  bytes: Buffer;
  title: string;
  productId: number | null;
  priceMinor: number | null;
  currency: string | null;
}

export function galleryImageOf(image: ProductImageEntity): GalleryImage {
  return {
    id: image.id,
    batchId: image.batchId ?? null,
    productId: image.productId ?? null,
    title: image.title,
    format: image.format,
    width: image.width,
    height: image.height,
    webpBytes: image.webpBytes,
    jpegBytes: image.jpegBytes,
    checks: image.checks ?? null,
    createdAt: image.createdAt.toISOString(),
  };
}

export async function brandColourOf(em: EntityManager, storeId: number): Promise<string> {
  return (await em.findOne(ProductImageSettings, { store: storeId }))?.brandColor ?? DEFAULT_BRAND_COLOUR;
}

export async function setBrandColour(em: EntityManager, storeId: number, colour: string): Promise<void> {
  await em.upsert(ProductImageSettings, { store: storeId, brandColor: colour.toUpperCase() });
}

/** The store's products a source image can come from: those with an image URL, and the demo catalogue's. */
export async function sourceProducts(em: EntityManager, storeId: number, search: string): Promise<SourceProduct[]> {
  const rows = await em.find(
    Product,
    {
      store: storeId,
      $or: [{ imageUrl: { $ne: null } }, { externalId: { $like: 'demo-product-%' } }],
      ...(search ? { $and: [{ $or: [{ title: { $ilike: `%${search.replace(/[\\%_]/g, '\\$&')}%` } }, { sku: { $ilike: `%${search.replace(/[\\%_]/g, '\\$&')}%` } }] }] } : {}),
    },
    { orderBy: { title: 'asc', id: 'asc' }, limit: SOURCE_PRODUCTS_LIMIT },
  );
  return rows.map((row) => ({ id: row.id, title: row.title, sku: row.sku ?? null, priceMinor: row.priceMinor, currency: row.currency, hasOwnImage: Boolean(row.imageUrl) }));
}

/** A product's source image: its synced image URL through the outbound module, or the demo photo. */
export async function productSource(em: EntityManager, storeId: number, productId: number, policy?: OutboundPolicy): Promise<SourceImage> {
  const product = await em.findOne(Product, { store: storeId, id: productId });
  if (!product) throw new AppError('NOT_FOUND', SOURCE_PRODUCT_NOT_FOUND_MESSAGE);
  let bytes: Buffer;
  if (product.imageUrl) bytes = await fetchProductImage(product.imageUrl, policy);
  else if (isDemoProduct(product)) bytes = await demoProductPhoto(product.id);
  else throw new AppError('BAD_REQUEST', NO_PRODUCT_IMAGE_MESSAGE);
  return { bytes, title: product.title, productId: product.id, priceMinor: product.priceMinor, currency: product.currency };
}

async function render(source: SourceImage, options: GenerationOptions, brandColour: string): Promise<RenderedImage[]> {
  const salePrice = source.priceMinor !== null && options.discountPercent ? Math.round((source.priceMinor * (100 - options.discountPercent)) / 100) : source.priceMinor;
  const overlay = {
    brandColour,
    badge: options.discountPercent ? discountBadge(options.discountPercent, options.locale) : null,
    price: options.showPrice && salePrice !== null && source.currency ? formatPrice(salePrice, source.currency, options.locale) : null,
    text: options.text,
  };
  const images: RenderedImage[] = [];
  for (const format of new Set<ImageFormat>(options.formats)) {
    images.push(format === 'main' ? await renderMainImage(source.bytes, options.mainSize) : await renderSocialImage(source.bytes, format, overlay));
  }
  return images;
}

/** Renders the chosen formats of one source, and stores them if the store's quota has room for them. */
export async function generateImages(
  em: EntityManager,
  storeId: number,
  source: SourceImage,
  options: GenerationOptions,
  quotaBytes: number,
  batchId: number | null = null,
): Promise<GalleryImage[]> {
  let images: RenderedImage[];
  try {
    images = await render(source, options, await brandColourOf(em, storeId));
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError('BAD_REQUEST', `The image could not be processed (${error instanceof Error ? error.message.split('\n')[0] : String(error)}).`);
  }
  return storeImages(em, storeId, { title: source.title, productId: source.productId }, images, quotaBytes, batchId);
}

/** Writes rendered images (files, then rows) if the store's quota has room for all of them. */
async function storeImages(
  em: EntityManager,
  storeId: number,
  origin: { title: string; productId: number | null },
  images: readonly RenderedImage[],
  quotaBytes: number,
  batchId: number | null,
): Promise<GalleryImage[]> {
  const newBytes = images.reduce((sum, image) => sum + image.webp.length + image.jpeg.length, 0);
  if ((await storeUsageBytes(storeId)) + newBytes > quotaBytes) throw new AppError('PRECONDITION_FAILED', QUOTA_FULL_MESSAGE);
  const saved: GalleryImage[] = [];
  for (const image of images) {
    const row = em.create(ProductImage, {
      store: storeId, batchId, productId: origin.productId, title: origin.title, format: image.format,
      width: image.width, height: image.height, webpBytes: image.webp.length, jpegBytes: image.jpeg.length, checks: image.checks,
    });
    await em.flush();
    try {
      await writeImageFiles(storeId, row.id, image);
    } catch (error) {
      // The storage that refused the write may refuse the clean-up too: the row goes in any case.
      await removeImageFiles(storeId, row.id).catch(() => undefined);
      await em.nativeDelete(ProductImage, { store: storeId, id: row.id });
      throw error;
    }
    saved.push(galleryImageOf(row));
  }
  return saved;
}

/**
 * A lifestyle variant of one of the store's images by the image model: the image (as a 1024 px PNG)
 * and the prompt go to /images/edits; the answer is stored like any generated image.
 */
export async function aiVariant(em: EntityManager, storeId: number, imageId: number, prompt: string, quotaBytes: number, model: ImageModel | null): Promise<GalleryImage> {
  if (!model) throw new AppError('PRECONDITION_FAILED', IMAGE_MODEL_NOT_CONFIGURED_MESSAGE);
  const [image] = await ownImages(em, storeId, [imageId]);
  const png = await sharp(await readImageBytes(storeId, image!.id, 'jpg'))
    .resize(1024, 1024, { fit: 'contain', background: '#ffffff' })
    .png()
    .toBuffer();
  const answer = await model.edit(png, prompt);
  const meta = await sharp(answer).metadata().catch(() => null);
  if (!meta?.width || !meta.height) throw new AppError('BAD_GATEWAY', IMAGE_MODEL_FAILED_MESSAGE);
  const flat = sharp(answer).flatten({ background: '#ffffff' });
  const [webp, jpeg] = await Promise.all([flat.clone().webp({ quality: 90 }).toBuffer(), flat.clone().jpeg({ quality: 90, mozjpeg: true }).toBuffer()]);
  const rendered: RenderedImage = { format: 'lifestyle', width: meta.width, height: meta.height, webp, jpeg, checks: null };
  const [saved] = await storeImages(em, storeId, { title: image!.title, productId: image!.productId ?? null }, [rendered], quotaBytes, null);
  return saved!;
}

export async function galleryOf(em: EntityManager, storeId: number, filter: { format: GalleryFormat | null; batchId: number | null; search: string }): Promise<GalleryImage[]> {
  const rows = await em.find(
    ProductImage,
    {
      store: storeId,
      ...(filter.format ? { format: filter.format } : {}),
      ...(filter.batchId ? { batchId: filter.batchId } : {}),
      ...(filter.search ? { title: { $ilike: `%${filter.search.replace(/[\\%_]/g, '\\$&')}%` } } : {}),
    },
    { orderBy: { createdAt: 'desc', id: 'desc' }, limit: GALLERY_LIMIT },
  );
  return rows.map(galleryImageOf);
}

/** The store's images with these ids; any id that is not the store's is refused as not found. */
export async function ownImages(em: EntityManager, storeId: number, ids: readonly number[]): Promise<ProductImageEntity[]> {
  const rows = await em.find(ProductImage, { store: storeId, id: { $in: [...ids] } }, { orderBy: { id: 'asc' } });
  if (rows.length !== new Set(ids).size) throw new AppError('NOT_FOUND', IMAGE_NOT_FOUND_MESSAGE);
  return rows;
}

export async function deleteImages(em: EntityManager, storeId: number, ids: readonly number[]): Promise<number> {
  const rows = await ownImages(em, storeId, ids);
  for (const row of rows) await removeImageFiles(storeId, row.id);
  return em.nativeDelete(ProductImage, { store: storeId, id: { $in: rows.map((row) => row.id) } });
}

// ---------------------------------------------------------------------------------------------
// Batches: one pg-boss job per batch; the job walks the products, writing progress after each.

function batchAnswerOf(batch: ProductImageBatchEntity): BatchAnswer {
  return {
    id: batch.id, status: batch.status, total: batch.total, done: batch.done, failures: batch.failures,
    createdAt: batch.createdAt.toISOString(), finishedAt: batch.finishedAt?.toISOString() ?? null,
  };
}

export async function startBatch(em: EntityManager, storeId: number, userId: number, productIds: readonly number[], options: GenerationOptions): Promise<BatchAnswer> {
  const unique = [...new Set(productIds)];
  const found = await em.count(Product, { store: storeId, id: { $in: unique } });
  if (found !== unique.length) throw new AppError('NOT_FOUND', SOURCE_PRODUCT_NOT_FOUND_MESSAGE);
  const batch = em.create(ProductImageBatch, { store: storeId, productIds: unique, options, total: unique.length, failures: [], requestedBy: userId });
  await em.flush();
  await sendIntegrationJob(PRODUCT_IMAGE_QUEUE, { storeId, batchId: batch.id }, { singletonKey: `product-images:${storeId}:${batch.id}` });
  return batchAnswerOf(batch);
}

async function ownBatch(em: EntityManager, storeId: number, id: number): Promise<ProductImageBatchEntity> {
  const batch = await em.findOne(ProductImageBatch, { store: storeId, id }, { refresh: true });
  if (!batch) throw new AppError('NOT_FOUND', BATCH_NOT_FOUND_MESSAGE);
  return batch;
}

export async function batchOf(em: EntityManager, storeId: number, id: number): Promise<BatchAnswer> {
  return batchAnswerOf(await ownBatch(em, storeId, id));
}

export async function latestBatch(em: EntityManager, storeId: number): Promise<BatchAnswer | null> {
  const batch = await em.findOne(ProductImageBatch, { store: storeId }, { orderBy: { createdAt: 'desc', id: 'desc' } });
  return batch ? batchAnswerOf(batch) : null;
}

/** Stops a queued or running batch after the product it is on; the images made so far stay. */
export async function cancelBatch(em: EntityManager, storeId: number, id: number): Promise<BatchAnswer> {
  await ownBatch(em, storeId, id);
  await em.nativeUpdate(ProductImageBatch, { store: storeId, id, status: { $in: ['queued', 'running'] } }, { status: 'cancelled', finishedAt: new Date() });
  return batchOf(em, storeId, id);
}

/** Runs a batch to its end (resumable: products already counted in `done` are skipped). */
export async function runBatch(em: EntityManager, storeId: number, id: number, quotaBytes: number, policy?: OutboundPolicy): Promise<void> {
  const batch = await em.findOne(ProductImageBatch, { store: storeId, id });
  if (!batch || batch.status === 'done' || batch.status === 'cancelled' || batch.status === 'failed') return;
  await em.nativeUpdate(ProductImageBatch, { store: storeId, id, status: 'queued' }, { status: 'running' });
  const failures = [...batch.failures];
  for (let index = batch.done; index < batch.productIds.length; index += 1) {
    const current = await em.findOne(ProductImageBatch, { store: storeId, id }, { refresh: true, fields: ['status'] });
    if (current?.status === 'cancelled') return;
    const productId = batch.productIds[index]!;
    try {
      const source = await productSource(em, storeId, productId, policy);
      await generateImages(em, storeId, source, batch.options, quotaBytes, id);
    } catch (error) {
      const title = (await em.findOne(Product, { store: storeId, id: productId }))?.title ?? `#${productId}`;
      failures.push({ productId, title, reason: error instanceof Error ? error.message.slice(0, 300) : String(error) });
    }
    await em.nativeUpdate(ProductImageBatch, { store: storeId, id, status: 'running' }, { done: index + 1, failures });
  }
  await em.nativeUpdate(ProductImageBatch, { store: storeId, id, status: 'running' }, { status: 'done', finishedAt: new Date() });
}
