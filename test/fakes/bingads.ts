import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32, deflateRawSync } from 'node:zlib';
import { dayInZone } from '../../src/shared/date-ranges.ts';
import { REPORT_TIME_ZONES } from '../../src/server/connectors/bingads/time-zones.ts';
import { AccountDataSets, AdPlatformFake, AdDataSet, bearerToken, FakeTokenAuthority, formOf, minorToDecimal } from './ads-common.ts';
import type { FakeRequest, FakeResponse } from './fake-server.ts';

// Microsoft Advertising fake: the identity platform's authorize/token endpoints, Customer Management
// (User/Query = GetUser, Accounts/Search = SearchAccounts, Account/Query = GetAccount) and the Reporting
// REST flow (GenerateReport/Submit, /Poll), with the report served as a real ZIP holding one CSV from a
// separate download host, as Microsoft does. Faults come as Microsoft's ApiFaultDetail bodies (207
// ConcurrentRequestOverLimit, 109 expired token...).
//
// The user is a Super Admin of one customer with several accounts, each with its own currency and
// TimeZone. Rules enforced, as documented:
// - GetUser's CustomerRoles carry no AccountIds for a Super Admin (all the customer's accounts); the
//   accounts come from SearchAccounts with a UserId predicate, at most 1,000 a page
//   (https://learn.microsoft.com/en-us/advertising/guides/account-hierarchy-permissions,
//   https://learn.microsoft.com/en-us/advertising/customer-management-service/searchaccounts,
//   https://learn.microsoft.com/en-us/advertising/customer-management-service/paging).
// - Reporting calls name the account (CustomerAccountId) and the customer that owns it (CustomerId).
// - A report's days are the account's own days; ReportTimeZone (default PacificTimeUSCanadaTijuana) only
//   decides what "today" is, and the custom range may not start or end after it: 2041
//   ReportingServiceInvalidFutureStartDate, 2010 ReportingServiceInvalidCustomDateRangeEnd
//   (https://learn.microsoft.com/en-us/advertising/reporting-service/reporttime,
//   https://learn.microsoft.com/en-us/advertising/guides/operation-error-codes).
// - Report ids are polled with the same user's credentials; access tokens expire after an hour (109
//   AuthenticationTokenExpired) on the fake's clock (auth.now), which tests move forward
//   (https://learn.microsoft.com/en-us/advertising/guides/authentication-oauth-get-tokens).

/** One advertiser account of the fake's customer. */
export interface FakeBingAccount {
  id: string;
  name: string;
  number?: string;
  currency: string;
  /** The account's TimeZone (a TimeZoneType value). */
  timeZone: string;
  seed?: number;
  campaigns?: number;
}

export interface BingAdsFakeOptions {
  seed?: number;
  campaigns?: number;
  customerId?: string;
  accountId?: string;
  accountName?: string;
  currency?: string;
  /** Every account of the customer (instead of the default two); the first is the one connectedCredentials names. */
  accounts?: FakeBingAccount[];
  developerToken?: string;
  /** How many polls answer Pending before a report is ready. */
  pollsBeforeReady?: number;
}

export interface ReportJob {
  accountId: string;
  reportTimeZone: string | null;
  type: string;
  columns: string[];
  from: string;
  to: string;
  excludeHeader: boolean;
  excludeFooter: boolean;
  excludeColumnHeaders: boolean;
  pollsLeft: number;
}

function fault(code: number, errorCode: string, message: string, type = 'ApiFaultDetail'): Record<string, unknown> {
  return { OperationErrors: [{ Code: code, Details: null, ErrorCode: errorCode, Message: message }], BatchErrors: [], TrackingId: 'fake-tracking-id', Type: type };
}

