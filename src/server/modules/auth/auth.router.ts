import { z } from 'zod';
import { loginInput, registerInput, userOutput } from '../../../shared/auth.ts';
import { requestPasswordResetInput, resetPasswordInput } from '../../../shared/settings.ts';
import { router } from '../../trpc/init.ts';
import { authedProcedure, publicProcedure } from '../../trpc/procedures.ts';
import { REFERRAL_COOKIE_NAME } from '../../../shared/affiliates.ts';
import { attributeSignUp } from '../affiliates/affiliates.service.ts';
import { toPublicUser } from '../users/user-presenter.ts';
import { login, register } from './auth.service.ts';
import { requestPasswordReset, resetPassword } from './password-reset.service.ts';

export const authRouter = router({
  register: publicProcedure
    .meta({ openapi: { method: 'POST', path: '/register', tags: ['auth'], summary: 'Create an account and sign in' }, rest: { successStatus: 201 } })
    .input(registerInput)
    .output(userOutput)
    .mutation(async ({ ctx, input }) => {
      const user = await register(ctx.em, input, { session: ctx.session, limiters: ctx.services.authLimiters, clientIp: ctx.clientIp });
      await attributeSignUp(ctx.em, user, ctx.cookies?.get(REFERRAL_COOKIE_NAME), ctx.services.affiliates.cookieDays);
      await ctx.rememberOrigin();
      return toPublicUser(user);
    }),

  login: publicProcedure
    .meta({ openapi: { method: 'POST', path: '/login', tags: ['auth'], summary: 'Sign in with username or email' } })
    .input(loginInput)
    .output(userOutput)
    .mutation(async ({ ctx, input }) => {
      const user = await login(ctx.em, input, { session: ctx.session, limiters: ctx.services.authLimiters, clientIp: ctx.clientIp });
      await ctx.rememberOrigin();
      return toPublicUser(user);
    }),

  /** The signed-in account; in guest mode still the admin's own. */
  me: authedProcedure
    .meta({ openapi: { method: 'GET', path: '/user', tags: ['auth'], summary: 'The signed-in user (401 when signed out)' } })
    .input(z.void())
    .output(userOutput)
    .query(({ ctx }) => toPublicUser(ctx.sessionUser)),

  logout: publicProcedure
    .meta({ allowedInGuestMode: true })
    .input(z.void())
    .output(z.object({ success: z.literal(true) }))
    .mutation(async ({ ctx }) => {
      await ctx.session.signOut();
      return { success: true as const };
    }),

  /** Always the same answer, whether or not the address belongs to an account. */
  requestPasswordReset: publicProcedure
    .meta({ openapi: { method: 'POST', path: '/forgot-password', tags: ['auth'], summary: 'E-mail a link to reset the password' } })
    .input(requestPasswordResetInput)
    .output(z.object({ message: z.string() }))
    .mutation(({ ctx, input }) => requestPasswordReset(ctx.em, input.email, { clientIp: ctx.clientIp, origin: ctx.origin })),

  resetPassword: publicProcedure
    .meta({ openapi: { method: 'POST', path: '/reset-password', tags: ['auth'], summary: 'Set a new password with an e-mailed link' } })
    .input(resetPasswordInput)
    .output(z.object({ success: z.literal(true) }))
    .mutation(({ ctx, input }) => resetPassword(ctx.em, input, { clientIp: ctx.clientIp })),
});
