import { markPayoutPaidInput, payoutIdInput, payoutOutput, rejectPayoutInput } from '../../../shared/affiliates.ts';
import { router } from '../../trpc/init.ts';
import { adminProcedure } from '../../trpc/procedures.ts';
import { decidePayout } from './affiliate-admin.service.ts';

/** The admin console's side of the affiliate programme. Guest mode ("view as user") refuses every mutation (procedures.ts). */
export const affiliateAdminRouter = router({
  approvePayout: adminProcedure
    .meta({ openapi: { method: 'POST', path: '/admin/affiliate-payouts/{payoutId}/approve', tags: ['admin', 'affiliates'], summary: 'Approve a requested payout' } })
    .input(payoutIdInput)
    .output(payoutOutput)
    .mutation(({ ctx, input }) => decidePayout(ctx.em, { userId: ctx.actorUserId, ip: ctx.clientIp }, 'approve', input)),

  rejectPayout: adminProcedure
    .meta({ openapi: { method: 'POST', path: '/admin/affiliate-payouts/{payoutId}/reject', tags: ['admin', 'affiliates'], summary: 'Reject an open payout: its commissions become payable again' } })
    .input(rejectPayoutInput)
    .output(payoutOutput)
    .mutation(({ ctx, input }) => decidePayout(ctx.em, { userId: ctx.actorUserId, ip: ctx.clientIp }, 'reject', input)),

  markPayoutPaid: adminProcedure
    .meta({ openapi: { method: 'POST', path: '/admin/affiliate-payouts/{payoutId}/paid', tags: ['admin', 'affiliates'], summary: 'Mark an approved payout paid, with the payment reference' } })
    .input(markPayoutPaidInput)
    .output(payoutOutput)
    .mutation(({ ctx, input }) => decidePayout(ctx.em, { userId: ctx.actorUserId, ip: ctx.clientIp }, 'markPaid', input)),
});
