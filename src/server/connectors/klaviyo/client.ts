import { z } from 'zod';
import type { ConnectorContext } from '../connector.ts';
import { ConnectorAuthError, ConnectorRequestError, MalformedResponseError } from '../connector.ts';
import { queryParamOf } from '../email-shared/cursor.ts';
import { defaultVerdict, retryAfterMs, type PlatformHttp, type PlatformResponse, type Verdict } from '../http.ts';

// Klaviyo's JSON:API wire format (docs/platform-notes.md "## Klaviyo", each rule with its source): a
// private key in `Authorization: Klaviyo-API-Key`, a dated `revision` header on every call, list pages
// linked by `links.next` (`page[cursor]`), and the Reporting API: campaign-values-report for campaign
// statistics, flow-series-report for flow statistics per day (each 1/s, 2/m and 225 a day per account).

export const KLAVIYO_PLATFORM = 'klaviyo';
/** Overridable for a pinned or newer revision without a release. */
export const KLAVIYO_REVISION = process.env.KLAVIYO_API_REVISION ?? '2026-07-15';
export const KLAVIYO_BASE_URL = 'https://a.klaviyo.com/api';
const JSON_API = 'application/vnd.api+json';

/** The statistics we ask the campaign-values-report for (see map.ts for how each is used). */
export const REPORT_STATISTICS = ['recipients', 'delivered', 'opens_unique', 'clicks_unique', 'conversions', 'conversion_value'] as const;
/** The campaign attributes we read (sparse fieldset; each a documented value of fields[campaign]). */
const CAMPAIGN_FIELDS = 'name,status,archived,send_time';
/** Campaigns per list page: the documented maximum of page[size] (get_campaigns: "Max: 100"). */
export const CAMPAIGNS_PAGE_SIZE = 100;
/** The flow attributes we read (documented values of fields[flow] in get_flows and get_flow). */
const FLOW_FIELDS = 'name,archived';
/** Flows per list page: the documented maximum of page[size] (get_flows: "Default: 50. Min: 1. Max: 50."). */
export const FLOWS_PAGE_SIZE = 50;
/**
 * A 403 from a flows endpoint: the private key lacks the flows:read scope (keys made before flows were
 * synced often do). The sync keeps the campaigns and says so instead of disconnecting the connection.
 */
export const FLOWS_FORBIDDEN = 'The Klaviyo private key may not read flows (the flows:read scope is missing)';
/**
 * A throttle that lasts longer than this is the reporting endpoints' daily limit (225 reports a day
 * per account), not the burst (1 s) or steady (1 min) window: waiting for it inside a sync would hold
 * a worker for hours, so the sync stops and the next scheduled one tries again.
 */
export const LONGEST_THROTTLE_WAIT_MS = 10 * 60_000;

const errorBody = z.object({ errors: z.array(z.object({ code: z.string().optional(), detail: z.string().optional() })) });

/** Klaviyo's answer read the way its docs describe: 429 with Retry-After, 401 bad key, 403 missing scope. */
export function classifyKlaviyo(response: PlatformResponse): Verdict | undefined {
  if (response.status === 401) {
    return { kind: 'auth', reason: 'Klaviyo refused the private API key: it was revoked, deleted or mistyped. Create a new private key and reconnect.' };
  }
  if (response.status === 403) {
    return {
      kind: 'auth',
      reason: 'The Klaviyo private key lacks a permission we need (read access to accounts, campaigns and metrics). Give the key those scopes and reconnect.',
    };
  }
  if (response.status === 429) {
    let detail = 'throttled';
    try {
      detail = errorBody.parse(JSON.parse(response.text)).errors[0]?.detail ?? detail;
    } catch {
      // the status alone says enough
    }
    const afterMs = retryAfterMs(response.headers) ?? undefined;
    if (afterMs !== undefined && afterMs > LONGEST_THROTTLE_WAIT_MS) {
      const minutes = Math.ceil(afterMs / 60_000);
      return {
        kind: 'fail',
        reason: `Klaviyo's daily limit of reports (225 a day per account, shared with every app using the same private key) is used up; Klaviyo accepts reports again in about ${minutes} minutes and the next sync will continue then (${detail}).`,
      };
    }
    return { kind: 'retry', reason: `rate limited (429): ${detail}`, afterMs };
  }
  return undefined;
}

