import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { CurrencyCode } from '../../../shared/currencies.ts';
import { DASHBOARD_LIMIT_REACHED_MESSAGE, type DashboardLimits, type Store as StoreDto } from '../../../shared/stores.ts';
import { AppError } from '../../errors.ts';
import type { SessionControl } from '../sessions/session-control.ts';
import { accessOf } from '../subscriptions/subscriptions.service.ts';
import { User, type UserEntity } from '../users/user.entity.ts';
import { Store, type StoreEntity } from './store.entity.ts';

export const STORE_NOT_FOUND_MESSAGE = 'Store not found';

export function toStoreDto(store: StoreEntity): StoreDto {
  return {
    id: store.id,
    name: store.name,
    currency: store.currency as CurrencyCode,
    timezone: store.timezone,
    createdAt: store.createdAt.toISOString(),
  };
}

export function listStores(em: EntityManager, owner: UserEntity): Promise<StoreEntity[]> {
  return em.find(Store, { owner: owner.id }, { orderBy: { id: 'asc' } });
}

/** A store of this owner, or 404: another user's store id is indistinguishable from a missing one. */
export async function ownedStore(em: EntityManager, owner: UserEntity, storeId: number): Promise<StoreEntity> {
  const store = await em.findOne(Store, { id: storeId, owner: owner.id });
  if (!store) throw new AppError('NOT_FOUND', STORE_NOT_FOUND_MESSAGE);
  return store;
}

/**
 * The store the user works in: the one they chose, else their first one. In guest mode an admin's
 * own switch (kept in the session) wins, so looking never changes the viewed user's choice.
 */
export async function activeStoreOf(
  em: EntityManager,
  owner: UserEntity,
  guestActiveStoreId: number | null = null,
): Promise<StoreEntity | null> {
  for (const candidateId of [guestActiveStoreId, owner.activeStore?.id ?? null]) {
    if (candidateId === null) continue;
    const store = await em.findOne(Store, { id: candidateId, owner: owner.id });
    if (store) return store;
  }
  return em.findOne(Store, { owner: owner.id }, { orderBy: { id: 'asc' } });
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

export async function updateStore(
  em: EntityManager,
  owner: UserEntity,
  storeId: number,
  changes: { name?: string; currency?: CurrencyCode },
): Promise<StoreEntity> {
  if (changes.name === undefined && changes.currency === undefined) {
    throw new AppError('BAD_REQUEST', 'Nothing to update: send a name or a currency', {
      fieldErrors: [{ field: '', message: 'Nothing to update: send a name or a currency' }],
    });
  }
  const store = await ownedStore(em, owner, storeId);
  if (changes.name !== undefined) store.name = changes.name;
  if (changes.currency !== undefined) store.currency = changes.currency;
  await em.flush();
  return store;
}

/** Deletes the store; when it was the active one, the first remaining store becomes active. */
export async function deleteStore(
  em: EntityManager,
  owner: UserEntity,
  storeId: number,
): Promise<{ success: true; activeStoreId: number | null }> {
  return em.transactional(async (tx) => {
    const lockedOwner = await tx.findOneOrFail(User, { id: owner.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const store = await ownedStore(tx, lockedOwner, storeId);
    const wasActive = lockedOwner.activeStore?.id === store.id;
    tx.remove(store);
    await tx.flush();
    if (wasActive || !lockedOwner.activeStore) {
      const next = await tx.findOne(Store, { owner: lockedOwner.id }, { orderBy: { id: 'asc' } });
      lockedOwner.activeStore = next;
      await tx.flush();
    }
    return { success: true as const, activeStoreId: lockedOwner.activeStore?.id ?? null };
  });
}

export async function setActiveStore(
  em: EntityManager,
  owner: UserEntity,
  storeId: number,
  options: { guestMode: boolean; session: SessionControl },
): Promise<StoreEntity> {
  const store = await ownedStore(em, owner, storeId);
  if (options.guestMode) {
    await options.session.setGuestActiveStore(store.id);
  } else {
    owner.activeStore = store;
    await em.flush();
  }
  return store;
}
