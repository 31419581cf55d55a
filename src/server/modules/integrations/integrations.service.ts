import type { EntityManager } from '@mikro-orm/postgresql';
import { randomBytes } from 'node:crypto';
import type { ConnectionAccountView, Integration, SyncRunKind, SyncRunView } from '../../../shared/integrations.ts';
import { PLATFORM_KEYS, PLATFORM_NAMES, type PlatformKey } from '../../../shared/platforms.ts';
import { ConnectorAuthError, ConnectorRequestError, MalformedResponseError, type ConnectedAccount, type Connector, type ConnectorCredentials } from '../../connectors/connector.ts';
import { CONNECTORS, connectorFor, registeredPlatforms } from '../../connectors/registry.ts';
import { changeStoreTimezone } from '../stores/store-timezone.service.ts';
import { AppError } from '../../errors.ts';
import { literalRefusal, OutboundRefusedError } from '../../outbound/outbound-http.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { PlatformConnection, type PlatformConnectionEntity } from '../connections/platform-connection.entity.ts';
import { Store, type StoreEntity } from '../stores/store.entity.ts';
import type { UserEntity } from '../users/user.entity.ts';
import { ConnectionAccount, OAuthState, ReconciliationResult, SyncRun, type ConnectionAccountEntity, type SyncRunEntity } from './integration.entities.ts';
import { accountsOf, accountView, chooseAccounts, defaultChoice, storeListedAccounts, summariseAccounts } from './connection-accounts.service.ts';
import { integrationsSettings, oauthCallbackPath, oauthSettingsFor, type IntegrationsSettings } from './integrations-runtime.ts';
import { refusalMessage, unreachableMessage } from './platform-messages.ts';
import { reconciliationView } from './reconciliation.ts';
import { activeRunOf, connectionAuthOf, connectorContext, openCredentials, queueNewSync, queueSync, requestCancel, sealCredentials } from './sync-runner.ts';

// Connecting, disconnecting and syncing a store's platforms, and what the integrations screen shows.

const OAUTH_STATE_LIFETIME_MS = 10 * 60_000;
export const NOT_CONNECTED_MESSAGE = 'This platform is not connected';
export const NO_SYNC_RUNNING_MESSAGE = 'No sync is running for this platform';

export function webhookUrlFor(origin: string, connectionId: number): string {
  return `${origin}/api/webhooks/woocommerce/${connectionId}`;
}

function runView(run: SyncRunEntity): SyncRunView {
  return {
    id: run.id,
    kind: run.kind,
    status: run.status,
    rowsDone: run.rowsDone,
    estimatedTotal: run.estimatedTotal ?? null,
    startedAt: run.startedAt?.toISOString() ?? null,
    finishedAt: run.finishedAt?.toISOString() ?? null,
    error: run.error ?? null,
  };
}

export interface ViewerOptions {
  /** Owners see the WooCommerce webhook secret; invited viewers do not. */
  isOwner: boolean;
  origin: string;
  settings?: IntegrationsSettings;
}

/** One entry per platform key, connected or not, in the registry's order. */
export async function listIntegrations(em: EntityManager, store: StoreEntity, viewer: ViewerOptions): Promise<Integration[]> {
  const connections = await em.find(PlatformConnection, { store: store.id });
  const byPlatform = new Map(connections.map((connection) => [connection.platform, connection]));
  const ids = connections.map((connection) => connection.id);
  // Each connection's latest run (a connection collects one every 15 minutes).
  const latestIds = ids.length
    ? await sqlRunner(em).rows<{ id: number }>(
        `select distinct on (connection_id) id from sync_runs where store_id = $1 and connection_id = any($2::int[]) order by connection_id, id desc`,
        [store.id, ids],
      )
    : [];
  const runs = latestIds.length ? await em.find(SyncRun, { id: { $in: latestIds.map((row) => row.id) } }) : [];
  const latestRun = new Map<number, SyncRunEntity>(runs.map((run) => [run.connection.id, run]));
  const reconciliations = ids.length ? await em.find(ReconciliationResult, { store: store.id, connection: { $in: ids } }) : [];
  const reconciliationOf = new Map(reconciliations.map((result) => [result.connection.id, result]));
  const accounts = ids.length ? await em.find(ConnectionAccount, { store: store.id, connection: { $in: ids } }, { orderBy: { isManager: 'desc', name: 'asc', id: 'asc' } }) : [];

  return PLATFORM_KEYS.map((platform) => {
    const connection = byPlatform.get(platform) ?? null;
    const run = connection ? latestRun.get(connection.id) : undefined;
    const reconciliation = connection ? reconciliationOf.get(connection.id) : undefined;
    const accountViews = connection ? accounts.filter((row) => row.connection.id === connection.id).map((row) => accountView(row, store)) : [];
    return integrationView(platform, store, connection, run ?? null, reconciliation ? reconciliationView(reconciliation) : null, accountViews, viewer);
  });
}

