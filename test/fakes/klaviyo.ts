import { instantOfWallClock, localDay, windowDays } from '../../src/server/connectors/email-shared/days.ts';
import { addDays } from '../../src/shared/date-ranges.ts';
import { FakeClock, FixedWindows, type RateWindow } from '../../src/server/connectors/email-shared/fixed-windows.ts';
import { FakeServer, seededRandom, type FakeRequest, type FakeResponse, type RecordedRequest } from './fake-server.ts';

// Klaviyo's REST API as its documentation and published OpenAPI describe it (docs/platform-notes.md
// "## Klaviyo" lists every rule with its source). What this fake enforces, each rule at its code below:
// - the private key (`Authorization: Klaviyo-API-Key`) and a valid `revision` header on every call;
// - per-account fixed-window rate limits with the documented numbers, 429 + Retry-After and the
//   JSON:API "throttled" error, RateLimit-* headers on other answers;
// - GET /api/campaigns: the channel filter is required, page[size] 1..100, sparse fieldsets only of
//   documented fields, archived campaigns only when filtered with equals(archived,true);
// - POST /api/campaign-values-reports: statistics from the documented enum, a timeframe of at most one
//   year whose start/end offsets are ignored and read in the ACCOUNT's time zone, a conversion metric
//   of the account, results per campaign message for campaigns SENT in the timeframe, page_cursor;
// - GET /api/flows and /api/flows/{id}: page[size] 1..50, sparse fieldsets of documented fields, the
//   archived filter, 404 for a deleted flow, 403 on every flows endpoint for a key without flows:read;
// - POST /api/flow-series-reports: statistics, timeframe, interval and conversion_metric_id required,
//   interval limits (hourly <= 7 days, daily <= 60, monthly <= 52 weeks), a timeframe read in the
//   account's time zone, group_by with flow_id and flow_message_id, one value per day of the account's
//   calendar in each statistic, aligned with date_times, page_cursor.
// - lists and the Bulk Import Profiles API (segment push, modules/audiences): GET /api/lists with the
//   equals(name,"…") filter, POST /api/lists, POST /api/profile-bulk-import-jobs (JSON:API body, at most
//   10,000 profiles and 5 MB, an existing list in relationships.lists), GET
//   /api/profile-bulk-import-jobs/{id} whose status moves queued -> processing -> complete one step
//   per look; profiles join the list when their job completes; 403 on all of them for a key without
//   lists:write / profiles:write (`listsScope: false`).
// Every 400 it answers is recorded in `refusals`, so a test can assert that a connector's requests
// were all acceptable. Campaigns are made lazily from the seed (campaign i goes out on day
// floor(i * days / campaigns) of the data range), or given as a fixture; flows likewise (figures on
// most days of the data range, every third flow archived), or a flow fixture.

export interface KlaviyoFakeOptions {
  seed?: number;
  campaigns?: number;
  apiKey?: string;
  /** First day of the data set (UTC). */
  start?: string;
  days?: number;
  currency?: string;
  organizationName?: string;
  /** The account's IANA time zone (GET /api/accounts `timezone`); report timeframes are read in it. */
  timezone?: string;
  /** Exact campaigns instead of generated ones (hand-computed tests). */
  fixture?: KlaviyoFakeCampaign[];
  /** At most this many campaigns per page whatever page[size] asks (so tests see several pages). */
  campaignsPageSize?: number;
  reportPageSize?: number;
  metricsPageSize?: number;
  /** false: the account has no "Placed Order" metric (no store connected). */
  withPlacedOrder?: boolean;
  /** The account also has a metric whose name is null (the OpenAPI schema allows it). */
  withNamelessMetric?: boolean;
  /** Every n-th generated campaign is archived (0: none). */
  archivedEvery?: number;
  /** Seconds sent in Retry-After on an injected 'rate_limit' fault. */
  retryAfterSeconds?: number;
  /**
   * Enforce the documented rate limits. The connector tests and the contract suite switch them on;
   * they are off by default because the fake's other users (the demo, the e2e suite, the integration
   * module's tests) run the sync runner with real sleeps, where Klaviyo's 2-reports-a-minute limit
   * would hold a test for up to a minute. Every other documented rule is always enforced.
   */
  rateLimits?: boolean;
  /**
   * 'skip-ahead' (default): the fake's clock jumps by each Retry-After it announces, so that callers
   * whose HTTP client records its waits instead of sleeping (tests, the contract suite) see the window
   * reopen; 'real': the wall clock only (see FakeClock).
   */
  clock?: 'real' | 'skip-ahead';
  /** The instant the fake's clock starts at (rate-limit windows are counted on it). */
  now?: string;
  /** Override a documented rate limit (tests of the daily reporting limit). */
  reportLimits?: { burst?: number; steady?: number; daily?: number };
  /** Generated flows (0: none); every third is archived. */
  flows?: number;
  /** Exact flows instead of generated ones (hand-computed tests). */
  flowFixture?: KlaviyoFakeFlow[];
  /** At most this many flows per page whatever page[size] asks (<= 50). */
  flowsPageSize?: number;
  /** Results (flow messages) per flow-series page. */
  flowReportPageSize?: number;
  /**
   * How series date_times name each day's midnight on the account's clock: 'wall-clock' writes it with
   * +00:00, the form of Klaviyo's example ("2024-01-05T00:00:00+00:00"); 'instant' writes the UTC
   * instant of that midnight ("2024-01-05T05:00:00+00:00" in New York). The reference does not say
   * which Klaviyo sends for an account outside UTC; a connector must read both.
   */
  dateTimes?: 'wall-clock' | 'instant';
  /** false: the key lacks the flows:read scope (403 on every flows endpoint). */
  flowsScope?: boolean;
  /** false: the key lacks lists:write / profiles:write (403 on the list and import endpoints). */
  listsScope?: boolean;
}

/** A profile as the fake keeps it (email, first and last name). */
export interface KlaviyoFakeProfile {
  email: string;
  first_name?: string;
  last_name?: string;
  /** Subscription consent: never set by an import without a subscriptions block. */
  subscribed?: boolean;
}

interface FakeImportJob {
  id: string;
  status: 'queued' | 'processing' | 'complete';
  profiles: KlaviyoFakeProfile[];
  listIds: string[];
  createdAt: string;
}

/** Documented limits of one bulk import job (bulk_import_profiles). */
export const KLAVIYO_FAKE_IMPORT_MAX_PROFILES = 10_000;
export const KLAVIYO_FAKE_IMPORT_MAX_BYTES = 5 * 1024 * 1024;

export interface KlaviyoFakeMessageStats {
  recipients: number;
  delivered: number;
  opens: number;
  opens_unique: number;
  clicks: number;
  clicks_unique: number;
  conversions: number;
  conversion_value: number;
}

export interface KlaviyoFakeCampaign {
  id: string;
  name: string;
  channel: 'email' | 'sms';
  /** ISO instant; null for a draft that was never sent. */
  sendTime: string | null;
  status?: string;
  archived?: boolean;
  messages: { id: string; statistics: KlaviyoFakeMessageStats }[];
}

