import { z } from 'zod';
import type { ConnectorContext, ConnectorCredentials, OAuthSettings, PlatformAccount } from '../connector.ts';
import { defaultVerdict, type PlatformHttp, type PlatformResponse, type Verdict } from '../http.ts';
import { requestTokens, requiredCredential } from '../ads-shared/oauth2.ts';
import type { DayRange } from '../ads-shared/reporting-days.ts';

// Google Ads API over REST: GAQL through googleAds:searchStream, Google's OAuth 2 token endpoint,
// and Google's error envelope (RESOURCE_EXHAUSTED with a retryDelay, UNAUTHENTICATED...).

export const PLATFORM = 'googleads';
export const DISPLAY_NAME = 'Google Ads';
/** The API version; a connection can override it with `credentials.apiVersion`. */
export const GOOGLE_ADS_API_VERSION = 'v23';
export const GOOGLE_ADS_API_ROOT = 'https://googleads.googleapis.com';
/** The consent page's origin (OAuthSettings.authorizeBaseUrl). */
export const GOOGLE_ACCOUNTS_ROOT = 'https://accounts.google.com';
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
export const GOOGLE_ADS_SCOPE = 'https://www.googleapis.com/auth/adwords';

/**
 * Google's token endpoint lives on its own host. When the consent page is configured elsewhere (a
 * proxy, a fake), that same origin is expected to serve the token endpoint at `/token` too.
 */
export function tokenUrlFor(settings: OAuthSettings): string {
  const root = settings.authorizeBaseUrl.replace(/\/+$/, '');
  return root === GOOGLE_ACCOUNTS_ROOT ? GOOGLE_TOKEN_URL : `${root}/token`;
}

export function authorizeEndpoint(settings: OAuthSettings): string {
  return `${settings.authorizeBaseUrl.replace(/\/+$/, '')}/o/oauth2/v2/auth`;
}

// ---------------------------------------------------------------------------------------------
// Wire shapes. int64 values are JSON strings, doubles are numbers, zero metrics may be left out.

const int64 = z.union([z.string().regex(/^-?\d+$/), z.number().int()]);

/** CustomerStatusEnum: only ENABLED accounts can be queried (others answer CUSTOMER_NOT_ENABLED). */
const customerStatus = z.string();

export const searchRowSchema = z.object({
  customer: z
    .object({
      id: int64.optional(),
      descriptiveName: z.string().optional(),
      currencyCode: z.string().optional(),
      timeZone: z.string().optional(),
      manager: z.boolean().optional(),
      testAccount: z.boolean().optional(),
      status: customerStatus.optional(),
    })
    .optional(),
  // https://developers.google.com/google-ads/api/reference/rpc/v23/CustomerClient (proto3 JSON: level 0
  // and false booleans are left out).
  customerClient: z
    .object({
      clientCustomer: z.string().optional(),
      id: int64.optional(),
      descriptiveName: z.string().optional(),
      currencyCode: z.string().optional(),
      timeZone: z.string().optional(),
      level: int64.optional(),
      manager: z.boolean().optional(),
      hidden: z.boolean().optional(),
      testAccount: z.boolean().optional(),
      status: customerStatus.optional(),
    })
    .optional(),
  campaign: z.object({ id: int64, name: z.string().optional() }).optional(),
  metrics: z
    .object({
      impressions: int64.optional(),
      clicks: int64.optional(),
      costMicros: int64.optional(),
      conversions: z.number().optional(),
      conversionsValue: z.number().optional(),
    })
    .optional(),
  segments: z.object({ date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/), productItemId: z.string().optional() }).optional(),
});
export type GoogleAdsRow = z.infer<typeof searchRowSchema>;

const searchStreamSchema = z.array(z.object({ results: z.array(searchRowSchema).optional(), requestId: z.string().optional() }));

const listAccessibleCustomersSchema = z.object({ resourceNames: z.array(z.string()).optional() });

const googleErrorSchema = z.object({
  error: z.object({
    code: z.number().optional(),
    message: z.string().optional(),
    status: z.string().optional(),
    details: z.array(z.unknown()).optional(),
  }),
});
type GoogleError = z.infer<typeof googleErrorSchema>['error'];

const failureDetailSchema = z.object({
  errors: z
    .array(
      z.object({
        errorCode: z.record(z.string(), z.string()).optional(),
        message: z.string().optional(),
        details: z.object({ quotaErrorDetails: z.object({ retryDelay: z.string().optional() }).optional() }).optional(),
      }),
    )
    .optional(),
});

/** A searchStream error comes wrapped in an array; other methods send the object itself. */
function errorOf(response: PlatformResponse): GoogleError | null {
  let body: unknown;
  try {
    body = JSON.parse(response.text);
  } catch {
    return null;
  }
  const candidates = Array.isArray(body) ? body : [body];
  for (const candidate of candidates) {
    const parsed = googleErrorSchema.safeParse(candidate);
    if (parsed.success) return parsed.data.error;
  }
  return null;
}

