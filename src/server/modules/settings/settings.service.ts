import type { EntityManager } from '@mikro-orm/postgresql';
import {
  CURRENT_PASSWORD_INCORRECT_MESSAGE,
  type AccountSettings,
  type ChangePasswordInput,
  type UpdateAccountInput,
} from '../../../shared/settings.ts';
import { AppError } from '../../errors.ts';
import { AuditLogEntry } from '../admin/audit-log.entity.ts';
import { AttemptLimiter } from '../auth/attempt-limiter.ts';
import { EMAIL_TAKEN_MESSAGE, USERNAME_TAKEN_MESSAGE, findUserByEmail, findUserByUsername } from '../auth/auth.service.ts';
import { hashPassword, verifyPassword } from '../auth/passwords.ts';
import { deleteSessionsOfUser } from '../auth/user-sessions.ts';
import type { SessionControl } from '../sessions/session-control.ts';
import { User, type UserEntity } from '../users/user.entity.ts';

/** Wrong current passwords per account: a stolen session must not become a password-guessing oracle. */
const wrongCurrentPasswordPerUser = new AttemptLimiter(
  'wrong-current-password-user',
  { max: 5, windowMs: 15 * 60_000 },
  (minutes) => `Too many incorrect passwords. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
);

export function toSettings(user: UserEntity): AccountSettings {
  return { username: user.username, email: user.email, marketingEmails: user.marketingEmails };
}

export async function updateAccount(em: EntityManager, user: UserEntity, input: UpdateAccountInput): Promise<AccountSettings> {
  const sameName = await findUserByUsername(em, input.username);
  if (sameName && sameName.id !== user.id) {
    throw new AppError('CONFLICT', USERNAME_TAKEN_MESSAGE, { fieldErrors: [{ field: 'username', message: USERNAME_TAKEN_MESSAGE }] });
  }
  const sameEmail = await findUserByEmail(em, input.email);
  if (sameEmail && sameEmail.id !== user.id) {
    throw new AppError('CONFLICT', EMAIL_TAKEN_MESSAGE, { fieldErrors: [{ field: 'email', message: EMAIL_TAKEN_MESSAGE }] });
  }
  user.username = input.username;
  user.email = input.email;
  await em.flush();
  return toSettings(user);
}

export async function updatePreferences(em: EntityManager, user: UserEntity, input: { marketingEmails: boolean }): Promise<AccountSettings> {
  user.marketingEmails = input.marketingEmails;
  await em.flush();
  return toSettings(user);
}

/**
 * Checks the current password, stores the new one, and ends every other session of the account:
 * all its sessions are deleted and the caller gets a fresh one.
 */
export async function changePassword(
  em: EntityManager,
  user: UserEntity,
  input: ChangePasswordInput,
  deps: { session: SessionControl; clientIp: string | null },
): Promise<{ success: true }> {
  const key = String(user.id);
  await wrongCurrentPasswordPerUser.assertAllowed(em, key);
  const withHash = await em.findOneOrFail(User, { id: user.id }, { populate: ['passwordHash'] });
  if (!(await verifyPassword(withHash.passwordHash, input.currentPassword))) {
    await wrongCurrentPasswordPerUser.record(em, key);
    throw new AppError('BAD_REQUEST', CURRENT_PASSWORD_INCORRECT_MESSAGE, {
      fieldErrors: [{ field: 'currentPassword', message: CURRENT_PASSWORD_INCORRECT_MESSAGE }],
    });
  }
  await wrongCurrentPasswordPerUser.reset(em, key);
  const newHash = await hashPassword(input.newPassword);
  await em.transactional(async (tx) => {
    await tx.nativeUpdate(User, { id: user.id }, { passwordHash: newHash, updatedAt: new Date() });
    tx.create(AuditLogEntry, {
      actorUserId: user.id,
      targetUserId: user.id,
      action: 'password.changed',
      details: null,
      ipAddress: deps.clientIp,
    });
    await tx.flush();
    await deleteSessionsOfUser(tx, user.id);
  });
  // The caller's own session was among those deleted: it continues in a fresh one (new id).
  await deps.session.signIn(user.id);
  return { success: true };
}