export interface KlaviyoFakeFlow {
  id: string;
  /** Nullable in Klaviyo's schema (FlowResponseObjectResource). */
  name: string | null;
  status?: 'draft' | 'manual' | 'live';
  archived?: boolean;
  /** Deleted: no longer listed and 404 by id, but its figures stay in reports. */
  deleted?: boolean;
  /** Each message's figures per day of the account's calendar ('YYYY-MM-DD'); absent days are zero. */
  messages: { id: string; channel: 'email' | 'sms'; days: Record<string, KlaviyoFakeMessageStats> }[];
}

/** The newest revision this fake knows; later dates are not valid revisions yet. https://developers.klaviyo.com/en/docs/api_versioning_and_deprecation_policy */
const LATEST_REVISION = '2026-10-15';

const METRIC_NAMES = ['Received Email', 'Opened Email', 'Clicked Email', 'Bounced Email', 'Unsubscribed', 'Active on Site', 'Placed Order'];

// The statistics a campaign values report accepts (CampaignValuesRequestDTO, klaviyo/openapi
// openapi/stable/apis/query_campaign_values.json, revision 2026-07-15).
const REPORT_STATISTICS = new Set([
  'average_order_value', 'bounce_rate', 'bounced', 'bounced_or_failed', 'bounced_or_failed_rate', 'click_rate', 'click_to_open_rate', 'clicks',
  'clicks_unique', 'conversion_rate', 'conversion_uniques', 'conversion_value', 'conversions', 'delivered', 'delivery_rate', 'failed', 'failed_rate',
  'message_segment_count_sum', 'open_rate', 'opens', 'opens_unique', 'recipients', 'revenue_per_recipient', 'spam_complaint_rate', 'spam_complaints',
  'text_message_credit_usage_amount', 'text_message_roi', 'text_message_spend', 'unsubscribe_rate', 'unsubscribe_uniques', 'unsubscribes',
]);
// Timeframe keys (Timeframe schema, same file).
const TIMEFRAME_KEYS = new Set(['last_12_months', 'last_30_days', 'last_365_days', 'last_3_months', 'last_7_days', 'last_90_days', 'last_month', 'last_week', 'last_year', 'this_month', 'this_week', 'this_year', 'today', 'yesterday']);
// group_by values; campaign_id and campaign_message_id are required when group_by is given.
const GROUP_BY = new Set(['campaign_id', 'campaign_message_id', 'campaign_message_name', 'group', 'group_name', 'send_channel', 'tag_id', 'tag_name', 'text_message_format', 'variation', 'variation_name']);
// Sparse fieldset values of fields[campaign] (get_campaigns.json).
const CAMPAIGN_FIELDS = new Set([
  'archived', 'audiences', 'audiences.excluded', 'audiences.included', 'created_at', 'id', 'name', 'scheduled_at', 'send_options', 'send_options.use_smart_sending',
  'send_strategy', 'send_strategy.date', 'send_strategy.datetime', 'send_strategy.method', 'send_strategy.options', 'send_strategy.options.is_local',
  'send_strategy.options.send_past_recipients_immediately', 'send_strategy.throttle_percentage', 'send_time', 'status', 'tracking_options',
  'tracking_options.add_tracking_params', 'tracking_options.custom_tracking_params', 'tracking_options.is_tracking_clicks', 'tracking_options.is_tracking_opens', 'updated_at',
]);
const METRIC_FIELDS = new Set(['created', 'id', 'integration', 'name', 'updated']);
// Sparse fieldset values of fields[flow] (get_flows.json; get_flow.json adds the definition fields).
const FLOW_FIELDS = new Set(['archived', 'created', 'id', 'name', 'status', 'trigger_type', 'updated']);
const FLOW_SORTS = new Set(['created', '-created', 'id', '-id', 'name', '-name', 'status', '-status', 'trigger_type', '-trigger_type', 'updated', '-updated']);
// flow-series-report group_by values; flow_id and flow_message_id are required when group_by is given
// (FlowSeriesRequestDTOResourceObject, query_flow_series.json).
const FLOW_GROUP_BY = new Set(['flow_id', 'flow_message_id', 'flow_message_name', 'flow_name', 'send_channel', 'tag_id', 'tag_name', 'text_message_format', 'variation', 'variation_name']);
// "If hourly is used, the timeframe cannot be longer than 7 days. If daily is used, the timeframe
// cannot be longer than 60 days. If monthly is used, the timeframe cannot be longer than 52 weeks."
// (interval, same schema); weekly is held by the timeframe's own "Max length: 1 year".
const INTERVAL_LIMIT_DAYS: Record<string, number> = { hourly: 7, daily: 60, monthly: 52 * 7, weekly: 366 };
const DAY_MS = 86_400_000;

// Rate limits, per account, fixed windows: burst = 1 s, steady = 1 min
// (https://developers.klaviyo.com/en/docs/rate_limits_and_error_handling). Each endpoint's tier is in
// its reference: get_accounts XS (1/s, 15/m); get_metrics, get_campaigns, get_campaign M (10/s,
// 150/m); query_campaign_values 1/s, 2/m and 225/d (openapi/stable/apis/*.json, x-klaviyo-ratelimit).
const XS: RateWindow[] = [{ limit: 1, ms: 1_000 }, { limit: 15, ms: 60_000 }];
const M: RateWindow[] = [{ limit: 10, ms: 1_000 }, { limit: 150, ms: 60_000 }];
// get_flows and get_flow: S (3/s, 60/m); query_flow_series shares the reporting limits (1/s, 2/m,
// 225/d), counted per endpoint like every other (x-klaviyo-ratelimit of each operation).
const S: RateWindow[] = [{ limit: 3, ms: 1_000 }, { limit: 60, ms: 60_000 }];

function encodePageCursor(offset: number): string {
  return Buffer.from(`offset:${offset}`).toString('base64url');
}

function decodePageCursor(cursor: string | null): number | null {
  if (!cursor) return 0;
  const match = /^offset:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match ? Number(match[1]) : null;
}

/** Klaviyo's JSON:API error document (ClientError in the OpenAPI: id, code, title, detail, source). */
function jsonApiError(status: number, code: string, title: string, detail: string): FakeResponse {
  return { status, headers: { 'content-type': 'application/vnd.api+json' }, body: { errors: [{ id: `err-${code}`, status, code, title, detail, source: { pointer: '/data/' } }] } };
}

type OptionalOptions = 'listsScope' | 'fixture' | 'reportLimits' | 'now' | 'flowFixture' | 'flowReportPageSize';

export class KlaviyoFake extends FakeServer {
  readonly options: Required<Omit<KlaviyoFakeOptions, OptionalOptions>> & Pick<KlaviyoFakeOptions, OptionalOptions>;
  /** Every Retry-After (seconds) the fake announced, in order, so tests can compare a client's waits with them. */
  readonly throttles: number[] = [];
  /** The requests it answered with 429 (injected or its own rate limits): the others are the calls Klaviyo counts. */
  readonly throttledRequests = new Set<RecordedRequest>();
  /** Every request the fake refused as invalid (400), with the reason: a real account would have refused it too. */
  readonly refusals: { method: string; path: string; reason: string }[] = [];
  readonly clock: FakeClock;
  private revoked = false;
  private readonly overrides = new Map<string, Partial<KlaviyoFakeMessageStats>>();
  /** `${flow id}|${day}` -> changes to every message of that flow on that day. */
  private readonly flowOverrides = new Map<string, Partial<KlaviyoFakeMessageStats>>();
  private generatedFlows: KlaviyoFakeFlow[] | null = null;
  private readonly windows = new FixedWindows();
  /** Lists by id (name). */
  readonly lists = new Map<string, string>();
  /** Profiles by e-mail (lower-cased). */
  readonly profiles = new Map<string, KlaviyoFakeProfile>();
  /** List id -> e-mails (lower-cased) of its members. */
  readonly listMembers = new Map<string, Set<string>>();
  readonly importJobs = new Map<string, FakeImportJob>();
  /** Profile ids by e-mail (lower-cased), given when a profile is first imported. */
  readonly profileIds = new Map<string, string>();
  private nextId = 1;

