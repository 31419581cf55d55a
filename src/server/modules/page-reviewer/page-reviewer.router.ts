import { z } from 'zod';
import { reviewCampaignsSchema, reviewDetailSchema, reviewIdInput, reviewListSchema, reviewProductsSchema, startReviewInput } from '../../../shared/page-reviewer.ts';
import { router } from '../../trpc/init.ts';
import { toolsStoreProcedure } from '../../trpc/procedures.ts';
import { deleteReview, getReview, listReviews, rerunReview, reviewCampaigns, reviewProducts, startReview } from './page-reviewer.service.ts';

// The landing page reviewer of the active store (tools: admins in their own view, plans above basic).
// Guests (view-only) may read reviews; starting, re-running and deleting are mutations they are refused.
const reviewStarted = z.object({ id: z.number().int() });

export const pageReviewerRouter = router({
  start: toolsStoreProcedure
    .input(startReviewInput)
    .output(reviewStarted)
    .mutation(({ ctx, input }) => startReview(ctx.em, ctx.store.id, ctx.user.id, input)),

  rerun: toolsStoreProcedure
    .input(reviewIdInput)
    .output(reviewStarted)
    .mutation(({ ctx, input }) => rerunReview(ctx.em, ctx.store.id, ctx.user.id, input.id)),

  /** The store's products a review can be for (the form's optional picker). */
  products: toolsStoreProcedure
    .output(reviewProductsSchema)
    .query(({ ctx }) => reviewProducts(ctx.em, ctx.store.id)),

  /** The store's advertising campaigns a review can be for (the form's other optional picker). */
  campaigns: toolsStoreProcedure
    .output(reviewCampaignsSchema)
    .query(({ ctx }) => reviewCampaigns(ctx.em, ctx.store.id)),

  list: toolsStoreProcedure
    .output(reviewListSchema)
    .query(({ ctx }) => listReviews(ctx.em, ctx.store.id)),

  get: toolsStoreProcedure
    .meta({ openapi: { method: 'GET', path: '/landing-page-reviews/{id}', tags: ['landing-page-reviewer'], summary: 'One review of the active store with its scores, findings and metrics, and the previous review of the same address' } })
    .input(reviewIdInput)
    .output(reviewDetailSchema)
    .query(({ ctx, input }) => getReview(ctx.em, ctx.store.id, input.id, ctx.services.llm !== null)),

  remove: toolsStoreProcedure
    .input(reviewIdInput)
    .output(z.object({ deleted: z.literal(true) }))
    .mutation(({ ctx, input }) => deleteReview(ctx.em, ctx.store.id, input.id)),

  /** Access check of the screenshot route (page-reviewer.routes.ts): the caller may use tools on this store. */
  screenshotScope: toolsStoreProcedure
    .input(reviewIdInput)
    .output(z.object({ storeId: z.number().int(), id: z.number().int() }))
    .query(({ ctx, input }) => ({ storeId: ctx.store.id, id: input.id })),
});
