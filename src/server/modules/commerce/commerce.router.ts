import { z } from 'zod';
import { dataStatusInput, dataStatusOutput, kpisInput, kpisOutput, ltvCohortsInput, ltvCohortsOutput } from '../../../shared/commerce.ts';
import { storeIdSchema } from '../../../shared/stores.ts';
import { AppError } from '../../errors.ts';
import type { Context } from '../../trpc/context.ts';
import { router } from '../../trpc/init.ts';
import { adminProcedure, storeProcedure } from '../../trpc/procedures.ts';
import { Store, type StoreEntity } from '../stores/store.entity.ts';
import { STORE_NOT_FOUND_MESSAGE, visibleStore } from '../stores/stores.service.ts';
import { cachedAnswer } from '../answer-cache/answer-cache.ts';
import { dataStatus, kpis, ltvCohorts } from './kpis.service.ts';
import { rebuildRollups } from './rollups.ts';

/**
 * The store a call reads: the active one (ctx.store), or another store id the caller may see
 * (own or shared; anyone else's answers 404 like a missing one) for multi-store views.
 */
export async function storeInScope(ctx: Context & { store: StoreEntity; user: NonNullable<Context['user']> }, storeId: number | undefined): Promise<StoreEntity> {
  if (storeId === undefined || storeId === ctx.store.id) return ctx.store;
  return visibleStore(ctx.em, ctx.user, storeId);
}

export const commerceRouter = router({
  /** Dashboard KPIs for a range of store days, with comparison, daily series and channels. */
  kpis: storeProcedure
    .input(kpisInput)
    .output(kpisOutput)
    .query(async ({ ctx, input }) => {
      const store = await storeInScope(ctx, input.storeId);
      return cachedAnswer(ctx, 'commerce.kpis', store.id, input, () => kpis(ctx.em, store, input));
    }),

  /** LTV by monthly cohort of first orders. */
  ltvCohorts: storeProcedure
    .input(ltvCohortsInput)
    .output(ltvCohortsOutput)
    .query(async ({ ctx, input }) => ltvCohorts(ctx.em, await storeInScope(ctx, input.storeId), input)),

  /** Whether the store has data yet (orders, ad or e-mail metrics), its span and platforms: the client's StoreDataGate. */
  dataStatus: storeProcedure
    .input(dataStatusInput)
    .output(dataStatusOutput)
    .query(async ({ ctx, input }) => {
      const store = await storeInScope(ctx, input?.storeId);
      return cachedAnswer(ctx, 'commerce.dataStatus', store.id, input ?? {}, () => dataStatus(ctx.em, store));
    }),

  /** Recomputes a store's rollups from its raw rows (admin CLI: rebuild-rollups --store <id>). */
  rebuildRollups: adminProcedure
    .input(z.object({ storeId: storeIdSchema }))
    .output(z.object({ storeId: z.number(), dailyRows: z.number(), channelRows: z.number(), milliseconds: z.number() }))
    .mutation(async ({ ctx, input }) => {
      const store = await ctx.em.findOne(Store, { id: input.storeId });
      if (!store) throw new AppError('NOT_FOUND', STORE_NOT_FOUND_MESSAGE);
      const started = performance.now();
      const counts = await rebuildRollups(ctx.em, store.id);
      return { storeId: store.id, ...counts, milliseconds: Math.round(performance.now() - started) };
    }),
});
