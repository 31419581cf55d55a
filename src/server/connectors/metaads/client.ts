import { z } from 'zod';
import { ConnectorRequestError, MalformedResponseError, type ConnectorContext, type OAuthSettings } from '../connector.ts';
import { defaultVerdict, type PlatformHttp, type PlatformResponse, type Verdict } from '../http.ts';
import { expiresAtFrom, requiredCredential } from '../ads-shared/oauth2.ts';
import type { DayRange } from '../ads-shared/reporting-days.ts';

// Meta Marketing API (Graph API) wire format: the Facebook Login dialog and token exchanges, the
// user and ad account nodes, /me/adaccounts, and Ads Insights, read synchronously (GET
// act_{id}/insights) or through an asynchronous report run (POST act_{id}/insights, then the report
// run node, then its /insights pages). Errors come in Graph's envelope {error: {code, error_subcode}}.
// The rules behind each request are in docs/platform-notes.md, "Meta Ads".

export const PLATFORM = 'metaads';
export const DISPLAY_NAME = 'Meta Ads';
/** The Graph API version; a connection can override it with `credentials.apiVersion`. */
export const META_API_VERSION = 'v25.0';
export const META_GRAPH_ROOT = 'https://graph.facebook.com';
/** The Login dialog's origin (OAuthSettings.authorizeBaseUrl). */
export const FACEBOOK_WEB_ROOT = 'https://www.facebook.com';
/**
 * ads_read for Ads Insights; the rest for the comments manager (docs/platform-notes.md, "Meta Graph
 * API: Page and Instagram comments"): Pages and their tokens, reading and moderating Page comments,
 * webhooks on the Page, and the Page's Instagram account's comments (Facebook Login flavour).
 */
export const META_ADS_SCOPES = [
  'ads_read', 'pages_show_list', 'pages_read_engagement', 'pages_read_user_content', 'pages_manage_engagement', 'pages_manage_metadata', 'instagram_basic', 'instagram_manage_comments',
];
export const INSIGHTS_PAGE_SIZE = 500;
/** How many times a report run is asked for its status before the batch gives up (with growing waits). */
export const MAX_REPORT_POLLS = 30;

export const CAMPAIGN_INSIGHTS_FIELDS = ['account_currency', 'campaign_id', 'campaign_name', 'impressions', 'clicks', 'spend', 'actions', 'action_values', 'date_start', 'date_stop'];
export const ACCOUNT_INSIGHTS_FIELDS = ['account_currency', 'spend', 'date_start', 'date_stop'];

/**
 * Every value of a campaign's effective_status (Campaign reference; the Business SDK's
 * Campaign.EffectiveStatus, generated from the API spec). Insights at level=campaign leave out
 * DELETED and ARCHIVED campaigns unless a filter names them ("Manage your ad object's status").
 */
export const CAMPAIGN_EFFECTIVE_STATUSES = ['ACTIVE', 'PAUSED', 'DELETED', 'ARCHIVED', 'IN_PROCESS', 'WITH_ISSUES'] as const;

// ---------------------------------------------------------------------------------------------
// Wire shapes: every metric is a string.

const numeric = z.union([z.string(), z.number()]);
const actionListSchema = z.array(z.object({ action_type: z.string(), value: numeric }).loose()).optional();
const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

export const insightsRowSchema = z.object({
  account_currency: z.string().regex(/^[A-Z]{3}$/).optional(),
  campaign_id: z.string().optional(),
  campaign_name: z.string().optional(),
  impressions: numeric.optional(),
  clicks: numeric.optional(),
  spend: numeric.optional(),
  actions: actionListSchema,
  action_values: actionListSchema,
  date_start: day,
  date_stop: day.optional(),
});
export type InsightsRow = z.infer<typeof insightsRowSchema>;

const pagingSchema = z.object({ cursors: z.object({ before: z.string().optional(), after: z.string().optional() }).optional(), next: z.string().optional() }).optional();

const insightsPageSchema = z.object({ data: z.array(insightsRowSchema), paging: pagingSchema });
export type InsightsPage = z.infer<typeof insightsPageSchema>;

const adAccountSchema = z.object({
  id: z.string().optional(),
  account_id: z.string().optional(),
  name: z.string().optional(),
  currency: z.string().regex(/^[A-Z]{3}$/),
  timezone_name: z.string().optional(),
  account_status: z.number().optional(),
});
export type AdAccountNode = z.infer<typeof adAccountSchema>;

const adAccountListSchema = z.object({ data: z.array(adAccountSchema.extend({ id: z.string() })), paging: pagingSchema });

const userSchema = z.object({ id: z.string(), name: z.string().optional() });

const tokenSchema = z.object({ access_token: z.string().min(1), token_type: z.string().optional(), expires_in: z.union([z.number(), z.string().regex(/^\d+$/)]).optional() });