/** A 403 on a flows endpoint fails the call with FLOWS_FORBIDDEN (see isFlowsForbidden) instead of disconnecting. */
function classifyFlows(response: PlatformResponse): Verdict | undefined {
  return response.status === 403 ? { kind: 'fail', reason: FLOWS_FORBIDDEN } : classifyKlaviyo(response);
}

/** Whether an error is a flows endpoint's 403 (the key lacks flows:read). */
export function isFlowsForbidden(error: unknown): boolean {
  return error instanceof ConnectorRequestError && error.status === 403 && error.detail === FLOWS_FORBIDDEN;
}

export class KlaviyoClient {
  private readonly http: PlatformHttp;
  private readonly flowsHttp: PlatformHttp;
  private readonly baseUrl: string;
  private readonly headers: Record<string, string>;

  constructor(ctx: ConnectorContext, revision: string = KLAVIYO_REVISION) {
    const apiKey = ctx.credentials.apiKey?.trim();
    if (!apiKey) throw new ConnectorAuthError(KLAVIYO_PLATFORM, 'No Klaviyo private API key is stored for this connection. Reconnect with a private key.');
    this.http = ctx.http.with({ classify: (response) => classifyKlaviyo(response) ?? defaultVerdict(response) });
    this.flowsHttp = ctx.http.with({ classify: (response) => classifyFlows(response) ?? defaultVerdict(response) });
    this.baseUrl = ctx.baseUrl.replace(/\/+$/, '');
    this.headers = { authorization: `Klaviyo-API-Key ${apiKey}`, revision, accept: JSON_API };
  }

  async account(): Promise<KlaviyoAccount> {
    const { data } = await this.http.json(`${this.baseUrl}/accounts`, accountsPage, { headers: this.headers });
    const account = data.data[0];
    if (!account) throw new ConnectorAuthError(KLAVIYO_PLATFORM, 'Klaviyo returned no account for this private key.');
    return account;
  }

  /** One page of a JSON:API list; `pageCursor` from the previous page's links.next (its page[cursor]). */
  private async list<T>(http: PlatformHttp, path: string, schema: z.ZodType<ListPage<T>>, query: Record<string, string | number>, pageCursor: string | null) {
    const { data } = await http.json(`${this.baseUrl}/${path}`, schema, { headers: this.headers, query: { ...query, 'page[cursor]': pageCursor ?? undefined } });
    return { items: data.data, nextPageCursor: queryParamOf(data.links?.next, 'page[cursor]') };
  }

  /** One page of the account's metrics. */
  async metricsPage(pageCursor: string | null): Promise<{ metrics: KlaviyoMetric[]; nextPageCursor: string | null }> {
    const { items, nextPageCursor } = await this.list(this.http, 'metrics', metricsPage, { 'fields[metric]': 'name' }, pageCursor);
    return { metrics: items, nextPageCursor };
  }

  /** One page of e-mail campaigns (Klaviyo requires the channel filter; archived ones are not listed). */
  async campaignsPage(pageCursor: string | null): Promise<{ campaigns: KlaviyoCampaign[]; nextPageCursor: string | null }> {
    const query = { filter: "equals(messages.channel,'email')", 'fields[campaign]': CAMPAIGN_FIELDS, 'page[size]': CAMPAIGNS_PAGE_SIZE };
    const { items, nextPageCursor } = await this.list(this.http, 'campaigns', campaignsPage, query, pageCursor);
    return { campaigns: items, nextPageCursor };
  }

