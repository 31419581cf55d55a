import { randomBytes } from 'node:crypto';
import { AdPlatformFake, AdDataSet, bearerToken, FakeTokenAuthority, minorToDecimal, type CampaignDay } from './ads-common.ts';
import type { FakeRequest, FakeResponse } from './fake-server.ts';

// Meta Marketing API fake (Graph API): the Facebook Login dialog, /oauth/access_token (code exchange
// and the long-lived fb_exchange_token exchange), /debug_token, /me, /me/adaccounts, the ad account
// node, and Ads Insights read synchronously (GET act_{id}/insights) or through asynchronous report
// runs (POST act_{id}/insights, GET /{report_run_id}, GET /{report_run_id}/insights), with Graph's
// error envelope, throttling codes, usage headers and `after` cursors. Each rule it enforces names its
// documentation; docs/platform-notes.md "Meta Ads" lists them with what the connector does.
//
// The login reaches two ad accounts in different currencies and time zones; the first has a deleted
// and an archived campaign (when it has at least three).

export type CampaignEffectiveStatus = 'ACTIVE' | 'PAUSED' | 'DELETED' | 'ARCHIVED' | 'IN_PROCESS' | 'WITH_ISSUES';

/**
 * The values of a campaign's effective_status, from the Campaign reference
 * (https://developers.facebook.com/docs/marketing-api/reference/ad-campaign-group/; the Business SDK's
 * Campaign.EffectiveStatus). A filter naming anything else is refused (our model: error 100).
 */
const CAMPAIGN_EFFECTIVE_STATUSES: readonly CampaignEffectiveStatus[] = ['ACTIVE', 'PAUSED', 'DELETED', 'ARCHIVED', 'IN_PROCESS', 'WITH_ISSUES'];

export interface MetaAdAccountOptions {
  adAccountId?: string;
  name?: string;
  currency?: string;
  timezone?: string;
  seed?: number;
  campaigns?: number;
  /** Campaign indexes whose effective_status is DELETED / ARCHIVED. */
  deleted?: number[];
  archived?: number[];
}

export interface MetaAdsFakeOptions {
  seed?: number;
  campaigns?: number;
  adAccountId?: string;
  accountName?: string;
  currency?: string;
  timezone?: string;
  /** The login's second ad account; false for a login with one. */
  otherAccount?: MetaAdAccountOptions | false;
  /**
   * Rows a synchronous insights query may produce before Graph answers code 1 ("Please reduce the
   * amount of data you're asking for"). Meta publishes no such number: this is our model of it.
   */
  syncRowLimit?: number;
  /** Status polls a report run takes before "Job Completed". */
  reportPolls?: number;
  /** The most ad accounts one /me/adaccounts page holds. */
  accountsPageSize?: number;
  /** The long-lived token exchange leaves out expires_in (the connector then asks /debug_token). */
  omitLongLivedExpiresIn?: boolean;
}

export interface FakeMetaAdAccount {
  id: string;
  name: string;
  currency: string;
  timezone: string;
  /** 1 = ACTIVE (AdAccount reference, account_status). */
  accountStatus: number;
  data: AdDataSet;
  statuses: Map<number, CampaignEffectiveStatus>;
}

interface ReportRun {
  id: string;
  accountId: string;
  parameters: URLSearchParams;
  polls: number;
  fails: boolean;
}

const SHORT_LIVED_SECONDS = 3600;
const LONG_LIVED_SECONDS = 60 * 86_400;
const USER = { id: '10150000000000001', name: 'Alex Example' };

function graphError(code: number, message: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { error: { message, type: 'OAuthException', code, fbtrace_id: 'FakeTrace123', ...extra } };
}

const encodeAfter = (offset: number) => Buffer.from(`offset:${offset}`).toString('base64url');
function decodeAfter(after: string | null): number | null {
  if (!after) return 0;
  const match = /^offset:(\d+)$/.exec(Buffer.from(after, 'base64url').toString('utf8'));
  return match ? Number(match[1]) : null;
}