function integrationView(
  platform: PlatformKey,
  store: StoreEntity,
  connection: PlatformConnectionEntity | null,
  run: SyncRunEntity | null,
  reconciliation: Integration['reconciliation'],
  accounts: ConnectionAccountView[],
  viewer: ViewerOptions,
): Integration {
  const connector = connectorFor(platform);
  let webhook: Integration['webhook'] = null;
  if (platform === 'woocommerce' && connection?.sealedCredentials && viewer.isOwner) {
    const secret = openCredentials(viewer.settings ?? integrationsSettings(), connection)?.webhookSecret;
    if (secret) webhook = { url: webhookUrlFor(viewer.origin, connection.id), secret };
  }
  return {
    platform,
    displayName: PLATFORM_NAMES[platform],
    kind: connector.kind,
    authKind: connector.authKind,
    credentialFields: [...(connector.credentialFields ?? [])],
    status: connection?.status ?? 'not_connected',
    accountName: connection?.accountName ?? null,
    connectedAt: connection?.connectedAt?.toISOString() ?? null,
    lastSyncAt: connection?.lastSyncAt?.toISOString() ?? null,
    lastCheckedAt: connection?.lastCheckedAt?.toISOString() ?? null,
    rowsSynced: connection?.rowsSynced ?? 0,
    lastError: connection?.lastError ?? null,
    disconnectReason: connection?.disconnectReason ?? null,
    backfillMonths: connection?.backfillMonths ?? 12,
    currentRun: run ? runView(run) : null,
    warnings: run?.warnings ?? [],
    canChooseAccounts: typeof connector.listAccounts === 'function',
    accounts,
    storeTimezone: store.timezone,
    accountTimezone: connection?.accountTimezone ?? null,
    reconciliation,
    webhook,
  };
}

export async function integrationOf(em: EntityManager, store: StoreEntity, platform: PlatformKey, viewer: ViewerOptions): Promise<Integration> {
  const all = await listIntegrations(em, store, viewer);
  return all.find((entry) => entry.platform === platform)!;
}

async function connectionOf(em: EntityManager, store: StoreEntity, platform: PlatformKey): Promise<PlatformConnectionEntity | null> {
  return em.findOne(PlatformConnection, { store: store.id, platform });
}

async function connectionOrNew(em: EntityManager, store: StoreEntity, platform: PlatformKey): Promise<PlatformConnectionEntity> {
  const existing = await connectionOf(em, store, platform);
  if (existing) return existing;
  const created = em.create(PlatformConnection, { store: store.id, platform });
  await em.flush();
  return created;
}

/** The platform's answer to a failed verify(), as the message the user reads. */
function verifyFailure(platform: PlatformKey, error: unknown): AppError {
  // The outbound module refused the address (it resolves to a private one, a redirect led there...).
  if (error instanceof ConnectorRequestError && error.cause instanceof OutboundRefusedError) {
    if (platform === 'woocommerce') return storeAddressRefused(error.cause.message);
    return new AppError('BAD_REQUEST', `${PLATFORM_NAMES[platform]} cannot be reached: ${error.cause.message}`);
  }
  if (error instanceof ConnectorAuthError) return new AppError('BAD_REQUEST', refusalMessage(platform, error.reason, 'Check the credentials and try again.'));
  if (error instanceof ConnectorRequestError || error instanceof MalformedResponseError) {
    return new AppError('BAD_REQUEST', unreachableMessage(platform, error, 'while checking the credentials', 'Try again in a moment.'));
  }
  if (error instanceof AppError) return error;
  throw error;
}

