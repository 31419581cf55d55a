import { ACCOUNT_SCHEDULED_FOR_DELETION_MESSAGE } from '../../../shared/privacy.ts';
import { cancelAccountDeletion } from '../privacy/account-deletion.ts';
import { UniqueConstraintViolationException, sql } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { INVALID_CREDENTIALS_MESSAGE, type LoginInput, type RegisterInput } from '../../../shared/auth.ts';
import { AppError } from '../../errors.ts';
import type { SessionControl } from '../sessions/session-control.ts';
import { User, type UserEntity } from '../users/user.entity.ts';
import type { AuthLimiters } from './attempt-limiter.ts';
import { hashPassword, verifyPassword } from './passwords.ts';

export const USERNAME_TAKEN_MESSAGE = 'That username is already taken';
export const EMAIL_TAKEN_MESSAGE = 'An account with that email already exists';

export function findUserByUsername(em: EntityManager, username: string): Promise<UserEntity | null> {
  return em.findOne(User, { [sql.lower('username')]: username.toLowerCase() });
}

export function findUserByEmail(em: EntityManager, email: string): Promise<UserEntity | null> {
  return em.findOne(User, { [sql.lower('email')]: email.toLowerCase() });
}

async function assertAvailable(em: EntityManager, username: string, email: string): Promise<void> {
  if (await findUserByUsername(em, username)) {
    throw new AppError('CONFLICT', USERNAME_TAKEN_MESSAGE, { fieldErrors: [{ field: 'username', message: USERNAME_TAKEN_MESSAGE }] });
  }
  if (await findUserByEmail(em, email)) {
    throw new AppError('CONFLICT', EMAIL_TAKEN_MESSAGE, { fieldErrors: [{ field: 'email', message: EMAIL_TAKEN_MESSAGE }] });
  }
}

/** Creates an account; the registration and admin paths share it so the rules cannot drift apart. */
export async function createAccount(
  em: EntityManager,
  input: RegisterInput & { isAdmin?: boolean },
): Promise<UserEntity> {
  await assertAvailable(em, input.username, input.email);
  const user = em.create(User, {
    username: input.username,
    email: input.email,
    passwordHash: await hashPassword(input.password),
    isAdmin: input.isAdmin ?? false,
  });
  try {
    await em.flush();
  } catch (error) {
    // Two registrations racing for the same name: the unique index decides, the loser gets the same 409.
    if (error instanceof UniqueConstraintViolationException) {
      em.clear();
      await assertAvailable(em, input.username, input.email);
    }
    throw error;
  }
  return user;
}

export async function register(
  em: EntityManager,
  input: RegisterInput,
  deps: { session: SessionControl; limiters: AuthLimiters; clientIp: string | null },
): Promise<UserEntity> {
  const ipKey = deps.clientIp ?? 'unknown';
  // The answers keep the spec's texts ("already taken", "already exists"), which tell who has an
  // account: an address that got a few of them is refused for a while, whatever it tries next.
  await deps.limiters.takenAnswersPerIp.assertAllowed(em, ipKey);
  await deps.limiters.registrationsPerIp.consume(em, ipKey);
  let user: UserEntity;
  try {
    user = await createAccount(em, input);
  } catch (error) {
    if (error instanceof AppError && error.code === 'CONFLICT') await deps.limiters.takenAnswersPerIp.record(em, ipKey);
    throw error;
  }
  await deps.session.signIn(user.id);
  return user;
}

export async function login(
  em: EntityManager,
  input: LoginInput,
  deps: { session: SessionControl; limiters: AuthLimiters; clientIp: string | null },
): Promise<UserEntity> {
  const ipKey = deps.clientIp ?? 'unknown';
  const usernameKey = input.username.toLowerCase();
  // Failures count per (username, client address): a guesser elsewhere cannot lock the owner out.
  // The per-username backstop counts failures from every address, and stops guessing spread over
  // many addresses (it then refuses the owner too, until its window has passed).
  const pairKey = `${usernameKey} ${ipKey}`;
  await deps.limiters.loginPerIp.consume(em, ipKey);
  await deps.limiters.loginFailuresPerUsername.assertAllowed(em, usernameKey);
  // Counted before the password is checked, so that concurrent guesses cannot all get through
  // before the first failure is written; a successful sign-in clears it below.
  await deps.limiters.loginFailuresPerUsernameAndIp.consume(em, pairKey);

  const user = await em.findOne(
    User,
    { $or: [{ [sql.lower('username')]: usernameKey }, { [sql.lower('email')]: usernameKey }] },
    { populate: ['passwordHash'] },
  );
  const valid = await verifyPassword(user?.passwordHash ?? null, input.password);
  if (!user || !valid) {
    await deps.limiters.loginFailuresPerUsername.record(em, usernameKey);
    throw new AppError('UNAUTHORIZED', INVALID_CREDENTIALS_MESSAGE);
  }
  await deps.limiters.loginFailuresPerUsernameAndIp.reset(em, pairKey);
  if (user.deletionScheduledFor) {
    // Disabled until it is deleted: the right password may only cancel the deletion.
    if (!input.cancelDeletion) throw new AppError('FORBIDDEN', ACCOUNT_SCHEDULED_FOR_DELETION_MESSAGE);
    await cancelAccountDeletion(em, user, { actorId: user.id, clientIp: deps.clientIp });
  }
  await deps.session.signIn(user.id);
  return user;
}
