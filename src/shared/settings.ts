import { z } from 'zod';
import { PASSWORD_MAX_LENGTH, emailSchema, newPasswordSchema, usernameSchema } from './auth.ts';

export const PASSWORDS_DO_NOT_MATCH_MESSAGE = 'Passwords do not match';
export const CURRENT_PASSWORD_INCORRECT_MESSAGE = 'Current password is incorrect';
export const RESET_LINK_INVALID_MESSAGE = 'This reset link is invalid or has expired.';
export const PASSWORD_RESET_REQUESTED_MESSAGE = "If an account exists for that email, we've sent a link to reset your password.";
/** How long an e-mailed reset link works. */
export const PASSWORD_RESET_VALID_MINUTES = 60;

/** How long the link that confirms a new e-mail address works. */
export const EMAIL_CHANGE_VALID_HOURS = 24;
export const EMAIL_CHANGE_NEEDS_CONFIRMATION_MESSAGE = 'To change your email address, confirm it with your password';
export const EMAIL_UNCHANGED_MESSAGE = 'That is already your email address';
export const EMAIL_CHANGE_LINK_INVALID_MESSAGE = 'This confirmation link is invalid or has expired.';

export const settingsOutput = z.object({
  username: z.string(),
  email: z.string(),
  marketingEmails: z.boolean(),
  /** A new address waiting for its confirmation link to be opened; the account still uses `email`. */
  pendingEmail: z.string().nullable(),
});
export type AccountSettings = z.infer<typeof settingsOutput>;

/**
 * Same rules as registration. The e-mail address is changed through requestEmailChange; `email` may be
 * sent along with the current address (in any case), anything else is refused.
 */
export const updateAccountInput = z.object({
  username: usernameSchema,
  email: emailSchema.optional(),
});
export type UpdateAccountInput = z.infer<typeof updateAccountInput>;

const currentPasswordSchema = z
  .string({ error: 'Current password is required' })
  .min(1, 'Current password is required')
  .max(PASSWORD_MAX_LENGTH, CURRENT_PASSWORD_INCORRECT_MESSAGE);

/** A new address for the account: it changes once the link e-mailed to the new address is opened. */
export const requestEmailChangeInput = z.object({
  newEmail: emailSchema,
  currentPassword: currentPasswordSchema,
});
export type RequestEmailChangeInput = z.infer<typeof requestEmailChangeInput>;

export const emailChangeRequestedOutput = z.object({ pendingEmail: z.string(), expiresAt: z.string() });

export const confirmEmailChangeInput = z.object({
  token: z.string({ error: EMAIL_CHANGE_LINK_INVALID_MESSAGE }).trim().min(1, EMAIL_CHANGE_LINK_INVALID_MESSAGE).max(200, EMAIL_CHANGE_LINK_INVALID_MESSAGE),
});
export const emailChangedOutput = z.object({ email: z.string() });

export const updatePreferencesInput = z.object({
  marketingEmails: z.boolean({ error: 'Marketing emails must be true or false' }),
});

/** A new password typed twice; the second must match the first (error on confirmPassword). */
const confirmedPassword = {
  newPassword: newPasswordSchema,
  confirmPassword: z.string({ error: 'Confirm your new password' }).max(PASSWORD_MAX_LENGTH, PASSWORDS_DO_NOT_MATCH_MESSAGE),
};

function passwordsMatch(value: { newPassword: string; confirmPassword: string }, context: z.RefinementCtx): void {
  if (value.newPassword !== value.confirmPassword) {
    context.addIssue({ code: 'custom', path: ['confirmPassword'], message: PASSWORDS_DO_NOT_MATCH_MESSAGE });
  }
}

export const changePasswordInput = z
  .object({
    currentPassword: currentPasswordSchema,
    ...confirmedPassword,
  })
  .superRefine(passwordsMatch);
export type ChangePasswordInput = z.infer<typeof changePasswordInput>;

export const requestPasswordResetInput = z.object({ email: emailSchema });

export const resetPasswordInput = z
  .object({
    token: z.string({ error: RESET_LINK_INVALID_MESSAGE }).trim().min(1, RESET_LINK_INVALID_MESSAGE).max(200, RESET_LINK_INVALID_MESSAGE),
    ...confirmedPassword,
  })
  .superRefine(passwordsMatch);
export type ResetPasswordInput = z.infer<typeof resetPasswordInput>;
