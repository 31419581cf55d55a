import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  EMAIL_CHANGE_LINK_INVALID_MESSAGE,
  EMAIL_CHANGE_VALID_HOURS,
  EMAIL_UNCHANGED_MESSAGE,
  type RequestEmailChangeInput,
} from '../../../shared/settings.ts';
import { AppError } from '../../errors.ts';
import { AuditLogEntry } from '../admin/audit-log.entity.ts';
import { AttemptLimiter, type AuthLimiters } from '../auth/attempt-limiter.ts';
import { EMAIL_TAKEN_MESSAGE, findUserByEmail } from '../auth/auth.service.ts';
import { newLinkToken, secretHash } from '../auth/link-token.ts';
import { PasswordResetToken } from '../auth/password-reset-token.entity.ts';
import { sendEmail } from '../email/email.service.ts';
import { User, type UserEntity } from '../users/user.entity.ts';
import { EmailChangeRequest } from './email-change-request.entity.ts';
import { assertCurrentPassword } from './current-password.ts';

const HOUR_MS = 60 * 60_000;

/** Confirmation e-mails per account: enough to fix a typo, too few to mail-bomb an address. */
const requestsPerUser = new AttemptLimiter(
  'email-change-user',
  { max: 5, windowMs: HOUR_MS },
  (minutes) => `Too many e-mail change requests. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
);

function sameAddress(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

const takenError = (field: string) => new AppError('CONFLICT', EMAIL_TAKEN_MESSAGE, { fieldErrors: [{ field, message: EMAIL_TAKEN_MESSAGE }] });

/** The new address waiting for confirmation, if a link to it is still open. */
export async function pendingEmailOf(em: EntityManager, userId: number, now = new Date()): Promise<string | null> {
  const pending = await em.findOne(
    EmailChangeRequest,
    { user: userId, usedAt: null, expiresAt: { $gt: now } },
    { orderBy: { createdAt: 'desc', id: 'desc' } },
  );
  return pending?.newEmail ?? null;
}

/** Closes every open e-mail change link of the account (a new request, a password change or reset). */
export async function cancelEmailChanges(em: EntityManager, userId: number, now = new Date()): Promise<void> {
  await em.nativeUpdate(EmailChangeRequest, { user: userId, usedAt: null }, { usedAt: now });
}

/**
 * Asks to move the account to a new e-mail address. A stolen session is not enough: the current
 * password is checked, the address changes only when the link e-mailed to the new address is opened
 * (once, within EMAIL_CHANGE_VALID_HOURS), and the current address is told about the request.
 */
export async function requestEmailChange(
  em: EntityManager,
  user: UserEntity,
  input: RequestEmailChangeInput,
  deps: { origin: string | null; clientIp: string | null; limiters: AuthLimiters; now?: Date },
): Promise<{ pendingEmail: string; expiresAt: string }> {
  const now = deps.now ?? new Date();
  await assertCurrentPassword(em, user, input.currentPassword);
  if (sameAddress(input.newEmail, user.email)) {
    throw new AppError('BAD_REQUEST', EMAIL_UNCHANGED_MESSAGE, { fieldErrors: [{ field: 'newEmail', message: EMAIL_UNCHANGED_MESSAGE }] });
  }
  // Saying an address is taken tells who has an account: counted per client address, like registration.
  const ipKey = deps.clientIp ?? 'unknown';
  await deps.limiters.takenAnswersPerIp.assertAllowed(em, ipKey);
  const owner = await findUserByEmail(em, input.newEmail);
  if (owner && owner.id !== user.id) {
    await deps.limiters.takenAnswersPerIp.record(em, ipKey);
    throw takenError('newEmail');
  }
  const userKey = String(user.id);
  await requestsPerUser.consume(em, userKey);

  const token = newLinkToken();
  const expiresAt = new Date(now.getTime() + EMAIL_CHANGE_VALID_HOURS * HOUR_MS);
  await em.transactional(async (tx) => {
    // Only the newest link works: an earlier one (perhaps with a typo in the address) is closed.
    await cancelEmailChanges(tx, user.id, now);
    tx.create(EmailChangeRequest, { user: user.id, newEmail: input.newEmail, tokenHash: secretHash(token), expiresAt, usedAt: null, createdAt: now });
    tx.create(AuditLogEntry, {
      actorUserId: user.id,
      targetUserId: user.id,
      action: 'email.change_requested',
      details: { newEmail: input.newEmail },
      ipAddress: deps.clientIp,
    });
    await tx.flush();
  });
  await sendEmail(em, {
    to: input.newEmail,
    template: 'email_change_confirmation',
    userId: user.id,
    variables: {
      username: user.username,
      newEmail: input.newEmail,
      validHours: EMAIL_CHANGE_VALID_HOURS,
      confirmUrl: `${deps.origin ?? ''}/confirm-email?token=${encodeURIComponent(token)}`,
    },
  });
  await sendEmail(em, {
    to: user.email,
    template: 'email_change_notice',
    userId: user.id,
    variables: { username: user.username, newEmail: input.newEmail, validHours: EMAIL_CHANGE_VALID_HOURS },
  });
  return { pendingEmail: input.newEmail, expiresAt: expiresAt.toISOString() };
}

/**
 * The link sent to the new address was opened: the account takes that address. The link works once
 * and until it expires; links still open for the account (e-mail change, password reset mailed to the
 * old address) stop working.
 */
export async function confirmEmailChange(
  em: EntityManager,
  token: string,
  deps: { clientIp: string | null; now?: Date },
): Promise<{ email: string }> {
  const now = deps.now ?? new Date();
  const invalid = () =>
    new AppError('BAD_REQUEST', EMAIL_CHANGE_LINK_INVALID_MESSAGE, { fieldErrors: [{ field: 'token', message: EMAIL_CHANGE_LINK_INVALID_MESSAGE }] });
  try {
    return await em.transactional(async (tx) => {
      const request = await tx.findOne(EmailChangeRequest, { tokenHash: secretHash(token) });
      if (!request || request.usedAt !== null || request.expiresAt.getTime() <= now.getTime()) throw invalid();
      // Of two requests racing with one link, only the one whose update claims it goes on.
      const claimed = await tx.nativeUpdate(EmailChangeRequest, { id: request.id, usedAt: null }, { usedAt: now });
      if (claimed !== 1) throw invalid();
      const userId = request.user.id;
      const owner = await findUserByEmail(tx, request.newEmail);
      if (owner && owner.id !== userId) throw takenError('token');
      const user = await tx.findOneOrFail(User, { id: userId });
      const previous = user.email;
      await tx.nativeUpdate(User, { id: userId }, { email: request.newEmail, updatedAt: now });
      await cancelEmailChanges(tx, userId, now);
      await tx.nativeUpdate(PasswordResetToken, { user: userId, usedAt: null }, { usedAt: now });
      tx.create(AuditLogEntry, {
        actorUserId: userId,
        targetUserId: userId,
        action: 'email.changed',
        details: { from: previous, to: request.newEmail },
        ipAddress: deps.clientIp,
      });
      await tx.flush();
      return { email: request.newEmail };
    });
  } catch (error) {
    // Another account took the address between the check and the update: the unique index decides.
    if (error instanceof UniqueConstraintViolationException) throw takenError('token');
    throw error;
  }
}
