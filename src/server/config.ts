import { z } from 'zod';
import { llmSettingsFromEnv, type LlmSettings } from './modules/llm/llm-provider.ts';
import { imageModelSettingsFromEnv, type ImageModelSettings } from './modules/product-images/image-model.ts';
import { isIP } from 'node:net';
import path from 'node:path';
import { DEFAULT_AUTH_RATE_LIMITS, type AuthRateLimits } from './modules/auth/attempt-limiter.ts';
import { PLATFORM_KEYS, type PlatformKey } from '../shared/platforms.ts';
import { parseAllowList, type AllowEntry } from './outbound/address-policy.ts';
import { mailSettingsFrom, type MailSettings } from './modules/email/mail-settings.ts';
import { DEFAULT_PAYOUT_THRESHOLD_MINOR, DEFAULT_REFERRAL_COOKIE_DAYS } from '../shared/affiliates.ts';
import type { AffiliateSettings } from './modules/affiliates/affiliate-settings.ts';

const booleanFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  PUBLIC_URL: z.url({ protocol: /^https?$/, error: 'PUBLIC_URL must be an http or https address' }).optional(),
  ALLOWED_HOSTS: z.string().optional(),
  DATABASE_URL: z.url().optional(),
  DATA_DIR: z.string().min(1).default('.data'),
  EMBEDDED_POSTGRES_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  SESSION_SECRET: z.string().min(32, 'SESSION_SECRET must be at least 32 characters').optional(),
  TRUST_PROXY: z.string().default('false'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  PAYMENT_PROVIDER: z.enum(['test', 'stripe'], { error: 'PAYMENT_PROVIDER must be test or stripe' }).default('test'),
  STRIPE_SECRET_KEY: z.string().regex(/^(sk|rk)_(test|live)_\w+$/, 'STRIPE_SECRET_KEY must be a Stripe secret or restricted key (sk_live_..., sk_test_..., rk_...)').optional(),
  STRIPE_WEBHOOK_SECRET: z.string().regex(/^whsec_\w+$/, 'STRIPE_WEBHOOK_SECRET must be the endpoint signing secret (whsec_...)').optional(),
  STRIPE_API_BASE: z.url({ protocol: /^https?$/, error: 'STRIPE_API_BASE must be an http or https address' }).optional(),
  ALLOW_TEST_PAYMENTS: booleanFromEnv.default(false),
  CLIENT_DIST_DIR: z.string().min(1).default('dist/client'),
  RATE_LIMIT_LOGINS_PER_IP: z.coerce.number().int().min(1).default(DEFAULT_AUTH_RATE_LIMITS.loginPerIp.max),
  RATE_LIMIT_FAILED_LOGINS_PER_USERNAME_AND_IP: z.coerce.number().int().min(1).default(DEFAULT_AUTH_RATE_LIMITS.loginFailuresPerUsernameAndIp.max),
  RATE_LIMIT_FAILED_LOGINS_PER_USERNAME: z.coerce.number().int().min(1).default(DEFAULT_AUTH_RATE_LIMITS.loginFailuresPerUsername.max),
  RATE_LIMIT_REGISTRATIONS_PER_IP: z.coerce.number().int().min(1).default(DEFAULT_AUTH_RATE_LIMITS.registrationsPerIp.max),
  RATE_LIMIT_TAKEN_ANSWERS_PER_IP: z.coerce.number().int().min(1).default(DEFAULT_AUTH_RATE_LIMITS.takenAnswersPerIp.max),
  ENCRYPTION_KEY: z.string().min(1).optional(),
  OUTBOUND_ALLOW_HOSTS: z.string().optional(),
  SCHEDULED_SYNCS: booleanFromEnv.default(true),
  TRACKING_REQUESTS_PER_IP_PER_SECOND: z.coerce.number().int().min(1).default(20),
  TRACKING_EVENTS_PER_STORE_PER_SECOND: z.coerce.number().int().min(1).default(5000),
  TRACKING_RATE_WINDOW_SECONDS: z.coerce.number().int().min(1).max(60).default(1),
  TRACKING_COUNTRY_HEADER: z.string().trim().toLowerCase().regex(/^[a-z0-9-]+$/).optional(),
  FX_SOURCE: z.enum(['ecb', 'synthetic'], { error: 'FX_SOURCE must be ecb or synthetic' }).optional(),
  ECB_RATES_URL: z.url({ protocol: /^https?$/, error: 'ECB_RATES_URL must be an http or https address' }).default('https://www.ecb.europa.eu/stats/eurofxref'),
  SMTP_URL: z.string().trim().optional(),
  MAIL_FROM: z.string().trim().optional(),
  IMAGE_STORAGE: z.enum(['local', 's3'], { error: 'IMAGE_STORAGE must be local or s3' }).default('local'),
  S3_ENDPOINT: z.url({ protocol: /^https?$/, error: 'S3_ENDPOINT must be an http or https address (e.g. https://s3.eu-west-1.amazonaws.com)' }).optional(),
  S3_REGION: z.string().trim().regex(/^[a-z0-9-]{2,40}$/, 'S3_REGION must be a region name such as eu-west-1 (auto for Cloudflare R2)').default('us-east-1'),
  S3_BUCKET: z.string().trim().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'S3_BUCKET must be a bucket name: 3-63 lower-case letters, digits, dots and dashes').optional(),
  S3_ACCESS_KEY_ID: z.string().trim().min(1, 'S3_ACCESS_KEY_ID must not be empty').optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1, 'S3_SECRET_ACCESS_KEY must not be empty').optional(),
  S3_FORCE_PATH_STYLE: z.enum(['true', 'false'], { error: 'S3_FORCE_PATH_STYLE must be true or false' }).default('false'),
  S3_PREFIX: z
    .string()
    .trim()
    .regex(/^([A-Za-z0-9._-]+\/)*[A-Za-z0-9._-]*$/, 'S3_PREFIX may only hold letters, digits, dots, dashes, underscores and slashes between them (e.g. storepulse/)')
    .refine((prefix) => !prefix.split('/').some((part) => part === '.' || part === '..'), 'S3_PREFIX must not hold . or .. as a folder (MinIO refuses such keys)')
    .default(''),
  AFFILIATE_COOKIE_DAYS: z.coerce.number({ error: 'AFFILIATE_COOKIE_DAYS must be a number of days' }).int('AFFILIATE_COOKIE_DAYS must be a whole number of days').min(1, 'AFFILIATE_COOKIE_DAYS must be at least 1').max(3650).default(DEFAULT_REFERRAL_COOKIE_DAYS),
  AFFILIATE_ATTRIBUTION: z.enum(['last', 'first'], { error: 'AFFILIATE_ATTRIBUTION must be last or first' }).default('last'),
  AFFILIATE_PAYOUT_THRESHOLD_PENCE: z.coerce.number({ error: 'AFFILIATE_PAYOUT_THRESHOLD_PENCE must be an amount in pence' }).int('AFFILIATE_PAYOUT_THRESHOLD_PENCE must be a whole number of pence').min(1, 'AFFILIATE_PAYOUT_THRESHOLD_PENCE must be at least 1').default(DEFAULT_PAYOUT_THRESHOLD_MINOR),
  SMTP_TLS_REJECT_UNAUTHORIZED: z.enum(['true', 'false'], { error: 'SMTP_TLS_REJECT_UNAUTHORIZED must be true or false' }).default('true'),
});

