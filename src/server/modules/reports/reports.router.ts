import { z } from 'zod';
import { reportIdInput, reportResult, runReportInput, savedReportOutput, saveReportInput, updateReportInput } from '../../../shared/reports.ts';
import { router } from '../../trpc/init.ts';
import { storeProcedure } from '../../trpc/procedures.ts';
import { runReport } from './report-engine.ts';
import { getReport, listReports, removeReport, saveReport, updateReport } from './reports.service.ts';

/** The report builder and the active store's saved (and scheduled) reports. */
export const reportsRouter = router({
  /** Metrics x dimension x range x granularity, with an optional comparison: columns, rows, totals. */
  run: storeProcedure
    .input(runReportInput)
    .output(reportResult)
    .query(({ ctx, input }) => runReport(ctx.em, ctx.store, input)),

  list: storeProcedure.output(z.array(savedReportOutput)).query(({ ctx }) => listReports(ctx.em, ctx.store)),

  get: storeProcedure
    .input(reportIdInput)
    .output(savedReportOutput)
    .query(({ ctx, input }) => getReport(ctx.em, ctx.store, input.id)),

  save: storeProcedure
    .input(saveReportInput)
    .output(savedReportOutput)
    .mutation(({ ctx, input }) => saveReport(ctx.em, ctx.store, ctx.user, input)),

  /** Rename, change the definition, or the schedule and recipients. */
  update: storeProcedure
    .input(updateReportInput)
    .output(savedReportOutput)
    .mutation(({ ctx, input }) => updateReport(ctx.em, ctx.store, input)),

  remove: storeProcedure
    .input(reportIdInput)
    .output(z.object({ id: z.number() }))
    .mutation(({ ctx, input }) => removeReport(ctx.em, ctx.store, input.id)),
});
