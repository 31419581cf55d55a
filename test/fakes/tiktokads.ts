import { AccountDataSets, AdPlatformFake, AdDataSet, FakeTokenAuthority, minorToDecimal, type CampaignDay } from './ads-common.ts';
import { seededRandom, type FakeRequest, type FakeResponse } from './fake-server.ts';
import { daysBetween } from '../../src/server/modules/commerce/days.ts';

// TikTok API for Business fake: the advertiser authorization page, /oauth2/access_token/ (auth_code
// -> long-lived token and the advertisers authorized), /advertiser/info/, and the synchronous
// /report/integrated/get/ at campaign or advertiser level by day, with page/page_size/total_page.
// Answers use TikTok's envelope {code, message, request_id, data}; errors come as HTTP 200 with a
// non-zero code.
//
// Rules enforced, as documented (TikTok's own SDK, tiktok/tiktok-business-api-sdk, ReportingApi
// reportIntegratedGet, which mirrors https://business-api.tiktok.com/portal/docs?id=1740302848100353):
// - page_size: 1-1000 (default 10).
// - order_field: "All supported metrics (excluding attribute metrics) support sorting. Not sorting by
//   default", order_type ASC|DESC (default DESC). Without order_field the rows come in no fixed order:
//   the fake deals them anew on every request, so a row can move between pages read one after the
//   other; ties of the sort field are dealt likewise.
// - start_date/end_date are the advertiser's days, at most 30 days apart with stat_time_day (report time
//   range doc, https://business-api.tiktok.com/portal/docs?id=1714590313280513, as connectors citing it apply it).
// - Each advertiser reports in its own currency and time zone (advertiser/info `currency`, `timezone`).
// - The advertiser access token is long-term (no expiry, no refresh token:
//   https://business-api.tiktok.com/portal/docs?id=1738373164380162); a revoked one answers 40105.

/** One advertiser the user authorized. */
export interface FakeTikTokAdvertiser {
  id: string;
  name: string;
  currency: string;
  /** advertiser/info `timezone`. */
  timezone: string;
  seed?: number;
  campaigns?: number;
}

export interface TikTokAdsFakeOptions {
  seed?: number;
  campaigns?: number;
  advertiserId?: string;
  advertiserName?: string;
  currency?: string;
  /** Every advertiser the user authorizes (instead of the one described by advertiserId...). */
  advertisers?: FakeTikTokAdvertiser[];
}

const MAX_DAYS = 30;
const MAX_PAGE_SIZE = 1000;
/** Attribute metrics cannot be sorted by. */
const ATTRIBUTE_METRICS = new Set(['campaign_name', 'adgroup_name', 'ad_name', 'objective_type', 'currency']);

let requestCounter = 0;
function envelope(code: number, message: string, data: unknown = {}): FakeResponse {
  requestCounter++;
  return { body: { code, message, request_id: `2026011511333726${String(requestCounter).padStart(6, '0')}`, data } };
}

function jsonList(text: string | null): string[] | null {
  try {
    const value = JSON.parse(text ?? '') as unknown;
    return Array.isArray(value) ? value.map(String) : null;
  } catch {
    return null;
  }
}

type ReportRow = { dimensions: Record<string, string>; metrics: Record<string, string> };

export class TikTokAdsFake extends AdPlatformFake {
  /** The first advertiser's campaigns (what the shared ad-fake helpers read). */
  readonly data: AdDataSet;
  readonly auth: FakeTokenAuthority;
  /** The first advertiser (the one connectedCredentials names). */
  readonly advertiserId: string;
  readonly advertiserName: string;
  readonly advertisers: FakeTikTokAdvertiser[];
  readonly accountData = new AccountDataSets();
  /** Deals the rows of an unsorted report anew on every request. */
  private readonly shuffle = seededRandom(20_260_115);

