import type { PlatformKey } from '../../shared/platforms.ts';
import type { IngestAdMetric, IngestEmailMetric, IngestOrder, IngestProduct, IngestRefund } from '../modules/commerce/ingest.ts';
import type { IngestProductAdSlice } from '../modules/commerce/product-ad-metrics.ts';
import type { PlatformHttp } from './http.ts';

// What every platform connector offers the sync engine. A connector only speaks its platform's wire
// format and maps it to ingest rows; storing, cursors, jobs, encryption and reconciliation belong to the
// sync engine, so a connector never touches the database.

export type ConnectorKind = 'store' | 'ads' | 'email';

/** How a user connects: an OAuth 2 authorization-code flow, credentials typed into a form, or files. */
export type ConnectorAuthKind = 'oauth' | 'credentials' | 'upload';

/**
 * Decrypted credentials of one connection: tokens for OAuth platforms (accessToken, refreshToken,
 * expiresAt as an ISO instant), keys for the others (apiKey, consumerKey, ...), plus the account
 * identifiers a platform needs on every call (shop domain, customer id, data centre...).
 */
export type ConnectorCredentials = Record<string, string>;

export interface ConnectorContext {
  /** The platform's API root; configuration can point it at a proxy or a fake. */
  baseUrl: string;
  credentials: ConnectorCredentials;
  http: PlatformHttp;
  store: { timezone: string; currency: string };
  /**
   * The accounts of the login the user chose to sync (connectors with listAccounts only; see
   * PlatformAccount). Empty or absent for a connection made before accounts could be chosen: the
   * connector then uses the account its credentials name.
   */
  accounts?: PlatformAccount[];
}

/**
 * An account a login reaches on an advertising platform (a Google Ads customer, a Meta ad account, a
 * Microsoft Advertising account, a TikTok advertiser), as offered to the user to choose from. Each
 * keeps its own currency and time zone: the platform reports its days in that zone.
 */
export interface PlatformAccount {
  accountId: string;
  name: string;
  /** ISO 4217 code the account's money is in; null when the platform does not say. */
  currency: string | null;
  /** IANA zone of the account's reporting days; null when the platform does not say. */
  timezone: string | null;
  /** A manager account (Google Ads MCC) has no metrics of its own: shown, never selectable. */
  isManager?: boolean;
  /**
   * What the connector needs on every call for this account besides its id (Google Ads' manager
   * login-customer-id, Microsoft's customer id), kept with the choice.
   */
  access?: Record<string, string>;
}

/**
 * The part of the platform's history one sync reads: orders changed in [since, until) for store
 * platforms, reporting days from..to (as instants at the start of each day) for ads and e-mail.
 */
export interface SyncWindow {
  since: Date;
  until: Date;
}

/** One page from the platform, mapped to ingest rows. */
export interface SyncBatch {
  products?: IngestProduct[];
  orders?: IngestOrder[];
  refunds?: IngestRefund[];
  adMetrics?: IngestAdMetric[];
  emailMetrics?: IngestEmailMetric[];
  /**
   * Per-product shopping performance (ads platforms that report it: Google Ads), whole slices of one
   * account's days each, read with the campaign days of the same slice so they share its cursor.
   */
  productAdSlices?: IngestProductAdSlice[];
  /** Where to continue (opaque to the engine, stored after the batch is ingested); null when the window is done. */
  nextCursor: string | null;
  /** How many records the window holds, when the platform says (X-WP-Total, total_items, page counts). */
  estimatedTotal?: number;
  /**
   * What the user should know but that does not stop the sync, e.g. "the app may not read product
   * costs (read_inventory missing)": shown beside the connection until a sync no longer reports it.
   */
  warnings?: string[];
}

/** The platform's own figures for a day, to reconcile against ours. */
export interface SourceDayTotal {
  day: string;
  /** The ad account the total is of, when a connection syncs several. */
  accountId?: string;
  orders?: number;
  netSalesMinor?: number;
  spendMinor?: number;
  currency: string;
}

