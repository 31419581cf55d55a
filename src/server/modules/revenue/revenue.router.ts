import { revenueBreakdownInput, revenueBreakdownOutput } from '../../../shared/revenue.ts';
import { router } from '../../trpc/init.ts';
import { storeProcedure } from '../../trpc/procedures.ts';
import { storeInScope } from '../commerce/commerce.router.ts';
import { revenueBreakdown } from './revenue.service.ts';

export const revenueRouter = router({
  /** Net sales by channel, product and customer type, refunds, and the daily components, for a range. */
  breakdown: storeProcedure
    .input(revenueBreakdownInput)
    .output(revenueBreakdownOutput)
    .query(async ({ ctx, input }) => revenueBreakdown(ctx.em, await storeInScope(ctx, input.storeId), input)),
});