/**
 * TRUST_PROXY: whose X-Forwarded-For (client address, which the rate limits count), -Proto (https,
 * the Secure cookie) and -Host to believe.
 * - `false` (also `no`, `0`, empty): nobody's; the client is the TCP peer.
 * - a list of addresses, CIDR ranges or the names `loopback`, `linklocal`, `uniquelocal`
 *   (`10.0.0.5`, `10.0.0.0/8, fd00::/8`): the proxies at those addresses; the client is the nearest
 *   address in X-Forwarded-For that is not one of them. The safe choice.
 * - a number of hops (`1`, `2`): the nearest N addresses (the TCP peer and the N-1 nearest entries of
 *   X-Forwarded-For) are proxies, whoever they are. Only safe when nothing but those proxies can reach
 *   the app's port: a client connecting directly is itself taken for a proxy and chooses its address.
 * - `true` (also `yes`): every address is a proxy; the client is the first X-Forwarded-For entry,
 *   which the client writes itself. Kept for compatibility: it lets anyone choose the address the
 *   rate limits count.
 * Fastify's own `trustProxy` takes the list and `true` as they are; hop counts it no longer accepts
 * (5.12.1: "Hop-count-only trust is disabled"), so app.ts passes them as a trust function.
 * https://fastify.dev/docs/latest/Reference/Server/#trustproxy
 */
export type TrustProxySetting = false | true | { hops: number } | { addresses: string[] };

const TRUST_PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isTrustedAddress(entry: string): boolean {
  if (TRUST_PROXY_NAMES.has(entry)) return true;
  const [address, range, ...rest] = entry.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (range === undefined) return true;
  if (/^\d{1,3}$/.test(range)) return Number(range) <= (family === 4 ? 32 : 128);
  // proxy-addr also takes an IPv4 netmask (10.0.0.0/255.0.0.0).
  return family === 4 && isIP(range) === 4;
}

