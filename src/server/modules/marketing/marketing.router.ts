import { campaignsInput, campaignsOutput } from '../../../shared/marketing.ts';
import { router } from '../../trpc/init.ts';
import { storeProcedure } from '../../trpc/procedures.ts';
import { storeInScope } from '../commerce/commerce.router.ts';
import { campaigns } from './campaigns.service.ts';

export const marketingRouter = router({
  /** One advertising platform's campaigns for a range: platform figures, our attributed orders, totals with deltas, daily series. */
  campaigns: storeProcedure
    .input(campaignsInput)
    .output(campaignsOutput)
    .query(async ({ ctx, input }) => campaigns(ctx.em, await storeInScope(ctx, input.storeId), input)),
});