const debugTokenSchema = z.object({
  data: z.object({ is_valid: z.boolean().optional(), expires_at: z.number().optional(), data_access_expires_at: z.number().optional() }).loose(),
});

const reportRunCreatedSchema = z.object({ report_run_id: z.string().min(1) });

const reportRunSchema = z.object({
  id: z.string().optional(),
  async_status: z.string(),
  async_percent_completion: z.number().optional(),
  // Since v25.0 a failed run says why (Ads Insights error codes: -2 / 2490547 "Report Failed").
  error_code: z.number().optional(),
  error_subcode: z.number().optional(),
  error_message: z.string().optional(),
  error_user_msg: z.string().optional(),
});

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
type GraphError = z.infer<typeof graphErrorSchema>['error'];

// ---------------------------------------------------------------------------------------------
// Throttling and errors.

const THROTTLE_CODES = new Set([4, 17, 32, 613]);
/** Business Use Case rate limits (80000 ads insights, 80004 ads management, ...). */
const isBusinessUseCaseLimit = (code: number) => code >= 80000 && code <= 80014;
/** Ads Insights error codes that no retry can fix: no data for these breakdowns, invalid custom metrics. */
const PERMANENT_INSIGHTS_SUBCODES = new Set([1504041, 1504042]);

export function graphErrorOf(response: PlatformResponse): GraphError | null {
  if (response.status >= 200 && response.status < 300) return null;
  try {
    const parsed = graphErrorSchema.safeParse(JSON.parse(response.text));
    return parsed.success ? parsed.data.error : null;
  } catch {
    return null;
  }
}

/**
 * Meta's ways of saying "ask for less": code 1 ("Please reduce the amount of data you're asking for,
 * then retry your request"), the data-per-call limit (100 / 1487534) and the synchronous timeouts
 * whose documented remedy is a smaller date range (100 / 1504018, 2 / 1504038).
 */
export function isTooMuchData(error: Pick<GraphError, 'code' | 'error_subcode'> | null): boolean {
  if (!error) return false;
  const { code, error_subcode: subcode } = error;
  return code === 1 || (code === 100 && (subcode === 1487534 || subcode === 1504018)) || (code === 2 && subcode === 1504038);
}

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
  const error = graphErrorOf(response);
  if (!error) return undefined;
  const { code, error_subcode: subcode, message = 'no message', is_transient: transient, error_user_msg: userMessage } = error;
  if (THROTTLE_CODES.has(code) || isBusinessUseCaseLimit(code)) {
    return { kind: 'retry', reason: `Meta rate limit (code ${code}${subcode ? `/${subcode}` : ''}): ${message}`, afterMs: regainAccessMs(response.headers) ?? undefined };
  }
  if (code === 190 || code === 102) return { kind: 'auth', reason: authReason(code, subcode, message) };
  if (code === 10 || (code >= 200 && code <= 299)) return { kind: 'auth', reason: authReason(code, subcode, message) };
  if (subcode !== undefined && PERMANENT_INSIGHTS_SUBCODES.has(subcode)) return { kind: 'fail', reason: `Meta error ${code}/${subcode}: ${userMessage ?? message}` };
  if (code === 1 || code === 2 || transient) return { kind: 'retry', reason: `Meta temporary error (code ${code}${subcode ? `/${subcode}` : ''}): ${message}` };
  return { kind: 'fail', reason: `Meta error ${code}${subcode ? `/${subcode}` : ''}: ${userMessage ?? message}` };
}

export function metaHttp(http: PlatformHttp, classify?: (response: PlatformResponse) => Verdict | undefined): PlatformHttp {
  return http.with({ classify: (response) => classify?.(response) ?? metaVerdict(response) ?? defaultVerdict(response) });
}

function parsed<T>(schema: z.ZodType<T>, response: PlatformResponse, what: string): T {
  const result = schema.safeParse(response.json());
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new MalformedResponseError(PLATFORM, `${what}: ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'unexpected shape'}`);
  }
  return result.data;
}

// ---------------------------------------------------------------------------------------------

export interface MetaAccess {
  graphRoot: string;
  version: string;
  accessToken: string;
}

export function accessOf(ctx: ConnectorContext): MetaAccess {
  return {
    graphRoot: ctx.baseUrl.replace(/\/+$/, ''),
    version: ctx.credentials.apiVersion || META_API_VERSION,
    accessToken: requiredCredential(ctx.credentials, 'accessToken', PLATFORM, DISPLAY_NAME),
  };
}

