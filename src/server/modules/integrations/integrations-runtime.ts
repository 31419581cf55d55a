import type { Db } from 'pg-boss';
import type { PlatformKey } from '../../../shared/platforms.ts';
import { loadConfig, type AppConfig, type PlatformSettings } from '../../config.ts';
import { GOOGLE_ACCOUNTS_ROOT } from '../../connectors/googleads/client.ts';
import { FACEBOOK_WEB_ROOT } from '../../connectors/metaads/client.ts';
import { MICROSOFT_LOGIN_ROOT } from '../../connectors/bingads/client.ts';
import { TIKTOK_PORTAL_ROOT } from '../../connectors/tiktokads/client.ts';
import type { ConnectorCredentials, OAuthSettings } from '../../connectors/connector.ts';
import { CredentialVault, resolveEncryptionKey } from '../../connectors/credential-vault.ts';
import { connectorFor } from '../../connectors/registry.ts';
import { AppError } from '../../errors.ts';

// What the sync engine needs from the configuration (the credential key, each platform's base URL
// and OAuth app) and from the process (the job queue). The app configures it once at start; procedures,
// the webhook routes and the job workers read it from here.

export interface IntegrationsSettings {
  vault: CredentialVault;
  platforms: Record<PlatformKey, PlatformSettings>;
}

export function integrationsSettingsFrom(config: Pick<AppConfig, 'encryptionKey' | 'dataDir' | 'platforms'>): IntegrationsSettings {
  return { vault: new CredentialVault(resolveEncryptionKey(config)), platforms: config.platforms };
}

let configured: IntegrationsSettings | (() => IntegrationsSettings) | null = null;

/** The settings, or a function making them on first use (so an app that never syncs creates no key file). */
export function configureIntegrations(settings: IntegrationsSettings | (() => IntegrationsSettings)): void {
  configured = settings;
}

export function integrationsSettings(): IntegrationsSettings {
  if (typeof configured === 'function') configured = configured();
  configured ??= integrationsSettingsFrom(loadConfig());
  return configured;
}

/** The API root a connection's calls go to: PLATFORM_BASE_URL_<KEY> when set, else the platform's own. */
export function baseUrlFor(settings: IntegrationsSettings, platform: PlatformKey, credentials: ConnectorCredentials): string {
  return settings.platforms[platform]?.baseUrl ?? connectorFor(platform).defaultBaseUrl(credentials);
}

/** Where each platform's consent page lives when <KEY>_AUTHORIZE_URL is not set ('' = Shopify's per-shop page). */
const DEFAULT_AUTHORIZE_URLS: Partial<Record<PlatformKey, string>> = {
  shopify: '',
  googleads: GOOGLE_ACCOUNTS_ROOT,
  metaads: FACEBOOK_WEB_ROOT,
  bingads: MICROSOFT_LOGIN_ROOT,
  tiktokads: TIKTOK_PORTAL_ROOT,
};

export function oauthCallbackPath(platform: PlatformKey): string {
  return `/api/integrations/oauth/${platform}/callback`;
}

/** The OAuth app of a platform (<KEY>_CLIENT_ID / _CLIENT_SECRET / _AUTHORIZE_URL). */
export function oauthSettingsFor(settings: IntegrationsSettings, platform: PlatformKey, redirectUri: string): OAuthSettings {
  const app = settings.platforms[platform] ?? {};
  if (!app.clientId || !app.clientSecret) {
    const key = platform.toUpperCase();
    throw new AppError('BAD_REQUEST', `Connecting ${platform} is not set up on this server: the administrator must set ${key}_CLIENT_ID and ${key}_CLIENT_SECRET.`);
  }
  return { clientId: app.clientId, clientSecret: app.clientSecret, redirectUri, authorizeBaseUrl: app.authorizeUrl ?? DEFAULT_AUTHORIZE_URLS[platform] ?? '' };
}

// ---------------------------------------------------------------------------------------------
// Jobs

export interface JobSendOptions {
  /** With singletonSeconds: at most one job per key and time slot of that many seconds. */
  singletonKey?: string;
  singletonSeconds?: number;
  /** With singletonSeconds: a job refused in the current slot is queued for the next one (a debounce: the last send is never lost). */
  singletonNextSlot?: boolean;
  /** The transaction to create the job in (jobs/job-database.ts). */
  db?: Db;
}

export type JobSender = (queue: string, data: object, options?: JobSendOptions) => Promise<unknown>;

let jobSender: JobSender | null = null;

/** main.ts hands over pg-boss once it runs; tests may install a recorder. null: nothing is sent. */
export function setIntegrationJobSender(sender: JobSender | null): void {
  jobSender = sender;
}

/** Puts a job on a queue; false when no queue runs in this process (a test without pg-boss). */
export async function sendIntegrationJob(queue: string, data: object, options?: JobSendOptions): Promise<boolean> {
  if (!jobSender) return false;
  await jobSender(queue, data, options);
  return true;
}

/** Cancellation of the runs executing in this process (the flag in the database reaches the others). */
export const runningSyncs = new Map<number, AbortController>();