/** Query and form-encoded body together: Graph reads a POST's parameters from either. */
function parametersOf(request: FakeRequest): URLSearchParams {
  const parameters = new URLSearchParams(request.query);
  if (request.method === 'POST' && request.rawBody && !request.rawBody.trimStart().startsWith('{')) {
    for (const [key, value] of new URLSearchParams(request.rawBody)) parameters.set(key, value);
  }
  return parameters;
}

export class MetaAdsFake extends AdPlatformFake {
  readonly accounts: FakeMetaAdAccount[];
  readonly auth: FakeTokenAuthority;
  /** Percent use the fake reports in X-FB-Ads-Insights-Throttle. */
  accountUtilisation = 12;
  syncRowLimit: number;
  reportPolls: number;
  private readonly accountsPageSize: number;
  private readonly omitLongLivedExpiresIn: boolean;
  private readonly tokenExpiries = new Map<string, number>();
  private readonly reportRuns = new Map<string, ReportRun>();
  private failNextRuns = 0;

  constructor(options: MetaAdsFakeOptions = {}) {
    super();
    const seed = options.seed ?? 1;
    const campaigns = options.campaigns ?? 5;
    const first = this.account({
      adAccountId: options.adAccountId ?? '1234567890',
      name: options.accountName ?? 'Fake Store – Meta',
      currency: options.currency ?? 'USD',
      timezone: options.timezone ?? 'America/Los_Angeles',
      seed,
      campaigns,
      deleted: campaigns >= 2 ? [1] : [],
      archived: campaigns >= 3 ? [2] : [],
    }, 23_850_000_000_000_000n);
    this.accounts = [first];
    if (options.otherAccount !== false) {
      const other = options.otherAccount ?? {};
      this.accounts.push(this.account({ adAccountId: '5550001111', name: 'Other brand', currency: 'EUR', timezone: 'Europe/Berlin', seed: seed + 7, campaigns: 3, ...other }, 23_860_000_000_000_000n));
    }
    this.auth = new FakeTokenAuthority({ clientId: '1234567890123456', accessTokenSeconds: LONG_LIVED_SECONDS });
    this.syncRowLimit = options.syncRowLimit ?? 2_500;
    this.reportPolls = options.reportPolls ?? 2;
    this.accountsPageSize = options.accountsPageSize ?? 25;
    this.omitLongLivedExpiresIn = options.omitLongLivedExpiresIn ?? false;

    this.route('GET', '/:version/dialog/oauth', (request) => this.dialog(request));
    this.route('GET', '/:version/oauth/access_token', (request) => this.accessToken(request));
    this.route('GET', '/:version/debug_token', (request) => this.debugToken(request));
    this.route('GET', '/:version/me/adaccounts', (request) => this.guarded(request, () => this.adAccounts(request)));
    this.route('POST', '/:version/:node/insights', (request) => this.guarded(request, () => this.startReportRun(request)));
    this.route('GET', '/:version/:node/insights', (request) => this.guarded(request, () => this.insightsEdge(request)));
    this.route('GET', '/:version/:node', (request) => this.guarded(request, () => this.node(request)));
  }

  private account(options: MetaAdAccountOptions, campaignIdBase: bigint): FakeMetaAdAccount {
    const statuses = new Map<number, CampaignEffectiveStatus>();
    for (const index of options.deleted ?? []) statuses.set(index, 'DELETED');
    for (const index of options.archived ?? []) statuses.set(index, 'ARCHIVED');
    return {
      id: options.adAccountId!,
      name: options.name!,
      currency: options.currency!,
      timezone: options.timezone!,
      accountStatus: 1,
      data: new AdDataSet({ seed: options.seed, campaigns: options.campaigns, currency: options.currency, campaignIdBase }),
      statuses,
    };
  }

  /** The first ad account's data (the account a connection made the old way names). */
  get data(): AdDataSet {
    return this.accounts[0]!.data;
  }