  /** One campaign by id (archived ones too); null when Klaviyo no longer has it (404). */
  campaign(id: string): Promise<KlaviyoCampaign | null> {
    return this.oneOrNull(this.http, classifyKlaviyo, `campaigns/${encodeURIComponent(id)}`, { 'fields[campaign]': CAMPAIGN_FIELDS }, oneCampaign, `campaign ${id}`);
  }

  /** A resource by id, or null for a 404 (Klaviyo no longer has it); other answers as `classify` reads them. */
  private async oneOrNull<T>(
    http: PlatformHttp,
    classify: (response: PlatformResponse) => Verdict | undefined,
    path: string,
    query: Record<string, string>,
    schema: z.ZodType<{ data: T }>,
    what: string,
  ): Promise<T | null> {
    const lenient = http.with({ classify: (response) => (response.status === 404 ? { kind: 'ok' } : (classify(response) ?? defaultVerdict(response))) });
    const response = await lenient.request(`${this.baseUrl}/${path}`, { headers: this.headers, query });
    if (response.status === 404) return null;
    const parsed = schema.safeParse(response.json());
    if (!parsed.success) throw new MalformedResponseError(KLAVIYO_PLATFORM, `${what}: ${parsed.error.issues[0]?.message ?? 'unexpected shape'}`);
    return parsed.data.data;
  }

  /** One page of a report: `attributes` plus the statistics we read, e-mail only, in a JSON:API body. */
  private async report<T>(http: PlatformHttp, path: string, type: string, attributes: Record<string, unknown>, schema: z.ZodType<T>, pageCursor: string | null): Promise<T> {
    const { data } = await http.json(`${this.baseUrl}/${path}`, schema, {
      method: 'POST',
      headers: { ...this.headers, 'content-type': JSON_API },
      query: { page_cursor: pageCursor ?? undefined },
      json: { data: { type, attributes: { statistics: REPORT_STATISTICS, ...attributes, filter: 'equals(send_channel,"email")' } } },
    });
    return data;
  }

  /**
   * One page of campaign statistics for campaigns sent in [start, end] (both inclusive). Klaviyo
   * ignores the offsets and reads start/end on the account's wall clock; at most one year per report.
   */
  async campaignValuesPage(
    request: { start: string; end: string; conversionMetricId: string },
    pageCursor: string | null,
  ): Promise<{ results: KlaviyoReportResult[]; nextPageCursor: string | null }> {
    const attributes = { timeframe: { start: request.start, end: request.end }, conversion_metric_id: request.conversionMetricId };
    const data = await this.report(this.http, 'campaign-values-reports', 'campaign-values-report', attributes, campaignValuesResponse, pageCursor);
    return { results: data.data.attributes.results, nextPageCursor: queryParamOf(data.links?.next, 'page_cursor') };
  }

  /**
   * One page of flows, active ones (archived=false) or archived ones (archived=true): both are asked
   * for explicitly, since the reference does not say whether an unfiltered list includes archived flows.
   */
  async flowsPage(pageCursor: string | null, archived: boolean): Promise<{ flows: KlaviyoFlow[]; nextPageCursor: string | null }> {
    const query = { filter: `equals(archived,${archived})`, 'fields[flow]': FLOW_FIELDS, 'page[size]': FLOWS_PAGE_SIZE };
    const { items, nextPageCursor } = await this.list(this.flowsHttp, 'flows', flowsPage, query, pageCursor);
    return { flows: items, nextPageCursor };
  }

  /** One flow by id; null when Klaviyo no longer has it (404: the flow was deleted). */
  flow(id: string): Promise<KlaviyoFlow | null> {
    return this.oneOrNull(this.flowsHttp, classifyFlows, `flows/${encodeURIComponent(id)}`, { 'fields[flow]': FLOW_FIELDS }, oneFlow, `flow ${id}`);
  }

