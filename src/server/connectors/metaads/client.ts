import { z } from 'zod';
import type { ConnectorContext, OAuthSettings } from '../connector.ts';
import { defaultVerdict, type PlatformHttp, type PlatformResponse, type Verdict } from '../http.ts';
import { expiresAtFrom, requiredCredential } from '../ads-shared/oauth2.ts';
import type { DayRange } from '../ads-shared/reporting-days.ts';

// Meta Marketing API (Graph API): the Facebook Login dialog and token exchanges, the ad account node,
// and Ads Insights with cursor paging. Errors come in Graph's envelope {error: {code, error_subcode}};
// throttling is codes 4/17/32/613/80000-range, with usage headers saying when access comes back.

export const PLATFORM = 'metaads';
export const DISPLAY_NAME = 'Meta Ads';
/** The Graph API version; a connection can override it with `credentials.apiVersion`. */
export const META_API_VERSION = 'v25.0';
export const META_GRAPH_ROOT = 'https://graph.facebook.com';
/** The Login dialog's origin (OAuthSettings.authorizeBaseUrl). */
export const FACEBOOK_WEB_ROOT = 'https://www.facebook.com';
export const META_ADS_SCOPES = ['ads_read'];
export const INSIGHTS_PAGE_SIZE = 500;

const INSIGHTS_FIELDS = ['account_currency', 'campaign_id', 'campaign_name', 'impressions', 'clicks', 'spend', 'actions', 'action_values', 'date_start', 'date_stop'];

// ---------------------------------------------------------------------------------------------
// Wire shapes: every metric is a string.

const numeric = z.union([z.string(), z.number()]);
const actionListSchema = z.array(z.object({ action_type: z.string(), value: numeric }).loose()).optional();

export const insightsRowSchema = z.object({
  account_currency: z.string().optional(),
  campaign_id: z.string().optional(),
  campaign_name: z.string().optional(),
  impressions: numeric.optional(),
  clicks: numeric.optional(),
  spend: numeric.optional(),
  actions: actionListSchema,
  action_values: actionListSchema,
  date_start: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  date_stop: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).optional(),
});
export type InsightsRow = z.infer<typeof insightsRowSchema>;

const insightsPageSchema = z.object({
  data: z.array(insightsRowSchema),
  paging: z.object({ cursors: z.object({ before: z.string().optional(), after: z.string().optional() }).optional(), next: z.string().optional() }).optional(),
});
export type InsightsPage = z.infer<typeof insightsPageSchema>;

const adAccountSchema = z.object({
  id: z.string().optional(),
  account_id: z.string().optional(),
  name: z.string().optional(),
  currency: z.string().regex(/^[A-Z]{3}$/),
  timezone_name: z.string().optional(),
});

const adAccountListSchema = z.object({ data: z.array(z.object({ id: z.string(), account_id: z.string().optional(), name: z.string().optional() })) });

const tokenSchema = z.object({ access_token: z.string().min(1), token_type: z.string().optional(), expires_in: z.union([z.number(), z.string()]).optional() });

const graphErrorSchema = z.object({
  error: z.object({
    message: z.string().optional(),
    type: z.string().optional(),
    code: z.number(),
    error_subcode: z.number().optional(),
    is_transient: z.boolean().optional(),
    error_user_msg: z.string().optional(),
  }),
});

// ---------------------------------------------------------------------------------------------
// Throttling and errors.

const THROTTLE_CODES = new Set([4, 17, 32, 613]);
/** Business Use Case rate limits (80000 ads insights, 80004 ads management, ...). */
const isBusinessUseCaseLimit = (code: number) => code >= 80000 && code <= 80014;

/**
 * Minutes until access is back, from X-Business-Use-Case-Usage
 * ({"<id>": [{"type": "ads_insights", "estimated_time_to_regain_access": 5, ...}]}); null when unsaid.
 */
export function regainAccessMs(headers: Headers): number | null {
  const header = headers.get('x-business-use-case-usage');
  if (!header) return null;
  try {
    const usage = JSON.parse(header) as Record<string, { estimated_time_to_regain_access?: number }[]>;
    const minutes = Object.values(usage)
      .flat()
      .map((entry) => entry.estimated_time_to_regain_access ?? 0);
    const longest = Math.max(0, ...minutes);
    return longest > 0 ? longest * 60_000 : null;
  } catch {
    return null;
  }
}

function authReason(code: number, subcode: number | undefined, message: string): string {
  if (code === 190) {
    if (subcode === 463 || subcode === 467) return `Meta says the access token has expired (${message}). Reconnect Meta Ads.`;
    if (subcode === 460) return `The Facebook user changed their password, which ended this connection. Reconnect Meta Ads.`;
    if (subcode === 458) return `The app was removed from the Facebook account. Reconnect Meta Ads.`;
    return `Meta refused the access token (${message}). Reconnect Meta Ads.`;
  }
  return `Meta denied access to the ad account (${message}): the user may have lost access or the ads_read permission.`;
}

