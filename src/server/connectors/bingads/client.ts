import { z } from 'zod';
import { ConnectorAuthError, ConnectorRequestError, MalformedResponseError, type ConnectorContext, type ConnectorCredentials, type OAuthSettings, type PlatformAccount } from '../connector.ts';
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

/** What every call of a login needs, whichever account it reads. */
export interface BingLogin {
  reportingRoot: string;
  customerRoot: string;
  version: string;
  accessToken: string;
  developerToken: string;
}

/** One account's calls: its id (CustomerAccountId) and the customer that owns it (CustomerId header). */
export interface BingAccess extends BingLogin {
  customerId: string;
  accountId: string;
}

export function loginOf(ctx: ConnectorContext): BingLogin {
  const credential = (key: string) => requiredCredential(ctx.credentials, key, PLATFORM, DISPLAY_NAME);
  return {
    reportingRoot: ctx.baseUrl.replace(/\/+$/, ''),
    customerRoot: customerManagementRoot(ctx.baseUrl),
    version: ctx.credentials.apiVersion || BING_API_VERSION,
    accessToken: credential('accessToken'),
    developerToken: credential('developerToken'),
  };
}

export function accessFor(ctx: ConnectorContext, account: PlatformAccount): BingAccess {
  const customerId = account.access?.customerId;
  if (!customerId) throw new MalformedResponseError(PLATFORM, `account ${account.accountId} has no customer id to send`);
  return { ...loginOf(ctx), customerId, accountId: account.accountId };
}

