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

  /** One page of the account's metrics; `pageCursor` from the previous page's links.next. */
  async metricsPage(pageCursor: string | null): Promise<{ metrics: KlaviyoMetric[]; nextPageCursor: string | null }> {
    const { data } = await this.http.json(`${this.baseUrl}/metrics`, metricsPage, {
      headers: this.headers,
      query: { 'fields[metric]': 'name', 'page[cursor]': pageCursor ?? undefined },
    });
    return { metrics: data.data, nextPageCursor: queryParamOf(data.links?.next, 'page[cursor]') };
  }

  /** One page of e-mail campaigns (Klaviyo requires the channel filter; archived ones are not listed). */
  async campaignsPage(pageCursor: string | null): Promise<{ campaigns: KlaviyoCampaign[]; nextPageCursor: string | null }> {
    const { data } = await this.http.json(`${this.baseUrl}/campaigns`, campaignsPage, {
      headers: this.headers,
      query: {
        filter: "equals(messages.channel,'email')",
        'fields[campaign]': CAMPAIGN_FIELDS,
        'page[size]': CAMPAIGNS_PAGE_SIZE,
        'page[cursor]': pageCursor ?? undefined,
      },
    });
    return { campaigns: data.data, nextPageCursor: queryParamOf(data.links?.next, 'page[cursor]') };
  }

  /** One campaign by id (archived ones too); null when Klaviyo no longer has it (404). */
  async campaign(id: string): Promise<KlaviyoCampaign | null> {
    const http = this.http.with({ classify: (response) => (response.status === 404 ? { kind: 'ok' } : (classifyKlaviyo(response) ?? defaultVerdict(response))) });
    const response = await http.request(`${this.baseUrl}/campaigns/${encodeURIComponent(id)}`, { headers: this.headers, query: { 'fields[campaign]': CAMPAIGN_FIELDS } });
    if (response.status === 404) return null;
    const parsed = oneCampaign.safeParse(response.json());
    if (!parsed.success) throw new MalformedResponseError(KLAVIYO_PLATFORM, `campaign ${id}: ${parsed.error.issues[0]?.message ?? 'unexpected shape'}`);
    return parsed.data.data;
  }

  /**
   * One page of campaign statistics for campaigns sent in [start, end] (both inclusive). Klaviyo
   * ignores the offsets and reads start/end on the account's wall clock; at most one year per report.
   */
  async campaignValuesPage(
    request: { start: string; end: string; conversionMetricId: string },
    pageCursor: string | null,
  ): Promise<{ results: KlaviyoReportResult[]; nextPageCursor: string | null }> {
    const { data } = await this.http.json(`${this.baseUrl}/campaign-values-reports`, campaignValuesResponse, {
      method: 'POST',
      headers: { ...this.headers, 'content-type': JSON_API },
      query: { page_cursor: pageCursor ?? undefined },
      json: {
        data: {
          type: 'campaign-values-report',
          attributes: {
            statistics: REPORT_STATISTICS,
            timeframe: { start: request.start, end: request.end },
            conversion_metric_id: request.conversionMetricId,
            filter: 'equals(send_channel,"email")',
          },
        },
      },
    });
    return { results: data.data.attributes.results, nextPageCursor: queryParamOf(data.links?.next, 'page_cursor') };
  }

  /**
   * One page of flows, active ones (archived=false) or archived ones (archived=true): both are asked
   * for explicitly, since the reference does not say whether an unfiltered list includes archived flows.
   */
  async flowsPage(pageCursor: string | null, archived: boolean): Promise<{ flows: KlaviyoFlow[]; nextPageCursor: string | null }> {
    const { data } = await this.flowsHttp.json(`${this.baseUrl}/flows`, flowsPage, {
      headers: this.headers,
      query: {
        filter: `equals(archived,${archived})`,
        'fields[flow]': FLOW_FIELDS,
        'page[size]': FLOWS_PAGE_SIZE,
        'page[cursor]': pageCursor ?? undefined,
      },
    });
    return { flows: data.data, nextPageCursor: queryParamOf(data.links?.next, 'page[cursor]') };
  }

  /** One flow by id; null when Klaviyo no longer has it (404: the flow was deleted). */
  async flow(id: string): Promise<KlaviyoFlow | null> {
    const http = this.flowsHttp.with({ classify: (response) => (response.status === 404 ? { kind: 'ok' } : (classifyFlows(response) ?? defaultVerdict(response))) });
    const response = await http.request(`${this.baseUrl}/flows/${encodeURIComponent(id)}`, { headers: this.headers, query: { 'fields[flow]': FLOW_FIELDS } });
    if (response.status === 404) return null;
    const parsed = oneFlow.safeParse(response.json());
    if (!parsed.success) throw new MalformedResponseError(KLAVIYO_PLATFORM, `flow ${id}: ${parsed.error.issues[0]?.message ?? 'unexpected shape'}`);
    return parsed.data.data;
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
    const { data } = await this.flowsHttp.json(`${this.baseUrl}/flow-series-reports`, flowSeriesResponse, {
      method: 'POST',
      headers: { ...this.headers, 'content-type': JSON_API },
      query: { page_cursor: pageCursor ?? undefined },
      json: {
        data: {
          type: 'flow-series-report',
          attributes: {
            statistics: REPORT_STATISTICS,
            timeframe: { start: request.start, end: request.end },
            interval: 'daily',
            conversion_metric_id: request.conversionMetricId,
            filter: 'equals(send_channel,"email")',
          },
        },
      },
    });
    const { results, date_times: dateTimes } = data.data.attributes;
    return { results, dateTimes, nextPageCursor: queryParamOf(data.links?.next, 'page_cursor') };
  }
}

const links = z.object({ next: z.string().nullish() }).optional();

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
