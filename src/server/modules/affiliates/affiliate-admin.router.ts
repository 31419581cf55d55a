import { z } from 'zod';
import {
  affiliateDetailOutput,
  affiliateListInput,
  affiliateListOutput,
  affiliateOverridesInput,
  markPayoutPaidInput,
  payoutIdInput,
  payoutOutput,
  rejectPayoutInput,
} from '../../../shared/affiliates.ts';
import { userIdSchema } from '../../../shared/admin.ts';
import { router } from '../../trpc/init.ts';
import { adminProcedure } from '../../trpc/procedures.ts';
import { affiliateDetail, decidePayout, listAffiliates, setAffiliateOverrides } from './affiliate-admin.service.ts';

/** The admin console's side of the affiliate programme. Guest mode ("view as user") refuses every mutation (procedures.ts). */
export const affiliateAdminRouter = router({
  list: adminProcedure
    .meta({ openapi: { method: 'GET', path: '/admin/affiliates', tags: ['admin', 'affiliates'], summary: 'Affiliates with their totals, sorted and paged' } })
    .input(affiliateListInput)
    .output(affiliateListOutput)
    .query(({ ctx, input }) => listAffiliates(ctx.em, input)),

  detail: adminProcedure
    .meta({ openapi: { method: 'GET', path: '/admin/affiliates/{userId}', tags: ['admin', 'affiliates'], summary: 'One affiliate: referrals, commissions, payouts, flags, audit trail' } })
    .input(z.object({ userId: userIdSchema }))
    .output(affiliateDetailOutput)
    .query(({ ctx, input }) => affiliateDetail(ctx.em, input.userId)),

  setOverrides: adminProcedure
    .meta({ openapi: { method: 'POST', path: '/admin/affiliates/{userId}/overrides', tags: ['admin', 'affiliates'], summary: "Set an affiliate's commission rate and duration (null: the default)" } })
    .input(affiliateOverridesInput)
    .output(z.object({ commissionRatePercent: z.number().nullable(), commissionMonths: z.number().nullable() }))
    .mutation(({ ctx, input }) => setAffiliateOverrides(ctx.em, { userId: ctx.actorUserId, ip: ctx.clientIp }, input)),

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
