import { distributionInput, distributionOutput, trendInput, trendOutput } from '../../../shared/analytics.ts';
import { router } from '../../trpc/init.ts';
import { storeProcedure } from '../../trpc/procedures.ts';
import { storeInScope } from '../commerce/commerce.router.ts';
import { distribution } from './distribution.service.ts';
import { trend } from './trend.service.ts';

export const analyticsRouter = router({
  /** One KPI by day, week or month with the comparison range aligned by position, and by channel where it adds up. */
  trend: storeProcedure
    .input(trendInput)
    .output(trendOutput)
    .query(async ({ ctx, input }) => trend(ctx.em, await storeInScope(ctx, input.storeId), input)),

  /** How spend, revenue and ROAS spread across campaigns and products: Pareto, top 10 %, ROAS histogram. */
  distribution: storeProcedure
    .input(distributionInput)
    .output(distributionOutput)
    .query(async ({ ctx, input }) => distribution(ctx.em, await storeInScope(ctx, input.storeId), input)),
});