  constructor(options: KlaviyoFakeOptions = {}) {
    super();
    this.options = {
      seed: 1,
      campaigns: 60,
      apiKey: 'pk_test_klaviyo_0123456789',
      start: '2025-01-01',
      days: 365,
      currency: 'USD',
      organizationName: 'Fake Outdoor Co',
      timezone: 'UTC',
      campaignsPageSize: 10,
      reportPageSize: 25,
      metricsPageSize: 3,
      withPlacedOrder: true,
      withNamelessMetric: false,
      archivedEvery: 0,
      retryAfterSeconds: 2,
      rateLimits: false,
      clock: 'skip-ahead',
      flows: 3,
      flowsPageSize: 50,
      dateTimes: 'wall-clock',
      flowsScope: true,
      ...options,
    };
    this.clock = new FakeClock(this.options.clock, this.options.now ? new Date(this.options.now) : undefined);
    this.route('GET', '/api/accounts', (request) => this.guard(request, XS, () => this.accounts()));
    this.route('GET', '/api/metrics', (request) => this.guard(request, M, () => this.metrics(request)));
    this.route('GET', '/api/campaigns', (request) => this.guard(request, M, () => this.campaignsPage(request)));
    this.route('GET', '/api/campaigns/:id', (request) => this.guard(request, M, () => this.oneCampaign(request)));
    this.route('POST', '/api/campaign-values-reports', (request) => this.guard(request, this.reportWindows(), () => this.campaignValues(request)));
    this.route('GET', '/api/flows', (request) => this.guard(request, S, () => this.withFlowsScope(() => this.flowsPage(request))));
    this.route('GET', '/api/flows/:id', (request) => this.guard(request, S, () => this.withFlowsScope(() => this.oneFlow(request))));
    this.route('GET', '/api/lists', (request) => this.guard(request, M, () => this.withListsScope(() => this.listsPage(request))));
    this.route('POST', '/api/lists', (request) => this.guard(request, M, () => this.withListsScope(() => this.createList(request))));
    this.route('GET', '/api/lists/:id/profiles', (request) => this.guard(request, M, () => this.withListsScope(() => this.listProfilesPage(request))));
    this.route('DELETE', '/api/lists/:id/relationships/profiles', (request) => this.guard(request, M, () => this.withListsScope(() => this.removeFromList(request))));
    this.route('POST', '/api/profile-bulk-import-jobs', (request) => this.guard(request, M, () => this.withListsScope(() => this.createImportJob(request))));
    this.route('GET', '/api/profile-bulk-import-jobs/:id', (request) => this.guard(request, M, () => this.withListsScope(() => this.oneImportJob(request))));
    this.route('POST', '/api/flow-series-reports', (request) => this.guard(request, this.reportWindows(), () => this.withFlowsScope(() => this.flowSeries(request))));
  }

  /** The base URL a connector context should use. */
  get apiUrl(): string {
    return `${this.url}/api`;
  }

  /** The key stops working (deleted in Klaviyo's settings). */
  revokeKey(): void {
    this.revoked = true;
  }

  /** Changes a campaign's statistics (all of its messages get the same change). */
  updateCampaignStats(id: string, changes: Partial<KlaviyoFakeMessageStats>): void {
    this.overrides.set(id, { ...this.overrides.get(id), ...changes });
  }

  /** Changes a flow's figures on one day of the account's calendar (all of its messages get the change). */
  updateFlowStats(flowId: string, day: string, changes: Partial<KlaviyoFakeMessageStats>): void {
    const key = `${flowId}|${day}`;
    this.flowOverrides.set(key, { ...this.flowOverrides.get(key), ...changes });
  }

  private reportWindows(): RateWindow[] {
    const limits = this.options.reportLimits ?? {};
    return [
      { limit: limits.burst ?? 1, ms: 1_000 },
      { limit: limits.steady ?? 2, ms: 60_000 },
      { limit: limits.daily ?? 225, ms: 86_400_000 },
    ];
  }

  private generated(index: number): KlaviyoFakeCampaign {
    const random = seededRandom(this.options.seed * 1_000_003 + index * 7919);
    const id = `01KL${index.toString(36).toUpperCase().padStart(22, '0')}`;
    const dayOffset = Math.floor((index * this.options.days) / this.options.campaigns);
    const sendTime = new Date(Date.parse(`${this.options.start}T00:00:00Z`) + dayOffset * 86_400_000 + Math.floor(6 + random() * 14) * 3_600_000 + Math.floor(random() * 60) * 60_000);
    const messageCount = index % 5 === 0 ? 2 : 1;
    const messages = Array.from({ length: messageCount }, (_, m) => {
      const recipients = 500 + Math.floor(random() * 4500);
      const delivered = Math.floor(recipients * (0.95 + random() * 0.05));
      const opensUnique = Math.floor(delivered * (0.2 + random() * 0.25));
      const clicksUnique = Math.floor(opensUnique * (0.05 + random() * 0.2));
      const conversions = Math.floor(random() * 30);
      const statistics: KlaviyoFakeMessageStats = {
        recipients,
        delivered,
        opens: opensUnique + Math.floor(opensUnique * random()),
        opens_unique: opensUnique,
        clicks: clicksUnique * 2,
        clicks_unique: clicksUnique,
        conversions,
        conversion_value: Math.round(conversions * (2000 + random() * 10000)) / 100,
      };
      return { id: `${id.slice(0, -1)}${String.fromCharCode(65 + m)}`, statistics };
    });
    const archived = this.options.archivedEvery > 0 && index % this.options.archivedEvery === this.options.archivedEvery - 1;
    return {
      id,
      name: `Campaign ${index + 1}: ${['Spring sale', 'New arrivals', 'Weekly picks', 'VIP early access', 'Back in stock'][index % 5]}`,
      channel: index % 7 === 3 ? 'sms' : 'email',
      sendTime: sendTime.toISOString(),
      status: 'Sent',
      archived,
      messages,
    };
  }

  /** Every campaign of the account, with the statistics changes applied. */
  allCampaigns(): KlaviyoFakeCampaign[] {
    const base = this.options.fixture ?? Array.from({ length: this.options.campaigns }, (_, index) => this.generated(index));
    return base.map((campaign) => {
      const changes = this.overrides.get(campaign.id);
      return changes ? { ...campaign, messages: campaign.messages.map((message) => ({ ...message, statistics: { ...message.statistics, ...changes } })) } : campaign;
    });
  }

