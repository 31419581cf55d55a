import { z } from 'zod';
import { affiliateDashboardOutput, affiliateMembershipOutput, payoutOutput, recordClickInput, recordClickOutput } from '../../../shared/affiliates.ts';
import { router } from '../../trpc/init.ts';
import { authedProcedure, publicProcedure } from '../../trpc/procedures.ts';
import { affiliateDashboard, membershipOf as membership } from './affiliate-dashboard.service.ts';
import { affiliateOf, joinAffiliateProgramme, recordReferralClick } from './affiliates.service.ts';
import { requestPayout } from './payouts.service.ts';

/** The affiliate programme: referral links, their clicks and the sign-ups they bring. */
export const affiliatesRouter = router({
  /** Called by the client when a page opens with ?ref=<code>. */
  recordClick: publicProcedure
    .meta({ openapi: { method: 'POST', path: '/affiliate/clicks', tags: ['affiliates'], summary: 'Record a visit through a referral link' } })
    .input(recordClickInput)
    .output(recordClickOutput)
    .mutation(({ ctx, input }) =>
      recordReferralClick(ctx.em, input.code, { user: ctx.sessionUser, clientIp: ctx.clientIp, userAgent: ctx.userAgent, cookies: ctx.cookies, cookieDays: ctx.services.affiliates.cookieDays, attribution: ctx.services.affiliates.attribution }),
    ),

  membership: authedProcedure
    .meta({ openapi: { method: 'GET', path: '/affiliate', tags: ['affiliates'], summary: 'Your affiliate membership (null before joining)' } })
    .input(z.void())
    .output(affiliateMembershipOutput)
    .query(async ({ ctx }) => membership(await affiliateOf(ctx.em, ctx.user))),

  dashboard: authedProcedure
    .meta({ openapi: { method: 'GET', path: '/affiliate/dashboard', tags: ['affiliates'], summary: 'Your clicks, referred accounts and commissions' } })
    .input(z.void())
    .output(affiliateDashboardOutput)
    .query(({ ctx }) => affiliateDashboard(ctx.em, ctx.user, ctx.services.affiliates.payoutThresholdMinor)),

  join: authedProcedure
    .meta({ openapi: { method: 'POST', path: '/affiliate', tags: ['affiliates'], summary: 'Join the affiliate programme' } })
    .input(z.void())
    .output(affiliateMembershipOutput)
    .mutation(async ({ ctx }) => membership(await joinAffiliateProgramme(ctx.em, ctx.user))),

  requestPayout: authedProcedure
    .meta({ openapi: { method: 'POST', path: '/affiliate/payouts', tags: ['affiliates'], summary: 'Request a payout of your whole payable balance' } })
    .input(z.void())
    .output(payoutOutput)
    .mutation(({ ctx }) => requestPayout(ctx.em, ctx.user, ctx.services.affiliates.payoutThresholdMinor)),
});
