import { AdPlatformFake, AdDataSet, FakeTokenAuthority, minorToDecimal, type CampaignDay } from './ads-common.ts';
import type { FakeRequest, FakeResponse } from './fake-server.ts';
import { daysBetween } from '../../src/server/modules/commerce/days.ts';

// TikTok API for Business fake: the advertiser authorization page, /oauth2/access_token/ (auth_code
// -> long-lived token), /advertiser/info/, and the synchronous /report/integrated/get/ at campaign or
// advertiser level by day, with page/page_size/total_page. Answers use TikTok's envelope
// {code, message, request_id, data}; errors come as HTTP 200 with a non-zero code.

export interface TikTokAdsFakeOptions {
  seed?: number;
  campaigns?: number;
  advertiserId?: string;
  advertiserName?: string;
  currency?: string;
}

const MAX_DAYS = 30;
const MAX_PAGE_SIZE = 1000;

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

export class TikTokAdsFake extends AdPlatformFake {
  readonly data: AdDataSet;
  readonly auth: FakeTokenAuthority;
  readonly advertiserId: string;
  readonly advertiserName: string;

  constructor(options: TikTokAdsFakeOptions = {}) {
    super();
    this.data = new AdDataSet({ seed: options.seed, campaigns: options.campaigns, currency: options.currency, campaignIdBase: 1_800_000_000_000_001n });
    this.auth = new FakeTokenAuthority({ clientId: '7000000000000000000', accessTokenSeconds: null });
    this.advertiserId = options.advertiserId ?? '7010000000000000000';
    this.advertiserName = options.advertiserName ?? 'Fake Store – TikTok';

    this.route('GET', '/portal/auth', (request) => this.consent(request));
    this.route('POST', '/open_api/:version/oauth2/access_token/', (request) => this.accessToken(request));
    this.route('GET', '/open_api/:version/advertiser/info/', (request) => this.guarded(request, () => this.advertiserInfo(request)));
    this.route('GET', '/open_api/:version/report/integrated/get/', (request) => this.guarded(request, () => this.report(request)));
  }

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
      advertiser_ids: [this.advertiserId, '7010000000000000099'],
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
    const list = ids.filter((id) => id === this.advertiserId).map(() => ({ advertiser_id: this.advertiserId, name: this.advertiserName, currency: this.data.currency, timezone: 'Etc/GMT' }));
    return envelope(0, 'OK', { list });
  }

  private report(request: FakeRequest): FakeResponse {
    const query = request.query;
    if (query.get('advertiser_id') !== this.advertiserId) return envelope(40001, 'No permission to operate advertiser.');
    const start = query.get('start_date') ?? '';
    const end = query.get('end_date') ?? '';
    const dimensions = jsonList(query.get('dimensions'));
    const metrics = jsonList(query.get('metrics'));
    if (!/^\d{4}-\d{2}-\d{2}$/.test(start) || !/^\d{4}-\d{2}-\d{2}$/.test(end) || end < start) return envelope(40002, 'start_date/end_date: invalid.');
    if (daysBetween(start, end) + 1 > MAX_DAYS) return envelope(40002, `The time span cannot exceed ${MAX_DAYS} days when stat_time_day is a dimension.`);
    if (!dimensions?.includes('stat_time_day') || !metrics) return envelope(40002, 'dimensions: stat_time_day is required by this fake.');
    const page = Number(query.get('page') ?? 1);
    const pageSize = Number(query.get('page_size') ?? 10);
    if (!(pageSize >= 1 && pageSize <= MAX_PAGE_SIZE) || !(page >= 1)) return envelope(40002, 'page/page_size out of range.');

    const currency = this.data.currency;
    const level = query.get('data_level');
    const rows =
      level === 'AUCTION_CAMPAIGN'
        ? this.data.rows(start, end).map((row) => this.campaignRow(row, metrics))
        : level === 'AUCTION_ADVERTISER'
          ? Object.entries(this.data.expectedTotals(start, end).spendMinorByDay).map(([day, spendMinor]) => ({
              dimensions: { advertiser_id: this.advertiserId, stat_time_day: `${day} 00:00:00` },
              metrics: { spend: minorToDecimal(spendMinor, currency) },
            }))
          : null;
    if (!rows) return envelope(40002, `data_level ${level} is not served by this fake.`);
    const totalPage = Math.max(1, Math.ceil(rows.length / pageSize));
    return envelope(0, 'OK', {
      list: rows.slice((page - 1) * pageSize, page * pageSize),
      page_info: { page, page_size: pageSize, total_number: rows.length, total_page: totalPage },
    });
  }

  private campaignRow(row: CampaignDay, metrics: string[]): Record<string, unknown> {
    const currency = this.data.currency;
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
