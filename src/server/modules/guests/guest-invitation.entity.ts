import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Store } from '../stores/store.entity.ts';
import { User } from '../users/user.entity.ts';

/** An owner's invitation for someone to view one store read-only; only the token's SHA-256 is stored. */
export const GuestInvitation = defineEntity({
  name: 'GuestInvitation',
  tableName: 'guest_invitations',
  properties: {
    id: p.integer().primary().autoincrement(),
    store: () => p.manyToOne(Store).deleteRule('cascade'),
    invitedBy: () => p.manyToOne(User).deleteRule('cascade'),
    email: p.string().length(254),
    tokenHash: p.string().length(64).unique(),
    expiresAt: p.datetime(),
    acceptedAt: p.datetime().nullable(),
    acceptedUserId: p.integer().nullable(),
    revokedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  indexes: [{ properties: ['store', 'createdAt'] }],
});

export type GuestInvitationEntity = InferEntity<typeof GuestInvitation>;

/** A user who may view a store they do not own (read-only). */
export const StoreGuest = defineEntity({
  name: 'StoreGuest',
  tableName: 'store_guests',
  properties: {
    store: () => p.manyToOne(Store).primary().deleteRule('cascade'),
    user: () => p.manyToOne(User).primary().deleteRule('cascade'),
    invitedBy: () => p.manyToOne(User).nullable().deleteRule('set null'),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
  indexes: [{ properties: ['user'] }],
});

export type StoreGuestEntity = InferEntity<typeof StoreGuest>;