/**
 * Stores working credentials on the connection, marks it connected with the account's name and
 * queues its first sync (a backfill unless it synced before).
 */
async function markConnected(
  em: EntityManager,
  connection: PlatformConnectionEntity,
  credentials: ConnectorCredentials,
  account: ConnectedAccount,
  settings: IntegrationsSettings,
  kind?: SyncRunKind,
): Promise<void> {
  sealCredentials(settings, connection, credentials);
  connection.status = 'connected';
  connection.connected = true;
  // Shopify webhooks name the shop in lower case: the connection is found by it.
  connection.accountId = (connection.platform === 'shopify' ? account.accountId.toLowerCase() : account.accountId).slice(0, 255);
  connection.accountName = account.accountName.slice(0, 255);
  connection.accountCurrency = account.currency && /^[A-Z]{3}$/.test(account.currency) ? account.currency : null;
  connection.accountTimezone = account.timezone?.slice(0, 64) ?? null;
  connection.connectedAt = new Date();
  connection.lastCheckedAt = new Date();
  connection.lastError = null;
  connection.disconnectReason = null;
  await em.flush();
  await adoptAccountTimezone(em, connection, account);
  await queueSync(em, connection, { kind });
}

/**
 * A store's days are its shop's days: when a store platform connects, the store takes the shop's
 * time zone (a store with data recomputes its figures in a job, with progress in store management).
 * An ad or e-mail account's zone is taken only by a store without a shop and without orders, so that
 * a first ad account does not move the days of a store whose orders came from elsewhere.
 */
async function adoptAccountTimezone(em: EntityManager, connection: PlatformConnectionEntity, account: ConnectedAccount): Promise<void> {
  if (!account.timezone) return;
  const store = await em.findOneOrFail(Store, { id: connection.store.id });
  if (store.timezone === account.timezone) return;
  if (connectorFor(connection.platform).kind !== 'store') {
    const shops = await em.count(PlatformConnection, { store: store.id, platform: { $in: registeredPlatforms().filter((platform) => connectorFor(platform).kind === 'store') }, sealedCredentials: { $ne: null } });
    const [orders] = await sqlRunner(em).rows<{ any: boolean }>(`select exists (select 1 from orders where store_id = $1) as any`, [store.id]);
    if (shops > 0 || orders!.any) return;
  }
  await changeStoreTimezone(em, store, account.timezone);
}

function requireAuthKind(connector: Connector, wanted: Connector['authKind']): void {
  if (connector.authKind === wanted) return;
  const how = { oauth: 'signing in with it (Connect)', credentials: 'entering its API credentials', upload: 'uploading a CSV file' }[connector.authKind];
  throw new AppError('BAD_REQUEST', `${PLATFORM_NAMES[connector.platform]} is connected by ${how}.`);
}

function storeAddressRefused(reason: string): AppError {
  const message = `The store address cannot be used: ${reason}`;
  return new AppError('BAD_REQUEST', message, { fieldErrors: [{ field: 'storeUrl', message }] });
}

/** The credentials a form sent, checked before anything is asked of the platform. */
function credentialsFromForm(connector: Connector, input: Record<string, string>): ConnectorCredentials {
  const credentials: ConnectorCredentials = {};
  for (const field of connector.credentialFields ?? []) {
    const value = input[field]?.trim();
    if (!value) throw new AppError('BAD_REQUEST', `${PLATFORM_NAMES[connector.platform]}: ${field} is required`, { fieldErrors: [{ field, message: `${field} is required` }] });
    credentials[field] = value;
  }
  if (connector.platform === 'woocommerce') {
    let url: URL | null = null;
    try {
      url = new URL(credentials.storeUrl!);
    } catch {
      url = null;
    }
    if (!url || url.protocol !== 'https:') {
      const message = 'The store address must be an https:// address (WooCommerce only accepts API keys over HTTPS).';
      throw new AppError('BAD_REQUEST', message, { fieldErrors: [{ field: 'storeUrl', message }] });
    }
    // A loopback, private or link-local address (or localhost) is refused before anything is sent; a
    // name that resolves to one is refused by the outbound module when verify() connects (verifyFailure).
    const refused = literalRefusal(url);
    if (refused) throw storeAddressRefused(refused);
    credentials.storeUrl = url.toString().replace(/\/+$/, '');
  }
  return credentials;
}

