import { z } from 'zod';
import { currentSubscriptionOutput, planIdSchema, planOutput } from '../../../shared/subscriptions.ts';
import { router } from '../../trpc/init.ts';
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
    .input(z.object({ planId: planIdSchema }))
    .output(
      z.object({
        status: z.enum(['completed', 'redirect']),
        redirectUrl: z.string().nullable(),
        testMode: z.boolean(),
        current: currentSubscriptionOutput,
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const result = await checkout(ctx.em, ctx.user, input.planId, ctx.services.paymentProvider);
      return { ...result, current: await currentSubscription(ctx.em, ctx.user.id) };
    }),
});