export function parseTrustProxy(raw: string): TrustProxySetting {
  const value = raw.trim().toLowerCase();
  if (['', 'false', 'no', '0'].includes(value)) return false;
  if (value === 'true' || value === 'yes') return true;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > 10) throw new Error(`Invalid environment: TRUST_PROXY: ${hops} proxy hops is more than any set-up has; give the number of proxies in front of the app`);
    return { hops };
  }
  const addresses = value.split(',').map((entry) => entry.trim()).filter(Boolean);
  const wrong = addresses.filter((entry) => !isTrustedAddress(entry));
  if (wrong.length > 0) {
    throw new Error(
      `Invalid environment: TRUST_PROXY: ${wrong.map((entry) => JSON.stringify(entry)).join(', ')} is not an IP address, a CIDR range or one of loopback, linklocal, uniquelocal (or use true, false or a number of proxy hops)`,
    );
  }
  return { addresses };
}

/**
 * Per platform: PLATFORM_BASE_URL_<KEY>, <KEY>_CLIENT_ID, <KEY>_CLIENT_SECRET, <KEY>_AUTHORIZE_URL and
 * (Google Ads, Microsoft Advertising) <KEY>_DEVELOPER_TOKEN, all optional.
 */
export interface PlatformSettings {
  baseUrl?: string;
  clientId?: string;
  clientSecret?: string;
  authorizeUrl?: string;
  developerToken?: string;
  /** <KEY>_WEBHOOK_VERIFY_TOKEN: the hub.verify_token of the platform's webhook handshake (Meta). */
  webhookVerifyToken?: string;
}

function platformSettingsFromEnv(env: NodeJS.ProcessEnv): Record<PlatformKey, PlatformSettings> {
  const read = (name: string) => env[name]?.trim() || undefined;
  const entries = PLATFORM_KEYS.map((platform) => {
    const key = platform.toUpperCase();
    const baseUrl = read(`PLATFORM_BASE_URL_${key}`);
    const authorizeUrl = read(`${key}_AUTHORIZE_URL`);
    for (const [name, value] of [[`PLATFORM_BASE_URL_${key}`, baseUrl], [`${key}_AUTHORIZE_URL`, authorizeUrl]] as const) {
      if (value !== undefined && !URL.canParse(value)) throw new Error(`Invalid environment: ${name} must be a URL`);
    }
    const settings: PlatformSettings = {
      baseUrl,
      clientId: read(`${key}_CLIENT_ID`),
      clientSecret: read(`${key}_CLIENT_SECRET`),
      authorizeUrl,
      developerToken: read(`${key}_DEVELOPER_TOKEN`),
      webhookVerifyToken: read(`${key}_WEBHOOK_VERIFY_TOKEN`),
    };
    return [platform, settings] as const;
  });
  return Object.fromEntries(entries) as Record<PlatformKey, PlatformSettings>;
}

/** "app.example.com, 192.168.1.20:3000" -> lower-case names; a name without a port allows any port. */
function parseAllowedHosts(value: string | undefined): string[] | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const hosts = value.split(',').map((entry) => entry.trim().toLowerCase()).filter(Boolean);
  for (const host of hosts) {
    if (!URL.canParse(`http://${host}`) || new URL(`http://${host}`).host !== host.replace(/:80$/, '')) {
      throw new Error(`Invalid environment: ALLOWED_HOSTS entry "${host}" is not a host name (with an optional port)`);
    }
  }
  return hosts;
}