export async function connectWithCredentials(em: EntityManager, store: StoreEntity, platform: PlatformKey, input: Record<string, string>, settings: IntegrationsSettings = integrationsSettings()): Promise<void> {
  const connector = connectorFor(platform);
  requireAuthKind(connector, 'credentials');
  const credentials = credentialsFromForm(connector, input);
  // Inside the chain: building the context may refuse the credentials too (a Mailchimp key without its data centre).
  const account = await Promise.resolve().then(() => connector.verify(connectorContext(settings, platform, credentials, store))).catch((error: unknown) => {
    throw verifyFailure(platform, error);
  });
  const connection = await connectionOrNew(em, store, platform);
  // WooCommerce signs its webhooks with a secret the merchant pastes into its webhook settings.
  if (platform === 'woocommerce') credentials.webhookSecret = openCredentials(settings, connection)?.webhookSecret || randomBytes(24).toString('base64url');
  await markConnected(em, connection, credentials, account, settings);
}

export async function uploadEmailCsv(em: EntityManager, store: StoreEntity, fileName: string, csvText: string, settings: IntegrationsSettings = integrationsSettings()): Promise<void> {
  const connector = connectorFor('email');
  const credentials = { fileName, csvText };
  const account = await connector.verify(connectorContext(settings, 'email', credentials, store)).catch((error: unknown) => {
    if (error instanceof ConnectorAuthError) throw new AppError('BAD_REQUEST', error.reason);
    throw error;
  });
  // A new file replaces the old one: a sync of the old file stops and all of the new one is read.
  const connection = await connectionOrNew(em, store, 'email');
  const active = await activeRunOf(em, connection);
  if (active) await requestCancel(em, active);
  await markConnected(em, connection, credentials, account, settings, 'backfill');
}

export async function startOAuth(
  em: EntityManager,
  options: { store: StoreEntity; user: UserEntity; origin: string; platform: PlatformKey; shop?: string; sessionKey: string | null },
  settings: IntegrationsSettings = integrationsSettings(),
): Promise<string> {
  const connector = connectorFor(options.platform);
  requireAuthKind(connector, 'oauth');
  if (options.platform === 'shopify' && !options.shop) {
    throw new AppError('BAD_REQUEST', 'Enter your Shopify store address (your-store.myshopify.com) to connect it.', { fieldErrors: [{ field: 'shop', message: 'Enter your store address' }] });
  }
  const redirectUri = `${options.origin}${oauthCallbackPath(options.platform)}`;
  const oauthSettings = oauthSettingsFor(settings, options.platform, redirectUri);
  const state = randomBytes(32).toString('hex');
  let authorizeUrl: string;
  try {
    authorizeUrl = connector.oauth!.authorizeUrl(oauthSettings, state, options.shop ? { shop: options.shop } : {});
  } catch (error) {
    throw verifyFailure(options.platform, error);
  }
  em.create(OAuthState, {
    state,
    store: options.store.id,
    user: options.user.id,
    platform: options.platform,
    shop: options.shop ?? null,
    redirectUri,
    sessionKey: options.sessionKey,
    expiresAt: new Date(Date.now() + OAUTH_STATE_LIFETIME_MS),
  });
  await em.flush();
  return authorizeUrl;
}

export class OAuthCallbackError extends Error {}

/**
 * The platform sent the browser back: checks the state (ours, unused, fresh, for this platform, and
 * started by this browser session, so a consent page link sent to someone else connects nothing; the
 * signed-in user when there is one), trades the code for tokens, verifies them, seals them, and queues
 * the backfill. Errors are OAuthCallbackError with the text the integrations screen shows.
 */
