import { z } from 'zod';
import { loginInput, registerInput, userOutput } from '../../../shared/auth.ts';
import { router } from '../../trpc/init.ts';
import { authedProcedure, publicProcedure } from '../../trpc/procedures.ts';
import { toPublicUser } from '../users/user-presenter.ts';
import { login, register } from './auth.service.ts';

export const authRouter = router({
  register: publicProcedure
    .meta({ openapi: { method: 'POST', path: '/register', tags: ['auth'], summary: 'Create an account and sign in' }, rest: { successStatus: 201 } })
    .input(registerInput)
    .output(userOutput)
    .mutation(async ({ ctx, input }) =>
      toPublicUser(await register(ctx.em, input, { session: ctx.session, limiters: ctx.services.authLimiters, clientIp: ctx.clientIp })),
    ),

  login: publicProcedure
    .meta({ openapi: { method: 'POST', path: '/login', tags: ['auth'], summary: 'Sign in with username or email' } })
    .input(loginInput)
    .output(userOutput)
    .mutation(async ({ ctx, input }) =>
      toPublicUser(await login(ctx.em, input, { session: ctx.session, limiters: ctx.services.authLimiters, clientIp: ctx.clientIp })),
    ),

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
});