  private generatedFlow(index: number): KlaviyoFakeFlow {
    const id = `FL${index.toString(36).toUpperCase().padStart(4, '0')}`;
    const messages = [0, 1].map((m) => {
      const days: Record<string, KlaviyoFakeMessageStats> = {};
      for (let d = 0; d < this.options.days; d++) {
        const random = seededRandom(this.options.seed * 1_000_033 + index * 7919 + m * 104_729 + d * 31);
        const recipients = Math.floor(random() * 80);
        // about one day in ten without a send
        if (recipients < 8) continue;
        const delivered = recipients - Math.floor(random() * 3);
        const opensUnique = Math.floor(delivered * (0.3 + random() * 0.3));
        const clicksUnique = Math.floor(opensUnique * (0.05 + random() * 0.2));
        const conversions = clicksUnique > 0 ? Math.floor(random() * 3) : 0;
        days[addDays(this.options.start, d)] = {
          recipients,
          delivered,
          opens: opensUnique + Math.floor(random() * 5),
          opens_unique: opensUnique,
          clicks: clicksUnique * 2,
          clicks_unique: clicksUnique,
          conversions,
          conversion_value: Math.round(conversions * (1500 + random() * 8000)) / 100,
        };
      }
      // every other flow's second message is a text message (left out of e-mail figures)
      return { id: `${id}M${m}`, channel: (index % 2 === 1 && m === 1 ? 'sms' : 'email') as 'email' | 'sms', days };
    });
    return {
      id,
      name: ['Welcome series', 'Abandoned cart', 'Post-purchase', 'Browse abandonment', 'Win-back'][index % 5]!,
      status: 'live',
      archived: index % 3 === 2,
      messages,
    };
  }

  /** Every flow of the account (deleted ones too), with the figure changes applied. */
  allFlows(): KlaviyoFakeFlow[] {
    const base = this.options.flowFixture ?? (this.generatedFlows ??= Array.from({ length: this.options.flows }, (_, index) => this.generatedFlow(index)));
    if (this.flowOverrides.size === 0) return base;
    return base.map((flow) => ({
      ...flow,
      messages: flow.messages.map((message) => ({
        ...message,
        days: Object.fromEntries(Object.entries(message.days).map(([day, stats]) => [day, { ...stats, ...this.flowOverrides.get(`${flow.id}|${day}`) }])),
      })),
    }));
  }

  /**
   * Klaviyo's own figures: e-mail campaigns sent in [since, until), on their send day in `timezone`,
   * then e-mail flows per flow and day of the account's calendar for the window's days (see
   * windowDays), days without figures left out.
   */
  expectedRows(since: Date, until: Date, timezone = 'UTC') {
    const rows = [];
    for (const campaign of this.allCampaigns()) {
      const time = campaign.sendTime === null ? NaN : Date.parse(campaign.sendTime);
      if (campaign.channel !== 'email' || Number.isNaN(time) || time < since.getTime() || time >= until.getTime() || campaign.messages.length === 0) continue;
      const sum = (key: keyof KlaviyoFakeMessageStats) => campaign.messages.reduce((total, message) => total + message.statistics[key], 0);
      rows.push({
        campaignId: campaign.id,
        day: localDay(campaign.sendTime!, timezone),
        campaignName: campaign.name,
        sends: sum('recipients'),
        opens: sum('opens_unique'),
        clicks: sum('clicks_unique'),
        attributedOrders: this.options.withPlacedOrder ? sum('conversions') : 0,
        attributedRevenueMinor: this.options.withPlacedOrder ? campaign.messages.reduce((total, message) => total + Math.round(message.statistics.conversion_value * 100), 0) : 0,
      });
    }
    const { firstDay, lastDay } = windowDays({ since, until });
    for (const flow of this.allFlows()) {
      const byDay = new Map<string, { sends: number; opens: number; clicks: number; orders: number; revenue: number }>();
      for (const message of flow.messages) {
        if (message.channel !== 'email') continue;
        for (const [day, stats] of Object.entries(message.days)) {
          if (day < firstDay || day > lastDay) continue;
          const sum = byDay.get(day) ?? { sends: 0, opens: 0, clicks: 0, orders: 0, revenue: 0 };
          sum.sends += stats.recipients;
          sum.opens += stats.opens_unique;
          sum.clicks += stats.clicks_unique;
          sum.orders += this.options.withPlacedOrder ? stats.conversions : 0;
          sum.revenue += this.options.withPlacedOrder ? Math.round(stats.conversion_value * 100) : 0;
          byDay.set(day, sum);
        }
      }
      for (const [day, sum] of [...byDay].sort(([a], [b]) => a.localeCompare(b))) {
        if (sum.sends === 0 && sum.opens === 0 && sum.clicks === 0 && sum.orders === 0 && sum.revenue === 0) continue;
        rows.push({
          campaignId: `flow:${flow.id}`,
          day,
          campaignName: flow.deleted ? `Klaviyo flow ${flow.id} (deleted)` : flow.name || `Klaviyo flow ${flow.id}`,
          sends: sum.sends,
          opens: sum.opens,
          clicks: sum.clicks,
          attributedOrders: sum.orders,
          attributedRevenueMinor: sum.revenue,
        });
      }
    }
    return rows;
  }

  private refuse(request: FakeRequest, detail: string): FakeResponse {
    this.refusals.push({ method: request.method, path: request.path, reason: detail });
    return jsonApiError(400, 'invalid', 'Invalid input.', detail);
  }

  private guard(request: FakeRequest, limits: RateWindow[], answer: () => FakeResponse): FakeResponse {
    const fault = this.takeFault(request);
    if (fault === 'rate_limit') return this.throttled(this.options.retryAfterSeconds);
    if (fault === 'server_error') return jsonApiError(503, 'service_unavailable', 'Service unavailable.', 'Service temporarily unavailable.');
    if (fault === 'malformed') return { status: 200, headers: { 'content-type': 'application/vnd.api+json' }, body: { data: { attributes: { results: 'not a list' } }, links: 7 } };
    // Private key auth: `Authorization: Klaviyo-API-Key <key>`; a wrong or deleted key is 401
    // (https://developers.klaviyo.com/en/docs/rate_limits_and_error_handling, status codes).
    if (fault === 'expired_token' || fault === 'revoked' || this.revoked || request.headers.authorization !== `Klaviyo-API-Key ${this.options.apiKey}`) {
      return jsonApiError(401, 'not_authenticated', 'Authentication credentials were not provided.', 'Incorrect authentication credentials.');
    }
    // The revision header is required on every call and must be a valid revision: YYYY-MM-DD[.suffix]
    // (`revision` header parameter, required: true, in every operation of klaviyo/openapi;
    // https://developers.klaviyo.com/en/docs/api_versioning_and_deprecation_policy).
    const revision = String(request.headers.revision ?? '');
    const date = /^(\d{4}-\d{2}-\d{2})(\.[a-z0-9]+)?$/.exec(revision)?.[1];
    if (!date || Number.isNaN(Date.parse(`${date}T00:00:00Z`)) || date > LATEST_REVISION) return this.refuse(request, `A valid revision header is required (got "${revision}").`);
    if (this.options.rateLimits) {
      const verdict = this.windows.take(`${this.options.apiKey}|${request.method} ${request.path.replace(/\/(campaigns|flows|profile-bulk-import-jobs)\/[^/]+$/, '/$1/:id')}`, limits, this.clock.now());
      if (!verdict.ok) return this.throttled(verdict.retryAfterSeconds);
      const response = answer();
      // Non-429 answers carry the steady window's state (rate_limits_and_error_handling).
      const steady = verdict.windows[1]!;
      return { ...response, headers: { ...response.headers, 'ratelimit-limit': String(limits[1]!.limit), 'ratelimit-remaining': String(steady.remaining), 'ratelimit-reset': String(steady.resetSeconds) } };
    }
    return answer();
  }