export async function completeOAuth(
  em: EntityManager,
  platform: PlatformKey,
  query: Record<string, string>,
  options: { sessionUserId: number | null; sessionKey: string | null; settings?: IntegrationsSettings },
): Promise<void> {
  const settings = options.settings ?? integrationsSettings();
  const name = PLATFORM_NAMES[platform];
  const connector = CONNECTORS[platform];
  if (!connector?.oauth) throw new OAuthCallbackError(`${name} is not connected by signing in.`);
  const stateValue = query.state ?? '';
  const state = /^[0-9a-f]{64}$/.test(stateValue) ? await em.findOne(OAuthState, { state: stateValue }) : null;
  if (!state || state.platform !== platform) throw new OAuthCallbackError(`This ${name} sign-in was not started here. Start connecting again.`);
  if (options.sessionUserId !== null && state.user.id !== options.sessionUserId) throw new OAuthCallbackError(`This ${name} sign-in was started by another account.`);
  if (state.sessionKey === null || state.sessionKey !== options.sessionKey) {
    throw new OAuthCallbackError(`This ${name} sign-in was started in another browser session. Sign in to StorePulse and start connecting again.`);
  }
  // Single use: only the first callback with this state gets past this update.
  const claimed = await em.nativeUpdate(OAuthState, { state: stateValue, usedAt: null, expiresAt: { $gt: new Date() } }, { usedAt: new Date() });
  if (claimed !== 1) throw new OAuthCallbackError(`This ${name} sign-in has expired or was already used. Start connecting again.`);
  if (query.error) throw new OAuthCallbackError(`${name} did not grant access (${query.error_description || query.error}).`);
  // TikTok names the code auth_code.
  const code = query.code ?? query.auth_code;
  if (!code) throw new OAuthCallbackError(`${name} sent no authorization code. Start connecting again.`);

  const store = await em.findOneOrFail(Store, { id: state.store.id });
  const oauthSettings = oauthSettingsFor(settings, platform, state.redirectUri);
  // The app's developer token (Google Ads, Microsoft Advertising) travels with the user's tokens.
  const developerToken = settings.platforms[platform]?.developerToken;
  const seed: ConnectorCredentials = { ...(state.shop ? { shop: state.shop } : {}), ...(developerToken ? { developerToken } : {}) };
  try {
    const exchanged = await connector.oauth.exchangeCode(connectorContext(settings, platform, seed, store), oauthSettings, code, { ...query, ...(developerToken ? { developerToken } : {}) });
    const credentials = { ...seed, ...exchanged };
    const ctx = connectorContext(settings, platform, credentials, store);
    const account = await connector.verify(ctx);
    const connection = await connectionOrNew(em, store, platform);
    if (!connector.listAccounts) {
      await markConnected(em, connection, credentials, account, settings);
      return;
    }
    // A login may reach several ad accounts (or a manager and its clients): the user chooses.
    const listed = await connector.listAccounts(ctx);
    const rows = await storeListedAccounts(em, connection, listed);
    const chosen = defaultChoice(rows, name, new Set(listed.map((entry) => entry.accountId)));
    if (chosen.length > 0) {
      for (const row of chosen) row.selected = true;
      await markConnected(em, connection, credentials, chosenAccount(account, chosen), settings);
      return;
    }
    sealCredentials(settings, connection, credentials);
    connection.status = 'choose_accounts';
    connection.connected = false;
    connection.accountId = account.accountId.slice(0, 255);
    connection.accountName = account.accountName.slice(0, 255);
    connection.connectedAt = new Date();
    connection.lastCheckedAt = new Date();
    connection.lastError = null;
    connection.disconnectReason = null;
    await em.flush();
  } catch (error) {
    if (error instanceof ConnectorAuthError) throw new OAuthCallbackError(refusalMessage(platform, error.reason, 'Start connecting again.'));
    if (error instanceof ConnectorRequestError || error instanceof MalformedResponseError) {
      throw new OAuthCallbackError(unreachableMessage(platform, error, 'while finishing the connection', 'Try connecting again in a moment.'));
    }
    if (error instanceof AppError) throw new OAuthCallbackError(error.message);
    throw error;
  }
}

/** The connection's account as the card shows it once accounts are chosen: one account's own figures, or a summary. */
function chosenAccount(login: ConnectedAccount, chosen: ConnectionAccountEntity[]): ConnectedAccount {
  if (chosen.length !== 1) return { accountId: login.accountId, accountName: summariseAccounts(chosen) };
  const [only] = chosen;
  return { accountId: only!.accountId, accountName: only!.name, currency: only!.currency ?? undefined, timezone: only!.timezone ?? undefined };
}

/**
 * The accounts the connection's login reaches, asked of the platform now (with a fresh token) and
 * stored; when the platform cannot be asked, the ones listed before, with the reason.
 */