  get adAccountId(): string {
    return this.accounts[0]!.id;
  }

  accountById(accountId: string): FakeMetaAdAccount {
    const account = this.accounts.find((candidate) => candidate.id === accountId);
    if (!account) throw new Error(`no ad account ${accountId} in the fake`);
    return account;
  }

  campaignStatus(account: FakeMetaAdAccount, index: number): CampaignEffectiveStatus {
    return account.statuses.get(index) ?? 'ACTIVE';
  }

  /** Credentials of a connection made before accounts could be chosen: the token and the first account. */
  connectedCredentials(): Record<string, string> {
    const { token, expiresAt } = this.issueToken('EAAB', LONG_LIVED_SECONDS);
    return { accessToken: token, expiresAt, adAccountId: this.adAccountId };
  }

  /** What a sync of the first account must bring in: every campaign's rows, deleted and archived ones too. */
  override expectedTotals(from: string, to: string) {
    return this.data.expectedTotals(from, to);
  }

  /** Spend per campaign of an account over from..to (every status). */
  campaignSpend(accountId: string, from: string, to: string): Record<string, number> {
    const spend: Record<string, number> = {};
    for (const row of this.accountById(accountId).data.rows(from, to)) spend[row.campaignId] = (spend[row.campaignId] ?? 0) + row.spendMinor;
    return spend;
  }

  override updateMetric(campaignId: string, day: string, changes: Parameters<AdDataSet['update']>[2]): void {
    const account = this.accounts.find((candidate) => {
      const index = BigInt(campaignId) - BigInt(candidate.data.campaignId(0));
      return index >= 0n && index < BigInt(candidate.data.campaignCount);
    });
    if (!account) throw new Error(`no campaign ${campaignId} in the fake`);
    account.data.update(campaignId, day, changes);
  }

  /** The next `count` report runs end in "Job Failed". */
  failNextReportRuns(count = 1): void {
    this.failNextRuns += count;
  }

  /** Meta no longer knows the report runs made so far (their results are gone). */
  forgetReportRuns(): void {
    this.reportRuns.clear();
  }

  reportRunIds(): string[] {
    return [...this.reportRuns.keys()];
  }

  private issueToken(prefix: string, lifetime: number) {
    const { token } = this.auth.issueAccessToken(prefix, lifetime);
    const expiresAtMs = this.auth.now() + lifetime * 1000;
    this.tokenExpiries.set(token, expiresAtMs);
    return { token, expiresIn: lifetime, expiresAt: new Date(expiresAtMs).toISOString() };
  }

  private dialog(request: FakeRequest): FakeResponse {
    return this.consentAnswer(request, {
      invalidAppHtml: '<h1>Invalid App ID</h1>',
      platformName: 'Facebook',
      scopes: (query) => (query.get('scope') ?? '').split(',').filter(Boolean),
      allow: (code, state) => ({ code, state }),
      deny: (state) => ({ error: 'access_denied', error_reason: 'user_denied', state }),
    });
  }

  // Facebook Login, manual flow and long-lived tokens:
  // https://developers.facebook.com/docs/facebook-login/guides/advanced/manual-flow
  // https://developers.facebook.com/docs/facebook-login/guides/access-tokens/get-long-lived
  // (a long-lived token lasts about 60 days; an expired token cannot be exchanged).
  private accessToken(request: FakeRequest): FakeResponse {
    const query = request.query;
    if (query.get('client_id') !== this.auth.clientId || query.get('client_secret') !== this.auth.clientSecret) {
      return { status: 400, body: graphError(101, 'Error validating application. Invalid application ID.') };
    }
    if (query.get('grant_type') === 'fb_exchange_token') {
      if (this.auth.accessTokenState(query.get('fb_exchange_token') ?? undefined) !== 'valid') {
        return { status: 400, body: graphError(190, 'Error validating access token: Session has expired.', { error_subcode: 463 }) };
      }
      const { token, expiresIn } = this.issueToken('EAAB', LONG_LIVED_SECONDS);
      return { body: { access_token: token, token_type: 'bearer', ...(this.omitLongLivedExpiresIn ? {} : { expires_in: expiresIn }) } };
    }
    const refused = this.auth.redeemCode(query.get('code') ?? '', this.auth.clientId, query.get('redirect_uri') ?? '');
    if (refused) return { status: 400, body: graphError(100, `Error validating verification code: ${refused}.`, { error_subcode: 36007 }) };
    const { token, expiresIn } = this.issueToken('EAAS', SHORT_LIVED_SECONDS);
    return { body: { access_token: token, token_type: 'bearer', expires_in: expiresIn } };
  }