  /**
   * One page of e-mail flow statistics per flow message and day, for the days of [start, end] (both
   * inclusive, read on the account's wall clock like every report timeframe; at most 60 days with the
   * daily interval). Values are arrays aligned with `dateTimes`, one per day.
   */
  async flowSeriesPage(
    request: { start: string; end: string; conversionMetricId: string },
    pageCursor: string | null,
  ): Promise<{ results: KlaviyoFlowSeriesResult[]; dateTimes: string[]; nextPageCursor: string | null }> {
    const attributes = { timeframe: { start: request.start, end: request.end }, interval: 'daily', conversion_metric_id: request.conversionMetricId };
    const data = await this.report(this.flowsHttp, 'flow-series-reports', 'flow-series-report', attributes, flowSeriesResponse, pageCursor);
    const { results, date_times: dateTimes } = data.data.attributes;
    return { results, dateTimes, nextPageCursor: queryParamOf(data.links?.next, 'page_cursor') };
  }
}

const links = z.object({ next: z.string().nullish() }).optional();
interface ListPage<T> {
  data: T[];
  links?: { next?: string | null } | undefined;
}

const account = z.object({
  id: z.string(),
  attributes: z.object({
    contact_information: z.object({ organization_name: z.string().nullish() }).nullish(),
    /** IANA zone the account's reports are in ("US/Eastern"); report timeframes are read in it. */
    timezone: z.string().nullish(),
    preferred_currency: z.string().nullish(),
  }),
});
export type KlaviyoAccount = z.infer<typeof account>;
const accountsPage = z.object({ data: z.array(account) });

// A metric's name is nullable in Klaviyo's schema (MetricResponseObjectResource).
const metric = z.object({ id: z.string(), attributes: z.object({ name: z.string().nullish() }) });
export type KlaviyoMetric = z.infer<typeof metric>;
const metricsPage = z.object({ data: z.array(metric), links });

const campaign = z.object({
  id: z.string(),
  attributes: z.object({
    name: z.string(),
    status: z.string().nullish(),
    archived: z.boolean().nullish(),
    /** "The datetime when the campaign will be / was sent or None if not yet scheduled by a send_job." */
    send_time: z.string().nullish(),
  }),
});
export type KlaviyoCampaign = z.infer<typeof campaign>;
const campaignsPage = z.object({ data: z.array(campaign), links });
const oneCampaign = z.object({ data: campaign });

const count = z.number().nonnegative().nullish();
const reportResult = z.object({
  groupings: z.object({ campaign_id: z.string(), send_channel: z.string().nullish(), campaign_message_id: z.string().nullish() }),
  statistics: z.object({
    recipients: count,
    delivered: count,
    opens_unique: count,
    clicks_unique: count,
    conversions: count,
    conversion_value: z.number().nullish(),
  }),
});
export type KlaviyoReportResult = z.infer<typeof reportResult>;
const campaignValuesResponse = z.object({
  data: z.object({ attributes: z.object({ results: z.array(reportResult) }) }),
  links,
});

// A flow's name is nullable in Klaviyo's schema (FlowResponseObjectResource), and so is `archived`.
const flow = z.object({ id: z.string(), attributes: z.object({ name: z.string().nullish(), archived: z.boolean().nullish() }) });
export type KlaviyoFlow = z.infer<typeof flow>;
const flowsPage = z.object({ data: z.array(flow), links });
const oneFlow = z.object({ data: flow });

/** One value per day of `date_times` (PostFlowSeriesResponseDTO: "Each value in the results array corresponds to the date time at the same index"). */
const series = z.array(z.number().nullable()).nullish();
const flowSeriesResult = z.object({
  groupings: z.object({ flow_id: z.string(), flow_message_id: z.string().nullish(), send_channel: z.string().nullish() }),
  statistics: z.object({
    recipients: series,
    delivered: series,
    opens_unique: series,
    clicks_unique: series,
    conversions: series,
    conversion_value: series,
  }),
});
export type KlaviyoFlowSeriesResult = z.infer<typeof flowSeriesResult>;
const flowSeriesResponse = z.object({
  data: z.object({ attributes: z.object({ results: z.array(flowSeriesResult), date_times: z.array(z.string()) }) }),
  links,
});
