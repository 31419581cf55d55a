import { z } from 'zod';
import { ConnectorAuthError, ConnectorRequestError, type ConnectorContext, type OAuthSettings, type PlatformAccount } from '../connector.ts';
import { defaultVerdict, type PlatformHttp, type PlatformResponse, type Verdict } from '../http.ts';
import { requiredCredential } from '../ads-shared/oauth2.ts';
import { dayCount, type DayRange } from '../ads-shared/reporting-days.ts';
import { addDays } from '../../modules/commerce/days.ts';

// TikTok API for Business (Marketing API): advertiser authorization (auth_code -> long-lived token),
// advertiser info, and the synchronous integrated report with page/page_size. Every answer is the
// envelope {code, message, request_id, data}; errors usually come with HTTP 200 and a non-zero code.

export const PLATFORM = 'tiktokads';
export const DISPLAY_NAME = 'TikTok Ads';
/** The API version; a connection can override it with `credentials.apiVersion`. */
export const TIKTOK_API_VERSION = 'v1.3';
export const TIKTOK_API_ROOT = 'https://business-api.tiktok.com';
/** The advertiser authorization page's origin (OAuthSettings.authorizeBaseUrl). */
export const TIKTOK_PORTAL_ROOT = 'https://business-api.tiktok.com';
/** page_size: "Value range: 1-1000" (TikTok's own SDK, ReportingApi.reportIntegratedGet, from the Reporting Get doc). */
export const REPORT_PAGE_SIZE = 1000;
/**
 * Daily (stat_time_day) reports span at most this many days per request (the report time range doc,
 * https://business-api.tiktok.com/portal/docs?id=1714590313280513, as connectors that cite it apply it).
 */
export const MAX_REPORT_DAYS = 30;
/** advertiser/info takes at most 100 advertiser ids a call. */
export const ADVERTISER_INFO_BATCH = 100;
/**
 * Report rows come in no fixed order unless order_field names a metric ("Not sorting by default"), and
 * even sorted, rows with the same value (and rows whose value changes while the pages are read) can
 * move between pages. readWholeReport therefore reads ranges that fit in one page; only a single day
 * with more rows than a page is read page by page, in spend order, and read again (up to this many
 * times, keeping every row seen) until it holds as many rows as TikTok counts.
 */
export const MAX_DAY_READS = 3;

export const CAMPAIGN_METRICS = ['campaign_name', 'spend', 'impressions', 'clicks', 'conversion', 'complete_payment', 'total_complete_payment_rate'];

// ---------------------------------------------------------------------------------------------
// Errors.

const envelopeSchema = z.object({ code: z.number(), message: z.string().optional(), request_id: z.string().optional() });

const RATE_LIMITED = 40100;
/** Codes meaning the token or the app is refused (the later ones observed in client code). */
const AUTH_CODES = new Map<number, string>([
  [40001, 'TikTok says this connection has no permission for the advertiser account'],
  [40101, "TikTok refused this app's id or secret"],
  [40102, 'TikTok says the access token has expired'],
  [40104, 'TikTok received no access token'],
  [40105, 'TikTok says the access token is wrong or was revoked'],
  [40110, 'TikTok refused the authorization code (expired or already used)'],
]);

export function tiktokVerdict(response: PlatformResponse): Verdict | undefined {
  let envelope: z.infer<typeof envelopeSchema> | undefined;
  try {
    envelope = envelopeSchema.safeParse(JSON.parse(response.text)).data;
  } catch {
    return undefined;
  }
  if (!envelope || envelope.code === 0) return undefined;
  const message = envelope.message ?? 'no message';
  if (envelope.code === RATE_LIMITED) return { kind: 'retry', reason: `TikTok rate limit (40100): ${message}` };
  const auth = AUTH_CODES.get(envelope.code);
  if (auth) return { kind: 'auth', reason: `${auth} (${envelope.code}: ${message}). Reconnect TikTok Ads.` };
  if (envelope.code >= 50000) return { kind: 'retry', reason: `TikTok server error (${envelope.code}): ${message}` };
  return { kind: 'fail', reason: `TikTok error ${envelope.code}: ${message}` };
}

