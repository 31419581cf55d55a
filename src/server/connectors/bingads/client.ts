import { z } from 'zod';
import { MalformedResponseError, type ConnectorContext, type ConnectorCredentials, type OAuthSettings } from '../connector.ts';
import { defaultVerdict, type PlatformHttp, type PlatformResponse, type Verdict } from '../http.ts';
import { requestTokens, requiredCredential } from '../ads-shared/oauth2.ts';
import type { DayRange } from '../ads-shared/reporting-days.ts';
import { reportRecords } from './csv-report.ts';
import { readZip } from './zip.ts';

// Microsoft Advertising (Bing Ads API v13): the Microsoft identity platform's OAuth, Customer
// Management (who the user is, the account's name and currency) and the Reporting service's REST
// flow: SubmitGenerateReport -> PollGenerateReport until Success -> download a ZIP holding one CSV.

export const PLATFORM = 'bingads';
export const DISPLAY_NAME = 'Microsoft Advertising';
/** The API version; a connection can override it with `credentials.apiVersion`. */
export const BING_API_VERSION = 'v13';
export const REPORTING_ROOT = 'https://reporting.api.bingads.microsoft.com';
export const CUSTOMER_MANAGEMENT_ROOT = 'https://clientcenter.api.bingads.microsoft.com';
/** The identity platform's origin (OAuthSettings.authorizeBaseUrl); it serves consent and tokens. */
export const MICROSOFT_LOGIN_ROOT = 'https://login.microsoftonline.com';
export const MICROSOFT_TENANT = 'common';
export const BING_ADS_SCOPES = ['https://ads.microsoft.com/msads.manage', 'offline_access'];
/** How many times PollGenerateReport is asked before the batch gives up (with growing waits). */
export const MAX_REPORT_POLLS = 30;

export const CAMPAIGN_REPORT_COLUMNS = ['TimePeriod', 'AccountId', 'CampaignId', 'CampaignName', 'CurrencyCode', 'Impressions', 'Clicks', 'Spend', 'Conversions', 'Revenue'] as const;
export const ACCOUNT_REPORT_COLUMNS = ['TimePeriod', 'AccountId', 'CurrencyCode', 'Spend'] as const;

export function identityEndpoint(settings: OAuthSettings, endpoint: 'authorize' | 'token'): string {
  return `${settings.authorizeBaseUrl.replace(/\/+$/, '')}/${MICROSOFT_TENANT}/oauth2/v2.0/${endpoint}`;
}

/**
 * Customer Management lives on its own host. A configured base URL other than the reporting host (a
 * proxy, a fake) is expected to serve both services, whose paths do not overlap.
 */
export function customerManagementRoot(baseUrl: string): string {
  const root = baseUrl.replace(/\/+$/, '');
  return root === REPORTING_ROOT ? CUSTOMER_MANAGEMENT_ROOT : root;
}

// ---------------------------------------------------------------------------------------------
// Errors: {"OperationErrors": [{"Code": 207, "ErrorCode": "ConcurrentRequestOverLimit", ...}], ...}

const apiErrorSchema = z.object({ Code: z.number().optional(), ErrorCode: z.string().nullish(), Message: z.string().nullish() });
const faultSchema = z.object({
  OperationErrors: z.array(apiErrorSchema).nullish(),
  BatchErrors: z.array(apiErrorSchema).nullish(),
  Errors: z.array(apiErrorSchema).nullish(),
  TrackingId: z.string().nullish(),
});

const AUTH_ERROR_CODES = new Set([105, 106, 109]);
const AUTH_ERROR_NAMES = new Set(['InvalidCredentials', 'UserIsNotAuthorized', 'AuthenticationTokenExpired']);
const CONCURRENT_REPORTS = 207;
const CALL_RATE_EXCEEDED = 117;

function faultErrors(response: PlatformResponse) {
  try {
    const parsed = faultSchema.safeParse(JSON.parse(response.text));
    if (!parsed.success) return [];
    return [...(parsed.data.OperationErrors ?? []), ...(parsed.data.BatchErrors ?? []), ...(parsed.data.Errors ?? [])];
  } catch {
    return [];
  }
}

