import { z } from 'zod';
import {
  attributionRangeInput, attributionReportInput, attributionReportOutput, attributionRestOutput, attributionSettingsInput, attributionWindow,
  distributionsOutput, journeyOutput, modelsSideBySideOutput, recomputeStatusOutput, topPathsOutput,
} from '../../../shared/attribution.ts';
import { acquisitionCohortsInput, acquisitionCohortsOutput, acquisitionCohortsRestInput, acquisitionCohortsRestOutput } from '../../../shared/cohorts.ts';
import { router } from '../../trpc/init.ts';
import { cachedAnswer } from '../answer-cache/answer-cache.ts';
import { storeProcedure } from '../../trpc/procedures.ts';
import { acquisitionCohorts } from './cohorts.service.ts';
import { attributionReport, attributionStatus, distributions, journey, modelsSideBySide, setAttributionWindow, storedFor, topPaths } from './attribution.service.ts';

// Attribution of the active store (README, "Attribution"): the credits per channel and campaign under
// a model and window beside spend and what the platforms report, the models side by side, top paths,
// distributions, one order's journey, and the window setting with its recompute's progress.

/**
 * The report and GET /api/attribution are answered from the answer cache (answer-cache.ts) while the
 * store's data version stands: writes to the credit rollups, the attribution state, the tracking
 * settings, spend, the store and exchange rates move it. Only answers read from the rollups are
 * kept: one computed from the journeys (another window, or a recompute running) depends on visits,
 * which no version follows.
 */
const fromRollups = { keep: (report: { fromRollups: boolean }) => report.fromRollups };

/** Top paths and distributions from the answer cache, kept when read from the stored journeys (attribution_orders, whose writes move the version). */
async function fromStoredJourneys<T>(
  ctx: Parameters<typeof cachedAnswer>[0] & { store: { id: number } }, procedure: string, input: { window?: number }, compute: () => Promise<T>,
): Promise<T> {
  const answer = await cachedAnswer(ctx, procedure, ctx.store.id, input, async () => ({ stored: await storedFor(ctx.em, ctx.store.id, input.window), value: await compute() }), { keep: (a) => a.stored });
  return answer.value;
}

/** Minor units -> a decimal amount (every supported currency has 2 decimals). */
const decimal = (minor: number) => Math.round(minor) / 100;

export const attributionRouter = router({
  report: storeProcedure
    .input(attributionReportInput)
    .output(attributionReportOutput)
    .query(({ ctx, input }) => cachedAnswer(ctx, 'attribution.report', ctx.store.id, input, () => attributionReport(ctx.em, ctx.store, input), fromRollups)),

  /** GET /api/attribution: the documented shape only, for scripts and BI tools. */
  summary: storeProcedure
    .meta({ openapi: { method: 'GET', path: '/attribution', tags: ['attribution'], summary: 'Credited orders and revenue per channel under an attribution model and lookback window' } })
    .input(attributionRangeInput)
    .output(attributionRestOutput)
    .query(async ({ ctx, input }) => {
      const report = await cachedAnswer(ctx, 'attribution.summary', ctx.store.id, input, () => attributionReport(ctx.em, ctx.store, input, { campaigns: false }), fromRollups);
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
    .query(({ ctx, input }) => fromStoredJourneys(ctx, 'attribution.topPaths', input, () => topPaths(ctx.em, ctx.store, input))),

  distributions: storeProcedure
    .input(attributionRangeInput)
    .output(distributionsOutput)
    .query(({ ctx, input }) => fromStoredJourneys(ctx, 'attribution.distributions', input, () => distributions(ctx.em, ctx.store, input))),

  journey: storeProcedure
    .input(z.object({ orderId: z.coerce.number().int().positive(), window: attributionWindow.optional() }))
    .output(journeyOutput)
    .query(({ ctx, input }) => journey(ctx.em, ctx.store, input.orderId, input.window)),

  /** Customers by the source and month of their first order, with LTV, repeat rate, CAC and payback (README, "Acquisition cohorts"). */
  acquisitionCohorts: storeProcedure
    .input(acquisitionCohortsInput)
    .output(acquisitionCohortsOutput)
    .query(({ ctx, input }) => acquisitionCohorts(ctx.em, ctx.store, input)),

  /** GET /api/attribution/cohorts: the same figures in decimals, for scripts and BI tools. */
  cohorts: storeProcedure
    .meta({ openapi: { method: 'GET', path: '/attribution/cohorts', tags: ['attribution'], summary: 'Acquisition cohorts: customers by the channel or campaign and month of their first order, with LTV at 30/90/180/365 days, repeat rate, CAC and payback' } })
    .input(acquisitionCohortsRestInput)
    .output(acquisitionCohortsRestOutput)
    .query(async ({ ctx, input }) => {
      const report = await acquisitionCohorts(ctx.em, ctx.store, input);
      const money = (minor: number | null) => (minor === null ? null : decimal(minor));
      const figures = (row: (typeof report.sources)[number]['months'][number] | (typeof report.sources)[number]) => ({
        customers: row.customers, firstOrderRevenue: decimal(row.firstOrderRevenueMinor),
        ltv: { '30': money(row.ltvMinor[30]), '90': money(row.ltvMinor[90]), '180': money(row.ltvMinor[180]), '365': money(row.ltvMinor[365]) },
        repeatRate90: row.repeatRate[90], repeatRate365: row.repeatRate[365], spend: money(row.spendMinor), cac: money(row.cacMinor), paybackDays: row.paybackDays,
      });
      return {
        currency: report.currency, group: report.group, paybackBasis: report.paybackBasis,
        sources: report.sources.map((source) => ({ channel: source.channel, campaign: source.campaign, ...figures(source), months: source.months.map((month) => ({ month: month.month, ...figures(month) })) })),
      };
    }),

  status: storeProcedure
    .input(z.void())
    .output(recomputeStatusOutput)
    .query(({ ctx }) => attributionStatus(ctx.em, ctx.store.id)),

  updateSettings: storeProcedure
    .input(attributionSettingsInput)
    .output(recomputeStatusOutput)
    .mutation(({ ctx, input }) => setAttributionWindow(ctx.em, ctx.store.id, input.attributionWindowDays)),
});
