import { z } from 'zod';
import { emailSchema, newPasswordSchema, userOutput, usernameSchema } from '../../../shared/auth.ts';
import { PLAN_TIERS } from '../../../shared/plans.ts';
import { router } from '../../trpc/init.ts';
import { adminProcedure } from '../../trpc/procedures.ts';
import { toPublicUser } from '../users/user-presenter.ts';
import { createUserAsAdmin, enterGuestMode, exitGuestMode, grantPlan, guestModeStatus, listUsers } from './admin.service.ts';

const guestModeStatusOutput = z.object({
  isGuestMode: z.boolean(),
  guestUserId: z.number().nullable(),
  guestUsername: z.string().nullable(),
});

export const adminRouter = router({
  guestModeStatus: adminProcedure
    .meta({ openapi: { method: 'GET', path: '/admin/guest-mode-status', tags: ['admin'], summary: 'Whether the admin is viewing as a user' } })
    .input(z.void())
    .output(guestModeStatusOutput)
    .query(({ ctx }) => guestModeStatus(ctx.em, ctx.session)),

  enterGuestMode: adminProcedure
    .meta({ openapi: { method: 'POST', path: '/admin/enter-guest-mode', tags: ['admin'], summary: "View a user's dashboards, read-only" } })
    .input(z.object({ userId: z.coerce.number({ error: 'userId must be a number' }).int().positive('userId must be a positive number') }))
    .output(guestModeStatusOutput)
    .mutation(({ ctx, input }) => enterGuestMode(ctx.em, ctx.session, { userId: ctx.actorUserId, ip: ctx.clientIp }, input.userId)),

  exitGuestMode: adminProcedure
    .meta({
      openapi: { method: 'POST', path: '/admin/exit-guest-mode', tags: ['admin'], summary: 'Return to the admin account' },
      allowedInGuestMode: true,
    })
    .input(z.void())
    .output(z.object({ success: z.literal(true) }))
    .mutation(({ ctx }) => exitGuestMode(ctx.em, ctx.session, { userId: ctx.actorUserId, ip: ctx.clientIp })),

  listUsers: adminProcedure
    .meta({ openapi: { method: 'GET', path: '/admin/users', tags: ['admin'], summary: 'Every account with its plan' } })
    .input(z.void())
    .output(
      z.array(
        z.object({
          id: z.number(),
          username: z.string(),
          email: z.string(),
          isAdmin: z.boolean(),
          createdAt: z.string(),
          stores: z.number(),
          plan: z.string().nullable(),
          subscriptionStatus: z.string().nullable(),
          hasActiveSubscription: z.boolean(),
          currentPeriodEnd: z.string().nullable(),
        }),
      ),
    )
    .query(({ ctx }) => listUsers(ctx.em)),

  createUser: adminProcedure
    .input(z.object({ username: usernameSchema, email: emailSchema, password: newPasswordSchema, isAdmin: z.boolean().default(false) }))
    .output(userOutput)
    .mutation(async ({ ctx, input }) => toPublicUser(await createUserAsAdmin(ctx.em, input))),

  grantPlan: adminProcedure
    .input(
      z.object({
        username: z.string().trim().min(1, 'Username is required'),
        tier: z.enum(PLAN_TIERS, { error: `Plan must be one of ${PLAN_TIERS.join(', ')}` }),
        days: z.number().int().min(1, 'Days must be at least 1').max(3650, 'Days must be at most 3650').default(30),
      }),
    )
    .output(
      z.object({
        username: z.string(),
        plan: z.string(),
        tier: z.string().nullable(),
        status: z.string(),
        currentPeriodEnd: z.string(),
      }),
    )
    .mutation(({ ctx, input }) => grantPlan(ctx.em, { userId: ctx.actorUserId, ip: ctx.clientIp }, input)),
});
