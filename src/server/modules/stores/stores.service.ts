import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { CurrencyCode } from '../../../shared/currencies.ts';
import {
  DASHBOARD_LIMIT_REACHED_MESSAGE,
  type DashboardLimits,
  type Store as StoreDto,
  type StoreRole,
} from '../../../shared/stores.ts';
import { AppError } from '../../errors.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { StoreGuest } from '../guests/guest-invitation.entity.ts';
import { deletePrivacyExports } from '../privacy/privacy.service.ts';
import { removeDeletedStoresImages, scheduleStoreImageRemoval } from '../product-images/image-storage.ts';
import type { SessionControl } from '../sessions/session-control.ts';
import { accessOf } from '../subscriptions/subscriptions.service.ts';
import { User, type UserEntity } from '../users/user.entity.ts';
import { eraseStoreRows } from './store-erasure.ts';
import { Store, type StoreEntity } from './store.entity.ts';
import { assertKnownTimeZone, changeStoreTimezone, type ChangeStoreTimezoneOptions } from './store-timezone.service.ts';

export const STORE_NOT_FOUND_MESSAGE = 'Store not found';

/** The viewer's relation to a store they can see: they own it, or it was shared with them. */
export function storeRoleOf(store: StoreEntity, viewer: Pick<UserEntity, 'id'>): StoreRole {
  return store.owner.id === viewer.id ? 'owner' : 'guest';
}

/** A store as the viewer sees it; a shared store must have been loaded with its owner. */
export function toStoreDto(store: StoreEntity, viewer: Pick<UserEntity, 'id' | 'username'>): StoreDto {
  const role = storeRoleOf(store, viewer);
  return {
    id: store.id,
    name: store.name,
    currency: store.currency as CurrencyCode,
    timezone: store.timezone,
    createdAt: store.createdAt.toISOString(),
    role,
    ownerUsername: role === 'owner' ? viewer.username : store.owner.username,
  };
}

/** Stores shared with this user (they are a guest of them), oldest share first, owners loaded. */
export async function sharedStores(em: EntityManager, user: Pick<UserEntity, 'id'>): Promise<StoreEntity[]> {
  const shares = await em.find(StoreGuest, { user: user.id }, { populate: ['store.owner'], orderBy: { store: { id: 'asc' } } });
  return shares.map((share) => share.store);
}

/** Every store the user may see: their own (by id), then those shared with them. */
export async function listStores(em: EntityManager, user: UserEntity): Promise<StoreEntity[]> {
  const own = await em.find(Store, { owner: user.id }, { orderBy: { id: 'asc' } });
  return [...own, ...(await sharedStores(em, user))];
}

/** A store of this owner, or 404: another user's store id is indistinguishable from a missing one. */
export async function ownedStore(em: EntityManager, owner: UserEntity, storeId: number): Promise<StoreEntity> {
  const store = await em.findOne(Store, { id: storeId, owner: owner.id });
  if (!store) throw new AppError('NOT_FOUND', STORE_NOT_FOUND_MESSAGE);
  return store;
}

/** The store if the user owns it or is one of its guests; null for anyone else's (or a missing) store. */
export async function findVisibleStore(em: EntityManager, user: Pick<UserEntity, 'id'>, storeId: number): Promise<StoreEntity | null> {
  const store = await em.findOne(Store, { id: storeId }, { populate: ['owner'] });
  if (!store) return null;
  if (store.owner.id === user.id) return store;
  const share = await em.findOne(StoreGuest, { store: storeId, user: user.id });
  return share ? store : null;
}

/** A store the user may look at (own or shared), or 404 as for a missing one. */
export async function visibleStore(em: EntityManager, user: UserEntity, storeId: number): Promise<StoreEntity> {
  const store = await findVisibleStore(em, user, storeId);
  if (!store) throw new AppError('NOT_FOUND', STORE_NOT_FOUND_MESSAGE);
  return store;
}

/**
 * The store the user works in: the one they chose, else their first own store, else the first store
 * shared with them. A choice they can no longer see (guest access removed) is skipped. In guest mode
 * an admin's own switch (kept in the session) wins, so looking never changes the viewed user's choice.
 */
export async function activeStoreOf(
  em: EntityManager,
  user: UserEntity,
  guestActiveStoreId: number | null = null,
): Promise<StoreEntity | null> {
  for (const candidateId of [guestActiveStoreId, user.activeStore?.id ?? null]) {
    if (candidateId === null) continue;
    const store = await findVisibleStore(em, user, candidateId);
    if (store) return store;
  }
  const firstOwn = await em.findOne(Store, { owner: user.id }, { orderBy: { id: 'asc' } });
  if (firstOwn) return firstOwn;
  return (await sharedStores(em, user))[0] ?? null;
}

