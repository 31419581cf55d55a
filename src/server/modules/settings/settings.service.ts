import type { EntityManager } from '@mikro-orm/postgresql';
import {
  EMAIL_CHANGE_NEEDS_CONFIRMATION_MESSAGE,
  type AccountSettings,
  type ChangePasswordInput,
  type UpdateAccountInput,
} from '../../../shared/settings.ts';
import { AppError } from '../../errors.ts';
import { AuditLogEntry } from '../admin/audit-log.entity.ts';
import { USERNAME_TAKEN_MESSAGE, findUserByUsername } from '../auth/auth.service.ts';
import { hashPassword } from '../auth/passwords.ts';
import { deleteSessionsOfUser } from '../auth/user-sessions.ts';
import type { SessionControl } from '../sessions/session-control.ts';
import { User, type UserEntity } from '../users/user.entity.ts';
import { assertCurrentPassword } from './current-password.ts';
import { cancelEmailChanges, pendingEmailOf } from './email-change.service.ts';

export async function toSettings(em: EntityManager, user: UserEntity): Promise<AccountSettings> {
  return { username: user.username, email: user.email, marketingEmails: user.marketingEmails, pendingEmail: await pendingEmailOf(em, user.id) };
}

/**
 * The username; the e-mail address only in another case (Alice@ for alice@). A new address goes
 * through requestEmailChange: a session alone must not be able to move the account elsewhere.
 */
export async function updateAccount(em: EntityManager, user: UserEntity, input: UpdateAccountInput): Promise<AccountSettings> {
  if (input.email !== undefined && input.email.toLowerCase() !== user.email.toLowerCase()) {
    throw new AppError('BAD_REQUEST', EMAIL_CHANGE_NEEDS_CONFIRMATION_MESSAGE, {
      fieldErrors: [{ field: 'email', message: EMAIL_CHANGE_NEEDS_CONFIRMATION_MESSAGE }],
    });
  }
  const sameName = await findUserByUsername(em, input.username);
  if (sameName && sameName.id !== user.id) {
    throw new AppError('CONFLICT', USERNAME_TAKEN_MESSAGE, { fieldErrors: [{ field: 'username', message: USERNAME_TAKEN_MESSAGE }] });
  }
  user.username = input.username;
  if (input.email !== undefined) user.email = input.email;
  await em.flush();
  return toSettings(em, user);
}

export async function updatePreferences(em: EntityManager, user: UserEntity, input: { marketingEmails: boolean }): Promise<AccountSettings> {
  user.marketingEmails = input.marketingEmails;
  await em.flush();
  return toSettings(em, user);
}

/**
 * Checks the current password, stores the new one, and ends every other session of the account (all
 * its sessions are deleted and the caller gets a fresh one) and any e-mail change waiting for its link.
 */
export async function changePassword(
  em: EntityManager,
  user: UserEntity,
  input: ChangePasswordInput,
  deps: { session: SessionControl; clientIp: string | null },
): Promise<{ success: true }> {
  await assertCurrentPassword(em, user, input.currentPassword);
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
    // A pending new address may be someone else's doing: a new password ends it.
    await cancelEmailChanges(tx, user.id);
  });
  // The caller's own session was among those deleted: it continues in a fresh one (new id).
  await deps.session.signIn(user.id);
  return { success: true };
}
