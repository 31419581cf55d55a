import { sql } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  ALREADY_GUEST_MESSAGE,
  CANNOT_INVITE_SELF_MESSAGE,
  GUEST_INVITATION_VALID_DAYS,
  GUEST_NOT_FOUND_MESSAGE,
  INVITATION_ALREADY_ACCEPTED_MESSAGE,
  INVITATION_NOT_FOUND_MESSAGE,
  INVITATION_UNUSABLE_MESSAGE,
  INVITATION_WRONG_EMAIL_MESSAGE,
  type GuestList,
  type InvitationDto,
  type InvitationStatus,
} from '../../../shared/guests.ts';
import { AppError } from '../../errors.ts';
import { AuditLogEntry } from '../admin/audit-log.entity.ts';
import { findUserByEmail } from '../auth/auth.service.ts';
import { newLinkToken, secretHash } from '../auth/link-token.ts';
import { sendEmail } from '../email/email.service.ts';
import { Store } from '../stores/store.entity.ts';
import { activeStoreOf, ownedStore } from '../stores/stores.service.ts';
import { latestSubscription, grantsAccess } from '../subscriptions/subscriptions.service.ts';
import type { UserEntity } from '../users/user.entity.ts';
import { GuestInvitation, StoreGuest, type GuestInvitationEntity } from './guest-invitation.entity.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

interface Actor {
  /** The signed-in account that acts (the owner). */
  userId: number;
  ip: string | null;
}