export interface AppConfig {
  env: 'development' | 'production' | 'test';
  port: number;
  host: string;
  /** Where users reach the app (https://app.example.com); links in e-mails use it. Required in production. */
  publicUrl: string | undefined;
  /**
   * ALLOWED_HOSTS: the Host names (optionally with a port) the server answers for; any other Host is
   * refused. Undefined when unset: links then use the first origin the server saw (public-origin.ts).
   */
  allowedHosts: string[] | undefined;
  databaseUrl: string | undefined;
  dataDir: string;
  embeddedPostgresPort: number | undefined;
  sessionSecret: string | undefined;
  /** Which peers' X-Forwarded-* headers count (TRUST_PROXY): see parseTrustProxy. */
  trustProxy: TrustProxySetting;
  logLevel: string;
  paymentProvider: 'test' | 'stripe';
  /** PAYMENT_PROVIDER=stripe: the secret key, the webhook endpoint's signing secret and the API's address (a fake in tests). */
  stripe: { secretKey: string; webhookSecret: string; apiBase: URL | null } | null;
  /** ALLOW_TEST_PAYMENTS: lets the test provider hand out plans in production (everything free). */
  allowTestPayments: boolean;
  clientDistDir: string;
  authRateLimits: AuthRateLimits;
  /** Seals platform credentials (credential-vault.ts); generated into the data dir when unset. */
  encryptionKey: string | undefined;
  platforms: Record<PlatformKey, PlatformSettings>;
  /**
   * Non-public addresses outbound requests may reach anyway (src/server/outbound/): empty unless
   * OUTBOUND_ALLOW_HOSTS names them; the test harness names the fakes' 127.0.0.1.
   */
  outboundAllowHosts: AllowEntry[];
  /**
   * Exchange rates: 'ecb' loads the ECB's reference rates daily (modules/exchange-rates), 'synthetic' keeps the
   * seed only (offline installs, tests, benchmarks). Default: ecb in production, synthetic otherwise.
   */
  fxSource: 'ecb' | 'synthetic';
  /** The folder of the ECB's eurofxref files (a loopback fake in tests). */
  ecbRatesUrl: string;
  /** SCHEDULED_SYNCS: the 15-minute incremental syncs of every connection (false: only "Sync now", backfills and webhooks). */
  scheduledSyncs: boolean;
  /**
   * The tracking collector (modules/tracking): requests per client address and events per store, each
   * per second and per app process; and the header a trusted proxy puts the visitor's country in
   * (e.g. cf-ipcountry), read only when TRUST_PROXY is set.
   */
  tracking: { requestsPerIpPerSecond: number; eventsPerStorePerSecond: number; rateWindowSeconds: number; countryHeader: string | undefined };
  /** The optional LLM (LLM_BASE_URL, LLM_API_KEY, LLM_MODEL, LLM_TIMEOUT_MS, LLM_MAX_TOKENS): null, the default, keeps it off. */
  llm: LlmSettings | null;
  /** Outgoing mail (SMTP_URL, MAIL_FROM, SMTP_TLS_REJECT_UNAUTHORIZED): null keeps e-mails in the outbox as `logged`. */
  mail: MailSettings | null;
  /** The optional image model (IMAGE_API_URL, IMAGE_API_KEY, IMAGE_MODEL): null, the default, keeps it off. */
  imageModel: ImageModelSettings | null;
  /** Where the product image generator keeps its files (IMAGE_STORAGE, S3_*): DATA_DIR (local, the default) or a bucket. */
  imageStorage: ImageStorageSettings;
  /** The affiliate programme: AFFILIATE_COOKIE_DAYS (referral window, 60), AFFILIATE_ATTRIBUTION (last) and AFFILIATE_PAYOUT_THRESHOLD_PENCE (5000 = £50.00). */
  affiliates: AffiliateSettings;
}

export interface S3Settings {
  /** Unset: AWS's own endpoint for the region. */
  endpoint: string | undefined;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  forcePathStyle: boolean;
  /** Put before every key; empty or ending with a slash. */
  prefix: string;
}

export type ImageStorageSettings = { kind: 'local' } | ({ kind: 's3' } & S3Settings);