export async function listConnectionAccounts(em: EntityManager, store: StoreEntity, platform: PlatformKey, settings: IntegrationsSettings = integrationsSettings()) {
  const connector = connectorFor(platform);
  if (!connector.listAccounts) throw new AppError('BAD_REQUEST', `${PLATFORM_NAMES[platform]} connects one account per login.`);
  const connection = await connectedConnection(em, store, platform);
  let listError: string | null = null;
  try {
    const auth = await connectionAuthOf(em, settings, connection, openCredentials(settings, connection)!, store, { http: { maxAttempts: 2 } });
    await storeListedAccounts(em, connection, await auth.call((ctx) => connector.listAccounts!(ctx)));
  } catch (error) {
    if (error instanceof ConnectorAuthError) listError = refusalMessage(platform, error.reason, 'Reconnect it to list its accounts.');
    else if (error instanceof ConnectorRequestError || error instanceof MalformedResponseError) listError = unreachableMessage(platform, error, 'while listing its accounts', 'Try again in a moment.');
    else throw error;
  }
  return { accounts: (await accountsOf(em, connection)).map((row) => accountView(row, store)), listError };
}

/**
 * Syncs exactly the chosen accounts. A connection waiting for the choice becomes connected and
 * backfills; accounts added later are backfilled too (a running sync is stopped for it).
 */
export async function setChosenAccounts(em: EntityManager, store: StoreEntity, platform: PlatformKey, accountIds: string[], settings: IntegrationsSettings = integrationsSettings()): Promise<void> {
  const connection = await connectedConnection(em, store, platform);
  const { chosen, added } = await chooseAccounts(em, connection, accountIds);
  const login = { accountId: connection.accountId ?? '', accountName: connection.accountName ?? '' };
  if (connection.status === 'choose_accounts') {
    await markConnected(em, connection, openCredentials(settings, connection)!, chosenAccount(login, chosen), settings, 'backfill');
    return;
  }
  const summary = chosenAccount(login, chosen);
  connection.accountName = summary.accountName.slice(0, 255);
  connection.accountCurrency = summary.currency ?? null;
  connection.accountTimezone = summary.timezone ?? null;
  await em.flush();
  if (added.length === 0) return;
  const active = await activeRunOf(em, connection);
  if (active) await requestCancel(em, active);
  await queueNewSync(em, connection, { kind: 'backfill' });
}

async function connectedConnection(em: EntityManager, store: StoreEntity, platform: PlatformKey): Promise<PlatformConnectionEntity> {
  const connection = await connectionOf(em, store, platform);
  if (!connection || !connection.sealedCredentials) throw new AppError('BAD_REQUEST', NOT_CONNECTED_MESSAGE);
  return connection;
}

/** Cancels a running sync and deletes the credentials; the synced data stays. */
export async function disconnect(em: EntityManager, store: StoreEntity, platform: PlatformKey): Promise<void> {
  const connection = await connectionOf(em, store, platform);
  if (!connection || connection.status === 'not_connected') throw new AppError('BAD_REQUEST', NOT_CONNECTED_MESSAGE);
  const active = await activeRunOf(em, connection);
  if (active) await requestCancel(em, active);
  connection.status = 'not_connected';
  connection.connected = false;
  connection.sealedCredentials = null;
  connection.disconnectReason = null;
  connection.lastError = null;
  await em.flush();
}

export async function syncNow(em: EntityManager, store: StoreEntity, platform: PlatformKey): Promise<void> {
  await queueSync(em, await connectedConnection(em, store, platform));
}

export async function cancelSync(em: EntityManager, store: StoreEntity, platform: PlatformKey): Promise<void> {
  const connection = await connectionOf(em, store, platform);
  const active = connection ? await activeRunOf(em, connection) : null;
  if (!active) throw new AppError('BAD_REQUEST', NO_SYNC_RUNNING_MESSAGE);
  await requestCancel(em, active);
}

/** How far back the next backfill reaches; kept for a platform not connected yet too. */
export async function setBackfillMonths(em: EntityManager, store: StoreEntity, platform: PlatformKey, months: number): Promise<void> {
  const connection = await connectionOrNew(em, store, platform);
  connection.backfillMonths = months;
  await em.flush();
}
