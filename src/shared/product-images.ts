import { z } from 'zod';
import type { PlanTier } from './plans.ts';

// The product image generator's shapes, shared by the client and the server.

/** What the generator makes: the marketplace main image and three social formats. */
export const IMAGE_FORMATS = ['main', 'square', 'portrait', 'story'] as const;
export type ImageFormat = (typeof IMAGE_FORMATS)[number];
/** What the gallery holds: the generated formats and the image model's lifestyle variants. */
export const GALLERY_FORMATS = [...IMAGE_FORMATS, 'lifestyle'] as const;
export type GalleryFormat = (typeof GALLERY_FORMATS)[number];

/** Social formats' pixel sizes (feed square, feed portrait 4:5, stories/reels 9:16). */
export const SOCIAL_SIZES = {
  square: { width: 1080, height: 1080 },
  portrait: { width: 1080, height: 1350 },
  story: { width: 1080, height: 1920 },
} as const satisfies Record<Exclude<ImageFormat, 'main'>, { width: number; height: number }>;

/** The main image's side: at least 1000 px (Amazon's zoom threshold), 2000 by default. */
export const MAIN_SIZE = { min: 1000, max: 3000, default: 2000 } as const;
/** The product's share of the main image's longer side that the check requires (Amazon: 85 %). */
export const MIN_PRODUCT_FILL = 0.85;

/** Uploads: the types sharp's metadata must find in the bytes, and the size cap. */
export const UPLOAD_TYPES = ['jpeg', 'png', 'webp', 'avif'] as const;
export const MAX_SOURCE_BYTES = 20 * 1024 * 1024;
export const UPLOAD_TOO_LARGE_MESSAGE = 'The image is larger than 20 MB. Upload a smaller file.';
export const UPLOAD_TYPE_MESSAGE = 'Only JPEG, PNG, WebP or AVIF images can be used.';

/** Storage for generated images per plan, in bytes (basic has no tools, so none). Admins' own view: 1 GB. */
export const STORAGE_QUOTA_BYTES: Record<PlanTier, number> = {
  basic: 0,
  professional: 200 * 1024 * 1024,
  business: 1024 * 1024 * 1024,
  enterprise: 5 * 1024 * 1024 * 1024,
};
export const ADMIN_STORAGE_QUOTA_BYTES = 1024 * 1024 * 1024;
export const QUOTA_FULL_MESSAGE = 'Your image storage is full. Delete images from the gallery, or upgrade your plan for more space.';

/** A batch generates for at most this many products. */
export const MAX_BATCH_PRODUCTS = 100;

export const hexColour = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'Use a colour like #F97316.');

export const generationOptions = z.object({
  formats: z.array(z.enum(IMAGE_FORMATS)).min(1).max(IMAGE_FORMATS.length),
  mainSize: z.number().int().min(MAIN_SIZE.min).max(MAIN_SIZE.max).default(MAIN_SIZE.default),
  /** Sale badge on the social formats: percent off (1-90), or none. */
  discountPercent: z.number().int().min(1).max(90).nullable().default(null),
  showPrice: z.boolean().default(false),
  /** Text overlay on the social formats, in the user's language (they type it). */
  text: z.string().trim().max(80).default(''),
  /** The user's locale, for the badge's number and currency formatting. */
  locale: z.enum(['en', 'es', 'fr', 'de']).default('en'),
});
export type GenerationOptions = z.infer<typeof generationOptions>;

export const generateForProductInput = generationOptions.extend({ productId: z.number().int().positive() });
export const generateFromUploadInput = generationOptions.extend({
  fileName: z.string().trim().min(1).max(200),
  /** The file's bytes, base64 (20 MB of bytes is about 27 MB of base64). */
  dataBase64: z.string().min(1).max(Math.ceil((MAX_SOURCE_BYTES * 4) / 3) + 8),
});
export const startBatchInput = generationOptions.extend({ productIds: z.array(z.number().int().positive()).min(1).max(MAX_BATCH_PRODUCTS) });

export const checkResult = z.object({ pass: z.boolean(), value: z.string() });
export const mainImageChecks = z.object({
  /** Every border pixel is pure white 255,255,255. */
  whiteBorder: checkResult,
  /** The product's bounding box (non-white pixels) covers >= 85 % of the longer side. */
  productFill: checkResult,
  /** The image is at least 1000 px. */
  minSize: checkResult,
});
export type MainImageChecks = z.infer<typeof mainImageChecks>;

export const galleryImage = z.object({
  id: z.number().int(),
  batchId: z.number().int().nullable(),
  productId: z.number().int().nullable(),
  title: z.string(),
  format: z.enum(GALLERY_FORMATS),
  width: z.number().int(),
  height: z.number().int(),
  webpBytes: z.number().int(),
  jpegBytes: z.number().int(),
  checks: mainImageChecks.nullable(),
  createdAt: z.string(),
});
export type GalleryImage = z.infer<typeof galleryImage>;

export const galleryFilter = z.object({
  format: z.enum(GALLERY_FORMATS).nullable().default(null),
  batchId: z.number().int().nullable().default(null),
  search: z.string().trim().max(200).default(''),
});

export const galleryAnswer = z.object({
  images: z.array(galleryImage),
  usage: z.object({ usedBytes: z.number().int(), quotaBytes: z.number().int() }),
});

export const BATCH_STATUSES = ['queued', 'running', 'done', 'failed', 'cancelled'] as const;
export const batchFailure = z.object({ productId: z.number().int(), title: z.string(), reason: z.string() });
export const batchAnswer = z.object({
  id: z.number().int(),
  status: z.enum(BATCH_STATUSES),
  total: z.number().int(),
  done: z.number().int(),
  failures: z.array(batchFailure),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
});
export type BatchAnswer = z.infer<typeof batchAnswer>;

export const sourceProduct = z.object({ id: z.number().int(), title: z.string(), sku: z.string().nullable(), priceMinor: z.number().int(), currency: z.string(), hasOwnImage: z.boolean() });
export const sourceProductsAnswer = z.array(sourceProduct);
export type SourceProduct = z.infer<typeof sourceProduct>;

export const settingsAnswer = z.object({
  brandColor: z.string(),
  imageModel: z.boolean(),
  /** Whether the store's platform connector can write an image back (none can today: download only). */
  writeBack: z.boolean(),
});
export const DEFAULT_BRAND_COLOUR = '#F97316';

export const aiVariantInput = z.object({ imageId: z.number().int().positive(), prompt: z.string().trim().min(3).max(500) });
