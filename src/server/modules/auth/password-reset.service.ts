import type { EntityManager } from '@mikro-orm/postgresql';
import {
  PASSWORD_RESET_REQUESTED_MESSAGE,
  PASSWORD_RESET_VALID_MINUTES,
  RESET_LINK_INVALID_MESSAGE,
  type ResetPasswordInput,
} from '../../../shared/settings.ts';
import { AppError } from '../../errors.ts';
import { AuditLogEntry } from '../admin/audit-log.entity.ts';
import { sendEmail } from '../email/email.service.ts';
import { cancelEmailChanges } from '../settings/email-change.service.ts';
import { User } from '../users/user.entity.ts';
import { AttemptLimiter, type AttemptLimit } from './attempt-limiter.ts';
import { findUserByEmail } from './auth.service.ts';
import { newLinkToken, secretHash } from './link-token.ts';
import { PasswordResetToken } from './password-reset-token.entity.ts';
import { hashPassword } from './passwords.ts';
import { deleteSessionsOfUser } from './user-sessions.ts';

export const PASSWORD_RESET_LIMITS: { perIp: AttemptLimit; perEmail: AttemptLimit } = {
  perIp: { max: 5, windowMs: 15 * 60_000 },
  perEmail: { max: 3, windowMs: 60 * 60_000 },
};

const tooManyRequests = (minutes: number) =>
  `Too many password reset requests. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;

// Counted in the database, like the sign-in limits: enough to stop a script mailing someone a hundred links.
const requestsPerIp = new AttemptLimiter('password-reset-ip', PASSWORD_RESET_LIMITS.perIp, tooManyRequests);
const requestsPerEmail = new AttemptLimiter('password-reset-email', PASSWORD_RESET_LIMITS.perEmail, tooManyRequests);

/**
 * E-mails a single-use link to set a new password. The answer is the same whether or not an account
 * has that address, so the form cannot be used to find out who is a customer.
 */
export async function requestPasswordReset(
  em: EntityManager,
  email: string,
  deps: { clientIp: string | null; origin: string | null; now?: Date },
): Promise<{ message: string }> {
  const ipKey = deps.clientIp ?? 'unknown';
  const emailKey = email.toLowerCase();
  await requestsPerIp.assertAllowed(em, ipKey);
  await requestsPerEmail.assertAllowed(em, emailKey);
  await requestsPerIp.record(em, ipKey);
  await requestsPerEmail.record(em, emailKey);

  const user = await findUserByEmail(em, email);
  if (user) {
    const now = deps.now ?? new Date();
    const token = newLinkToken();
    em.create(PasswordResetToken, {
      user,
      tokenHash: secretHash(token),
      expiresAt: new Date(now.getTime() + PASSWORD_RESET_VALID_MINUTES * 60_000),
      usedAt: null,
    });
    await em.flush();
    await sendEmail(em, {
      to: user.email,
      template: 'password_reset',
      userId: user.id,
      variables: {
        username: user.username,
        validMinutes: PASSWORD_RESET_VALID_MINUTES,
        resetUrl: `${deps.origin ?? ''}/reset-password?token=${encodeURIComponent(token)}`,
      },
    });
  }
  return { message: PASSWORD_RESET_REQUESTED_MESSAGE };
}

/**
 * Sets the new password from a valid link, spends every open link of the account (reset and e-mail
 * change) and signs it out everywhere.
 */
export async function resetPassword(
  em: EntityManager,
  input: ResetPasswordInput,
  deps: { clientIp: string | null; now?: Date },
): Promise<{ success: true }> {
  const now = deps.now ?? new Date();
  const invalid = () =>
    new AppError('BAD_REQUEST', RESET_LINK_INVALID_MESSAGE, { fieldErrors: [{ field: 'token', message: RESET_LINK_INVALID_MESSAGE }] });
  const newHash = await hashPassword(input.newPassword);

  await em.transactional(async (tx) => {
    const token = await tx.findOne(PasswordResetToken, { tokenHash: secretHash(input.token) });
    if (!token || token.usedAt !== null || token.expiresAt.getTime() <= now.getTime()) throw invalid();
    // Claiming the token with a conditional update: of two requests racing with one link, only one wins.
    const claimed = await tx.nativeUpdate(PasswordResetToken, { id: token.id, usedAt: null }, { usedAt: now });
    if (claimed !== 1) throw invalid();
    const ownerId = token.user.id;
    await tx.nativeUpdate(PasswordResetToken, { user: ownerId, usedAt: null }, { usedAt: now });
    await tx.nativeUpdate(User, { id: ownerId }, { passwordHash: newHash, updatedAt: now });
    tx.create(AuditLogEntry, {
      actorUserId: ownerId,
      targetUserId: ownerId,
      action: 'password.reset',
      details: null,
      ipAddress: deps.clientIp,
    });
    await tx.flush();
    await deleteSessionsOfUser(tx, ownerId);
    // Someone who had the session may have asked for a new address: the owner taking the account back ends it.
    await cancelEmailChanges(tx, ownerId, now);
  });
  return { success: true };
}