function headersOf(access: Pick<BingLogin, 'accessToken' | 'developerToken'> & Partial<Pick<BingAccess, 'customerId' | 'accountId'>>): Record<string, string> {
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

// https://learn.microsoft.com/en-us/advertising/customer-management-service/advertiseraccount
const advertiserAccountSchema = z.object({
  Id: longId,
  Name: z.string().nullish(),
  Number: z.string().nullish(),
  CurrencyCode: z.string().nullish(),
  TimeZone: z.string().nullish(),
  ParentCustomerId: longId.nullish(),
  AccountLifeCycleStatus: z.string().nullish(),
});
export type AdvertiserAccount = z.infer<typeof advertiserAccountSchema>;

const accountQuerySchema = z.object({ Account: advertiserAccountSchema });
const searchAccountsSchema = z.object({ Accounts: z.array(advertiserAccountSchema).nullish() });

/** GetUser: the signed-in user (UserId null) and the customers it belongs to. */
export async function queryUser(http: PlatformHttp, login: BingLogin) {
  const { data } = await bingHttp(http).json(`${login.customerRoot}/CustomerManagement/${login.version}/User/Query`, userQuerySchema, {
    method: 'POST',
    headers: headersOf(login),
    json: { UserId: null },
  });
  return data;
}

/** GetAccount: one account with its currency and time zone. */
export async function queryAccount(http: PlatformHttp, login: BingLogin, accountId: string): Promise<AdvertiserAccount> {
  const { data } = await bingHttp(http).json(`${login.customerRoot}/CustomerManagement/${login.version}/Account/Query`, accountQuerySchema, {
    method: 'POST',
    headers: headersOf(login),
    json: { AccountId: Number(accountId) },
  });
  return data.Account;
}

/** SearchAccounts accepts at most 1,000 accounts a page (https://learn.microsoft.com/en-us/advertising/customer-management-service/paging). */
export const SEARCH_ACCOUNTS_PAGE_SIZE = 1000;

/**
 * SearchAccounts by UserId: every account the user can reach, across all its customers. GetUser's
 * CustomerRoles.AccountIds is not that list: it is empty for a Super Admin, who reaches every account
 * of the customer (https://learn.microsoft.com/en-us/advertising/guides/account-hierarchy-permissions).
 */
export async function searchAccounts(http: PlatformHttp, login: BingLogin, userId: string): Promise<AdvertiserAccount[]> {
  const url = `${login.customerRoot}/CustomerManagement/${login.version}/Accounts/Search`;
  const accounts: AdvertiserAccount[] = [];
  for (let index = 0; ; index++) {
    const { data } = await bingHttp(http).json(url, searchAccountsSchema, {
      method: 'POST',
      headers: headersOf(login),
      json: {
        Predicates: [{ Field: 'UserId', Operator: 'Equals', Value: userId }],
        Ordering: [{ Field: 'Id', Order: 'Ascending' }],
        PageInfo: { Index: index, Size: SEARCH_ACCOUNTS_PAGE_SIZE },
      },
    });
    const page = data.Accounts ?? [];
    accounts.push(...page);
    if (page.length < SEARCH_ACCOUNTS_PAGE_SIZE) return accounts;
  }
}

// ---------------------------------------------------------------------------------------------
// Reporting.

const submitSchema = z.object({ ReportRequestId: z.string().min(1) });
const pollSchema = z.object({
  ReportRequestStatus: z.object({ Status: z.enum(['Pending', 'Success', 'Error']), ReportDownloadUrl: z.string().nullish() }),
});

/** How a poll that found the report still Pending ends, once the polls are used up. */
const STILL_PENDING = 'the report is still being generated';

const dateOf = (day: string) => {
  const [year, month, date] = day.split('-').map(Number);
  return { Day: date, Month: month, Year: year };
};

export type ReportType = 'CampaignPerformanceReportRequest' | 'AccountPerformanceReportRequest';

/**
 * A daily report of one account over explicit dates. `reportTimeZone` (the account's own zone, as a
 * ReportTimeZone) only fixes what "today" is: the report's days are the account's own, and its end
 * date may not be later than today (https://learn.microsoft.com/en-us/advertising/reporting-service/reporttime).
 * Without one the service takes PacificTimeUSCanadaTijuana.
 */
export function reportRequest(type: ReportType, columns: readonly string[], accountId: string, days: DayRange, reportTimeZone?: string | null) {
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
      Time: { CustomDateRangeStart: dateOf(days.from), CustomDateRangeEnd: dateOf(days.to), ...(reportTimeZone ? { ReportTimeZone: reportTimeZone } : {}) },
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
  if (Status === 'Pending') return { kind: 'retry', reason: STILL_PENDING };
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

/** A report submitted and not downloaded yet: polling it again resumes it (its id is valid for a day). */
export interface PendingReport {
  reportRequestId: string;
  submittedAt: number;
}

/** Report ids are valid for a day (https://learn.microsoft.com/en-us/advertising/reporting-service/submitgeneratereport); resumed for at most half of it. */
const PENDING_REPORT_MS = 12 * 3_600_000;

/** Whether a failed poll left the report worth polling again: the token expired, or it was still being generated. */
function resumable(error: unknown): boolean {
  return error instanceof ConnectorAuthError || (error instanceof ConnectorRequestError && error.detail.includes(STILL_PENDING));
}

/**
 * Submit, poll and download one report: its rows ([] when Microsoft says there is no data). A report
 * whose polling failed resumably (an access token that expired mid-poll: polls can outlast the hour a
 * token lives) stays in `pending` under `key`, so the batch retried after the engine's refresh polls
 * the same report instead of submitting a new one; "if the overall polling period exceeds 60 minutes,
 * consider saving the report identifier ... and trying again later"
 * (https://learn.microsoft.com/en-us/advertising/guides/request-download-report).
 */
export async function runReport(
  http: PlatformHttp,
  access: BingAccess,
  request: ReturnType<typeof reportRequest>,
  pending: Map<string, PendingReport>,
  now: number = Date.now(),
): Promise<Record<string, string>[]> {
  const key = JSON.stringify([access.accountId, request.ReportRequest.Type, request.ReportRequest.Time]);
  const earlier = pending.get(key);
  const reportRequestId = earlier && now - earlier.submittedAt < PENDING_REPORT_MS ? earlier.reportRequestId : await submitReport(http, access, request);
  if (reportRequestId !== earlier?.reportRequestId) pending.set(key, { reportRequestId, submittedAt: now });
  let downloadUrl: string | null;
  try {
    downloadUrl = await pollReport(http, access, reportRequestId);
  } catch (error) {
    if (!resumable(error)) pending.delete(key);
    throw error;
  }
  pending.delete(key);
  return downloadUrl ? downloadReport(http, downloadUrl, request.ReportRequest.Columns) : [];
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
