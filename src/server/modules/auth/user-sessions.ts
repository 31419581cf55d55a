import type { EntityManager } from '@mikro-orm/postgresql';
import type { QueryResult } from '@mikro-orm/core';

/**
 * Signs a user out everywhere: deletes every stored session whose `userId` is this user (inside the
 * caller's transaction, if any). Sessions of an admin merely viewing this user in guest mode are the
 * admin's own and stay.
 */
export async function deleteSessionsOfUser(em: EntityManager, userId: number): Promise<number> {
  const result = await em.execute<QueryResult>(`delete from sessions where data->>'userId' = ?`, [String(userId)], 'run');
  return result.affectedRows;
}