  // https://developers.facebook.com/docs/graph-api/reference/debug_token (GET /debug_token
  // with an app token {app-id}|{app-secret}; expires_at in Unix seconds, 0 for a token that never expires).
  private debugToken(request: FakeRequest): FakeResponse {
    if (request.query.get('access_token') !== `${this.auth.clientId}|${this.auth.clientSecret}`) {
      return { status: 400, body: graphError(190, 'Invalid OAuth access token - Cannot parse access token') };
    }
    const token = request.query.get('input_token') ?? '';
    const state = this.auth.accessTokenState(token);
    const expiresAtMs = this.tokenExpiries.get(token);
    return {
      body: {
        data: {
          app_id: this.auth.clientId,
          type: 'USER',
          application: this.appName,
          is_valid: state === 'valid',
          expires_at: expiresAtMs ? Math.floor(expiresAtMs / 1000) : 0,
          data_access_expires_at: Math.floor((this.auth.now() + 90 * 86_400_000) / 1000),
          scopes: ['ads_read'],
          user_id: USER.id,
        },
      },
    };
  }

  // Expired tokens answer code 190 subcode 463; a user who removed the app, 190/458.
  // https://developers.facebook.com/docs/graph-api/guides/error-handling
  private tokenFailure(request: FakeRequest): FakeResponse | null {
    const token = request.query.get('access_token') ?? bearerToken(request.headers.authorization);
    const state = this.auth.accessTokenState(token);
    if (state === 'valid') return null;
    if (state === 'expired') return { status: 400, body: graphError(190, 'Error validating access token: Session has expired on Friday, 16-Jan-26 10:00:00 PST.', { error_subcode: 463 }) };
    if (state === 'revoked') return { status: 400, body: graphError(190, 'Error validating access token: The user has not authorized application 1234567890123456.', { error_subcode: 458 }) };
    return { status: 400, body: graphError(190, 'Invalid OAuth access token - Cannot parse access token') };
  }

  // Throttling: code 17 with X-Business-Use-Case-Usage (estimated_time_to_regain_access in minutes).
  // https://developers.facebook.com/docs/marketing-api/overview/rate-limiting
  private guarded(request: FakeRequest, answer: () => FakeResponse): FakeResponse {
    const fault = this.takeFault(request);
    switch (fault) {
      case 'rate_limit':
        return {
          status: 400,
          headers: {
            'x-business-use-case-usage': JSON.stringify({ [this.adAccountId]: [{ type: 'ads_insights', call_count: 100, total_cputime: 40, total_time: 60, estimated_time_to_regain_access: 2 }] }),
          },
          body: graphError(17, '(#17) User request limit reached', { error_subcode: 2446079, is_transient: true }),
        };
      case 'server_error':
        return { status: 500, body: graphError(2, 'An unexpected error has occurred. Please retry your request later.', { is_transient: true }) };
      case 'malformed':
        return { status: 200, body: { data: [{ campaign_id: '1', spend: '1.00', date_start: 'Jan 15' }] } };
      case 'expired_token':
        this.auth.expireAccessTokens();
        break;
      case 'revoked':
        this.auth.revokeAll();
        break;
      default:
        break;
    }
    return this.tokenFailure(request) ?? answer();
  }

  private noSuchObject(id: string): FakeResponse {
    return { status: 400, body: graphError(100, `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`, { error_subcode: 33 }) };
  }