  /** 429: Retry-After in seconds and the JSON:API "throttled" error; no RateLimit-* headers (rate_limits_and_error_handling; body as in klaviyo/klaviyo-api-python#15). */
  private throttled(seconds: number): FakeResponse {
    // The handler runs right after its request is recorded: the last one is this one.
    const recorded = this.requests.at(-1);
    if (recorded) this.throttledRequests.add(recorded);
    this.clock.throttled(seconds);
    this.throttles.push(seconds);
    const response = jsonApiError(429, 'throttled', 'Request was throttled.', `Request was throttled. Expected available in ${seconds} seconds.`);
    return { ...response, headers: { ...response.headers, 'retry-after': String(seconds) } };
  }

  private accounts(): FakeResponse {
    return {
      headers: { 'content-type': 'application/vnd.api+json' },
      body: {
        data: [{
          type: 'account',
          id: 'AbC123',
          attributes: {
            test_account: false,
            contact_information: { organization_name: this.options.organizationName, default_sender_email: 'shop@example.com' },
            industry: null,
            timezone: this.options.timezone,
            preferred_currency: this.options.currency,
            public_api_key: 'AbC123',
            locale: 'en-US',
          },
          links: { self: `${this.url}/api/accounts/AbC123/` },
        }],
        links: { self: `${this.url}/api/accounts/`, next: null, prev: null },
      },
    };
  }

  private page<T>(items: T[], request: FakeRequest, size: number, path: string, keep: URLSearchParams): { error: string } | { items: T[]; next: string | null } {
    const offset = decodePageCursor(request.query.get('page[cursor]'));
    if (offset === null) return { error: 'Invalid page cursor.' };
    const nextOffset = offset + size;
    const next = new URLSearchParams(keep);
    next.set('page[cursor]', encodePageCursor(nextOffset));
    return { items: items.slice(offset, nextOffset), next: nextOffset < items.length ? `${this.url}${path}?${next}` : null };
  }

  private sparseFields(request: FakeRequest, name: string, allowed: Set<string>): string | null {
    const value = request.query.get(`fields[${name}]`);
    if (value === null) return null;
    const bad = value.split(',').filter((field) => !allowed.has(field));
    return bad.length ? `Invalid fields[${name}]: ${bad.join(', ')}.` : null;
  }

  private metrics(request: FakeRequest): FakeResponse {
    const badFields = this.sparseFields(request, 'metric', METRIC_FIELDS);
    if (badFields) return this.refuse(request, badFields);
    const names: (string | null)[] = this.options.withPlacedOrder ? [...METRIC_NAMES] : METRIC_NAMES.filter((name) => name !== 'Placed Order');
    if (this.options.withNamelessMetric) names.splice(1, 0, null);
    const metrics = names.map((name, index) => ({ type: 'metric', id: this.metricId(name, index), attributes: { name, created: '2024-01-01T00:00:00+00:00', updated: '2024-01-01T00:00:00+00:00', integration: null } }));
    // "Returns a maximum of 200 results per page" (get_metrics.json); the option pages smaller.
    const page = this.page(metrics, request, Math.min(200, this.options.metricsPageSize), '/api/metrics', new URLSearchParams());
    if ('error' in page) return this.refuse(request, page.error);
    return { headers: { 'content-type': 'application/vnd.api+json' }, body: { data: page.items, links: { self: `${this.url}/api/metrics`, next: page.next, prev: null } } };
  }

  private metricId(name: string | null, index: number): string {
    return name === 'Placed Order' ? 'M00006' : `M${String(index).padStart(5, '0')}${name === null ? 'N' : ''}`;
  }

  private campaignResource(campaign: KlaviyoFakeCampaign) {
    const sendTime = campaign.sendTime === null ? null : campaign.sendTime.replace(/\.\d{3}Z$/, '+00:00');
    return {
      type: 'campaign',
      id: campaign.id,
      attributes: {
        name: campaign.name,
        status: campaign.status ?? (campaign.sendTime ? 'Sent' : 'Draft'),
        archived: campaign.archived ?? false,
        send_time: sendTime,
        scheduled_at: sendTime,
        created_at: '2024-12-01T00:00:00+00:00',
        updated_at: sendTime ?? '2024-12-01T00:00:00+00:00',
      },
      links: { self: `${this.url}/api/campaigns/${campaign.id}/` },
    };
  }

  private campaignsPage(request: FakeRequest): FakeResponse {
    // "A channel filter is required to list campaigns" (get_campaigns.json); filter fields and
    // operators: messages.channel equals, archived equals, ... combined with and(...).
    const filter = request.query.get('filter') ?? '';
    const channel = /equals\(messages\.channel,'(email|sms|mobile_push)'\)/.exec(filter)?.[1];
    if (!channel) return this.refuse(request, "A channel filter is required: filter=equals(messages.channel,'email').");
    const archived = /equals\(archived,(true|false)\)/.exec(filter)?.[1] === 'true';
    const badFields = this.sparseFields(request, 'campaign', CAMPAIGN_FIELDS);
    if (badFields) return this.refuse(request, badFields);
    // page[size]: "Default: 100. Min: 1. Max: 100." (get_campaigns.json)
    const sizeText = request.query.get('page[size]');
    const size = sizeText === null ? 100 : Number(sizeText);
    if (!Number.isInteger(size) || size < 1 || size > 100) return this.refuse(request, `page[size] must be between 1 and 100 (got ${sizeText}).`);
    // Archived campaigns are left out of the list unless asked for (observed by every client that
    // lists them with equals(archived,true), e.g. airbytehq/airbyte source-klaviyo; see platform-notes).
    const all = this.allCampaigns().filter((campaign) => campaign.channel === channel && (campaign.archived ?? false) === archived).map((campaign) => this.campaignResource(campaign));
    return this.listPage(request, all, Math.min(size, this.options.campaignsPageSize), '/api/campaigns');
  }

  /** A JSON:API list page of `items`; links.next keeps the request's query with the next page[cursor]. */
  private listPage(request: FakeRequest, items: unknown[], size: number, path: string): FakeResponse {
    const keep = new URLSearchParams(request.query);
    keep.delete('page[cursor]');
    const page = this.page(items, request, size, path, keep);
    if ('error' in page) return this.refuse(request, page.error);
    return { headers: { 'content-type': 'application/vnd.api+json' }, body: { data: page.items, links: { self: `${this.url}${path}`, next: page.next, prev: null } } };
  }

  private oneCampaign(request: FakeRequest): FakeResponse {
    const badFields = this.sparseFields(request, 'campaign', CAMPAIGN_FIELDS);
    if (badFields) return this.refuse(request, badFields);
    const campaign = this.allCampaigns().find((candidate) => candidate.id === request.params.id);
    if (!campaign) return jsonApiError(404, 'not_found', 'Not found.', `A campaign with id ${request.params.id} does not exist.`);
    return { headers: { 'content-type': 'application/vnd.api+json' }, body: { data: this.campaignResource(campaign), links: { self: `${this.url}/api/campaigns/${campaign.id}/` } } };
  }