  constructor(options: TikTokAdsFakeOptions = {}) {
    super();
    this.advertisers = options.advertisers ?? [
      { id: options.advertiserId ?? '7010000000000000000', name: options.advertiserName ?? 'Fake Store – TikTok', currency: options.currency ?? 'USD', timezone: 'Etc/GMT' },
    ];
    this.advertisers.forEach((advertiser, index) => {
      const campaignIdBase = 1_800_000_000_000_001n + BigInt(index) * 1_000_000n;
      this.accountData.add(advertiser.id, new AdDataSet({ seed: advertiser.seed ?? options.seed, campaigns: advertiser.campaigns ?? options.campaigns, currency: advertiser.currency, campaignIdBase }));
    });
    this.data = this.accountData.of(this.advertisers[0]!.id);
    this.auth = new FakeTokenAuthority({ clientId: '7000000000000000000', accessTokenSeconds: null });
    this.advertiserId = this.advertisers[0]!.id;
    this.advertiserName = this.advertisers[0]!.name;

    this.route('GET', '/portal/auth', (request) => this.consent(request));
    this.route('POST', '/open_api/:version/oauth2/access_token/', (request) => this.accessToken(request));
    this.route('GET', '/open_api/:version/advertiser/info/', (request) => this.guarded(request, () => this.advertiserInfo(request)));
    this.route('GET', '/open_api/:version/report/integrated/get/', (request) => this.guarded(request, () => this.report(request)));
  }

  /** The campaigns of every account the login can sync. */
  accountDataSets(): AdDataSet[] {
    return this.accountData.all();
  }

  /** One account's campaigns. */
  dataOf(advertiserId: string): AdDataSet {
    return this.accountData.of(advertiserId);
  }

  /** Changes a campaign's figures in whichever account runs it. */
  override updateMetric(campaignId: string, day: string, changes: Parameters<AdDataSet['update']>[2]): void {
    this.accountData.update(campaignId, day, changes);
  }

  /** What the code exchange stores now: the token and every authorized advertiser. */
  loginCredentials(): Record<string, string> {
    return { accessToken: this.auth.issueAccessToken('act').token, advertiserIds: JSON.stringify(this.advertisers.map((advertiser) => advertiser.id)) };
  }

  /** Credentials as a connection made before accounts could be chosen stores them: the token and one advertiser. */
  connectedCredentials(): Record<string, string> {
    return { accessToken: this.auth.issueAccessToken('act').token, advertiserId: this.advertiserId };
  }

  private consent(request: FakeRequest): FakeResponse {
    return this.consentAnswer(request, {
      appIdParam: 'app_id',
      invalidAppHtml: '<h1>Invalid app_id</h1>',
      platformName: 'TikTok For Business',
      scopes: () => ['Ads Management', 'Reporting'],
      allow: (code, state) => ({ auth_code: code, code, state }),
      deny: (state) => ({ error: 'access_denied', state }),
    });
  }

  private accessToken(request: FakeRequest): FakeResponse {
    const body = (request.body ?? {}) as { app_id?: string; secret?: string; auth_code?: string };
    if (body.app_id !== this.auth.clientId || body.secret !== this.auth.clientSecret) return envelope(40101, 'Invalid app_id or secret.');
    const refused = this.auth.redeemCode(body.auth_code ?? '', this.auth.clientId);
    if (refused) return envelope(40110, `Invalid auth_code: ${refused}.`);
    return envelope(0, 'OK', {
      access_token: this.auth.issueAccessToken('act').token,
      advertiser_ids: this.advertisers.map((advertiser) => advertiser.id),
      scope: [4, 6],
    });
  }

  private guarded(request: FakeRequest, answer: () => FakeResponse): FakeResponse {
    switch (this.takeFault(request)) {
      case 'rate_limit':
        return envelope(40100, 'Too many requests. Request QPS exceeds the limit.');
      case 'server_error':
        return envelope(50000, 'System error, please retry later.');
      case 'malformed':
        return envelope(0, 'OK', { list: 'not a list', page_info: {} });
      case 'expired_token':
      case 'revoked':
        this.auth.revokeAll();
        break;
      default:
        break;
    }
    const token = request.headers['access-token'];
    const state = this.auth.accessTokenState(Array.isArray(token) ? token[0] : token);
    if (state !== 'valid') return envelope(40105, 'Access token is incorrect or has been revoked.');
    return answer();
  }

  private advertiserInfo(request: FakeRequest): FakeResponse {
    const ids = jsonList(request.query.get('advertiser_ids'));
    if (!ids) return envelope(40002, 'advertiser_ids: Not a valid list.');
    if (ids.length > 100) return envelope(40002, 'advertiser_ids: at most 100 advertiser ids.');
    const list = this.advertisers
      .filter((advertiser) => ids.includes(advertiser.id))
      .map((advertiser) => ({ advertiser_id: advertiser.id, name: advertiser.name, currency: advertiser.currency, timezone: advertiser.timezone }));
    return envelope(0, 'OK', { list });
  }