export interface ConnectedAccount {
  accountId: string;
  accountName: string;
  currency?: string;
  /** IANA zone of the account's days (a shop's own zone, an ad account's reporting zone), when the platform says. */
  timezone?: string;
}

export interface OAuthSettings {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** Where the platform's consent page lives (configurable like baseUrl). */
  authorizeBaseUrl: string;
  scopes?: string[];
}

export interface OAuthSupport {
  /** The consent page URL the browser is sent to; `extra` carries e.g. the Shopify shop domain. */
  authorizeUrl(settings: OAuthSettings, state: string, extra: Record<string, string>): string;
  /** Trades the authorization code for tokens (and account identifiers), returned as credentials. */
  exchangeCode(ctx: ConnectorContext, settings: OAuthSettings, code: string, extra: Record<string, string>): Promise<ConnectorCredentials>;
  /** New credentials from the refresh token; absent for platforms whose tokens do not expire. */
  refresh?(ctx: ConnectorContext, settings: OAuthSettings): Promise<ConnectorCredentials>;
}

export interface Connector {
  platform: PlatformKey;
  kind: ConnectorKind;
  authKind: ConnectorAuthKind;
  /** The credential fields a form asks for (credentials kind), in order. */
  credentialFields?: readonly string[];
  oauth?: OAuthSupport;
  /**
   * The real API root for these credentials (Shopify's is per shop, Mailchimp's per data centre);
   * configuration overrides it (proxies, the fakes in tests).
   */
  defaultBaseUrl(credentials: ConnectorCredentials): string;
  /** A cheap authenticated call proving the credentials work; throws ConnectorAuthError otherwise. */
  verify(ctx: ConnectorContext): Promise<ConnectedAccount>;
  /** The next page of the window from `cursor` (null = its start). */
  fetchBatch(ctx: ConnectorContext, window: SyncWindow, cursor: string | null): Promise<SyncBatch>;
  /** Per-day totals from the platform's own count/report endpoints, when it has them. */
  sourceTotals?(ctx: ConnectorContext, window: SyncWindow): Promise<SourceDayTotal[]>;
  /**
   * Every account the credentials reach (managers included, marked), for the user to choose which
   * to sync. Platforms where one login reaches one account (store platforms, e-mail) have none.
   */
  listAccounts?(ctx: ConnectorContext): Promise<PlatformAccount[]>;
  /**
   * The scheduled incremental syncs of this platform run at most this often (minutes; the schedule
   * runs every 15): for platforms whose documented daily quota a sync every 15 minutes would use up.
   */
  minSyncIntervalMinutes?: number;
}

/** The credentials were refused (revoked, expired without refresh, wrong key): the connection is disconnected. */
export class ConnectorAuthError extends Error {
  readonly platform: string;
  /** Shown to the user beside the disconnected connection. */
  readonly reason: string;

  constructor(platform: string, reason: string) {
    super(`${platform}: ${reason}`);
    this.name = 'ConnectorAuthError';
    this.platform = platform;
    this.reason = reason;
  }
}

/** The platform answered something we cannot read (not its documented format); the sync stops, retryable later. */
export class MalformedResponseError extends Error {
  readonly platform: string;
  readonly detail: string;

  constructor(platform: string, detail: string) {
    super(`${platform} sent a response we could not read: ${detail}`);
    this.name = 'MalformedResponseError';
    this.platform = platform;
    this.detail = detail;
  }
}

/** The platform kept failing (5xx, throttling) after every retry, or refused the request outright. */
export class ConnectorRequestError extends Error {
  readonly platform: string;
  /** 0 when no answer came (network error, timeout). */
  readonly status: number;
  readonly detail: string;

  constructor(platform: string, status: number, detail: string) {
    super(`${platform} request failed (${status || 'network'}): ${detail}`);
    this.name = 'ConnectorRequestError';
    this.platform = platform;
    this.status = status;
    this.detail = detail;
  }
}
