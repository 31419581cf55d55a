import { z } from 'zod';
import {
  addTrackedUrlInput,
  bulkAddInput,
  bulkAddResult,
  competitorRow,
  competitorUrl,
  historyInput,
  ownProductOptions,
  priceAlertList,
  priceCsv,
  priceHistory,
  priceTrackerList,
  trackedUrlIdInput,
  updateTrackedUrlInput,
} from '../../../shared/price-tracker.ts';
import { router } from '../../trpc/init.ts';
import { toolsStoreProcedure } from '../../trpc/procedures.ts';
import {
  acknowledgeAlert,
  addTracked,
  bulkAddTracked,
  checkTracked,
  deleteTracked,
  listAlerts,
  listTracked,
  ownProductOptions as ownProductOptionsOf,
  priceHistoryOf,
  priceTrackerCsv,
  updateTracked,
} from './price-tracker.service.ts';

// The competitor price tracker of the active store (/price-tracker, README "Competitor price tracker").
// Every procedure is a tools procedure (plans above basic, admins outside guest mode) on the active
// store; changes are mutations, so guest mode and view-only members are refused as everywhere.

/** A check the user asks for reads the page as their own browser would: robots.txt binds the schedule. */
const userCheck = { respectRobots: false } as const;

function urlProblem(url: string): string | null {
  const parsed = competitorUrl.safeParse(url);
  return parsed.success ? null : (parsed.error.issues[0]?.message ?? 'Invalid address');
}

export const priceTrackerRouter = router({
  list: toolsStoreProcedure.output(priceTrackerList).query(({ ctx }) => listTracked(ctx.em, ctx.store)),

  products: toolsStoreProcedure.output(ownProductOptions).query(({ ctx }) => ownProductOptionsOf(ctx.em, ctx.store.id)),

  add: toolsStoreProcedure.input(addTrackedUrlInput).output(competitorRow).mutation(({ ctx, input }) => addTracked(ctx.em, ctx.store, input, userCheck)),

  bulkAdd: toolsStoreProcedure.input(bulkAddInput).output(bulkAddResult).mutation(({ ctx, input }) => bulkAddTracked(ctx.em, ctx.store, input, urlProblem)),

  update: toolsStoreProcedure.input(updateTrackedUrlInput).output(competitorRow).mutation(({ ctx, input }) => updateTracked(ctx.em, ctx.store, input)),

  remove: toolsStoreProcedure.input(trackedUrlIdInput).output(trackedUrlIdInput).mutation(({ ctx, input }) => deleteTracked(ctx.em, ctx.store.id, input.id)),

  checkNow: toolsStoreProcedure.input(trackedUrlIdInput).output(competitorRow).mutation(({ ctx, input }) => checkTracked(ctx.em, ctx.store, input.id, userCheck)),

  history: toolsStoreProcedure.input(historyInput).output(priceHistory).query(({ ctx, input }) => priceHistoryOf(ctx.em, ctx.store, input.key)),

  alerts: toolsStoreProcedure.output(priceAlertList).query(({ ctx }) => listAlerts(ctx.em, ctx.store.id)),

  acknowledgeAlert: toolsStoreProcedure.input(z.object({ id: z.string().min(1) })).output(trackedUrlIdInput).mutation(({ ctx, input }) => acknowledgeAlert(ctx.em, ctx.store.id, input.id)),

  exportCsv: toolsStoreProcedure.output(priceCsv).query(({ ctx }) => priceTrackerCsv(ctx.em, ctx.store)),
});
