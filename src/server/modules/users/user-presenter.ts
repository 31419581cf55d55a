import type { PublicUser } from '../../../shared/auth.ts';
import type { UserEntity } from './user.entity.ts';

export function toPublicUser(user: UserEntity): PublicUser {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    isAdmin: user.isAdmin,
    isGuest: user.isGuest,
    marketingEmails: user.marketingEmails,
    createdAt: user.createdAt.toISOString(),
  };
}
