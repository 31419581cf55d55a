import { adminDeleteUserInput } from '../../../shared/privacy.ts';
import { AppError } from '../../errors.ts';
import { cancelAccountDeletion, scheduleAccountDeletion } from '../privacy/account-deletion.ts';
import { User } from '../users/user.entity.ts';
import { z } from 'zod';
import { emailSchema, newPasswordSchema, userOutput, usernameSchema } from '../../../shared/auth.ts';
import { router } from '../../trpc/init.ts';
import { adminProcedure } from '../../trpc/procedures.ts';
import { toPublicUser } from '../users/user-presenter.ts';
import {
  adminStatsOutput,
  auditEntryOutput,
  auditLogInput,
  grantDaysSchema,
  grantPlanOutput,
  grantPlanToUserInput,
  planTierSchema,
  userDetailOutput,
  userIdSchema,
} from '../../../shared/admin.ts';
import {
  adminStats,
  auditLog,
  createUserAsAdmin,
  enterGuestMode,
  exitGuestMode,
  grantPlan,
  grantPlanToUser,
  guestModeStatus,
  listUsers,
  userDetail,
} from './admin.service.ts';

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

  scheduleUserDeletion: adminProcedure
    .meta({ openapi: { method: 'POST', path: '/admin/users/{userId}/delete', tags: ['admin'], summary: "Schedule a user's account deletion, with the reason" } })
    .input(adminDeleteUserInput)
    .output(z.object({ deletionScheduledFor: z.string() }))
    .mutation(async ({ ctx, input }) => {
      const user = await ctx.em.findOne(User, { id: input.userId });
      if (!user) throw new AppError('NOT_FOUND', 'User not found');
      return scheduleAccountDeletion(ctx.em, user, { adminId: ctx.actorUserId, reason: input.reason, origin: ctx.origin, clientIp: ctx.clientIp });
    }),

  cancelUserDeletion: adminProcedure
    .meta({ openapi: { method: 'POST', path: '/admin/users/{userId}/cancel-deletion', tags: ['admin'], summary: "Cancel a user's scheduled account deletion" } })
    .input(z.object({ userId: z.number().int().positive() }))
    .output(z.object({ success: z.literal(true) }))
    .mutation(async ({ ctx, input }) => {
      const user = await ctx.em.findOne(User, { id: input.userId });
      if (!user) throw new AppError('NOT_FOUND', 'User not found');
      await cancelAccountDeletion(ctx.em, user, { actorId: ctx.actorUserId ?? user.id, clientIp: ctx.clientIp });
      return { success: true as const };
    }),

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
        tier: planTierSchema,
        days: grantDaysSchema.default(30),
      }),
    )
    .output(grantPlanOutput)
    .mutation(({ ctx, input }) => grantPlan(ctx.em, { userId: ctx.actorUserId, ip: ctx.clientIp }, input)),

  /** The console's "Grant plan" on a user's detail page: the same rule as grantPlan, by id. */
  grantPlanToUser: adminProcedure
    .meta({ openapi: { method: 'POST', path: '/admin/users/{userId}/grant-plan', tags: ['admin'], summary: 'Give a user a plan for some days' } })
    .input(grantPlanToUserInput)
    .output(grantPlanOutput)
    .mutation(({ ctx, input }) => grantPlanToUser(ctx.em, { userId: ctx.actorUserId, ip: ctx.clientIp }, input)),

  stats: adminProcedure
    .meta({ openapi: { method: 'GET', path: '/admin/stats', tags: ['admin'], summary: 'Key figures: users, subscriptions, trials, MRR, sign-ups' } })
    .input(z.void())
    .output(adminStatsOutput)
    .query(({ ctx }) => adminStats(ctx.em)),

  auditLog: adminProcedure
    .meta({ openapi: { method: 'GET', path: '/admin/audit-log', tags: ['admin'], summary: 'Recent audit entries, newest first' } })
    .input(auditLogInput)
    .output(z.array(auditEntryOutput))
    .query(({ ctx, input }) => auditLog(ctx.em, { limit: input.limit })),

  userDetail: adminProcedure
    .meta({ openapi: { method: 'GET', path: '/admin/users/{userId}', tags: ['admin'], summary: 'One account: stores, subscriptions, audit entries' } })
    .input(z.object({ userId: userIdSchema }))
    .output(userDetailOutput)
    .query(({ ctx, input }) => userDetail(ctx.em, input.userId)),
});
