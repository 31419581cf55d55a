import type { EntityManager } from '@mikro-orm/postgresql';
import { CURRENT_PASSWORD_INCORRECT_MESSAGE } from '../../../shared/settings.ts';
import { AppError } from '../../errors.ts';
import { AttemptLimiter } from '../auth/attempt-limiter.ts';
import { verifyPassword } from '../auth/passwords.ts';
import { User, type UserEntity } from '../users/user.entity.ts';

/** Wrong current passwords per account: a stolen session must not become a password-guessing oracle. */
const wrongCurrentPasswordPerUser = new AttemptLimiter(
  'wrong-current-password-user',
  { max: 5, windowMs: 15 * 60_000 },
  (minutes) => `Too many incorrect passwords. Please try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
);

/**
 * What a change to the account's keys (password, e-mail address) asks for besides the session: the
 * current password. Wrong ones count against the account (5 per 15 minutes, then 429).
 */
export async function assertCurrentPassword(em: EntityManager, user: UserEntity, currentPassword: string): Promise<void> {
  const key = String(user.id);
  await wrongCurrentPasswordPerUser.assertAllowed(em, key);
  const withHash = await em.findOneOrFail(User, { id: user.id }, { populate: ['passwordHash'] });
  if (!(await verifyPassword(withHash.passwordHash, currentPassword))) {
    await wrongCurrentPasswordPerUser.record(em, key);
    throw new AppError('BAD_REQUEST', CURRENT_PASSWORD_INCORRECT_MESSAGE, {
      fieldErrors: [{ field: 'currentPassword', message: CURRENT_PASSWORD_INCORRECT_MESSAGE }],
    });
  }
  await wrongCurrentPasswordPerUser.reset(em, key);
}