/** An ad account id as we keep it: the numeric id, without `act_`. */
export function numericAccountId(id: string): string {
  const numeric = id.trim().replace(/^act_/, '');
  if (!/^\d+$/.test(numeric)) throw new ConnectorRequestError(PLATFORM, 400, `"${id}" is not a Meta ad account id (act_ followed by digits).`);
  return numeric;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const graphUrl = (access: MetaAccess, path: string) => `${access.graphRoot}/${access.version}/${path}`;

/** The login behind the token (GET /me): a cheap call that proves the token works. */
export async function fetchMe(http: PlatformHttp, access: MetaAccess) {
  const { data } = await metaHttp(http).json(graphUrl(access, 'me'), userSchema, { headers: bearer(access.accessToken), query: { fields: 'id,name' } });
  return data;
}

export async function fetchAdAccount(http: PlatformHttp, access: MetaAccess, accountId: string): Promise<AdAccountNode> {
  const { data } = await metaHttp(http).json(graphUrl(access, `act_${accountId}`), adAccountSchema, {
    headers: bearer(access.accessToken),
    query: { fields: 'account_id,name,currency,timezone_name,account_status' },
  });
  return data;
}

/** Every ad account the login reaches (GET /me/adaccounts), all pages. */
export async function fetchAdAccounts(http: PlatformHttp, access: MetaAccess): Promise<(AdAccountNode & { id: string })[]> {
  const accounts: (AdAccountNode & { id: string })[] = [];
  let after: string | null = null;
  do {
    const { data }: { data: z.infer<typeof adAccountListSchema> } = await metaHttp(http).json(graphUrl(access, 'me/adaccounts'), adAccountListSchema, {
      headers: bearer(access.accessToken),
      query: { fields: 'name,account_id,currency,timezone_name,account_status', limit: 100, after: after ?? undefined },
    });
    accounts.push(...data.data);
    after = nextAfter(data);
  } while (after);
  return accounts;
}

// ---------------------------------------------------------------------------------------------
// Insights.

export type InsightsLevel = 'campaign' | 'account';

/**
 * The parameters of a daily insights query, the same for a synchronous read and a report run:
 * one row per object and day (time_increment=1); at campaign level every effective status, so that
 * deleted and archived campaigns keep their history; conversions as each ad set's attribution setting
 * counts them (use_unified_attribution_setting, what Ads Manager shows; no action_attribution_windows).
 */
export function insightsParameters(level: InsightsLevel, range: DayRange): Record<string, string> {
  return {
    level,
    time_increment: '1',
    time_range: JSON.stringify({ since: range.from, until: range.to }),
    fields: (level === 'campaign' ? CAMPAIGN_INSIGHTS_FIELDS : ACCOUNT_INSIGHTS_FIELDS).join(','),
    ...(level === 'campaign' ? { filtering: JSON.stringify([{ field: 'campaign.effective_status', operator: 'IN', value: CAMPAIGN_EFFECTIVE_STATUSES }]) } : {}),
    use_unified_attribution_setting: 'true',
  };
}

/** The cursor of the next page, or null on the last one (Graph omits paging.next there). */
export function nextAfter(page: { paging?: { cursors?: { after?: string }; next?: string } }): string | null {
  return page.paging?.next && page.paging.cursors?.after ? page.paging.cursors.after : null;
}

export type SyncInsightsAnswer = { kind: 'page'; page: InsightsPage } | { kind: 'too_much_data'; reason: string };

/**
 * One page of a synchronous insights query (GET act_{id}/insights). "Ask for less" answers come back
 * as `too_much_data` for the caller to split the range, unless the range is a single day, which cannot
 * be split: those are retried like any temporary error.
 */
export async function fetchInsightsPage(http: PlatformHttp, access: MetaAccess, accountId: string, level: InsightsLevel, range: DayRange, after: string | null, pageSize = INSIGHTS_PAGE_SIZE): Promise<SyncInsightsAnswer> {
  const splittable = range.from < range.to;
  const client = metaHttp(http, (response) => (splittable && isTooMuchData(graphErrorOf(response)) ? { kind: 'ok' } : undefined));
  const response = await client.request(graphUrl(access, `act_${accountId}/insights`), {
    headers: bearer(access.accessToken),
    query: { ...insightsParameters(level, range), limit: pageSize, after: after ?? undefined },
  });
  const error = graphErrorOf(response);
  if (error) return { kind: 'too_much_data', reason: `code ${error.code}${error.error_subcode ? `/${error.error_subcode}` : ''}: ${error.message ?? ''}` };
  return { kind: 'page', page: parsed(insightsPageSchema, response, 'insights page') };
}

/** Starts an asynchronous report run (POST act_{id}/insights); its report_run_id. */
export async function startReportRun(http: PlatformHttp, access: MetaAccess, accountId: string, level: InsightsLevel, range: DayRange): Promise<string> {
  const { data } = await metaHttp(http).json(graphUrl(access, `act_${accountId}/insights`), reportRunCreatedSchema, {
    method: 'POST',
    headers: bearer(access.accessToken),
    body: new URLSearchParams(insightsParameters(level, range)),
  });
  return data.report_run_id;
}

/** Statuses of a report run still under way ("Job Running" can already say 100 %: only "Job Completed" is done). */
const RUNNING_STATUSES = new Set(['Job Not Started', 'Job Started', 'Job Running']);
const FAILED_STATUSES = new Set(['Job Failed', 'Job Skipped']);

export type ReportRunOutcome = { kind: 'completed' } | { kind: 'failed'; reason: string } | { kind: 'gone'; reason: string };

function reportRunOf(response: PlatformResponse) {
  if (response.status !== 200) return null;
  try {
    const result = reportRunSchema.safeParse(JSON.parse(response.text));
    return result.success ? result.data : null;
  } catch {
    return null;
  }
}

/**
 * Polls a report run until it is done. A run still under way is "ask again later": the poll goes
 * through PlatformHttp's retry waits (growing, cancellable, reported), at most `maxPolls` times. A run
 * Meta no longer knows (code 100) is `gone`: the caller starts a new one.
 */
export async function awaitReportRun(http: PlatformHttp, access: MetaAccess, reportRunId: string, maxPolls = MAX_REPORT_POLLS): Promise<ReportRunOutcome> {
  const polling = metaHttp(http, (response) => {
    const run = reportRunOf(response);
    if (run && RUNNING_STATUSES.has(run.async_status)) {
      return { kind: 'retry', reason: `Meta is still preparing the report (${run.async_status}, ${run.async_percent_completion ?? 0} %)` };
    }
    if (graphErrorOf(response)?.code === 100) return { kind: 'ok' };
    return undefined;
  }).with({ maxAttempts: maxPolls, maxDelayMs: 30_000 });
  const response = await polling.request(graphUrl(access, reportRunId), { headers: bearer(access.accessToken) });
  const error = graphErrorOf(response);
  if (error) return { kind: 'gone', reason: error.message ?? `code ${error.code}` };
  const run = parsed(reportRunSchema, response, 'report run');
  if (run.async_status === 'Job Completed') return { kind: 'completed' };
  if (FAILED_STATUSES.has(run.async_status)) {
    const detail = run.error_user_msg ?? run.error_message;
    return { kind: 'failed', reason: `${run.async_status}${run.error_code !== undefined ? ` (code ${run.error_code}${run.error_subcode ? `/${run.error_subcode}` : ''})` : ''}${detail ? `: ${detail}` : ''}` };
  }
  throw new MalformedResponseError(PLATFORM, `report run ${reportRunId} has an undocumented async_status "${run.async_status}"`);
}

/** One page of a completed report run's rows (GET /{report_run_id}/insights). */
export async function fetchReportRunPage(http: PlatformHttp, access: MetaAccess, reportRunId: string, after: string | null, pageSize = INSIGHTS_PAGE_SIZE): Promise<InsightsPage> {
  const { data } = await metaHttp(http).json(graphUrl(access, `${reportRunId}/insights`), insightsPageSchema, {
    headers: bearer(access.accessToken),
    query: { limit: pageSize, after: after ?? undefined },
  });
  return data;
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

/**
 * When a token expires, from GET /debug_token with the app's token ({app-id}|{app-secret}); null when
 * it never does (expires_at 0) or Meta does not say.
 */
export async function debugTokenExpiry(http: PlatformHttp, graphRoot: string, version: string, settings: OAuthSettings, token: string): Promise<string | null> {
  const { data } = await metaHttp(http).json(`${graphRoot}/${version}/debug_token`, debugTokenSchema, {
    query: { input_token: token, access_token: `${settings.clientId}|${settings.clientSecret}` },
  });
  const expiresAt = data.data.expires_at;
  return expiresAt ? new Date(expiresAt * 1000).toISOString() : null;
}

/**
 * Code -> short-lived user token -> long-lived (about 60 days) token, as Facebook Login documents; its
 * expiry from the exchange's expires_in, else from debug_token.
 */
export async function exchangeForLongLivedToken(http: PlatformHttp, graphRoot: string, version: string, settings: OAuthSettings, code: string): Promise<{ accessToken: string; expiresAt?: string }> {
  const short = await accessTokenCall(http, graphRoot, version, { client_id: settings.clientId, client_secret: settings.clientSecret, redirect_uri: settings.redirectUri, code });
  const long = await accessTokenCall(http, graphRoot, version, {
    grant_type: 'fb_exchange_token',
    client_id: settings.clientId,
    client_secret: settings.clientSecret,
    fb_exchange_token: short.accessToken,
  });
  const expiresAt = long.expiresAt ?? (await debugTokenExpiry(http, graphRoot, version, settings, long.accessToken));
  return { accessToken: long.accessToken, ...(expiresAt ? { expiresAt } : {}) };
}
