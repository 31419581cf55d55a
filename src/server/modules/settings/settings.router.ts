import { z } from 'zod';
import {
  changePasswordInput,
  confirmEmailChangeInput,
  emailChangedOutput,
  emailChangeRequestedOutput,
  requestEmailChangeInput,
  settingsOutput,
  updateAccountInput,
  updatePreferencesInput,
} from '../../../shared/settings.ts';
import { router } from '../../trpc/init.ts';
import { authedProcedure, publicProcedure } from '../../trpc/procedures.ts';
import { cancelEmailChanges, confirmEmailChange, requestEmailChange } from './email-change.service.ts';
import { changePassword, toSettings, updateAccount, updatePreferences } from './settings.service.ts';
import { assertCurrentPassword } from './current-password.ts';
import { scheduleAccountDeletion } from '../privacy/account-deletion.ts';
import { deleteOwnAccountInput } from '../../../shared/privacy.ts';

/** The signed-in user's own account: names, e-mail address and preferences, password. Guest mode may look, not change. */
export const settingsRouter = router({
  get: authedProcedure
    .meta({ openapi: { method: 'GET', path: '/settings', tags: ['settings'], summary: 'Username, email (and a new one awaiting confirmation) and e-mail preferences' } })
    .input(z.void())
    .output(settingsOutput)
    .query(({ ctx }) => toSettings(ctx.em, ctx.user)),

  updateAccount: authedProcedure
    .meta({ openapi: { method: 'PATCH', path: '/settings/account', tags: ['settings'], summary: 'Change the username (a new email goes through POST /settings/email)' } })
    .input(updateAccountInput)
    .output(settingsOutput)
    .mutation(({ ctx, input }) => updateAccount(ctx.em, ctx.user, input)),

  requestEmailChange: authedProcedure
    .meta({
      openapi: {
        method: 'POST',
        path: '/settings/email',
        tags: ['settings'],
        summary: 'Ask for a new email address (current password required); it changes when the link e-mailed to it is opened',
      },
    })
    .input(requestEmailChangeInput)
    .output(emailChangeRequestedOutput)
    .mutation(({ ctx, input }) =>
      requestEmailChange(ctx.em, ctx.user, input, { origin: ctx.origin, clientIp: ctx.clientIp, limiters: ctx.services.authLimiters }),
    ),

  cancelEmailChange: authedProcedure
    .meta({ openapi: { method: 'DELETE', path: '/settings/email', tags: ['settings'], summary: 'Withdraw a new email address awaiting confirmation' } })
    .input(z.void())
    .output(settingsOutput)
    .mutation(async ({ ctx }) => {
      await cancelEmailChanges(ctx.em, ctx.user.id);
      return toSettings(ctx.em, ctx.user);
    }),

  /** The link e-mailed to the new address; it works without being signed in (it may be opened on another device). */
  confirmEmailChange: publicProcedure
    .meta({ openapi: { method: 'POST', path: '/settings/email/confirm', tags: ['settings'], summary: 'Confirm a new email address with the e-mailed link' } })
    .input(confirmEmailChangeInput)
    .output(emailChangedOutput)
    .mutation(({ ctx, input }) => confirmEmailChange(ctx.em, input.token, { clientIp: ctx.clientIp })),

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

  deleteAccount: authedProcedure
    .meta({ openapi: { method: 'POST', path: '/settings/delete-account', tags: ['settings'], summary: 'Schedule the deletion of the account (signed out; cancel by signing in)' } })
    .input(deleteOwnAccountInput)
    .output(z.object({ deletionScheduledFor: z.string() }))
    .mutation(async ({ ctx, input }) => {
      await assertCurrentPassword(ctx.em, ctx.user, input.currentPassword);
      const scheduled = await scheduleAccountDeletion(ctx.em, ctx.user, { adminId: null, reason: null, origin: ctx.origin, clientIp: ctx.clientIp });
      await ctx.session.signOut();
      return scheduled;
    }),
});
