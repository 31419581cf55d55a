import { loyaltyRetentionInput, loyaltyRetentionOutput } from '../../../shared/loyalty-retention.ts';
import { router } from '../../trpc/init.ts';
import { storeProcedure } from '../../trpc/procedures.ts';
import { loyaltyRetention } from './retention.service.ts';

// loyalty.retention: the /customer-loyalty screen's cohort-retention heat-map (README, "Customer
// loyalty: cohort retention"). The lead merges these procedures into the loyalty router.
export const loyaltyRetentionRouter = router({
  /** Customers by the month of their first order and the share of them who ordered in each month since. */
  retention: storeProcedure
    .input(loyaltyRetentionInput)
    .output(loyaltyRetentionOutput)
    .query(({ ctx, input }) => loyaltyRetention(ctx.em, ctx.store, input)),
});
