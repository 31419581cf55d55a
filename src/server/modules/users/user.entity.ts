import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Store } from '../stores/store.entity.ts';

export const User = defineEntity({
  name: 'User',
  tableName: 'users',
  properties: {
    id: p.integer().primary().autoincrement(),
    username: p.string().length(32),
    email: p.string().length(254),
    passwordHash: p.string().hidden().lazy(),
    isAdmin: p.boolean().default(false),
    /** Joined through an invitation to someone else's dashboards. */
    isGuest: p.boolean().default(false),
    marketingEmails: p.boolean().default(false),
    activeStore: () => p.manyToOne(Store).nullable().deleteRule('set null'),
    trialStartedAt: p.datetime().nullable(),
    /** Set: the account is disabled and its data is deleted at this time, unless the deletion is cancelled first (privacy/account-deletion.ts). */
    deletionScheduledFor: p.datetime().nullable(),
    /** What an administrator gave as the reason when they scheduled the deletion. */
    deletionReason: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p.datetime().onCreate(() => new Date()).onUpdate(() => new Date()),
  },
  uniques: [
    { name: 'users_username_lower_unique', expression: 'create unique index "users_username_lower_unique" on "users" (lower("username"))' },
    { name: 'users_email_lower_unique', expression: 'create unique index "users_email_lower_unique" on "users" (lower("email"))' },
  ],
});

export type UserEntity = InferEntity<typeof User>;