  private adAccountOf(node: string): FakeMetaAdAccount | null {
    return this.accounts.find((account) => node === `act_${account.id}`) ?? null;
  }

  private node(request: FakeRequest): FakeResponse {
    const node = request.params.node!;
    if (node === 'me') return { body: USER };
    const account = this.adAccountOf(node);
    if (account) return { body: this.adAccountJson(account) };
    const run = this.reportRuns.get(node);
    if (run) return { body: this.pollReportRun(run) };
    return this.noSuchObject(node);
  }

  private adAccountJson(account: FakeMetaAdAccount) {
    return { id: `act_${account.id}`, account_id: account.id, name: account.name, currency: account.currency, timezone_name: account.timezone, account_status: account.accountStatus };
  }

  // /me/adaccounts: cursor paging (limit, after, paging.next).
  // https://developers.facebook.com/docs/graph-api/reference/user/adaccounts/
  private adAccounts(request: FakeRequest): FakeResponse {
    const limit = Math.min(Number(request.query.get('limit') ?? 25), this.accountsPageSize);
    return this.paged(request, this.accounts.map((account) => this.adAccountJson(account)), limit);
  }

  private paged(request: FakeRequest, rows: unknown[], limit: number, headers: Record<string, string> = {}): FakeResponse {
    const offset = decodeAfter(request.query.get('after'));
    if (offset === null) return { status: 400, body: graphError(100, '(#100) The after cursor is not valid') };
    const page = rows.slice(offset, offset + limit);
    const hasNext = offset + limit < rows.length;
    const next = new URL(`${this.url}${request.path}`);
    for (const [key, value] of request.query) next.searchParams.set(key, value);
    next.searchParams.set('after', encodeAfter(offset + limit));
    return {
      headers,
      body: { data: page, paging: { cursors: { before: encodeAfter(offset), after: encodeAfter(offset + page.length) }, ...(hasNext ? { next: next.toString() } : {}) } },
    };
  }

  private usageHeaders(account: FakeMetaAdAccount): Record<string, string> {
    return {
      'x-fb-ads-insights-throttle': JSON.stringify({ app_id_util_pct: 3, acc_id_util_pct: this.accountUtilisation, ads_api_access_tier: 'standard_access' }),
      'x-business-use-case-usage': JSON.stringify({ [account.id]: [{ type: 'ads_insights', call_count: 1, total_cputime: 1, total_time: 1, estimated_time_to_regain_access: 0 }] }),
    };
  }

