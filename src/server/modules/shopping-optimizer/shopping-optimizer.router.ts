import { z } from 'zod';
import {
  FEED_ATTRIBUTES, acceptSuggestionsInput, auditedProduct, feedAuditInput, feedAuditOutput, feedSettingsInput, feedSettingsOutput, feedSuggestion, pageCheckState, setOverrideInput,
} from '../../../shared/shopping-optimizer.ts';
import { router } from '../../trpc/init.ts';
import { adminToolsStoreProcedure, publicProcedure } from '../../trpc/procedures.ts';
import {
  acceptSuggestions, feedByToken, feedSettingsOf, feedToken, productSuggestions, regenerateFeedSecret, removeOverride, setOverride, storeAudit, updateFeedDefaults,
} from './shopping-optimizer.service.ts';
import type { ShoppingFeedSettingsEntity } from './shopping-optimizer.entities.ts';
import { startPageCheck } from './page-check.ts';

// The shopping feed optimizer (README, "Shopping optimizer"): admins only, on their active store.

function settingsAnswer(settings: ShoppingFeedSettingsEntity, storeId: number, origin: string | null, llmConfigured: boolean) {
  const base = `${origin ?? ''}/feeds/google/${feedToken(settings, storeId)}`;
  return { xmlUrl: `${base}.xml`, tsvUrl: `${base}.tsv`, linkTemplate: settings.linkTemplate, defaultBrand: settings.defaultBrand, llmConfigured };
}

export const shoppingOptimizerRouter = router({
  /**
   * One page of the active products (filtered, sorted) with score, issues, rule suggestions and Google Ads
   * shopping figures over the window; the store's totals by issue type over every product.
   */
  audit: adminToolsStoreProcedure
    .input(feedAuditInput)
    .output(feedAuditOutput)
    .query(({ ctx, input }) => storeAudit(ctx.em, ctx.store, input)),

  /** One product's suggestions, improved by the LLM when it is configured. */
  suggestions: adminToolsStoreProcedure
    .input(z.object({ productId: z.number().int().positive() }))
    .output(z.object({ product: auditedProduct, suggestions: z.array(feedSuggestion), llmError: z.string().nullable() }))
    .query(({ ctx, input }) => productSuggestions(ctx.em, ctx.store, input.productId, ctx.services.llm)),

  settings: adminToolsStoreProcedure
    .input(z.void())
    .output(feedSettingsOutput)
    .query(async ({ ctx }) => settingsAnswer(await feedSettingsOf(ctx.em, ctx.store), ctx.store.id, ctx.origin, ctx.services.llm !== null)),

  updateSettings: adminToolsStoreProcedure
    .input(feedSettingsInput)
    .output(feedSettingsOutput)
    .mutation(async ({ ctx, input }) => settingsAnswer(await updateFeedDefaults(ctx.em, ctx.store, input), ctx.store.id, ctx.origin, ctx.services.llm !== null)),

  /** A new secret: the old feed address stops working at once. */
  regenerateFeedUrl: adminToolsStoreProcedure
    .input(z.object({}).strict().optional())
    .output(feedSettingsOutput)
    .mutation(async ({ ctx }) => settingsAnswer(await regenerateFeedSecret(ctx.em, ctx.store), ctx.store.id, ctx.origin, ctx.services.llm !== null)),

  setOverride: adminToolsStoreProcedure
    .input(setOverrideInput.extend({ source: z.enum(['rules', 'llm', 'user']).default('user') }))
    .output(auditedProduct)
    .mutation(({ ctx, input }) => setOverride(ctx.em, ctx.store, input)),

  removeOverride: adminToolsStoreProcedure
    .input(z.object({ productId: z.number().int().positive(), attribute: z.enum(FEED_ATTRIBUTES) }))
    .output(auditedProduct)
    .mutation(({ ctx, input }) => removeOverride(ctx.em, ctx.store, input)),

  acceptSuggestions: adminToolsStoreProcedure
    .input(acceptSuggestionsInput)
    .output(z.object({ accepted: z.number().int() }))
    .mutation(({ ctx, input }) => acceptSuggestions(ctx.em, ctx.store, input)),

  /** "Check product pages": a job reads every linked product's page and compares its price and stock with the feed. */
  checkPages: adminToolsStoreProcedure
    .input(z.object({}).strict().optional())
    .output(pageCheckState)
    .mutation(({ ctx }) => startPageCheck(ctx.em, ctx.store.id)),

  /** The public feed Merchant Center fetches (GET /feeds/google/<token>.xml|.tsv): the token is the only key. */
  feed: publicProcedure
    .input(z.object({ token: z.string().max(100), format: z.enum(['xml', 'tsv']) }))
    .output(z.object({ contentType: z.string(), body: z.string() }))
    .query(({ ctx, input }) => feedByToken(ctx.em, input.token, input.format, ctx.origin)),
});