export function bingVerdict(response: PlatformResponse): Verdict | undefined {
  const errors = faultErrors(response);
  if (errors.length === 0) return undefined;
  const describe = (error: (typeof errors)[number]) => `${error.Code ?? ''} ${error.ErrorCode ?? ''}: ${error.Message ?? ''}`.trim();
  const auth = errors.find((error) => AUTH_ERROR_CODES.has(error.Code ?? -1) || AUTH_ERROR_NAMES.has(error.ErrorCode ?? ''));
  if (auth) {
    const expired = auth.Code === 109 || auth.ErrorCode === 'AuthenticationTokenExpired';
    return {
      kind: 'auth',
      reason: expired
        ? `Microsoft Advertising says the access token has expired (${describe(auth)}).`
        : `Microsoft Advertising refused the credentials (${describe(auth)}). Reconnect Microsoft Advertising, or check that the user still has access to the account.`,
    };
  }
  const concurrent = errors.find((error) => error.Code === CONCURRENT_REPORTS || error.ErrorCode === 'ConcurrentRequestOverLimit');
  if (concurrent) return { kind: 'retry', reason: `too many reports in progress (${describe(concurrent)})` };
  const callRate = errors.find((error) => error.Code === CALL_RATE_EXCEEDED || error.ErrorCode === 'CallRateExceeded');
  if (callRate) return { kind: 'retry', reason: `call rate exceeded (${describe(callRate)})`, afterMs: 60_000 };
  if (response.status >= 500 || errors.some((error) => error.Code === 0)) return { kind: 'retry', reason: `Microsoft Advertising internal error (${describe(errors[0]!)})` };
  return { kind: 'fail', reason: errors.map(describe).join('; ') };
}

export function bingHttp(http: PlatformHttp): PlatformHttp {
  return http.with({ classify: (response) => bingVerdict(response) ?? defaultVerdict(response) });
}

// ---------------------------------------------------------------------------------------------

export interface BingAccess {
  reportingRoot: string;
  customerRoot: string;
  version: string;
  accessToken: string;
  developerToken: string;
  customerId: string;
  accountId: string;
}

export function accessOf(ctx: ConnectorContext): BingAccess {
  const credential = (key: string) => requiredCredential(ctx.credentials, key, PLATFORM, DISPLAY_NAME);
  return {
    reportingRoot: ctx.baseUrl.replace(/\/+$/, ''),
    customerRoot: customerManagementRoot(ctx.baseUrl),
    version: ctx.credentials.apiVersion || BING_API_VERSION,
    accessToken: credential('accessToken'),
    developerToken: credential('developerToken'),
    customerId: credential('customerId'),
    accountId: credential('accountId'),
  };
}

function headersOf(access: Pick<BingAccess, 'accessToken' | 'developerToken'> & Partial<Pick<BingAccess, 'customerId' | 'accountId'>>): Record<string, string> {
  return {
    authorization: `Bearer ${access.accessToken}`,
    developertoken: access.developerToken,
    ...(access.customerId ? { customerid: access.customerId } : {}),
    ...(access.accountId ? { customeraccountid: access.accountId } : {}),
  };
}

const longId = z.union([z.number().int(), z.string().regex(/^\d+$/)]).transform(String);

const userQuerySchema = z.object({
  User: z.object({ Id: longId.nullish(), UserName: z.string().nullish() }).nullish(),
  CustomerRoles: z.array(z.object({ CustomerId: longId, AccountIds: z.array(longId).nullish() })).nullish(),
});

const accountQuerySchema = z.object({
  Account: z.object({ Id: longId, Name: z.string().nullish(), CurrencyCode: z.string().nullish(), Number: z.string().nullish() }),
});

export async function queryUser(http: PlatformHttp, customerRoot: string, version: string, accessToken: string, developerToken: string) {
  const { data } = await bingHttp(http).json(`${customerRoot}/CustomerManagement/${version}/User/Query`, userQuerySchema, {
    method: 'POST',
    headers: headersOf({ accessToken, developerToken }),
    json: {},
  });
  return data;
}

export async function queryAccount(http: PlatformHttp, access: BingAccess) {
  const { data } = await bingHttp(http).json(`${access.customerRoot}/CustomerManagement/${access.version}/Account/Query`, accountQuerySchema, {
    method: 'POST',
    headers: headersOf(access),
    json: { AccountId: Number(access.accountId) },
  });
  return data.Account;
}

// ---------------------------------------------------------------------------------------------
// Reporting.

const submitSchema = z.object({ ReportRequestId: z.string().min(1) });
const pollSchema = z.object({
  ReportRequestStatus: z.object({ Status: z.enum(['Pending', 'Success', 'Error']), ReportDownloadUrl: z.string().nullish() }),
});

const dateOf = (day: string) => {
  const [year, month, date] = day.split('-').map(Number);
  return { Day: date, Month: month, Year: year };
};

export type ReportType = 'CampaignPerformanceReportRequest' | 'AccountPerformanceReportRequest';