  /**
   * The rows an insights query asks for, or Graph's refusal of its parameters.
   * - https://developers.facebook.com/docs/marketing-api/insights/parameters (level, time_range,
   *   time_increment, filtering as [{field, operator, value}]).
   * - Deleted and archived campaigns are left out of level=campaign unless filtered by
   *   campaign.effective_status, while an account's own stats include every child:
   *   https://developers.facebook.com/docs/marketing-api/best-practices/manage-your-ad-object-status
   */
  private queryRows(account: FakeMetaAdAccount, parameters: URLSearchParams): { rows: Record<string, unknown>[] } | { refusal: FakeResponse } {
    let range: { since?: string; until?: string };
    try {
      range = JSON.parse(parameters.get('time_range') ?? '{}') as typeof range;
    } catch {
      range = {};
    }
    if (!range.since || !range.until || parameters.get('time_increment') !== '1') {
      return { refusal: { status: 400, body: graphError(100, '(#100) time_range and time_increment=1 are required by this fake') } };
    }
    const level = parameters.get('level') ?? 'account';
    if (level !== 'account' && level !== 'campaign') return { refusal: { status: 400, body: graphError(100, `(#100) level ${level} is not supported by this fake`) } };
    let statuses: Set<string> | null = null;
    if (parameters.has('filtering')) {
      let filters: { field?: string; operator?: string; value?: unknown }[];
      try {
        filters = JSON.parse(parameters.get('filtering')!) as typeof filters;
        if (!Array.isArray(filters)) throw new Error('not a list');
      } catch {
        return { refusal: { status: 400, body: graphError(100, '(#100) param filtering must be an array of filter objects') } };
      }
      for (const filter of filters) {
        if (filter.field !== 'campaign.effective_status' || filter.operator !== 'IN' || !Array.isArray(filter.value)) {
          return { refusal: { status: 400, body: graphError(100, `(#100) Filtering field ${String(filter.field)} with operation ${String(filter.operator)} is not supported by this fake`) } };
        }
        const unknown = filter.value.find((value) => !CAMPAIGN_EFFECTIVE_STATUSES.includes(value as CampaignEffectiveStatus));
        if (unknown !== undefined) {
          return { refusal: { status: 400, body: graphError(100, `(#100) Filtering field campaign.effective_status with operation in and value ${String(unknown)} is not supported`) } };
        }
        statuses = new Set(filter.value as string[]);
      }
    }
    const data = account.data;
    if (level === 'account') {
      return {
        rows: Object.entries(data.expectedTotals(range.since, range.until).spendMinorByDay).map(([day, spendMinor]) => ({
          account_id: account.id,
          account_currency: account.currency,
          spend: minorToDecimal(spendMinor, account.currency),
          date_start: day,
          date_stop: day,
        })),
      };
    }
    const visible = (row: CampaignDay) => {
      const status = this.campaignStatus(account, data.indexOf(row.campaignId));
      return statuses ? statuses.has(status) : status !== 'DELETED' && status !== 'ARCHIVED';
    };
    return { rows: data.rows(range.since, range.until).filter(visible).map((row) => this.campaignRow(account, row)) };
  }

  private insightsEdge(request: FakeRequest): FakeResponse {
    const node = request.params.node!;
    const run = this.reportRuns.get(node);
    if (run) return this.reportRunInsights(request, run);
    const account = this.adAccountOf(node);
    if (!account) return this.noSuchObject(node);
    const answer = this.queryRows(account, request.query);
    if ('refusal' in answer) return answer.refusal;
    // Our model of Meta's undocumented size limit for synchronous queries: past syncRowLimit rows Graph
    // answers code 1, "Please reduce the amount of data you're asking for, then retry your request"
    // (the remedy Meta documents for oversized or timed-out synchronous reads is a smaller date range
    // or an async job: https://developers.facebook.com/docs/marketing-api/insights/best-practices/ and
    // https://developers.facebook.com/documentation/ads-commerce/marketing-api/insights/error-codes).
    if (answer.rows.length > this.syncRowLimit) {
      return { status: 500, body: graphError(1, "Please reduce the amount of data you're asking for, then retry your request") };
    }
    const limit = Math.min(Number(request.query.get('limit') ?? 25), 5000);
    return this.paged(request, answer.rows, limit, this.usageHeaders(account));
  }

  // Asynchronous jobs: POST act_{id}/insights answers {report_run_id}; GET /{report_run_id} reports
  // async_status ("Job Not Started", "Job Running", ... "Job Completed" / "Job Failed") and
  // async_percent_completion, which can read 100 while the job still runs; GET /{id}/insights pages its
  // rows. https://developers.facebook.com/docs/marketing-api/insights/best-practices/#asynchronous
  private startReportRun(request: FakeRequest): FakeResponse {
    const account = this.adAccountOf(request.params.node!);
    if (!account) return this.noSuchObject(request.params.node!);
    const parameters = parametersOf(request);
    const answer = this.queryRows(account, parameters);
    if ('refusal' in answer) return answer.refusal;
    const id = String(6_000_000_000_000n + BigInt(`0x${randomBytes(5).toString('hex')}`));
    const fails = this.failNextRuns > 0;
    if (fails) this.failNextRuns--;
    this.reportRuns.set(id, { id, accountId: account.id, parameters, polls: 0, fails });
    return { body: { report_run_id: id } };
  }