  /**
   * The attributes every report request shares, checked as the reports' schemas document them:
   * statistics (from the enum), timeframe and conversion_metric_id are required (CampaignValuesRequestDTO,
   * FlowSeriesRequestDTO); group_by must name allowed attributes and include the two required ones;
   * filter only in the send_channel form this fake understands (others are refused rather than ignored);
   * a custom timeframe of at most one year whose offsets are ignored: "Offset is ignored and the company
   * timezone is used"; "Max length: 1 year" (CustomTimeframe). A string is the reason for a 400.
   */
  private reportRequest(request: FakeRequest, type: string, groupBy: { allowed: Set<string>; required: string[] }) {
    const body = request.body as { data?: { type?: string; attributes?: Record<string, unknown> } } | undefined;
    const attributes = body?.data?.attributes;
    if (body?.data?.type !== type || !attributes) return `data.type must be ${type} with attributes.`;
    const statistics = attributes.statistics;
    if (!Array.isArray(statistics) || statistics.length === 0) return 'statistics is required.';
    const unknown = statistics.filter((name) => typeof name !== 'string' || !REPORT_STATISTICS.has(name));
    if (unknown.length) return `Unknown statistics: ${unknown.join(', ')}.`;
    const metricId = attributes.conversion_metric_id;
    if (typeof metricId !== 'string' || !metricId) return 'conversion_metric_id is required.';
    const names: (string | null)[] = this.options.withPlacedOrder ? [...METRIC_NAMES] : METRIC_NAMES.filter((name) => name !== 'Placed Order');
    if (!names.some((name, index) => this.metricId(name, index) === metricId)) return `conversion_metric_id ${metricId} is not a metric of this account.`;
    const grouping = attributes.group_by;
    if (grouping !== undefined && grouping !== null) {
      if (!Array.isArray(grouping) || grouping.some((name) => !groupBy.allowed.has(name as string)) || groupBy.required.some((name) => !grouping.includes(name))) {
        return `group_by must name allowed attributes and include ${groupBy.required.join(' and ')}.`;
      }
    }
    const filter = attributes.filter;
    let channel: string | null = null;
    if (filter !== undefined && filter !== null) {
      const match = /^equals\(send_channel,"(email|sms|push-notification|whatsapp)"\)$/.exec(String(filter));
      if (!match) return `Unsupported filter: ${String(filter)}.`;
      channel = match[1]!;
    }
    const timeframe = attributes.timeframe as { key?: unknown; start?: unknown; end?: unknown } | undefined;
    if (!timeframe || typeof timeframe !== 'object') return 'timeframe is required.';
    if (timeframe.key !== undefined) {
      if (!TIMEFRAME_KEYS.has(String(timeframe.key))) return `Unknown timeframe key ${String(timeframe.key)}.`;
      return 'This fake answers custom timeframes (start/end) only.';
    }
    const start = typeof timeframe.start === 'string' ? instantOfWallClock(timeframe.start, this.options.timezone) : null;
    const end = typeof timeframe.end === 'string' ? instantOfWallClock(timeframe.end, this.options.timezone) : null;
    if (!start || !end || end.getTime() < start.getTime()) return 'timeframe needs a start and an end (date-time), start before end.';
    const startWall = String(timeframe.start).slice(0, 19);
    const endWall = String(timeframe.end).slice(0, 19);
    const yearLater = `${String(Number(startWall.slice(0, 4)) + 1).padStart(4, '0')}${startWall.slice(4)}`;
    if (endWall > yearLater) return 'timeframe must not be longer than one year.';
    return { attributes, statistics: statistics as string[], converts: this.options.withPlacedOrder && metricId === 'M00006', channel, start, end, startWall, endWall };
  }

  private reportPage(request: FakeRequest, type: string, path: string, results: unknown[], pageSize: number, extra: Record<string, unknown> = {}): FakeResponse {
    const offset = decodePageCursor(request.query.get('page_cursor'));
    if (offset === null) return this.refuse(request, 'Invalid page_cursor.');
    const nextOffset = offset + pageSize;
    return {
      headers: { 'content-type': 'application/vnd.api+json' },
      body: {
        data: { type, id: `report-${offset}`, attributes: { results: results.slice(offset, nextOffset), ...extra }, relationships: {} },
        links: { self: `${this.url}${path}`, next: nextOffset < results.length ? `${this.url}${path}?page_cursor=${encodePageCursor(nextOffset)}` : null, prev: null },
      },
    };
  }

  private campaignValues(request: FakeRequest): FakeResponse {
    const checked = this.reportRequest(request, 'campaign-values-report', { allowed: GROUP_BY, required: ['campaign_id', 'campaign_message_id'] });
    if (typeof checked === 'string') return this.refuse(request, checked);
    const { statistics, converts, channel, start, end } = checked;
    // A values report holds every campaign SENT in the timeframe (send date, as the UI reports it;
    // https://developers.klaviyo.com/en/reference/reporting_api_overview), one result per message.
    const results: unknown[] = [];
    for (const campaign of this.allCampaigns()) {
      const time = campaign.sendTime === null ? NaN : Date.parse(campaign.sendTime);
      if (Number.isNaN(time) || time < start.getTime() || time > end.getTime() || (channel !== null && campaign.channel !== channel)) continue;
      for (const message of campaign.messages) {
        const values: Record<string, number> = {};
        for (const name of statistics) {
          const value = message.statistics[name as keyof KlaviyoFakeMessageStats] ?? 0;
          values[name] = !converts && (name === 'conversions' || name === 'conversion_value') ? 0 : value;
        }
        results.push({ groupings: { send_channel: campaign.channel, campaign_id: campaign.id, campaign_message_id: message.id }, statistics: values });
      }
    }
    return this.reportPage(request, 'campaign-values-report', '/api/campaign-values-reports/', results, this.options.reportPageSize);
  }

  /** 403 on the flows endpoints for a key without flows:read (each lists the scope; 403 = not permitted, rate_limits_and_error_handling). */
  /** The members of the list named `name` with their profiles. */
  listProfiles(name: string): KlaviyoFakeProfile[] {
    const id = [...this.lists].find(([, listName]) => listName === name)?.[0];
    const members = id ? this.listMembers.get(id) : undefined;
    return [...(members ?? [])].map((email) => this.profiles.get(email)!).sort((a, b) => a.email.localeCompare(b.email));
  }

  private withListsScope(answer: () => FakeResponse): FakeResponse {
    if (this.options.listsScope !== false) return answer();
    return jsonApiError(403, 'permission_denied', 'You do not have permission to perform this action.', 'The API key is missing the required scopes: lists:write, profiles:write.');
  }

  private listResource(id: string) {
    const now = new Date(this.clock.now()).toISOString().replace(/\.\d{3}Z$/, '+00:00');
    return { type: 'list', id, attributes: { name: this.lists.get(id), created: now, updated: now, opt_in_process: 'single_opt_in' }, links: { self: `${this.url}/api/lists/${id}/` } };
  }