function sameEmail(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

export function invitationStatus(invitation: GuestInvitationEntity, now = new Date()): InvitationStatus {
  if (invitation.revokedAt) return 'revoked';
  if (invitation.acceptedAt) return 'accepted';
  if (invitation.expiresAt.getTime() <= now.getTime()) return 'expired';
  return 'pending';
}

/**
 * Invites someone by e-mail to look at one of the owner's stores. Only the token's SHA-256 is kept;
 * the token itself travels in the e-mail's link. A new invitation to the same address for the same
 * store replaces the pending one (its link stops working), so "invite again" is how to resend.
 */
export async function inviteGuest(
  em: EntityManager,
  owner: UserEntity,
  input: { storeId: number; email: string },
  options: { origin: string | null; actor: Actor; now?: Date },
): Promise<{ invitation: GuestInvitationEntity; token: string }> {
  const now = options.now ?? new Date();
  const store = await ownedStore(em, owner, input.storeId);
  const email = input.email.trim().toLowerCase();
  if (sameEmail(email, owner.email)) {
    throw new AppError('BAD_REQUEST', CANNOT_INVITE_SELF_MESSAGE, { fieldErrors: [{ field: 'email', message: CANNOT_INVITE_SELF_MESSAGE }] });
  }
  const invitee = await findUserByEmail(em, email);
  if (invitee && (await em.count(StoreGuest, { store: store.id, user: invitee.id })) > 0) {
    throw new AppError('CONFLICT', ALREADY_GUEST_MESSAGE, { fieldErrors: [{ field: 'email', message: ALREADY_GUEST_MESSAGE }] });
  }

  await em.nativeUpdate(
    GuestInvitation,
    { store: store.id, [sql.lower('email')]: email, acceptedAt: null, revokedAt: null },
    { revokedAt: now },
  );
  const token = newLinkToken();
  const invitation = em.create(GuestInvitation, {
    store,
    invitedBy: owner,
    email,
    tokenHash: secretHash(token),
    expiresAt: new Date(now.getTime() + GUEST_INVITATION_VALID_DAYS * DAY_MS),
    acceptedAt: null,
    acceptedUserId: null,
    revokedAt: null,
    createdAt: now,
  });
  em.create(AuditLogEntry, {
    actorUserId: options.actor.userId,
    targetUserId: invitee?.id ?? null,
    action: 'guest.invited',
    details: { storeId: store.id, storeName: store.name, email },
    ipAddress: options.actor.ip,
  });
  await em.flush();
  await sendEmail(em, {
    to: email,
    template: 'guest_invitation',
    variables: {
      inviterName: owner.username,
      storeName: store.name,
      validDays: GUEST_INVITATION_VALID_DAYS,
      acceptUrl: `${options.origin ?? ''}/accept-invite?token=${token}`,
    },
    userId: invitee?.id ?? null,
  });
  return { invitation, token };
}

/** The owner's pending invitations and current guests, across all their stores. */
export async function listGuests(em: EntityManager, owner: UserEntity, now = new Date()): Promise<GuestList> {
  const invitations = await em.find(
    GuestInvitation,
    { store: { owner: owner.id }, acceptedAt: null, revokedAt: null, expiresAt: { $gt: now } },
    { populate: ['store'], orderBy: { createdAt: 'desc', id: 'desc' } },
  );
  const guests = await em.find(
    StoreGuest,
    { store: { owner: owner.id } },
    { populate: ['store', 'user'], orderBy: { store: { id: 'asc' }, createdAt: 'asc' } },
  );
  return {
    invitations: invitations.map((invitation) => ({
      id: invitation.id,
      storeId: invitation.store.id,
      storeName: invitation.store.name,
      email: invitation.email,
      createdAt: invitation.createdAt.toISOString(),
      expiresAt: invitation.expiresAt.toISOString(),
    })),
    guests: guests.map((guest) => ({
      storeId: guest.store.id,
      storeName: guest.store.name,
      userId: guest.user.id,
      username: guest.user.username,
      email: guest.user.email,
      since: guest.createdAt.toISOString(),
    })),
  };
}

/** Withdraws a pending invitation of one of the owner's stores; its link stops working at once. */
export async function revokeInvitation(em: EntityManager, owner: UserEntity, invitationId: number, now = new Date()): Promise<void> {
  const invitation = await em.findOne(GuestInvitation, { id: invitationId, store: { owner: owner.id } });
  if (!invitation) throw new AppError('NOT_FOUND', INVITATION_NOT_FOUND_MESSAGE);
  if (invitation.acceptedAt) throw new AppError('CONFLICT', INVITATION_ALREADY_ACCEPTED_MESSAGE);
  invitation.revokedAt ??= now;
  await em.flush();
}

/** Ends a guest's access to one of the owner's stores at once; their active store falls back. */
export async function removeGuest(
  em: EntityManager,
  owner: UserEntity,
  input: { storeId: number; userId: number },
  actor: Actor,
): Promise<void> {
  const store = await ownedStore(em, owner, input.storeId);
  const share = await em.findOne(StoreGuest, { store: store.id, user: input.userId }, { populate: ['user'] });
  if (!share) throw new AppError('NOT_FOUND', GUEST_NOT_FOUND_MESSAGE);
  const guest = share.user;
  em.remove(share);
  // The guest's choice would be skipped anyway (they can no longer see it); clearing it keeps the row honest.
  if (guest.activeStore?.id === store.id) guest.activeStore = null;
  em.create(AuditLogEntry, {
    actorUserId: actor.userId,
    targetUserId: guest.id,
    action: 'guest.removed',
    details: { storeId: store.id, storeName: store.name, username: guest.username },
    ipAddress: actor.ip,
  });
  await em.flush();
}

async function invitationByToken(em: EntityManager, token: string): Promise<GuestInvitationEntity> {
  const invitation = await em.findOne(
    GuestInvitation,
    { tokenHash: secretHash(token) },
    { populate: ['store', 'invitedBy'] },
  );
  if (!invitation) throw new AppError('NOT_FOUND', INVITATION_NOT_FOUND_MESSAGE);
  return invitation;
}

/** What the accept page shows about a link, before anyone signs in. */
export async function describeInvitation(em: EntityManager, token: string, now = new Date()): Promise<InvitationDto> {
  const invitation = await invitationByToken(em, token);
  return {
    storeName: invitation.store.name,
    inviterName: invitation.invitedBy.username,
    email: invitation.email,
    status: invitationStatus(invitation, now),
    expiresAt: invitation.expiresAt.toISOString(),
  };
}

/**
 * The signed-in user takes up an invitation sent to their address: they become a guest of the store
 * (read-only), and it becomes their active store when they have none. Someone with no store and no
 * plan of their own is marked as a guest account.
 */
export async function acceptInvitation(
  em: EntityManager,
  user: UserEntity,
  token: string,
  now = new Date(),
): Promise<{ storeId: number; storeName: string }> {
  const invitation = await invitationByToken(em, token);
  if (!sameEmail(invitation.email, user.email)) throw new AppError('FORBIDDEN', INVITATION_WRONG_EMAIL_MESSAGE);
  const store = invitation.store;
  const status = invitationStatus(invitation, now);
  const existing = await em.findOne(StoreGuest, { store: store.id, user: user.id });
  // Opening the link again after accepting is harmless; a removed guest cannot come back through an old link.
  if (status === 'accepted' && existing) return { storeId: store.id, storeName: store.name };
  if (status !== 'pending') throw new AppError('BAD_REQUEST', INVITATION_UNUSABLE_MESSAGE);

  invitation.acceptedAt = now;
  invitation.acceptedUserId = user.id;
  const isOwner = store.owner.id === user.id;
  if (!isOwner && !existing) {
    em.create(StoreGuest, { store, user, invitedBy: invitation.invitedBy, createdAt: now });
  }
  const ownStores = await em.count(Store, { owner: user.id });
  if (!(await activeStoreOf(em, user))) user.activeStore = store;
  if (!isOwner && ownStores === 0 && !grantsAccess(await latestSubscription(em, user.id), now)) user.isGuest = true;
  await em.flush();
  return { storeId: store.id, storeName: store.name };
}