/** A ZIP archive with deflated entries (APPNOTE.TXT: local headers, central directory, end record). */
export function zipArchive(files: { name: string; content: Buffer }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const file of files) {
    const name = Buffer.from(file.name, 'utf8');
    const data = deflateRawSync(file.content);
    const crc = crc32(file.content);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(file.content.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(file.content.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const centralSize = centrals.reduce((sum, part) => sum + part.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, ...centrals, end]);
}

const quote = (value: string | number) => `"${String(value).replaceAll('"', '""')}"`;

/** No ReportTimeZone: the service's "today" is Pacific time's. */
const DEFAULT_REPORT_TIME_ZONE = 'PacificTimeUSCanadaTijuana';

export class BingAdsFake extends AdPlatformFake {
  /** The first account's campaigns (what the shared ad-fake helpers read). */
  readonly data: AdDataSet;
  readonly auth: FakeTokenAuthority;
  readonly customerId: string;
  /** The first account (the one connectedCredentials names). */
  readonly accountId: string;
  readonly accountName: string;
  readonly accounts: FakeBingAccount[];
  readonly userId = '7001';
  readonly developerToken: string;
  pollsBeforeReady: number;
  /** Where reports are downloaded from: another host, as Microsoft's download URLs are. */
  downloadUrl = '';
  readonly accountData = new AccountDataSets();
  private readonly jobs = new Map<string, ReportJob>();
  private downloads: Server | null = null;
  private nextJob = 30_000_001_234_567;

  constructor(options: BingAdsFakeOptions = {}) {
    super();
    this.accounts = options.accounts ?? [
      { id: options.accountId ?? '123456789', name: options.accountName ?? 'Fake Store – Microsoft', number: 'F123ABCD', currency: options.currency ?? 'USD', timeZone: 'GreenwichMeanTimeDublinEdinburghLisbonLondon' },
      { id: '987654321', name: 'Fake Store – Microsoft (EU)', number: 'F987WXYZ', currency: 'EUR', timeZone: 'AmsterdamBerlinBernRomeStockholmVienna' },
    ];
    this.accounts.forEach((account, index) => {
      const campaignIdBase = 555_000_111n + BigInt(index) * 100_000n;
      this.accountData.add(account.id, new AdDataSet({ seed: account.seed ?? options.seed, campaigns: account.campaigns ?? options.campaigns, currency: account.currency, campaignIdBase }));
    });
    this.data = this.accountData.of(this.accounts[0]!.id);
    this.auth = new FakeTokenAuthority({ clientId: '00000000-fake-4000-8000-000000000001', accessTokenSeconds: 3600 });
    this.customerId = options.customerId ?? '170000001';
    this.accountId = this.accounts[0]!.id;
    this.accountName = this.accounts[0]!.name;
    this.developerToken = options.developerToken ?? 'FAKEDEVTOKEN123';
    this.pollsBeforeReady = options.pollsBeforeReady ?? 1;

    this.route('GET', '/common/oauth2/v2.0/authorize', (request) => this.consent(request));
    this.route('POST', '/common/oauth2/v2.0/token', (request) => this.token(request));
    this.route('POST', '/CustomerManagement/:version/User/Query', (request) => this.guarded(request, false, () => this.userQuery()));
    this.route('POST', '/CustomerManagement/:version/Accounts/Search', (request) => this.guarded(request, false, () => this.searchAccounts(request)));
    this.route('POST', '/CustomerManagement/:version/Account/Query', (request) => this.guarded(request, false, () => this.accountQuery(request)));
    this.route('POST', '/Reporting/:version/GenerateReport/Submit', (request) => this.guarded(request, true, () => this.submit(request)));
    this.route('POST', '/Reporting/:version/GenerateReport/Poll', (request) => this.guarded(request, true, () => this.poll(request)));
  }

  /** The campaigns of every account the login can sync. */
  accountDataSets(): AdDataSet[] {
    return this.accountData.all();
  }

  /** One account's campaigns. */
  dataOf(accountId: string): AdDataSet {
    return this.accountData.of(accountId);
  }

  /** Changes a campaign's figures in whichever account runs it. */
  override updateMetric(campaignId: string, day: string, changes: Parameters<AdDataSet['update']>[2]): void {
    this.accountData.update(campaignId, day, changes);
  }

  /** The report requests submitted so far (their ReportRequest objects). */
  submittedReports(): Record<string, unknown>[] {
    return this.requests.filter((request) => request.path.endsWith('/GenerateReport/Submit') && !request.fault).map((request) => (JSON.parse(request.rawBody) as { ReportRequest: Record<string, unknown> }).ReportRequest);
  }

  override async start(port = 0): Promise<this> {
    await super.start(port);
    this.downloads = createServer((incoming, outgoing) => {
      const url = new URL(incoming.url ?? '/', 'http://download.local');
      const request: FakeRequest = { method: 'GET', path: url.pathname, query: url.searchParams, headers: incoming.headers, rawBody: '', body: undefined, params: {} };
      this.requests.push({ method: 'GET', path: url.pathname, query: url.search, headers: incoming.headers, rawBody: '' });
      const { status, contentType, body } = this.download(request);
      outgoing.writeHead(status, { 'content-type': contentType });
      outgoing.end(body);
    });
    await new Promise<void>((resolve) => this.downloads!.listen(0, '127.0.0.1', resolve));
    this.downloadUrl = `http://127.0.0.1:${(this.downloads.address() as AddressInfo).port}`;
    return this;
  }

  override async close(): Promise<void> {
    const downloads = this.downloads;
    this.downloads = null;
    if (downloads) {
      downloads.closeAllConnections();
      await new Promise<void>((resolve) => downloads.close(() => resolve()));
    }
    await super.close();
  }

  /** Tokens of a login that has chosen no account yet (what exchangeCode stores now). */
  loginCredentials(): Record<string, string> {
    const { token, expiresIn } = this.auth.issueAccessToken('EwB');
    return { accessToken: token, refreshToken: this.auth.issueRefreshToken(), expiresAt: new Date(this.auth.now() + (expiresIn ?? 3600) * 1000).toISOString(), developerToken: this.developerToken };
  }

  /** Credentials as a connection made before accounts could be chosen stores them: tokens and one account. */
  connectedCredentials(): Record<string, string> {
    return { ...this.loginCredentials(), customerId: this.customerId, accountId: this.accountId };
  }

  private consent(request: FakeRequest): FakeResponse {
    return this.consentAnswer(request, {
      invalidAppHtml: '<h1>AADSTS700016: Application not found</h1>',
      platformName: 'Microsoft',
      scopes: (query) => (query.get('scope') ?? '').split(' ').filter(Boolean),
      allow: (code, state) => ({ code, state }),
      deny: (state) => ({ error: 'access_denied', error_description: 'AADSTS65004: User declined to consent.', state }),
    });
  }

  private token(request: FakeRequest): FakeResponse {
    const form = formOf(request.rawBody);
    if (form.get('client_id') !== this.auth.clientId || form.get('client_secret') !== this.auth.clientSecret) {
      return { status: 401, body: { error: 'invalid_client', error_description: 'AADSTS7000215: Invalid client secret provided.', error_codes: [7000215] } };
    }
    const grant = form.get('grant_type');
    if (grant === 'authorization_code') {
      const refused = this.auth.redeemCode(form.get('code') ?? '', this.auth.clientId, form.get('redirect_uri') ?? '');
      if (refused) return { status: 400, body: { error: 'invalid_grant', error_description: `AADSTS70008: ${refused}.`, error_codes: [70008] } };
    } else if (grant === 'refresh_token') {
      if (this.auth.refreshTokenState(form.get('refresh_token') ?? undefined) !== 'valid') {
        return { status: 400, body: { error: 'invalid_grant', error_description: 'AADSTS70000: The refresh token was revoked.', error_codes: [70000] } };
      }
    } else {
      return { status: 400, body: { error: 'unsupported_grant_type', error_description: `AADSTS70003: ${grant}` } };
    }
    const { token, expiresIn } = this.auth.issueAccessToken('EwB');
    return { body: { token_type: 'Bearer', scope: 'https://ads.microsoft.com/msads.manage', expires_in: expiresIn, ext_expires_in: expiresIn, access_token: token, refresh_token: this.auth.issueRefreshToken() } };
  }

  private guarded(request: FakeRequest, needsAccount: boolean, answer: () => FakeResponse): FakeResponse {
    switch (this.takeFault(request)) {
      case 'rate_limit':
        return { status: 400, body: fault(207, 'ConcurrentRequestOverLimit', 'You have exceeded the maximum number of concurrent report requests.') };
      case 'server_error':
        return { status: 500, body: fault(0, 'InternalError', 'An internal error has occurred.') };
      case 'malformed':
        return { status: 200, body: request.path.endsWith('/Poll') ? { ReportRequestStatus: { Status: 'Done?' } } : { ReportRequestId: 42 } };
      case 'expired_token':
        this.auth.expireAccessTokens();
        break;
      case 'revoked':
        this.auth.revokeAll();
        break;
      default:
        break;
    }
    const state = this.auth.accessTokenState(bearerToken(request.headers.authorization));
    if (state === 'expired') return { status: 401, body: fault(109, 'AuthenticationTokenExpired', 'The OAuth access token has expired.', 'AdApiFaultDetail') };
    if (state !== 'valid') return { status: 401, body: fault(105, 'InvalidCredentials', 'Authentication failed. Either supplied credentials are invalid or the account is inactive.', 'AdApiFaultDetail') };
    if (request.headers.developertoken !== this.developerToken) return { status: 401, body: fault(105, 'InvalidCredentials', 'The developer token is not valid.', 'AdApiFaultDetail') };
    if (needsAccount) {
      const account = this.accounts.find((candidate) => candidate.id === request.headers.customeraccountid);
      // The account must be one the user reaches, named with the customer that owns it.
      if (!account || request.headers.customerid !== this.customerId) {
        return { status: 400, body: fault(106, 'UserIsNotAuthorized', 'The user does not represent a authorized developer.', 'AdApiFaultDetail') };
      }
    }
    return answer();
  }

  private userQuery(): FakeResponse {
    // A Super Admin: AccountIds is empty, every account of the customer is reachable.
    return {
      body: {
        User: { Id: this.userId, UserName: 'owner@example.com', CustomerId: this.customerId },
        CustomerRoles: [{ RoleId: 41, CustomerId: this.customerId, AccountIds: [], LinkedAccountIds: null, CustomerLinkPermission: null }],
      },
    };
  }

  private advertiserAccount(account: FakeBingAccount): Record<string, unknown> {
    return {
      Id: account.id,
      Name: account.name,
      Number: account.number ?? `F${account.id.slice(0, 7)}`,
      CurrencyCode: account.currency,
      TimeZone: account.timeZone,
      ParentCustomerId: this.customerId,
      AccountLifeCycleStatus: 'Active',
    };
  }

  private searchAccounts(request: FakeRequest): FakeResponse {
    const body = (request.body ?? {}) as { Predicates?: { Field?: string; Operator?: string; Value?: string }[]; PageInfo?: { Index?: number; Size?: number } };
    const predicates = body.Predicates ?? [];
    if (predicates.length === 0) return { status: 400, body: fault(474, 'Not applicable', 'Required search predicate is missing.') };
    const [predicate] = predicates;
    if (predicates.length !== 1 || predicate?.Field !== 'UserId' || predicate.Operator !== 'Equals') {
      return { status: 400, body: fault(3030, 'Not applicable', 'The Predicate passed in the search is invalid. This fake answers UserId Equals only.') };
    }
    const page = body.PageInfo;
    if (!page || !Number.isInteger(page.Index) || page.Index! < 0 || !Number.isInteger(page.Size) || page.Size! < 1 || page.Size! > 1000) {
      return { status: 400, body: fault(3080, 'Not applicable', 'Page Info must be present, with an index of 0 or more and a size from 1 to 1,000.') };
    }
    const accounts = predicate.Value === this.userId ? this.accounts : [];
    return { body: { Accounts: accounts.slice(page.Index! * page.Size!, (page.Index! + 1) * page.Size!).map((account) => this.advertiserAccount(account)) } };
  }

  private accountQuery(request: FakeRequest): FakeResponse {
    const wanted = String((request.body as { AccountId?: unknown } | undefined)?.AccountId ?? '');
    const account = this.accounts.find((candidate) => candidate.id === wanted);
    if (!account) return { status: 400, body: fault(1102, 'InvalidAccountId', 'The account ID is not valid.') };
    return { body: { Account: this.advertiserAccount(account) } };
  }

  /** "Today" in a ReportTimeZone (the service's default when none is sent). */
  todayIn(reportTimeZone: string | null): string {
    return dayInZone(new Date(this.auth.now()), REPORT_TIME_ZONES[reportTimeZone ?? DEFAULT_REPORT_TIME_ZONE]!);
  }

  private submit(request: FakeRequest): FakeResponse {
    const report = (request.body as { ReportRequest?: Record<string, unknown> } | undefined)?.ReportRequest;
    if (!report) return { status: 400, body: fault(100, 'NullRequest', 'The request message is null.') };
    type ReportDate = { Day: number; Month: number; Year: number };
    const time = report.Time as { CustomDateRangeStart?: ReportDate; CustomDateRangeEnd?: ReportDate; ReportTimeZone?: string } | undefined;
    const accountIds = ((report.Scope as { AccountIds?: (number | string)[] } | undefined)?.AccountIds ?? []).map(String);
    const accountId = String(request.headers.customeraccountid);
    const dayText = (date: ReportDate) => `${date.Year}-${String(date.Month).padStart(2, '0')}-${String(date.Day).padStart(2, '0')}`;
    if (!time?.CustomDateRangeStart || !time.CustomDateRangeEnd || report.Aggregation !== 'Daily' || accountIds.length !== 1 || accountIds[0] !== accountId) {
      return { status: 400, body: fault(2001, 'InvalidReportRequest', 'This fake serves daily reports for a custom range of the account named in CustomerAccountId.') };
    }
    if (report.Type !== 'CampaignPerformanceReportRequest' && report.Type !== 'AccountPerformanceReportRequest') {
      return { status: 400, body: fault(2002, 'InvalidReportType', `Unsupported report type ${String(report.Type)}`) };
    }
    const reportTimeZone = time.ReportTimeZone ?? null;
    // A value outside the ReportTimeZone enum cannot be read: the request arrives empty.
    if (reportTimeZone !== null && !REPORT_TIME_ZONES[reportTimeZone]) return { status: 400, body: fault(100, 'NullRequest', 'The request message is null.') };
    const from = dayText(time.CustomDateRangeStart);
    const to = dayText(time.CustomDateRangeEnd);
    const today = this.todayIn(reportTimeZone);
    if (from > today) return { status: 400, body: fault(2041, 'ReportingServiceInvalidFutureStartDate', 'The specified report time start date is in the future.') };
    if (to > today) return { status: 400, body: fault(2010, 'ReportingServiceInvalidCustomDateRangeEnd', 'The report time contains a custom date range end value that is not valid.') };
    if (to < from) return { status: 400, body: fault(2011, 'ReportingServiceEndDateBeforeStartDate', 'The report time contains a custom date range that is not valid; the end date cannot be earlier than the start date.') };
    const id = String(this.nextJob++);
    this.jobs.set(id, {
      accountId,
      reportTimeZone,
      type: String(report.Type),
      columns: (report.Columns as string[] | undefined) ?? [],
      from,
      to,
      excludeHeader: report.ExcludeReportHeader === true,
      excludeFooter: report.ExcludeReportFooter === true,
      excludeColumnHeaders: report.ExcludeColumnHeaders === true,
      pollsLeft: this.pollsBeforeReady,
    });
    return { body: { ReportRequestId: id } };
  }

  private poll(request: FakeRequest): FakeResponse {
    const id = String((request.body as { ReportRequestId?: unknown } | undefined)?.ReportRequestId ?? '');
    const job = this.jobs.get(id);
    if (!job) return { status: 400, body: fault(2100, 'ReportingServiceInvalidReportId', 'The report identifier is not valid.') };
    if (job.pollsLeft > 0) {
      job.pollsLeft--;
      return { body: { ReportRequestStatus: { ReportDownloadUrl: null, Status: 'Pending' } } };
    }
    const empty = this.dataOf(job.accountId).rows(job.from, job.to).length === 0;
    return { body: { ReportRequestStatus: { ReportDownloadUrl: empty ? null : `${this.downloadUrl}/ReportDownload/Download.aspx?q=${id}`, Status: 'Success' } } };
  }

  /** The CSV of a report job: the account's own days, in its currency, with the optional header block and footer. */
  reportCsv(job: ReportJob): string {
    const data = this.dataOf(job.accountId);
    const lines: string[] = [];
    if (!job.excludeHeader) {
      lines.push(quote(`Report Name: ${job.type}`), quote(`Report Time: ${job.from},${job.to}`), quote(`Time Zone: ${job.reportTimeZone ?? DEFAULT_REPORT_TIME_ZONE}`), quote(`Rows: ${0}`), '');
    }
    if (!job.excludeColumnHeaders) lines.push(job.columns.map(quote).join(','));
    const currency = data.currency;
    if (job.type === 'CampaignPerformanceReportRequest') {
      for (const row of data.rows(job.from, job.to)) {
        const values: Record<string, string | number> = {
          TimePeriod: row.day,
          AccountId: job.accountId,
          CampaignId: row.campaignId,
          CampaignName: row.campaignName,
          CurrencyCode: currency,
          Impressions: row.impressions,
          Clicks: row.clicks,
          Spend: minorToDecimal(row.spendMinor, currency),
          Conversions: row.conversions,
          Revenue: minorToDecimal(row.conversionValueMinor, currency),
        };
        lines.push(job.columns.map((column) => quote(values[column] ?? '')).join(','));
      }
    } else {
      for (const [day, spendMinor] of Object.entries(data.expectedTotals(job.from, job.to).spendMinorByDay)) {
        const values: Record<string, string> = { TimePeriod: day, AccountId: job.accountId, CurrencyCode: currency, Spend: minorToDecimal(spendMinor, currency) };
        lines.push(job.columns.map((column) => quote(values[column] ?? '')).join(','));
      }
    }
    if (!job.excludeFooter) lines.push('', quote('©2026 Microsoft Corporation. All rights reserved. '));
    return `\uFEFF${lines.join('\r\n')}\r\n`;
  }

  private download(request: FakeRequest): { status: number; contentType: string; body: Buffer | string } {
    switch (this.takeFault(request)) {
      case 'server_error':
        return { status: 503, contentType: 'text/html', body: '<h1>Service Unavailable</h1>' };
      case 'malformed':
        return { status: 200, contentType: 'application/zip', body: Buffer.from('PK\u0003\u0004 not really a zip') };
      default:
        break;
    }
    const id = request.query.get('q') ?? '';
    const job = request.path === '/ReportDownload/Download.aspx' ? this.jobs.get(id) : undefined;
    if (!job) return { status: 404, contentType: 'text/plain', body: 'The report has expired or does not exist.' };
    return { status: 200, contentType: 'application/zip', body: zipArchive([{ name: `${id}.csv`, content: Buffer.from(this.reportCsv(job), 'utf8') }]) };
  }
}

export async function startBingAdsFake(options: BingAdsFakeOptions = {}): Promise<BingAdsFake> {
  return new BingAdsFake(options).start();
}