export function reportRequest(type: ReportType, columns: readonly string[], accountId: string, days: DayRange) {
  return {
    ReportRequest: {
      Type: type,
      ExcludeColumnHeaders: false,
      ExcludeReportFooter: true,
      ExcludeReportHeader: true,
      Format: 'Csv',
      FormatVersion: '2.0',
      ReportName: `storepulse-${type === 'CampaignPerformanceReportRequest' ? 'daily-campaign' : 'daily-account'}`,
      ReturnOnlyCompleteData: false,
      Aggregation: 'Daily',
      Columns: columns,
      Scope: { AccountIds: [Number(accountId)] },
      Time: { CustomDateRangeStart: dateOf(days.from), CustomDateRangeEnd: dateOf(days.to), ReportTimeZone: 'GreenwichMeanTimeDublinEdinburghLisbonLondon' },
    },
  };
}

export async function submitReport(http: PlatformHttp, access: BingAccess, request: ReturnType<typeof reportRequest>): Promise<string> {
  const url = `${access.reportingRoot}/Reporting/${access.version}/GenerateReport/Submit`;
  const { data } = await bingHttp(http).json(url, submitSchema, { method: 'POST', headers: headersOf(access), json: request });
  return data.ReportRequestId;
}

/** Pending is "ask again later": the poll goes through PlatformHttp's retry waits (cancellable, reported). */
function pollVerdict(response: PlatformResponse): Verdict | undefined {
  if (response.status !== 200) return undefined;
  const parsed = pollSchema.safeParse((() => {
    try {
      return JSON.parse(response.text) as unknown;
    } catch {
      return null;
    }
  })());
  if (!parsed.success) return undefined;
  const { Status } = parsed.data.ReportRequestStatus;
  if (Status === 'Pending') return { kind: 'retry', reason: 'the report is still being generated' };
  if (Status === 'Error') return { kind: 'fail', reason: 'Microsoft Advertising could not generate the report (status Error)' };
  return { kind: 'ok' };
}

/** Polls until the report is ready; its download URL, or null when the report holds no data. */
export async function pollReport(http: PlatformHttp, access: BingAccess, reportRequestId: string): Promise<string | null> {
  const url = `${access.reportingRoot}/Reporting/${access.version}/GenerateReport/Poll`;
  const polling = http.with({ classify: (response) => pollVerdict(response) ?? bingVerdict(response) ?? defaultVerdict(response), maxAttempts: MAX_REPORT_POLLS, maxDelayMs: 30_000 });
  const { data } = await polling.json(url, pollSchema, { method: 'POST', headers: headersOf(access), json: { ReportRequestId: reportRequestId } });
  return data.ReportRequestStatus.ReportDownloadUrl ?? null;
}

/** The report CSV's rows. The download URL is pre-signed: no credentials are sent to it. */
export async function downloadReport(http: PlatformHttp, downloadUrl: string, requiredColumns: readonly string[]): Promise<Record<string, string>[]> {
  const response = await http.request(downloadUrl, { headers: { accept: 'application/zip, application/octet-stream' } });
  const entries = readZip(response.bytes, PLATFORM);
  const csv = entries.find((entry) => /\.(csv|tsv)$/i.test(entry.name)) ?? entries[0];
  if (!csv) throw new MalformedResponseError(PLATFORM, 'the report ZIP is empty');
  return reportRecords(csv.content.toString('utf8'), requiredColumns);
}

/** Submit, poll and download one report: its rows ([] when Microsoft says there is no data). */
export async function runReport(http: PlatformHttp, access: BingAccess, type: ReportType, columns: readonly string[], days: DayRange): Promise<Record<string, string>[]> {
  const reportRequestId = await submitReport(http, access, reportRequest(type, columns, access.accountId, days));
  const downloadUrl = await pollReport(http, access, reportRequestId);
  return downloadUrl ? downloadReport(http, downloadUrl, columns) : [];
}

export async function exchangeAuthorizationCode(http: PlatformHttp, settings: OAuthSettings, code: string): Promise<ConnectorCredentials> {
  return requestTokens(
    http,
    identityEndpoint(settings, 'token'),
    {
      grant_type: 'authorization_code',
      code,
      client_id: settings.clientId,
      client_secret: settings.clientSecret,
      redirect_uri: settings.redirectUri,
      scope: (settings.scopes ?? BING_ADS_SCOPES).join(' '),
    },
    { displayName: DISPLAY_NAME },
  );
}

export async function refreshAccessToken(http: PlatformHttp, settings: OAuthSettings, refreshToken: string): Promise<ConnectorCredentials> {
  return requestTokens(
    http,
    identityEndpoint(settings, 'token'),
    { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: settings.clientId, client_secret: settings.clientSecret, scope: (settings.scopes ?? BING_ADS_SCOPES).join(' ') },
    { displayName: DISPLAY_NAME },
  );
}