export function tiktokHttp(http: PlatformHttp): PlatformHttp {
  return http.with({ classify: (response) => tiktokVerdict(response) ?? defaultVerdict(response) });
}

// ---------------------------------------------------------------------------------------------
// Wire shapes: metric values are strings ("-" when unavailable).

const metricValue = z.union([z.string(), z.number()]).nullish();

export const reportRowSchema = z.object({
  dimensions: z.object({ campaign_id: z.string().optional(), advertiser_id: z.string().optional(), stat_time_day: z.string().regex(/^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2})?$/) }),
  metrics: z.object({
    campaign_name: z.string().nullish(),
    spend: metricValue,
    impressions: metricValue,
    clicks: metricValue,
    conversion: metricValue,
    complete_payment: metricValue,
    total_complete_payment_rate: metricValue,
  }),
});
export type ReportRow = z.infer<typeof reportRowSchema>;

const reportSchema = envelopeSchema.extend({
  data: z.object({
    list: z.array(reportRowSchema),
    page_info: z.object({ page: z.number(), page_size: z.number().optional(), total_number: z.number(), total_page: z.number() }),
  }),
});
export type ReportPage = z.infer<typeof reportSchema>['data'];

const advertiserInfoSchema = envelopeSchema.extend({
  data: z.object({
    list: z.array(z.object({ advertiser_id: z.union([z.string(), z.number()]).transform(String), name: z.string().optional(), currency: z.string().regex(/^[A-Z]{3}$/), timezone: z.string().optional() })),
  }),
});

const accessTokenSchema = envelopeSchema.extend({
  data: z.object({ access_token: z.string().min(1), advertiser_ids: z.array(z.union([z.string(), z.number()]).transform(String)).optional(), scope: z.array(z.unknown()).optional() }),
});

// ---------------------------------------------------------------------------------------------

/** What every call of a login needs. */
export interface TikTokLogin {
  apiBase: string;
  accessToken: string;
}

export interface TikTokAccess extends TikTokLogin {
  advertiserId: string;
}