/** The start of the reason given for an account Google no longer lets anyone read (CUSTOMER_NOT_ENABLED). */
export const NOT_ENABLED = 'this Google Ads account is not enabled';

/** protobuf Duration as JSON ("30s", "1.5s") -> milliseconds. */
export function durationMs(duration: string | undefined): number | undefined {
  const match = duration ? /^(\d+(?:\.\d+)?)s$/.exec(duration.trim()) : null;
  return match ? Math.round(Number(match[1]) * 1000) : undefined;
}

function failureErrors(error: GoogleError) {
  return (error.details ?? []).flatMap((detail) => failureDetailSchema.safeParse(detail).data?.errors ?? []);
}

/** Google's own reading of an answer: throttling with its retry delay, refused credentials, and the rest by status. */
export function googleAdsVerdict(response: PlatformResponse): Verdict | undefined {
  const error = errorOf(response);
  if (!error) return response.status >= 200 && response.status < 300 ? { kind: 'ok' } : undefined;
  const errors = failureErrors(error);
  const message = errors.find((entry) => entry.message)?.message ?? error.message ?? error.status ?? 'unknown error';
  const codes = new Set(errors.flatMap((entry) => Object.values(entry.errorCode ?? {})));
  // Neither is the user's login failing: one account cannot be read, the connection itself is fine.
  // https://developers.google.com/google-ads/api/reference/rpc/v23/AuthorizationErrorEnum.AuthorizationError
  if (codes.has('CUSTOMER_NOT_ENABLED')) return { kind: 'fail', reason: `${NOT_ENABLED} (cancelled, closed or not yet set up): ${message}` };
  // https://developers.google.com/google-ads/api/reference/rpc/v23/QueryErrorEnum.QueryError
  if (codes.has('REQUESTED_METRICS_FOR_MANAGER')) return { kind: 'fail', reason: `a manager account has no metrics of its own; choose its client accounts: ${message}` };
  switch (error.status) {
    case 'RESOURCE_EXHAUSTED': {
      const retryDelay = errors.map((entry) => durationMs(entry.details?.quotaErrorDetails?.retryDelay)).find((ms) => ms !== undefined);
      const dailyQuota = errors.some((entry) => entry.errorCode?.quotaError === 'RESOURCE_EXHAUSTED');
      if (dailyQuota && retryDelay === undefined) return { kind: 'fail', reason: `the daily Google Ads API quota is used up: ${message}` };
      return { kind: 'retry', reason: `throttled by Google Ads: ${message}`, afterMs: retryDelay };
    }
    case 'UNAUTHENTICATED':
      return { kind: 'auth', reason: `Google refused the access token (it expired or access was revoked): ${message}` };
    case 'PERMISSION_DENIED':
      return {
        kind: 'auth',
        reason: `Google Ads denied access to this account: ${message}. The user may have lost access, or the manager account (login-customer-id) is wrong.`,
      };
    case 'UNAVAILABLE':
    case 'INTERNAL':
    case 'DEADLINE_EXCEEDED':
      return { kind: 'retry', reason: `Google Ads is unavailable (${error.status}): ${message}` };
    default:
      return response.status >= 500 ? { kind: 'retry', reason: `Google Ads server error (${response.status}): ${message}` } : { kind: 'fail', reason: `${error.status ?? response.status}: ${message}` };
  }
}

// ---------------------------------------------------------------------------------------------

/** What every call of a login needs, whichever account it reads. */
export interface GoogleAdsLogin {
  apiRoot: string;
  version: string;
  accessToken: string;
  developerToken?: string;
}

/** One account's calls: its customer id and, when reached through a manager, the manager's id (login-customer-id). */
export interface GoogleAdsAccess extends GoogleAdsLogin {
  customerId: string;
  loginCustomerId?: string;
}

export function loginOf(ctx: ConnectorContext): GoogleAdsLogin {
  const { credentials } = ctx;
  return {
    apiRoot: ctx.baseUrl.replace(/\/+$/, ''),
    version: credentials.apiVersion || GOOGLE_ADS_API_VERSION,
    accessToken: requiredCredential(credentials, 'accessToken', PLATFORM, DISPLAY_NAME),
    developerToken: credentials.developerToken || undefined,
  };
}

/** The calls of `account` (one from listAccounts, or the one a connection made before accounts could be chosen names). */
export function accessFor(ctx: ConnectorContext, account: PlatformAccount): GoogleAdsAccess {
  const loginCustomerId = account.access?.loginCustomerId;
  return { ...loginOf(ctx), customerId: normalizeCustomerId(account.accountId), ...(loginCustomerId ? { loginCustomerId: normalizeCustomerId(loginCustomerId) } : {}) };
}

