import type { EntityManager } from '@mikro-orm/postgresql';
import { ConnectorAuthError, type Connector, type ConnectorContext, type ConnectorCredentials } from '../../connectors/connector.ts';
import { PlatformConnection, type PlatformConnectionEntity } from '../connections/platform-connection.entity.ts';
import { integrationsSettings, oauthCallbackPath, oauthSettingsFor, type IntegrationsSettings } from './integrations-runtime.ts';
import { credentialBinding } from './sealed-credentials.ts';

// Access tokens that expire (Shopify's expiring offline tokens and Google's, an hour; Microsoft's
// about as long): a sync of a large shop, a health check or a webhook look-up may outlive several of
// them. Every call a connection makes goes through ConnectionAuth: the token is refreshed before a
// call when it expires within the margin, and when the platform refuses a token, once, after which
// the call is made again with the fresh token. A refusal of the fresh token, or of the refresh
// itself (the refresh token was revoked: the app was uninstalled or access withdrawn), is final.

/** A token expiring sooner than this is refreshed before the next call. */
export const REFRESH_MARGIN_MS = 5 * 60_000;

function expiresWithin(credentials: ConnectorCredentials, marginMs: number, now: number): boolean {
  if (!credentials.expiresAt) return false;
  const expiresAt = Date.parse(credentials.expiresAt);
  return Number.isFinite(expiresAt) && expiresAt - now < marginMs;
}

export class ConnectionAuth {
  /** Refreshes made (tests and logs). */
  refreshes = 0;
  private refreshing: Promise<void> | null = null;

  readonly ctx: ConnectorContext;
  private readonly em: EntityManager;
  private readonly connector: Connector;
  private readonly connection: PlatformConnectionEntity;
  private readonly settings: IntegrationsSettings;
  private readonly now: () => Date;

  constructor(
    em: EntityManager,
    connector: Connector,
    connection: PlatformConnectionEntity,
    ctx: ConnectorContext,
    settings: IntegrationsSettings = integrationsSettings(),
    now: () => Date = () => new Date(),
  ) {
    this.em = em;
    this.connector = connector;
    this.connection = connection;
    this.ctx = ctx;
    this.settings = settings;
    this.now = now;
  }

  get canRefresh(): boolean {
    return Boolean(this.connector.oauth?.refresh && this.ctx.credentials.refreshToken);
  }

  /**
   * New tokens from the refresh token, merged over the stored credentials (shop and account ids stay)
   * and sealed at once, on a connection of their own: a sync may be writing a batch meanwhile. Calls
   * that overlap share one refresh (a refresh token may be single-use).
   */
  refresh(): Promise<void> {
    this.refreshing ??= (async () => {
      const oauth = oauthSettingsFor(this.settings, this.connection.platform, oauthCallbackPath(this.connection.platform));
      const refreshed = await this.connector.oauth!.refresh!(this.ctx, oauth);
      const credentials = { ...this.ctx.credentials, ...refreshed };
      const sealed = this.settings.vault.seal(credentials, credentialBinding(this.connection));
      // Not if the connection was disconnected meanwhile (its credentials deleted on purpose).
      await this.em.fork().nativeUpdate(PlatformConnection, { id: this.connection.id, sealedCredentials: { $ne: null } }, { sealedCredentials: sealed });
      this.ctx.credentials = credentials;
      this.refreshes++;
    })().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  /** Refreshes first when the token expires within the margin. */
  async ensureFresh(): Promise<void> {
    if (this.canRefresh && expiresWithin(this.ctx.credentials, REFRESH_MARGIN_MS, this.now().getTime())) await this.refresh();
  }

  /**
   * Runs a call with a fresh token. A refused token is refreshed and the call made once more, unless
   * the token it used was refreshed after the call began (then the refusal concerns a fresh token).
   */
  async call<T>(work: (ctx: ConnectorContext) => Promise<T>): Promise<T> {
    await this.ensureFresh();
    const tokenUsed = this.ctx.credentials.accessToken;
    try {
      return await work(this.ctx);
    } catch (error) {
      if (!(error instanceof ConnectorAuthError) || !this.canRefresh) throw error;
      if (this.ctx.credentials.accessToken === tokenUsed) await this.refresh();
      return work(this.ctx);
    }
  }
}