export function apiBaseOf(baseUrl: string, version: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/open_api/${version}`;
}

export function loginOf(ctx: ConnectorContext): TikTokLogin {
  return {
    apiBase: apiBaseOf(ctx.baseUrl, ctx.credentials.apiVersion || TIKTOK_API_VERSION),
    accessToken: requiredCredential(ctx.credentials, 'accessToken', PLATFORM, DISPLAY_NAME),
  };
}

export function accessFor(ctx: ConnectorContext, account: PlatformAccount): TikTokAccess {
  return { ...loginOf(ctx), advertiserId: account.accountId };
}

export type AdvertiserInfo = z.infer<typeof advertiserInfoSchema>['data']['list'][number];

/** advertiser/info of up to ADVERTISER_INFO_BATCH advertisers: name, currency, time zone. */
export async function fetchAdvertiserInfo(http: PlatformHttp, login: TikTokLogin, advertiserIds: readonly string[]): Promise<AdvertiserInfo[]> {
  const { data } = await tiktokHttp(http).json(`${login.apiBase}/advertiser/info/`, advertiserInfoSchema, {
    headers: { 'access-token': login.accessToken },
    query: { advertiser_ids: JSON.stringify(advertiserIds), fields: JSON.stringify(['advertiser_id', 'name', 'currency', 'timezone']) },
  });
  return data.data.list;
}

/** One advertiser's info; refused when the token does not reach it. */
export async function advertiserInfoOf(http: PlatformHttp, access: TikTokAccess): Promise<AdvertiserInfo> {
  const advertiser = (await fetchAdvertiserInfo(http, access, [access.advertiserId])).find((entry) => entry.advertiser_id === access.advertiserId);
  if (!advertiser) throw new ConnectorAuthError(PLATFORM, `TikTok returned no advertiser ${access.advertiserId} for this token.`);
  return advertiser;
}

export interface ReportQuery {
  level: 'campaign' | 'advertiser';
  days: DayRange;
  page: number;
  pageSize?: number;
}

/**
 * One page of the synchronous report, in ascending spend order: order_field takes any metric that is
 * not an attribute (https://business-api.tiktok.com/portal/docs?id=1740302848100353, as TikTok's SDK
 * documents reportIntegratedGet).
 */
export async function fetchReportPage(http: PlatformHttp, access: TikTokAccess, query: ReportQuery): Promise<ReportPage> {
  const campaignLevel = query.level === 'campaign';
  const { data } = await tiktokHttp(http).json(`${access.apiBase}/report/integrated/get/`, reportSchema, {
    headers: { 'access-token': access.accessToken },
    query: {
      advertiser_id: access.advertiserId,
      report_type: 'BASIC',
      data_level: campaignLevel ? 'AUCTION_CAMPAIGN' : 'AUCTION_ADVERTISER',
      dimensions: JSON.stringify(campaignLevel ? ['campaign_id', 'stat_time_day'] : ['advertiser_id', 'stat_time_day']),
      metrics: JSON.stringify(campaignLevel ? CAMPAIGN_METRICS : ['spend']),
      order_field: 'spend',
      order_type: 'ASC',
      start_date: query.days.from,
      end_date: query.days.to,
      page: query.page,
      page_size: query.pageSize ?? REPORT_PAGE_SIZE,
    },
  });
  return data.data;
}

const rowKey = (row: ReportRow) => `${row.dimensions.stat_time_day}|${row.dimensions.campaign_id ?? row.dimensions.advertiser_id ?? ''}`;

/** Rows in (day, id) order whatever order the pages came in, each once (the latest reading winning): a replayed batch is the same batch. */
function inKeyOrder(rows: Map<string, ReportRow>): ReportRow[] {
  return [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}

const keyed = (list: readonly ReportRow[]) => new Map(list.map((row) => [rowKey(row), row]));

/**
 * Every row of one report, each once. A range whose rows fit in one page is read in one request (no
 * row can move between pages then); a longer range is halved until its parts do. A single day with
 * more rows than a page is read page by page in spend order, again while fewer distinct rows came than
 * page_info.total_number says there are.
 */
export async function readWholeReport(http: PlatformHttp, access: TikTokAccess, level: ReportQuery['level'], days: DayRange, pageSize = REPORT_PAGE_SIZE): Promise<ReportRow[]> {
  const first = await fetchReportPage(http, access, { level, days, page: 1, pageSize });
  if (first.page_info.total_page <= 1) return inKeyOrder(keyed(first.list));
  if (days.from < days.to) {
    const half = Math.floor(dayCount(days) / 2);
    const earlier = await readWholeReport(http, access, level, { from: days.from, to: addDays(days.from, half - 1) }, pageSize);
    return [...earlier, ...(await readWholeReport(http, access, level, { from: addDays(days.from, half), to: days.to }, pageSize))];
  }
  const rows = keyed(first.list);
  let total = first.page_info.total_number;
  for (let read = 1, from = 2; read <= MAX_DAY_READS; read++, from = 1) {
    for (let page = from, pages = first.page_info.total_page; page <= pages; page++) {
      const result = await fetchReportPage(http, access, { level, days, page, pageSize });
      for (const [key, row] of keyed(result.list)) rows.set(key, row);
      pages = result.page_info.total_page;
      total = result.page_info.total_number;
    }
    if (rows.size >= total) return inKeyOrder(rows);
  }
  throw new ConnectorRequestError(PLATFORM, 200, `report rows kept moving between pages: ${rows.size} of ${total} read for ${days.from} after ${MAX_DAY_READS} readings`);
}

export function authorizeEndpoint(settings: OAuthSettings): string {
  return `${settings.authorizeBaseUrl.replace(/\/+$/, '')}/portal/auth`;
}

/** auth_code -> a long-lived advertiser access token and the advertisers it may read. */
export async function exchangeAuthCode(http: PlatformHttp, apiBase: string, settings: OAuthSettings, authCode: string) {
  const { data } = await tiktokHttp(http).json(`${apiBase}/oauth2/access_token/`, accessTokenSchema, {
    method: 'POST',
    json: { app_id: settings.clientId, secret: settings.clientSecret, auth_code: authCode },
  });
  return { accessToken: data.data.access_token, advertiserIds: data.data.advertiser_ids ?? [] };
}