/** Customer ids are written 123-456-7890 in the UI and sent as ten digits. */
export function normalizeCustomerId(id: string): string {
  return id.replace(/-/g, '').trim();
}

function headersOf(access: Pick<GoogleAdsAccess, 'accessToken' | 'loginCustomerId' | 'developerToken'>): Record<string, string> {
  const headers: Record<string, string> = { authorization: `Bearer ${access.accessToken}` };
  if (access.loginCustomerId) headers['login-customer-id'] = access.loginCustomerId;
  // Developer tokens were sunset on 2026-09-09 (the header is ignored now); sent only when configured.
  if (access.developerToken) headers['developer-token'] = access.developerToken;
  return headers;
}

export function googleAdsHttp(http: PlatformHttp): PlatformHttp {
  return http.with({ classify: (response) => googleAdsVerdict(response) ?? defaultVerdict(response) });
}

/** Runs a GAQL query through searchStream; all rows of all batches. */
export async function searchStream(http: PlatformHttp, access: GoogleAdsAccess, query: string): Promise<GoogleAdsRow[]> {
  const url = `${access.apiRoot}/${access.version}/customers/${access.customerId}/googleAds:searchStream`;
  const { data } = await googleAdsHttp(http).json(url, searchStreamSchema, { method: 'POST', headers: headersOf(access), json: { query } });
  return data.flatMap((batch) => batch.results ?? []);
}

/**
 * The customers the login can call without a login-customer-id (managers among them): not their
 * clients. https://developers.google.com/google-ads/api/reference/rpc/v23/CustomerService
 */
export async function listAccessibleCustomers(http: PlatformHttp, login: GoogleAdsLogin): Promise<string[]> {
  const url = `${login.apiRoot}/${login.version}/customers:listAccessibleCustomers`;
  const { data } = await googleAdsHttp(http).json(url, listAccessibleCustomersSchema, { headers: headersOf(login) });
  return (data.resourceNames ?? []).map((name) => name.replace(/^customers\//, ''));
}

export function dailyCampaignQuery(days: DayRange): string {
  return (
    'SELECT customer.currency_code, campaign.id, campaign.name, segments.date, metrics.impressions, metrics.clicks, ' +
    'metrics.cost_micros, metrics.conversions, metrics.conversions_value ' +
    `FROM campaign WHERE segments.date BETWEEN '${days.from}' AND '${days.to}'`
  );
}

/**
 * Daily shopping performance per product (Shopping and Performance Max campaigns), summed over campaigns
 * and ad groups: neither is selected, and customer is an attributed resource that does not segment.
 * https://developers.google.com/google-ads/api/fields/v23/shopping_performance_view
 */
export function dailyProductQuery(days: DayRange): string {
  return (
    'SELECT customer.currency_code, segments.date, segments.product_item_id, metrics.clicks, metrics.impressions, ' +
    'metrics.cost_micros, metrics.conversions, metrics.conversions_value ' +
    `FROM shopping_performance_view WHERE segments.date BETWEEN '${days.from}' AND '${days.to}'`
  );
}

/** The account's own daily cost (all campaigns, removed ones too): the source totals. */
export function dailyCustomerCostQuery(days: DayRange): string {
  return `SELECT customer.currency_code, segments.date, metrics.cost_micros FROM customer WHERE segments.date BETWEEN '${days.from}' AND '${days.to}'`;
}

/** The account itself: name, money, days, and whether it is a manager (which has no metrics). */
export const CUSTOMER_QUERY =
  'SELECT customer.id, customer.descriptive_name, customer.currency_code, customer.time_zone, customer.manager, customer.test_account, customer.status FROM customer LIMIT 1';

/**
 * Sent to a manager: every direct and indirect client, and the manager itself at level 0.
 * https://developers.google.com/google-ads/api/docs/account-management/get-account-hierarchy
 */
export const CUSTOMER_CLIENTS_QUERY =
  'SELECT customer_client.client_customer, customer_client.id, customer_client.descriptive_name, customer_client.currency_code, ' +
  'customer_client.time_zone, customer_client.level, customer_client.manager, customer_client.hidden, customer_client.test_account, customer_client.status FROM customer_client';

export async function exchangeAuthorizationCode(http: PlatformHttp, settings: OAuthSettings, code: string): Promise<ConnectorCredentials> {
  return requestTokens(
    http,
    tokenUrlFor(settings),
    { grant_type: 'authorization_code', code, client_id: settings.clientId, client_secret: settings.clientSecret, redirect_uri: settings.redirectUri },
    { displayName: DISPLAY_NAME },
  );
}

export async function refreshAccessToken(http: PlatformHttp, settings: OAuthSettings, refreshToken: string): Promise<ConnectorCredentials> {
  return requestTokens(
    http,
    tokenUrlFor(settings),
    { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: settings.clientId, client_secret: settings.clientSecret },
    { displayName: DISPLAY_NAME },
  );
}
