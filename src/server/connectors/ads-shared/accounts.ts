import { AppError } from '../../errors.ts';
import { fetchBySlices, type DayRange, type SliceRows } from './reporting-days.ts';
import { ConnectorAuthError, MalformedResponseError, type ConnectedAccount, type ConnectorContext, type PlatformAccount, type SourceDayTotal, type SyncBatch, type SyncWindow } from '../connector.ts';

// Several accounts per connection: a login often reaches more than one ad account (agencies, a
// brand with one account per country, a Google Ads manager with its clients), and the user picks
// the ones to sync (ctx.accounts). These run a per-account reading over every chosen account in turn.

/**
 * The accounts a sync reads: the chosen ones, or, for a connection made before accounts could be
 * chosen, the single account its credentials name (`fallback`). Managers never: they have no metrics.
 */
export function syncedAccounts(ctx: ConnectorContext, fallback: () => PlatformAccount): PlatformAccount[] {
  const chosen = (ctx.accounts ?? []).filter((account) => !account.isManager);
  return chosen.length > 0 ? chosen : [fallback()];
}

interface AccountsCursor {
  /** Position in the list of synced accounts... */
  index: number;
  /** ...checked against the id, so a cursor is never applied to another account after the choice changed. */
  accountId: string;
  inner: string | null;
}

function parseAccountsCursor(platform: string, raw: string | null): AccountsCursor | null {
  if (!raw) return null;
  try {
    const parsed = JSON.parse(raw) as Partial<AccountsCursor>;
    if (typeof parsed.index === 'number' && typeof parsed.accountId === 'string') return { index: parsed.index, accountId: parsed.accountId, inner: parsed.inner ?? null };
  } catch {
    // fall through
  }
  throw new MalformedResponseError(platform, `sync cursor not understood: ${raw.slice(0, 80)}`);
}

export type AccountBatchReader = (ctx: ConnectorContext, account: PlatformAccount, window: SyncWindow, cursor: string | null) => Promise<SyncBatch>;

/**
 * A connector's fetchBatch over every synced account: each account's batches in turn (`readAccount`
 * with its own cursor), then the next account's. A cursor whose account is no longer at its place
 * (the user changed the choice mid-sync) starts over at the first account: ingest is idempotent.
 */
export function fetchAcrossAccounts(
  platform: string,
  fallback: (ctx: ConnectorContext) => PlatformAccount,
  readAccount: AccountBatchReader,
): (ctx: ConnectorContext, window: SyncWindow, cursor: string | null) => Promise<SyncBatch> {
  return async (ctx, window, rawCursor) => {
    const accounts = syncedAccounts(ctx, () => fallback(ctx));
    let position = parseAccountsCursor(platform, rawCursor) ?? { index: 0, accountId: accounts[0]!.accountId, inner: null };
    if (accounts[position.index]?.accountId !== position.accountId) position = { index: 0, accountId: accounts[0]!.accountId, inner: null };
    const account = accounts[position.index]!;
    const batch = await readAccount(ctx, account, window, position.inner);
    const nextIndex = batch.nextCursor === null ? position.index + 1 : position.index;
    const next: AccountsCursor | null =
      nextIndex < accounts.length ? { index: nextIndex, accountId: accounts[nextIndex]!.accountId, inner: batch.nextCursor === null ? null : batch.nextCursor } : null;
    return {
      ...batch,
      nextCursor: next ? JSON.stringify(next) : null,
      // Accounts are read one after another: what one holds times how many there are.
      ...(batch.estimatedTotal !== undefined ? { estimatedTotal: batch.estimatedTotal * accounts.length } : {}),
    };
  };
}

/** sourceTotals over every synced account: one list of day totals each, in the account's currency. */
export async function totalsAcrossAccounts(
  ctx: ConnectorContext,
  fallback: (ctx: ConnectorContext) => PlatformAccount,
  totalsOf: (account: PlatformAccount) => Promise<SourceDayTotal[]>,
): Promise<SourceDayTotal[]> {
  const totals: SourceDayTotal[] = [];
  for (const account of syncedAccounts(ctx, () => fallback(ctx))) totals.push(...(await totalsOf(account)));
  return totals;
}

/** The run's error when a connection names no account and none was chosen yet (a connection made after accounts became a choice). */
export function noAccountChosen(displayName: string, accounts = 'accounts'): AppError {
  return new AppError('BAD_REQUEST', `Choose the ${displayName} ${accounts} to sync: this connection has none chosen yet.`);
}

/** An IANA zone the runtime knows, as the platform spells it; null for anything else (the platform said nothing usable). */
export function knownTimeZone(name: string | null | undefined): string | null {
  if (!name) return null;
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return name;
  } catch {
    return null;
  }
}

export function connectedAccountOf(account: PlatformAccount): ConnectedAccount {
  return { accountId: account.accountId, accountName: account.name, ...(account.currency ? { currency: account.currency } : {}), ...(account.timezone ? { timezone: account.timezone } : {}) };
}

export interface AccountsVerification {
  platform: string;
  /** The account a connection made before accounts could be chosen names, or null. */
  named: (ctx: ConnectorContext) => PlatformAccount | null;
  /** The account as the platform describes it: a cheap call proving the credentials reach it. */
  describe: (ctx: ConnectorContext, account: PlatformAccount) => Promise<PlatformAccount>;
  listAccounts: (ctx: ConnectorContext) => Promise<PlatformAccount[]>;
  /** Why the login is refused when it reaches no account that can be synced. */
  noAccount: string;
}

/**
 * verify() of a connector with several accounts per login: the first account synced (chosen, or named
 * by a connection made before), as the platform describes it; before any choice, the login's first
 * account that can be synced (what the connection shows until the user chooses).
 */
export async function verifyAccounts(ctx: ConnectorContext, verification: AccountsVerification): Promise<ConnectedAccount> {
  const synced = (ctx.accounts ?? []).find((account) => !account.isManager) ?? verification.named(ctx);
  if (synced) return connectedAccountOf(await verification.describe(ctx, synced));
  const first = (await verification.listAccounts(ctx)).find((account) => !account.isManager);
  if (!first) throw new ConnectorAuthError(verification.platform, verification.noAccount);
  return connectedAccountOf(first);
}

/**
 * fetchBatch of a platform whose daily report has no pages of its own, over every synced account: each
 * account as `readable` completes it (currency, time zone...), slice after slice of `sliceDays` days
 * (fetchBySlices), then the next account.
 */
export function fetchSlicesAcrossAccounts(
  platform: string,
  sliceDays: number,
  fallback: (ctx: ConnectorContext) => PlatformAccount,
  readable: (ctx: ConnectorContext, account: PlatformAccount) => Promise<PlatformAccount>,
  readSlice: (ctx: ConnectorContext, account: PlatformAccount, slice: DayRange) => Promise<SliceRows>,
): (ctx: ConnectorContext, window: SyncWindow, cursor: string | null) => Promise<SyncBatch> {
  return fetchAcrossAccounts(platform, fallback, async (ctx, chosen, window, cursor) => {
    const account = await readable(ctx, chosen);
    return fetchBySlices(platform, sliceDays, (sliceCtx, slice) => readSlice(sliceCtx, account, slice))(ctx, window, cursor);
  });
}