function imageStorageFrom(values: z.infer<typeof envSchema>): ImageStorageSettings {
  if (values.IMAGE_STORAGE === 'local') return { kind: 'local' };
  const missing = (['S3_BUCKET', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const).filter((name) => !values[name]);
  if (missing.length > 0) throw new Error(`Invalid environment: IMAGE_STORAGE=s3 needs ${missing.join(', ')} (the bucket and an access key allowed to put, get, list and delete objects in it).`);
  const prefix = values.S3_PREFIX;
  return {
    kind: 's3',
    endpoint: values.S3_ENDPOINT?.replace(/\/+$/, ''),
    region: values.S3_REGION,
    bucket: values.S3_BUCKET!,
    accessKeyId: values.S3_ACCESS_KEY_ID!,
    secretAccessKey: values.S3_SECRET_ACCESS_KEY!,
    forcePathStyle: values.S3_FORCE_PATH_STYLE === 'true',
    prefix: prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`,
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new Error(`Invalid environment: ${problems}`);
  }
  const values = parsed.data;
  if (values.NODE_ENV === 'production' && !values.PUBLIC_URL) {
    // Without it, links in e-mails and OAuth redirect addresses would follow whatever Host header a request carries.
    throw new Error(
      'Invalid environment: PUBLIC_URL is required when NODE_ENV=production. Set it to the address users reach the app at ' +
        '(e.g. https://app.example.com): links in e-mails, OAuth redirect addresses and webhook addresses are built from it.',
    );
  }
  if (values.PAYMENT_PROVIDER === 'stripe' && (!values.STRIPE_SECRET_KEY || !values.STRIPE_WEBHOOK_SECRET)) {
    throw new Error(
      'Invalid environment: PAYMENT_PROVIDER=stripe needs STRIPE_SECRET_KEY (Dashboard > Developers > API keys) and ' +
        'STRIPE_WEBHOOK_SECRET (the signing secret of the endpoint <PUBLIC_URL>/api/webhooks/stripe).',
    );
  }
  const llm = llmSettingsFromEnv(env);
  const imageModel = imageModelSettingsFromEnv(env);
  let outboundAllowHosts: AllowEntry[];
  try {
    outboundAllowHosts = parseAllowList(values.OUTBOUND_ALLOW_HOSTS);
  } catch (error) {
    throw new Error(`Invalid environment: ${(error as Error).message}`);
  }
  let mail: MailSettings | null;
  try {
    mail = mailSettingsFrom(values.SMTP_URL, values.MAIL_FROM, values.SMTP_TLS_REJECT_UNAUTHORIZED === 'true');
  } catch (error) {
    throw new Error(`Invalid environment: ${(error as Error).message}`);
  }
  return {
    env: values.NODE_ENV,
    port: values.PORT,
    host: values.HOST,
    publicUrl: values.PUBLIC_URL?.replace(/\/+$/, ''),
    allowedHosts: parseAllowedHosts(values.ALLOWED_HOSTS),
    databaseUrl: values.DATABASE_URL,
    dataDir: path.resolve(values.DATA_DIR),
    embeddedPostgresPort: values.EMBEDDED_POSTGRES_PORT,
    sessionSecret: values.SESSION_SECRET,
    trustProxy: parseTrustProxy(values.TRUST_PROXY),
    logLevel: values.LOG_LEVEL,
    paymentProvider: values.PAYMENT_PROVIDER,
    allowTestPayments: values.ALLOW_TEST_PAYMENTS,
    stripe:
      values.PAYMENT_PROVIDER === 'stripe'
        ? { secretKey: values.STRIPE_SECRET_KEY!, webhookSecret: values.STRIPE_WEBHOOK_SECRET!, apiBase: values.STRIPE_API_BASE ? new URL(values.STRIPE_API_BASE) : null }
        : null,
    clientDistDir: path.resolve(values.CLIENT_DIST_DIR),
    authRateLimits: {
      loginPerIp: { max: values.RATE_LIMIT_LOGINS_PER_IP, windowMs: 15 * 60_000 },
      loginFailuresPerUsernameAndIp: { max: values.RATE_LIMIT_FAILED_LOGINS_PER_USERNAME_AND_IP, windowMs: DEFAULT_AUTH_RATE_LIMITS.loginFailuresPerUsernameAndIp.windowMs },
      loginFailuresPerUsername: { max: values.RATE_LIMIT_FAILED_LOGINS_PER_USERNAME, windowMs: DEFAULT_AUTH_RATE_LIMITS.loginFailuresPerUsername.windowMs },
      registrationsPerIp: { max: values.RATE_LIMIT_REGISTRATIONS_PER_IP, windowMs: 60 * 60_000 },
      takenAnswersPerIp: { max: values.RATE_LIMIT_TAKEN_ANSWERS_PER_IP, windowMs: DEFAULT_AUTH_RATE_LIMITS.takenAnswersPerIp.windowMs },
    },
    encryptionKey: values.ENCRYPTION_KEY,
    platforms: platformSettingsFromEnv(env),
    outboundAllowHosts,
    fxSource: values.FX_SOURCE ?? (values.NODE_ENV === 'production' ? 'ecb' : 'synthetic'),
    ecbRatesUrl: values.ECB_RATES_URL.replace(/\/+$/, ''),
    scheduledSyncs: values.SCHEDULED_SYNCS,
    tracking: {
      requestsPerIpPerSecond: values.TRACKING_REQUESTS_PER_IP_PER_SECOND,
      eventsPerStorePerSecond: values.TRACKING_EVENTS_PER_STORE_PER_SECOND,
      rateWindowSeconds: values.TRACKING_RATE_WINDOW_SECONDS,
      countryHeader: values.TRACKING_COUNTRY_HEADER,
    },
    llm,
    mail,
    imageModel,
    imageStorage: imageStorageFrom(values),
    affiliates: { cookieDays: values.AFFILIATE_COOKIE_DAYS, payoutThresholdMinor: values.AFFILIATE_PAYOUT_THRESHOLD_PENCE, attribution: values.AFFILIATE_ATTRIBUTION },
  };
}