  private report(request: FakeRequest): FakeResponse {
    const query = request.query;
    const advertiser = this.advertisers.find((candidate) => candidate.id === query.get('advertiser_id'));
    if (!advertiser) return envelope(40001, 'No permission to operate advertiser.');
    const start = query.get('start_date') ?? '';
    const end = query.get('end_date') ?? '';
    const dimensions = jsonList(query.get('dimensions'));
    const metrics = jsonList(query.get('metrics'));
    if (!/^\d{4}-\d{2}-\d{2}$/.test(start) || !/^\d{4}-\d{2}-\d{2}$/.test(end) || end < start) return envelope(40002, 'start_date/end_date: invalid.');
    if (daysBetween(start, end) + 1 > MAX_DAYS) return envelope(40002, `The time span cannot exceed ${MAX_DAYS} days when stat_time_day is a dimension.`);
    if (!dimensions?.includes('stat_time_day') || !metrics) return envelope(40002, 'dimensions: stat_time_day is required by this fake.');
    const page = Number(query.get('page') ?? 1);
    const pageSize = Number(query.get('page_size') ?? 10);
    if (!(pageSize >= 1 && pageSize <= MAX_PAGE_SIZE) || !(page >= 1)) return envelope(40002, `page_size: value range 1-${MAX_PAGE_SIZE}.`);
    const orderField = query.get('order_field');
    const orderType = query.get('order_type') ?? 'DESC';
    if (orderField !== null && (!metrics.includes(orderField) || ATTRIBUTE_METRICS.has(orderField))) return envelope(40002, `order_field: ${orderField} is not a requested metric that supports sorting.`);
    if (orderType !== 'ASC' && orderType !== 'DESC') return envelope(40002, 'order_type: ASC or DESC.');

    const data = this.dataOf(advertiser.id);
    const level = query.get('data_level');
    const rows: ReportRow[] | null =
      level === 'AUCTION_CAMPAIGN'
        ? data.rows(start, end).map((row) => this.campaignRow(data.currency, row, metrics))
        : level === 'AUCTION_ADVERTISER'
          ? Object.entries(data.expectedTotals(start, end).spendMinorByDay).map(([day, spendMinor]) => ({
              dimensions: { advertiser_id: advertiser.id, stat_time_day: `${day} 00:00:00` },
              metrics: { spend: minorToDecimal(spendMinor, data.currency) },
            }))
          : null;
    if (!rows) return envelope(40002, `data_level ${level} is not served by this fake.`);
    const ordered = this.order(rows, orderField, orderType);
    const totalPage = Math.max(1, Math.ceil(ordered.length / pageSize));
    return envelope(0, 'OK', {
      list: ordered.slice((page - 1) * pageSize, page * pageSize),
      page_info: { page, page_size: pageSize, total_number: ordered.length, total_page: totalPage },
    });
  }

  /** No order_field: dealt anew each request. With one: sorted by it (ties dealt anew, as the sort leaves them). */
  private order(rows: ReportRow[], orderField: string | null, orderType: string): ReportRow[] {
    const dealt = rows.map((row) => ({ row, deal: this.shuffle() })).sort((a, b) => a.deal - b.deal).map((entry) => entry.row);
    if (orderField === null) return dealt;
    const value = (row: ReportRow) => Number(row.metrics[orderField] ?? 0);
    return dealt.sort((a, b) => (orderType === 'ASC' ? value(a) - value(b) : value(b) - value(a)));
  }

  private campaignRow(currency: string, row: CampaignDay, metrics: string[]): ReportRow {
    const values: Record<string, string> = {
      campaign_name: row.campaignName,
      spend: minorToDecimal(row.spendMinor, currency),
      impressions: String(row.impressions),
      clicks: String(row.clicks),
      conversion: String(Math.ceil(row.conversions * 1.5)),
      complete_payment: String(row.conversions),
      total_complete_payment_rate: minorToDecimal(row.conversionValueMinor, currency),
    };
    return {
      dimensions: { campaign_id: row.campaignId, stat_time_day: `${row.day} 00:00:00` },
      metrics: Object.fromEntries(metrics.map((metric) => [metric, values[metric] ?? '-'])),
    };
  }
}

export async function startTikTokAdsFake(options: TikTokAdsFakeOptions = {}): Promise<TikTokAdsFake> {
  return new TikTokAdsFake(options).start();
}