  /** get_lists: filter `equals(name,"…")` (also any/contains are documented; only equals is needed here), cursor pages of 10. */
  private listsPage(request: FakeRequest): FakeResponse {
    const filter = request.query.get('filter');
    let ids = [...this.lists.keys()];
    if (filter !== null) {
      const match = /^equals\(name,"((?:[^"\\]|\\.)*)"\)$/.exec(filter);
      if (!match) return this.refuse(request, `Unsupported filter for lists: ${filter}`);
      const name = match[1]!.replace(/\\(.)/g, '$1');
      ids = ids.filter((id) => this.lists.get(id) === name);
    }
    const fields = request.query.get('fields[list]');
    if (fields !== null && fields.split(',').some((field) => !['name', 'created', 'updated', 'opt_in_process'].includes(field))) return this.refuse(request, `Unknown fields[list]: ${fields}`);
    return { headers: { 'content-type': 'application/vnd.api+json' }, body: { data: ids.map((id) => this.listResource(id)), links: { self: `${this.url}/api/lists/`, next: null, prev: null } } };
  }

  private createList(request: FakeRequest): FakeResponse {
    const body = request.body as { data?: { type?: string; attributes?: { name?: unknown } } } | undefined;
    const name = body?.data?.attributes?.name;
    if (body?.data?.type !== 'list' || typeof name !== 'string' || name.trim() === '') return this.refuse(request, 'A list needs data.type "list" and attributes.name.');
    const id = `L${(this.nextId++).toString(36).toUpperCase().padStart(5, '0')}`;
    this.lists.set(id, name);
    this.listMembers.set(id, new Set());
    return { status: 201, headers: { 'content-type': 'application/vnd.api+json' }, body: { data: this.listResource(id) } };
  }

  /** get_profiles_for_list: page[size] 1..100 (default 20), cursor pages, sparse fields[profile]. */
  private listProfilesPage(request: FakeRequest): FakeResponse {
    const members = this.listMembers.get(request.params.id ?? '');
    if (!members) return jsonApiError(404, 'not_found', 'Not found.', 'A list with this id does not exist.');
    const size = Number(request.query.get('page[size]') ?? 20);
    if (!Number.isInteger(size) || size < 1 || size > 100) return this.refuse(request, 'page[size] must be 1..100.');
    const fields = request.query.get('fields[profile]');
    if (fields !== null && fields.split(',').some((field) => !['email', 'phone_number', 'external_id', 'first_name', 'last_name'].includes(field))) return this.refuse(request, `Unknown fields[profile]: ${fields}`);
    const offset = decodePageCursor(request.query.get('page[cursor]'));
    if (offset === null) return this.refuse(request, 'Invalid page[cursor].');
    const emails = [...members].sort();
    const page = emails.slice(offset, offset + size).map((email) => ({ type: 'profile', id: this.profileIds.get(email)!, attributes: { email: this.profiles.get(email)!.email } }));
    const next = offset + size < emails.length ? `${this.url}/api/lists/${request.params.id}/profiles?page[cursor]=${encodePageCursor(offset + size)}` : null;
    return { headers: { 'content-type': 'application/vnd.api+json' }, body: { data: page, links: { self: `${this.url}/api/lists/${request.params.id}/profiles`, next, prev: null } } };
  }

  /** remove_profiles_from_list: at most 1000 profiles a call; 204. */
  private removeFromList(request: FakeRequest): FakeResponse {
    const members = this.listMembers.get(request.params.id ?? '');
    if (!members) return jsonApiError(404, 'not_found', 'Not found.', 'A list with this id does not exist.');
    const data = (request.body as { data?: { type?: string; id?: string }[] } | undefined)?.data;
    if (!Array.isArray(data) || data.some((entry) => entry.type !== 'profile' || typeof entry.id !== 'string')) return this.refuse(request, 'data must be a list of {type:"profile", id}.');
    if (data.length > 1000) return this.refuse(request, `At most 1000 profiles per call (got ${data.length}).`);
    const removed = new Set(data.map((entry) => entry.id));
    for (const email of [...members]) if (removed.has(this.profileIds.get(email)!)) members.delete(email);
    return { status: 204 };
  }

  private importJobResource(job: FakeImportJob) {
    const done = job.status === 'complete';
    return {
      type: 'profile-bulk-import-job',
      id: job.id,
      attributes: {
        status: job.status,
        created_at: job.createdAt,
        total_count: job.profiles.length,
        completed_count: done ? job.profiles.length : job.status === 'processing' ? Math.floor(job.profiles.length / 2) : 0,
        failed_count: 0,
        completed_at: done ? new Date(this.clock.now()).toISOString() : null,
        expires_at: null,
        started_at: job.status === 'queued' ? null : job.createdAt,
      },
      relationships: { lists: { data: job.listIds.map((id) => ({ type: 'list', id })) } },
    };
  }

  /** bulk_import_profiles: at most 10,000 profiles and 5 MB a job; the lists must exist. */
  private createImportJob(request: FakeRequest): FakeResponse {
    if (Buffer.byteLength(request.rawBody) > KLAVIYO_FAKE_IMPORT_MAX_BYTES) return this.refuse(request, 'The payload is larger than the maximum of 5MB.');
    const body = request.body as { data?: { type?: string; attributes?: { profiles?: { data?: unknown } }; relationships?: { lists?: { data?: { type?: string; id?: string }[] } } } } | undefined;
    if (body?.data?.type !== 'profile-bulk-import-job') return this.refuse(request, 'data.type must be "profile-bulk-import-job".');
    const items = body.data.attributes?.profiles?.data;
    if (!Array.isArray(items) || items.length === 0) return this.refuse(request, 'attributes.profiles.data must be a non-empty list of profiles.');
    if (items.length > KLAVIYO_FAKE_IMPORT_MAX_PROFILES) return this.refuse(request, `A job takes at most ${KLAVIYO_FAKE_IMPORT_MAX_PROFILES} profiles (got ${items.length}).`);
    const profiles: KlaviyoFakeProfile[] = [];
    for (const item of items as { type?: string; attributes?: Record<string, unknown> }[]) {
      const attributes = item.attributes ?? {};
      if (item.type !== 'profile' || typeof attributes.email !== 'string' || !attributes.email.includes('@')) return this.refuse(request, 'Every profile needs type "profile" and an email.');
      const unknown = Object.keys(attributes).filter((key) => !['email', 'phone_number', 'external_id', 'first_name', 'last_name', 'organization', 'title', 'image', 'location', 'properties'].includes(key));
      if (unknown.length > 0) return this.refuse(request, `Unknown profile attributes: ${unknown.join(', ')}`);
      profiles.push({ email: attributes.email, ...(typeof attributes.first_name === 'string' ? { first_name: attributes.first_name } : {}), ...(typeof attributes.last_name === 'string' ? { last_name: attributes.last_name } : {}) });
    }
    const listIds = (body.data.relationships?.lists?.data ?? []).map((entry) => entry.id ?? '');
    if (listIds.some((id) => !this.lists.has(id))) return this.refuse(request, `Unknown list in relationships.lists: ${listIds.join(', ')}`);
    const job: FakeImportJob = { id: `J${(this.nextId++).toString(36).toUpperCase().padStart(6, '0')}`, status: 'queued', profiles, listIds, createdAt: new Date(this.clock.now()).toISOString() };
    this.importJobs.set(job.id, job);
    return { status: 202, headers: { 'content-type': 'application/vnd.api+json' }, body: { data: this.importJobResource(job) } };
  }

  /** get_bulk_import_profiles_job: each look moves the job one step (queued -> processing -> complete). */
  private oneImportJob(request: FakeRequest): FakeResponse {
    const job = this.importJobs.get(request.params.id ?? '');
    if (!job) return jsonApiError(404, 'not_found', 'Not found.', 'A profile bulk import job with this id does not exist.');
    const answer = { headers: { 'content-type': 'application/vnd.api+json' }, body: { data: this.importJobResource(job) } };
    if (job.status === 'queued') job.status = 'processing';
    else if (job.status === 'processing') {
      job.status = 'complete';
      for (const profile of job.profiles) {
        const key = profile.email.toLowerCase();
        this.profiles.set(key, { ...this.profiles.get(key), ...profile });
        if (!this.profileIds.has(key)) this.profileIds.set(key, `P${(this.nextId++).toString(36).toUpperCase().padStart(8, '0')}`);
        for (const listId of job.listIds) this.listMembers.get(listId)!.add(key);
      }
    }
    return answer;
  }

  private withFlowsScope(answer: () => FakeResponse): FakeResponse {
    if (this.options.flowsScope) return answer();
    return jsonApiError(403, 'permission_denied', 'You do not have permission to perform this action.', 'The API key is missing the required scope: flows:read.');
  }

  private flowResource(flow: KlaviyoFakeFlow) {
    return {
      type: 'flow',
      id: flow.id,
      attributes: {
        name: flow.name,
        status: flow.status ?? 'live',
        archived: flow.archived ?? false,
        created: '2024-06-01T00:00:00+00:00',
        updated: '2024-06-01T00:00:00+00:00',
        trigger_type: 'Metric',
      },
      links: { self: `${this.url}/api/flows/${flow.id}/` },
    };
  }

  private flowsPage(request: FakeRequest): FakeResponse {
    const badFields = this.sparseFields(request, 'flow', FLOW_FIELDS);
    if (badFields) return this.refuse(request, badFields);
    // page[size]: "Default: 50. Min: 1. Max: 50." (get_flows.json)
    const sizeText = request.query.get('page[size]');
    const size = sizeText === null ? 50 : Number(sizeText);
    if (!Number.isInteger(size) || size < 1 || size > 50) return this.refuse(request, `page[size] must be between 1 and 50 (got ${sizeText}).`);
    const sort = request.query.get('sort');
    if (sort !== null && !FLOW_SORTS.has(sort)) return this.refuse(request, `Invalid sort ${sort}.`);
    // filter: id any; name contains/ends-with/equals/starts-with; status, archived, trigger_type equals;
    // created, updated comparisons (get_flows.json). This fake answers the archived filter only.
    const filter = request.query.get('filter');
    let archived = false;
    if (filter !== null) {
      const match = /^equals\(archived,(true|false)\)$/.exec(filter);
      if (!match) return this.refuse(request, `This fake answers filter=equals(archived,true|false) only (got ${filter}).`);
      archived = match[1] === 'true';
    }
    // Whether an unfiltered list includes archived flows is not documented: this fake leaves them out
    // (as the campaigns list does), the reading a client must survive. Deleted flows are gone.
    const all = this.allFlows().filter((flow) => !flow.deleted && (flow.archived ?? false) === archived).map((flow) => this.flowResource(flow));
    return this.listPage(request, all, Math.min(size, this.options.flowsPageSize), '/api/flows');
  }

  private oneFlow(request: FakeRequest): FakeResponse {
    const badFields = this.sparseFields(request, 'flow', new Set([...FLOW_FIELDS, 'definition']));
    if (badFields) return this.refuse(request, badFields);
    const flow = this.allFlows().find((candidate) => candidate.id === request.params.id && !candidate.deleted);
    if (!flow) return jsonApiError(404, 'not_found', 'Not found.', `A flow with id ${request.params.id} does not exist.`);
    return { headers: { 'content-type': 'application/vnd.api+json' }, body: { data: this.flowResource(flow), links: { self: `${this.url}/api/flows/${flow.id}/` } } };
  }

  /** The series' date_times entry of a day's midnight on the account's clock (see the dateTimes option). */
  private seriesDateTime(day: string): string {
    if (this.options.dateTimes === 'wall-clock') return `${day}T00:00:00+00:00`;
    return instantOfWallClock(`${day}T00:00:00`, this.options.timezone)!.toISOString().replace('.000Z', '+00:00');
  }

  private flowSeries(request: FakeRequest): FakeResponse {
    const checked = this.reportRequest(request, 'flow-series-report', { allowed: FLOW_GROUP_BY, required: ['flow_id', 'flow_message_id'] });
    if (typeof checked === 'string') return this.refuse(request, checked);
    const { attributes, statistics, converts, channel, start, end, startWall, endWall } = checked;
    // interval is required: daily, hourly, monthly or weekly, each with its longest timeframe, held
    // here both on the account's wall clock and in elapsed time (the reference says neither).
    const interval = attributes.interval;
    if (typeof interval !== 'string' || !(interval in INTERVAL_LIMIT_DAYS)) return this.refuse(request, 'interval is required: daily, hourly, monthly or weekly.');
    const limitMs = INTERVAL_LIMIT_DAYS[interval]! * DAY_MS;
    if (end.getTime() - start.getTime() > limitMs || Date.parse(`${endWall}Z`) - Date.parse(`${startWall}Z`) > limitMs) {
      return this.refuse(request, `A ${interval} series timeframe cannot be longer than ${INTERVAL_LIMIT_DAYS[interval]} days.`);
    }
    if (interval !== 'daily') return this.refuse(request, 'This fake answers the daily interval only.');
    const groupBy = attributes.group_by as string[] | undefined | null;
    if (groupBy && groupBy.some((name) => !['flow_id', 'flow_message_id', 'send_channel'].includes(name))) return this.refuse(request, 'This fake groups by flow_id, flow_message_id and send_channel only.');

    // One bucket per day of the account's calendar from the start's day to the end's (the timeframe's
    // wall clock is the account's), each value the figures of the flow messages SENT that day (the UI
    // reports by send date: https://developers.klaviyo.com/en/reference/reporting_api_overview).
    const days: string[] = [];
    for (let day = startWall.slice(0, 10); day <= endWall.slice(0, 10); day = addDays(day, 1)) days.push(day);
    const results: unknown[] = [];
    for (const flow of this.allFlows()) {
      for (const message of flow.messages) {
        if (channel !== null && message.channel !== channel) continue;
        if (!days.some((day) => message.days[day])) continue;
        const values: Record<string, number[]> = {};
        for (const name of statistics) {
          values[name] = days.map((day) => {
            const value = message.days[day]?.[name as keyof KlaviyoFakeMessageStats] ?? 0;
            return !converts && (name === 'conversions' || name === 'conversion_value') ? 0 : value;
          });
        }
        results.push({ groupings: { flow_id: flow.id, flow_message_id: message.id, send_channel: message.channel }, statistics: values });
      }
    }
    return this.reportPage(request, 'flow-series-report', '/api/flow-series-reports/', results, this.options.flowReportPageSize ?? this.options.reportPageSize, {
      date_times: days.map((day) => this.seriesDateTime(day)),
    });
  }
}

export async function startKlaviyoFake(options: KlaviyoFakeOptions = {}): Promise<KlaviyoFake> {
  return new KlaviyoFake(options).start();
}