export function metaVerdict(response: PlatformResponse): Verdict | undefined {
  if (response.status >= 200 && response.status < 300) return { kind: 'ok' };
  let parsed: ReturnType<typeof graphErrorSchema.safeParse>;
  try {
    parsed = graphErrorSchema.safeParse(JSON.parse(response.text));
  } catch {
    return undefined;
  }
  if (!parsed.success) return undefined;
  const { code, error_subcode: subcode, message = 'no message', is_transient: transient, error_user_msg: userMessage } = parsed.data.error;
  if (THROTTLE_CODES.has(code) || isBusinessUseCaseLimit(code)) {
    return { kind: 'retry', reason: `Meta rate limit (code ${code}${subcode ? `/${subcode}` : ''}): ${message}`, afterMs: regainAccessMs(response.headers) ?? undefined };
  }
  if (code === 190 || code === 102) return { kind: 'auth', reason: authReason(code, subcode, message) };
  if (code === 10 || (code >= 200 && code <= 299)) return { kind: 'auth', reason: authReason(code, subcode, message) };
  if (code === 1 || code === 2 || transient) return { kind: 'retry', reason: `Meta temporary error (code ${code}): ${message}` };
  return { kind: 'fail', reason: `Meta error ${code}${subcode ? `/${subcode}` : ''}: ${userMessage ?? message}` };
}

export function metaHttp(http: PlatformHttp): PlatformHttp {
  return http.with({ classify: (response) => metaVerdict(response) ?? defaultVerdict(response) });
}

// ---------------------------------------------------------------------------------------------

export interface MetaAccess {
  graphRoot: string;
  version: string;
  accessToken: string;
  /** The numeric id, without `act_`. */
  adAccountId: string;
}

export function accessOf(ctx: ConnectorContext): MetaAccess {
  return {
    graphRoot: ctx.baseUrl.replace(/\/+$/, ''),
    version: ctx.credentials.apiVersion || META_API_VERSION,
    accessToken: requiredCredential(ctx.credentials, 'accessToken', PLATFORM, DISPLAY_NAME),
    adAccountId: numericAccountId(requiredCredential(ctx.credentials, 'adAccountId', PLATFORM, DISPLAY_NAME)),
  };
}

export function numericAccountId(id: string): string {
  return id.trim().replace(/^act_/, '');
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export async function fetchAdAccount(http: PlatformHttp, access: MetaAccess) {
  const url = `${access.graphRoot}/${access.version}/act_${access.adAccountId}`;
  const { data } = await metaHttp(http).json(url, adAccountSchema, { headers: bearer(access.accessToken), query: { fields: 'account_id,name,currency,timezone_name' } });
  return data;
}

export interface InsightsRequest {
  level: 'campaign' | 'account';
  days: DayRange;
  fields?: string[];
  after?: string;
}

/** One page of daily insights (time_increment=1); `after` is the previous page's paging.cursors.after. */
export async function fetchInsightsPage(http: PlatformHttp, access: MetaAccess, request: InsightsRequest): Promise<InsightsPage> {
  const url = `${access.graphRoot}/${access.version}/act_${access.adAccountId}/insights`;
  const { data } = await metaHttp(http).json(url, insightsPageSchema, {
    headers: bearer(access.accessToken),
    query: {
      level: request.level,
      time_increment: 1,
      time_range: JSON.stringify({ since: request.days.from, until: request.days.to }),
      fields: (request.fields ?? INSIGHTS_FIELDS).join(','),
      limit: INSIGHTS_PAGE_SIZE,
      after: request.after,
    },
  });
  return data;
}

/** The cursor of the next page, or null on the last one (Graph omits paging.next there). */
export function nextAfter(page: InsightsPage): string | null {
  return page.paging?.next && page.paging.cursors?.after ? page.paging.cursors.after : null;
}

// ---------------------------------------------------------------------------------------------
// Facebook Login.

export function dialogUrl(settings: OAuthSettings, version: string): string {
  return `${settings.authorizeBaseUrl.replace(/\/+$/, '')}/${version}/dialog/oauth`;
}

async function accessTokenCall(http: PlatformHttp, graphRoot: string, version: string, query: Record<string, string>) {
  const { data } = await metaHttp(http).json(`${graphRoot}/${version}/oauth/access_token`, tokenSchema, { query });
  return { accessToken: data.access_token, expiresAt: expiresAtFrom(data.expires_in) };
}

/** Code -> short-lived user token -> long-lived (~60 days) token, as Facebook Login documents. */
export async function exchangeForLongLivedToken(http: PlatformHttp, graphRoot: string, version: string, settings: OAuthSettings, code: string) {
  const short = await accessTokenCall(http, graphRoot, version, { client_id: settings.clientId, client_secret: settings.clientSecret, redirect_uri: settings.redirectUri, code });
  return accessTokenCall(http, graphRoot, version, {
    grant_type: 'fb_exchange_token',
    client_id: settings.clientId,
    client_secret: settings.clientSecret,
    fb_exchange_token: short.accessToken,
  });
}

export async function listAdAccounts(http: PlatformHttp, graphRoot: string, version: string, accessToken: string) {
  const { data } = await metaHttp(http).json(`${graphRoot}/${version}/me/adaccounts`, adAccountListSchema, {
    headers: bearer(accessToken),
    query: { fields: 'account_id,name', limit: 100 },
  });
  return data.data.map((account) => ({ id: numericAccountId(account.account_id ?? account.id), name: account.name }));
}
