import { z } from 'zod';
import { currentSubscriptionOutput, planIdSchema, planOutput } from '../../../shared/subscriptions.ts';
import { billingIntervalSchema, billingInvoiceOutput } from '../../../shared/billing.ts';
import { AppError } from '../../errors.ts';
import { router } from '../../trpc/init.ts';
import { listInvoices } from './stripe-events.ts';
import { authedProcedure, publicProcedure } from '../../trpc/procedures.ts';
import { checkout, currentSubscription, listPlans, startTrial } from './subscriptions.service.ts';

export const subscriptionsRouter = router({
  plans: publicProcedure
    .meta({ openapi: { method: 'GET', path: '/subscription/plans', tags: ['subscription'], summary: 'Plans on offer' } })
    .input(z.void())
    .output(z.array(planOutput))
    .query(({ ctx }) => listPlans(ctx.em)),

  current: authedProcedure
    .meta({ openapi: { method: 'GET', path: '/subscription/current', tags: ['subscription'], summary: "The user's subscription" } })
    .input(z.void())
    .output(currentSubscriptionOutput)
    .query(({ ctx }) => currentSubscription(ctx.em, ctx.user.id)),

  /** Which payment provider checkout uses, so the UI can label test mode. */
  provider: publicProcedure
    .input(z.void())
    .output(z.object({ id: z.string(), testMode: z.boolean() }))
    .query(({ ctx }) => ({ id: ctx.services.paymentProvider.id, testMode: ctx.services.paymentProvider.testMode })),

  startTrial: authedProcedure
    .meta({ openapi: { method: 'POST', path: '/subscription/trial', tags: ['subscription'], summary: 'Start the one free trial' } })
    .input(z.object({ planId: planIdSchema }))
    .output(currentSubscriptionOutput)
    .mutation(async ({ ctx, input }) => {
      await startTrial(ctx.em, ctx.user, input.planId);
      return currentSubscription(ctx.em, ctx.user.id);
    }),

  checkout: authedProcedure
    .meta({ openapi: { method: 'POST', path: '/subscription/checkout', tags: ['subscription'], summary: 'Buy a plan' } })
    .input(z.object({ planId: planIdSchema, interval: billingIntervalSchema.default('month') }))
    .output(
      z.object({
        status: z.enum(['completed', 'redirect']),
        redirectUrl: z.string().nullable(),
        testMode: z.boolean(),
        current: currentSubscriptionOutput,
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const result = await checkout(ctx.em, ctx.user, input.planId, ctx.services.paymentProvider, { interval: input.interval, origin: ctx.origin });
      return { ...result, current: await currentSubscription(ctx.em, ctx.user.id) };
    }),
  /** The payment provider's billing page (Stripe Customer Portal): card, plan change, cancellation. */
  billingPortal: authedProcedure
    .meta({ openapi: { method: 'POST', path: '/subscription/billing-portal', tags: ['subscription'], summary: 'Open the billing portal' } })
    .input(z.void())
    .output(z.object({ url: z.string() }))
    .mutation(async ({ ctx }) => {
      const provider = ctx.services.paymentProvider;
      if (!provider.openBillingPortal) throw new AppError('NOT_FOUND', 'This server has no billing portal: plans are managed here.');
      return { url: await provider.openBillingPortal({ em: ctx.em, userId: ctx.user.id, origin: ctx.origin ?? 'http://localhost:3000' }) };
    }),
  invoices: authedProcedure
    .meta({ openapi: { method: 'GET', path: '/subscription/invoices', tags: ['subscription'], summary: "The user's invoices" } })
    .input(z.void())
    .output(z.array(billingInvoiceOutput))
    .query(({ ctx }) => listInvoices(ctx.em, ctx.user.id)),
});