  private runState(run: ReportRun): { status: string; percent: number } {
    if (run.polls <= this.reportPolls) {
      if (run.polls <= 1) return { status: 'Job Not Started', percent: 0 };
      // The last poll before the end says 100 % while the job still runs.
      return { status: 'Job Running', percent: Math.round((100 * (run.polls - 1)) / Math.max(1, this.reportPolls - 1)) };
    }
    return run.fails ? { status: 'Job Failed', percent: 0 } : { status: 'Job Completed', percent: 100 };
  }

  private pollReportRun(run: ReportRun): Record<string, unknown> {
    run.polls++;
    const { status, percent } = this.runState(run);
    const range = JSON.parse(run.parameters.get('time_range')!) as { since: string; until: string };
    return {
      id: run.id,
      account_id: run.accountId,
      async_status: status,
      async_percent_completion: percent,
      date_start: range.since,
      date_stop: range.until,
      is_running: status !== 'Job Completed' && status !== 'Job Failed',
      // Since v25.0 a failed run carries the error (Ads Insights error codes: -2 / 2490547 Report Failed):
      // https://developers.facebook.com/blog/post/2026/01/08/enhanced-error-messaging-for-ads-insights-async-api/
      ...(status === 'Job Failed' ? { error_code: -2, error_subcode: 2490547, error_message: 'Report Failed', error_user_msg: 'Generating the report failed. Try again later.' } : {}),
    };
  }

  private reportRunInsights(request: FakeRequest, run: ReportRun): FakeResponse {
    // Reading a run that has not completed fails (code 2601 / 1815107, "Loading Async Ads Report Failed").
    if (run.polls <= this.reportPolls || run.fails) {
      return {
        status: 400,
        body: graphError(2601, 'Error accessing adreport job.', {
          error_subcode: 1815107,
          is_transient: true,
          error_user_title: 'Loading Async Ads Report Failed',
          error_user_msg: 'Sorry, the report cannot be loaded successfully. Please check if your job status is completed instead of failed or running before fetching the data.',
        }),
      };
    }
    const account = this.accountById(run.accountId);
    const answer = this.queryRows(account, run.parameters);
    if ('refusal' in answer) return answer.refusal;
    const limit = Math.min(Number(request.query.get('limit') ?? 25), 5000);
    return this.paged(request, answer.rows, limit, this.usageHeaders(account));
  }

  // Metric values are strings; spend and action values are decimals in the account's currency; a
  // purchase appears under several overlapping action types.
  // https://developers.facebook.com/documentation/ads-commerce/marketing-api/insights
  private campaignRow(account: FakeMetaAdAccount, row: CampaignDay): Record<string, unknown> {
    const currency = account.currency;
    const purchases = String(row.conversions);
    const purchaseValue = minorToDecimal(row.conversionValueMinor, currency);
    return {
      account_id: account.id,
      account_currency: currency,
      campaign_id: row.campaignId,
      campaign_name: row.campaignName,
      impressions: String(row.impressions),
      clicks: String(row.clicks),
      spend: minorToDecimal(row.spendMinor, currency),
      actions: [
        { action_type: 'link_click', value: String(row.clicks) },
        ...(row.conversions > 0
          ? [
              { action_type: 'purchase', value: purchases },
              { action_type: 'offsite_conversion.fb_pixel_purchase', value: purchases },
              { action_type: 'omni_purchase', value: purchases },
            ]
          : []),
      ],
      ...(row.conversions > 0
        ? {
            action_values: [
              { action_type: 'purchase', value: purchaseValue },
              { action_type: 'offsite_conversion.fb_pixel_purchase', value: purchaseValue },
              { action_type: 'omni_purchase', value: purchaseValue },
            ],
          }
        : {}),
      date_start: row.day,
      date_stop: row.day,
    };
  }
}

export async function startMetaAdsFake(options: MetaAdsFakeOptions = {}): Promise<MetaAdsFake> {
  return new MetaAdsFake(options).start();
}
