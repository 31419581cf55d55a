import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { User } from '../users/user.entity.ts';

/**
 * A new e-mail address waiting for its owner to open the link sent to it. The account's address
 * changes only then; only the link token's SHA-256 is stored, and a link works once, until it expires.
 */
export const EmailChangeRequest = defineEntity({
  name: 'EmailChangeRequest',
  tableName: 'email_change_requests',
  properties: {
    id: p.integer().primary().autoincrement(),
    user: () => p.manyToOne(User).deleteRule('cascade'),
    newEmail: p.string().length(254),
    tokenHash: p.string().length(64).unique(),
    expiresAt: p.datetime(),
    /** Set when the link was used, or when the request was replaced or cancelled (a password change). */
    usedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  indexes: [{ properties: ['user', 'createdAt'] }],
});

export type EmailChangeRequestEntity = InferEntity<typeof EmailChangeRequest>;
