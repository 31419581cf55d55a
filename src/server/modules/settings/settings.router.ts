import { z } from 'zod';
import { changePasswordInput, settingsOutput, updateAccountInput, updatePreferencesInput } from '../../../shared/settings.ts';
import { router } from '../../trpc/init.ts';
import { authedProcedure } from '../../trpc/procedures.ts';
import { changePassword, toSettings, updateAccount, updatePreferences } from './settings.service.ts';

/** The signed-in user's own account: names, e-mail preferences and password. Guest mode may look, not change. */
export const settingsRouter = router({
  get: authedProcedure
    .meta({ openapi: { method: 'GET', path: '/settings', tags: ['settings'], summary: 'Username, email and e-mail preferences' } })
    .input(z.void())
    .output(settingsOutput)
    .query(({ ctx }) => toSettings(ctx.user)),

  updateAccount: authedProcedure
    .meta({ openapi: { method: 'PATCH', path: '/settings/account', tags: ['settings'], summary: 'Change username and email' } })
    .input(updateAccountInput)
    .output(settingsOutput)
    .mutation(({ ctx, input }) => updateAccount(ctx.em, ctx.user, input)),

  updatePreferences: authedProcedure
    .meta({ openapi: { method: 'PATCH', path: '/settings/preferences', tags: ['settings'], summary: 'Opt in or out of marketing e-mails' } })
    .input(updatePreferencesInput)
    .output(settingsOutput)
    .mutation(({ ctx, input }) => updatePreferences(ctx.em, ctx.user, input)),

  changePassword: authedProcedure
    .meta({
      openapi: { method: 'POST', path: '/settings/password', tags: ['settings'], summary: 'Change the password; other sessions are signed out' },
    })
    .input(changePasswordInput)
    .output(z.object({ success: z.literal(true) }))
    .mutation(({ ctx, input }) => changePassword(ctx.em, ctx.user, input, { session: ctx.session, clientIp: ctx.clientIp })),
});
