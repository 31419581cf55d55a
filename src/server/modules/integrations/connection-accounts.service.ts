import type { EntityManager } from '@mikro-orm/postgresql';
import type { ConnectionAccountView } from '../../../shared/integrations.ts';
import { PLATFORM_NAMES } from '../../../shared/platforms.ts';
import type { PlatformAccount } from '../../connectors/connector.ts';
import { AppError } from '../../errors.ts';
import type { PlatformConnectionEntity } from '../connections/platform-connection.entity.ts';
import type { StoreEntity } from '../stores/store.entity.ts';
import { ConnectionAccount, type ConnectionAccountEntity } from './integration.entities.ts';

// Which of the accounts a login reaches a connection syncs. The platform's list is stored (names,
// currencies and time zones change: each listing refreshes them) with the user's choice beside it.

export const NO_SYNCABLE_ACCOUNT = (platform: string) =>
  `This ${platform} login reaches no account with metrics of its own (only manager accounts, or none). Sign in with a login that can read an ad account.`;
export const CHOOSE_AT_LEAST_ONE = 'Choose at least one account to sync.';

/** Stores the platform's current list for the connection, keeping the user's choices; returns every row. */
export async function storeListedAccounts(em: EntityManager, connection: PlatformConnectionEntity, listed: PlatformAccount[], now: Date = new Date()): Promise<ConnectionAccountEntity[]> {
  const existing = await em.find(ConnectionAccount, { store: connection.store.id, connection: connection.id });
  const byId = new Map(existing.map((row) => [row.accountId, row]));
  for (const account of listed) {
    const values = {
      name: (account.name || account.accountId).slice(0, 255),
      currency: account.currency && /^[A-Z]{3}$/.test(account.currency) ? account.currency : null,
      timezone: account.timezone?.slice(0, 64) ?? null,
      isManager: account.isManager === true,
      access: account.access ?? null,
      listedAt: now,
    };
    const row = byId.get(account.accountId);
    if (row) {
      em.assign(row, values);
      // A client that became a manager cannot stay chosen.
      if (row.isManager) row.selected = false;
    } else {
      em.create(ConnectionAccount, { store: connection.store.id, connection: connection.id, accountId: account.accountId.slice(0, 255), selected: false, ...values });
    }
  }
  // Accounts the login no longer reaches stay listed (their synced data stays) but are not synced.
  const stillListed = new Set(listed.map((account) => account.accountId));
  for (const row of existing) if (!stillListed.has(row.accountId)) row.selected = false;
  await em.flush();
  return em.find(ConnectionAccount, { store: connection.store.id, connection: connection.id }, { orderBy: { isManager: 'desc', name: 'asc', id: 'asc' } });
}

/**
 * The accounts to sync right after a sign-in: those chosen before that the login still reaches, or
 * the only account it reaches. Empty: the user must choose. Throws when it reaches none that reports.
 */
export function defaultChoice(rows: ConnectionAccountEntity[], platformName: string, listedIds: Set<string>): ConnectionAccountEntity[] {
  const syncable = rows.filter((row) => !row.isManager && listedIds.has(row.accountId));
  if (syncable.length === 0) throw new AppError('BAD_REQUEST', NO_SYNCABLE_ACCOUNT(platformName));
  const chosen = syncable.filter((row) => row.selected);
  if (chosen.length > 0) return chosen;
  return syncable.length === 1 ? syncable : [];
}

/** Marks exactly `accountIds` chosen (each must be listed and not a manager); returns the ids newly chosen. */
export async function chooseAccounts(em: EntityManager, connection: PlatformConnectionEntity, accountIds: string[]): Promise<{ chosen: ConnectionAccountEntity[]; added: string[] }> {
  const wanted = new Set(accountIds);
  if (wanted.size === 0) throw new AppError('BAD_REQUEST', CHOOSE_AT_LEAST_ONE);
  const rows = await em.find(ConnectionAccount, { store: connection.store.id, connection: connection.id });
  const byId = new Map(rows.map((row) => [row.accountId, row]));
  for (const id of wanted) {
    const row = byId.get(id);
    if (!row) throw new AppError('BAD_REQUEST', `Account ${id} is not one this ${PLATFORM_NAMES[connection.platform]} login reaches.`);
    if (row.isManager) throw new AppError('BAD_REQUEST', `${row.name} is a manager account: it has no metrics of its own. Choose the accounts it manages.`);
  }
  const added: string[] = [];
  for (const row of rows) {
    const selected = wanted.has(row.accountId);
    if (selected && !row.selected) added.push(row.accountId);
    row.selected = selected;
  }
  await em.flush();
  return { chosen: rows.filter((row) => row.selected), added };
}

/** What the connection card says of its account(s): one name, or "3 accounts: A, B, C". */
export function summariseAccounts(chosen: Pick<ConnectionAccountEntity, 'name'>[]): string {
  if (chosen.length === 1) return chosen[0]!.name;
  return `${chosen.length} accounts: ${chosen.map((row) => row.name).join(', ')}`;
}

export function accountView(row: ConnectionAccountEntity, store: Pick<StoreEntity, 'timezone'>): ConnectionAccountView {
  return {
    accountId: row.accountId,
    name: row.name,
    currency: row.currency ?? null,
    timezone: row.timezone ?? null,
    isManager: row.isManager,
    selected: row.selected,
    timezoneDiffers: Boolean(row.timezone) && row.timezone !== store.timezone,
  };
}

export async function accountsOf(em: EntityManager, connection: PlatformConnectionEntity): Promise<ConnectionAccountEntity[]> {
  return em.find(ConnectionAccount, { store: connection.store.id, connection: connection.id }, { orderBy: { isManager: 'desc', name: 'asc', id: 'asc' } });
}
