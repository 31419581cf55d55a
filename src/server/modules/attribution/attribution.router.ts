import { z } from 'zod';
import {
  attributionRangeInput, attributionReportInput, attributionReportOutput, attributionRestOutput, attributionSettingsInput, attributionWindow,
  distributionsOutput, journeyOutput, modelsSideBySideOutput, recomputeStatusOutput, topPathsOutput,
} from '../../../shared/attribution.ts';
import { router } from '../../trpc/init.ts';
import { storeProcedure } from '../../trpc/procedures.ts';
import { attributionReport, attributionStatus, distributions, journey, modelsSideBySide, setAttributionWindow, topPaths } from './attribution.service.ts';

// Attribution of the active store (README, "Attribution"): the credits per channel and campaign under
// a model and window beside spend and what the platforms report, the models side by side, top paths,
// distributions, one order's journey, and the window setting with its recompute's progress.

/** Minor units -> a decimal amount (every supported currency has 2 decimals). */
const decimal = (minor: number) => Math.round(minor) / 100;

export const attributionRouter = router({
  report: storeProcedure
    .input(attributionReportInput)
    .output(attributionReportOutput)
    .query(({ ctx, input }) => attributionReport(ctx.em, ctx.store, input)),

  /** GET /api/attribution: the documented shape only, for scripts and BI tools. */
  summary: storeProcedure
    .meta({ openapi: { method: 'GET', path: '/attribution', tags: ['attribution'], summary: 'Credited orders and revenue per channel under an attribution model and lookback window' } })
    .input(attributionRangeInput)
    .output(attributionRestOutput)
    .query(async ({ ctx, input }) => {
      const report = await attributionReport(ctx.em, ctx.store, input);
      return {
        currency: report.currency,
        total: { orders: report.current.total.orders, revenue: decimal(report.current.total.revenueMinor) },
        channels: report.current.channels.map((row) => ({
          channel: row.channel, orders: row.orders, revenue: decimal(row.revenueMinor), spend: decimal(row.spendMinor), roas: row.roas, platformReportedRevenue: decimal(row.platformReportedRevenueMinor),
        })),
      };
    }),

  modelsSideBySide: storeProcedure
    .input(attributionRangeInput)
    .output(modelsSideBySideOutput)
    .query(({ ctx, input }) => modelsSideBySide(ctx.em, ctx.store, input)),

  topPaths: storeProcedure
    .input(attributionRangeInput)
    .output(topPathsOutput)
    .query(({ ctx, input }) => topPaths(ctx.em, ctx.store, input)),

  distributions: storeProcedure
    .input(attributionRangeInput)
    .output(distributionsOutput)
    .query(({ ctx, input }) => distributions(ctx.em, ctx.store, input)),

  journey: storeProcedure
    .input(z.object({ orderId: z.coerce.number().int().positive(), window: attributionWindow.optional() }))
    .output(journeyOutput)
    .query(({ ctx, input }) => journey(ctx.em, ctx.store, input.orderId, input.window)),

  status: storeProcedure
    .input(z.void())
    .output(recomputeStatusOutput)
    .query(({ ctx }) => attributionStatus(ctx.em, ctx.store.id)),

  updateSettings: storeProcedure
    .input(attributionSettingsInput)
    .output(recomputeStatusOutput)
    .mutation(({ ctx, input }) => setAttributionWindow(ctx.em, ctx.store.id, input.attributionWindowDays)),
});