export async function dashboardLimits(em: EntityManager, owner: UserEntity): Promise<DashboardLimits> {
  const currentDashboards = await em.count(Store, { owner: owner.id });
  if (owner.isAdmin) {
    return { isAdmin: true, canAddMore: true, currentDashboards, maxDashboards: null, remainingDashboards: null };
  }
  const { maxDashboards } = await accessOf(em, owner.id);
  const remainingDashboards = Math.max(0, maxDashboards - currentDashboards);
  return { isAdmin: false, canAddMore: remainingDashboards > 0, currentDashboards, maxDashboards, remainingDashboards };
}

export async function createStore(em: EntityManager, owner: UserEntity, name: string): Promise<StoreEntity> {
  return em.transactional(async (tx) => {
    // Locking the owner serialises concurrent creations, so two requests cannot both take the last slot.
    const lockedOwner = await tx.findOneOrFail(User, { id: owner.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const limits = await dashboardLimits(tx, lockedOwner);
    if (!limits.canAddMore) throw new AppError('FORBIDDEN', DASHBOARD_LIMIT_REACHED_MESSAGE);
    const store = tx.create(Store, { owner: lockedOwner, name });
    if (limits.currentDashboards === 0 || !lockedOwner.activeStore) lockedOwner.activeStore = store;
    await tx.flush();
    return store;
  });
}

export const NOTHING_TO_UPDATE_MESSAGE = 'Nothing to update: send a name, a currency or a time zone';

/**
 * Renames the owner's store, changes its currency and/or its time zone. A new zone of a store with
 * data is queued as a change that rebuilds its figures (changeStoreTimezone): the store answered
 * keeps its old zone until that has committed (stores.timezoneChange shows the progress).
 */
export async function updateStore(
  em: EntityManager,
  owner: UserEntity,
  storeId: number,
  changes: { name?: string; currency?: CurrencyCode; timezone?: string },
  options: ChangeStoreTimezoneOptions = {},
): Promise<StoreEntity> {
  if (changes.name === undefined && changes.currency === undefined && changes.timezone === undefined) {
    throw new AppError('BAD_REQUEST', NOTHING_TO_UPDATE_MESSAGE, { fieldErrors: [{ field: '', message: NOTHING_TO_UPDATE_MESSAGE }] });
  }
  const store = await ownedStore(em, owner, storeId);
  // Checked before anything changes, so a refused zone leaves the name and currency as they were.
  if (changes.timezone !== undefined) await assertKnownTimeZone(em, changes.timezone);
  if (changes.name !== undefined) store.name = changes.name;
  if (changes.currency !== undefined) store.currency = changes.currency;
  await em.flush();
  if (changes.timezone !== undefined) {
    await changeStoreTimezone(em, store, changes.timezone, options);
    await em.refresh(store);
  }
  return store;
}

/** Deletes the store; when it was the active one, the first remaining store becomes active. */
export async function deleteStore(
  em: EntityManager,
  owner: UserEntity,
  storeId: number,
): Promise<{ success: true; activeStoreId: number | null }> {
  const result = await em.transactional(async (tx) => {
    const lockedOwner = await tx.findOneOrFail(User, { id: owner.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const store = await ownedStore(tx, lockedOwner, storeId);
    const wasActive = lockedOwner.activeStore?.id === store.id;
    // Every row of the store, also in the tables without a cascading key to it (store-erasure.ts).
    await deletePrivacyExports(sqlRunner(tx), store.id);
    await eraseStoreRows(sqlRunner(tx), store.id);
    await scheduleStoreImageRemoval(sqlRunner(tx), [store.id]);
    tx.remove(store);
    await tx.flush();
    if (wasActive || !lockedOwner.activeStore) {
      const next = await tx.findOne(Store, { owner: lockedOwner.id }, { orderBy: { id: 'asc' } });
      lockedOwner.activeStore = next;
      await tx.flush();
    }
    return { success: true as const, activeStoreId: lockedOwner.activeStore?.id ?? null };
  });
  // Files after the commit, so a deletion that failed keeps its images; a storage that refuses now is retried by a job.
  await removeDeletedStoresImages(sqlRunner(em), [storeId]);
  return result;
}

/** Switches to a store the user owns or was invited to; in guest mode only the admin's session changes. */
export async function setActiveStore(
  em: EntityManager,
  user: UserEntity,
  storeId: number,
  options: { guestMode: boolean; session: SessionControl },
): Promise<StoreEntity> {
  const store = await visibleStore(em, user, storeId);
  if (options.guestMode) {
    await options.session.setGuestActiveStore(store.id);
  } else {
    user.activeStore = store;
    await em.flush();
  }
  return store;
}
