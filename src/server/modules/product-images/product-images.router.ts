import { z } from 'zod';
import {
  aiVariantInput, batchAnswer, galleryAnswer, galleryFilter, galleryImage, generateForProductInput, generateFromUploadInput,
  hexColour, settingsAnswer, sourceProductsAnswer, startBatchInput,
} from '../../../shared/product-images.ts';
import { router } from '../../trpc/init.ts';
import { toolsStoreProcedure } from '../../trpc/procedures.ts';
import { imageModelFromEnv } from './image-model.ts';
import { acceptedImage, decodeUpload } from './image-source.ts';
import { storeUsageBytes } from './image-storage.ts';
import {
  aiVariant, batchOf, brandColourOf, cancelBatch, deleteImages, galleryOf, generateImages, latestBatch, ownImages,
  productSource, quotaBytesFor, setBrandColour, sourceProducts, startBatch,
} from './product-images.service.ts';

// The product image generator of the active store (tools: admins in their own view, plans above
// basic). Guests (view-only) may look at the gallery; generating, deleting and settings are mutations.

const idInput = z.object({ id: z.number().int().positive() });
const idsInput = z.object({ ids: z.array(z.number().int().positive()).min(1).max(500) });

type QuotaContext = { access: { tier: Parameters<typeof quotaBytesFor>[0] }; sessionUser: { isAdmin: boolean }; guestMode: boolean };
const quotaOf = (ctx: QuotaContext) => quotaBytesFor(ctx.access.tier, ctx.sessionUser.isAdmin && !ctx.guestMode);

export const productImagesRouter = router({
  settings: toolsStoreProcedure.output(settingsAnswer).query(async ({ ctx }) => ({
    brandColor: await brandColourOf(ctx.em, ctx.store.id),
    imageModel: imageModelFromEnv() !== null,
    // Neither the Shopify nor the WooCommerce connector asks for a write scope on products: download only.
    writeBack: false,
  })),

  setBrandColor: toolsStoreProcedure
    .input(z.object({ brandColor: hexColour }))
    .output(z.object({ brandColor: z.string() }))
    .mutation(async ({ ctx, input }) => {
      await setBrandColour(ctx.em, ctx.store.id, input.brandColor);
      return { brandColor: input.brandColor.toUpperCase() };
    }),

  products: toolsStoreProcedure
    .input(z.object({ search: z.string().trim().max(200).default('') }))
    .output(sourceProductsAnswer)
    .query(({ ctx, input }) => sourceProducts(ctx.em, ctx.store.id, input.search)),

  generate: toolsStoreProcedure
    .input(generateForProductInput)
    .output(z.array(galleryImage))
    .mutation(async ({ ctx, input }) => {
      const source = await productSource(ctx.em, ctx.store.id, input.productId);
      return generateImages(ctx.em, ctx.store.id, source, input, quotaOf(ctx));
    }),

  upload: toolsStoreProcedure
    .input(generateFromUploadInput)
    .output(z.array(galleryImage))
    .mutation(async ({ ctx, input }) => {
      const bytes = await acceptedImage(decodeUpload(input.dataBase64));
      const source = { bytes, title: input.fileName, productId: null, priceMinor: null, currency: null };
      return generateImages(ctx.em, ctx.store.id, source, input, quotaOf(ctx));
    }),

  /** A lifestyle background or variant of one of the store's images from a prompt (the optional image model). */
  aiVariant: toolsStoreProcedure
    .input(aiVariantInput)
    .output(galleryImage)
    .mutation(({ ctx, input }) => aiVariant(ctx.em, ctx.store.id, input.imageId, input.prompt, quotaOf(ctx), imageModelFromEnv())),

  gallery: toolsStoreProcedure
    .input(galleryFilter)
    .output(galleryAnswer)
    .query(async ({ ctx, input }) => ({
      images: await galleryOf(ctx.em, ctx.store.id, input),
      usage: { usedBytes: await storeUsageBytes(ctx.store.id), quotaBytes: quotaOf(ctx) },
    })),

  remove: toolsStoreProcedure
    .input(idsInput)
    .output(z.object({ deleted: z.number().int() }))
    .mutation(async ({ ctx, input }) => ({ deleted: await deleteImages(ctx.em, ctx.store.id, input.ids) })),

  startBatch: toolsStoreProcedure
    .input(startBatchInput)
    .output(batchAnswer)
    .mutation(({ ctx, input }) => {
      const { productIds, ...options } = input;
      return startBatch(ctx.em, ctx.store.id, ctx.user.id, productIds, options);
    }),

  batch: toolsStoreProcedure.input(idInput).output(batchAnswer).query(({ ctx, input }) => batchOf(ctx.em, ctx.store.id, input.id)),

  latestBatch: toolsStoreProcedure.output(batchAnswer.nullable()).query(({ ctx }) => latestBatch(ctx.em, ctx.store.id)),

  cancelBatch: toolsStoreProcedure.input(idInput).output(batchAnswer).mutation(({ ctx, input }) => cancelBatch(ctx.em, ctx.store.id, input.id)),

  /** Access check of the download routes (product-images.routes.ts): the store's own images only. */
  fileScope: toolsStoreProcedure
    .input(idsInput)
    .output(z.object({ storeId: z.number().int(), images: z.array(z.object({ id: z.number().int(), title: z.string(), format: z.string() })) }))
    .query(async ({ ctx, input }) => ({
      storeId: ctx.store.id,
      images: (await ownImages(ctx.em, ctx.store.id, input.ids)).map((image) => ({ id: image.id, title: image.title, format: image.format })),
    })),
});
