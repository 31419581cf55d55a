import { FakeServer, seededRandom, type FakeRequest, type FakeResponse } from './fake-server.ts';

// Klaviyo as platform-apis.md 7 describes it: JSON:API pages linked by links.next (page[cursor]),
// the mandatory `revision` header and channel filter on /api/campaigns, campaign-values-reports with
// page_cursor, 429 + Retry-After, 401 for a bad key. The account is in UTC and its campaigns are made
// lazily from the seed: campaign i goes out on day floor(i * days / campaigns) of the data range.

export interface KlaviyoFakeOptions {
  seed?: number;
  campaigns?: number;
  apiKey?: string;
  /** First day of the data set (UTC). */
  start?: string;
  days?: number;
  currency?: string;
  organizationName?: string;
  campaignsPageSize?: number;
  reportPageSize?: number;
  metricsPageSize?: number;
  /** false: the account has no "Placed Order" metric (no store connected). */
  withPlacedOrder?: boolean;
  /** Seconds sent in Retry-After on a throttled answer. */
  retryAfterSeconds?: number;
}

export interface KlaviyoFakeMessageStats {
  recipients: number;
  delivered: number;
  opens_unique: number;
  clicks_unique: number;
  conversions: number;
  conversion_value: number;
}

export interface KlaviyoFakeCampaign {
  id: string;
  name: string;
  channel: 'email' | 'sms';
  sendTime: string;
  messages: { id: string; statistics: KlaviyoFakeMessageStats }[];
}

const METRIC_NAMES = ['Received Email', 'Opened Email', 'Clicked Email', 'Bounced Email', 'Unsubscribed', 'Active on Site', 'Placed Order'];

function encodePageCursor(offset: number): string {
  return Buffer.from(`offset:${offset}`).toString('base64url');
}

function decodePageCursor(cursor: string | null): number | null {
  if (!cursor) return 0;
  const match = /^offset:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match ? Number(match[1]) : null;
}

function jsonApiError(status: number, code: string, detail: string): FakeResponse {
  return { status, headers: { 'content-type': 'application/vnd.api+json' }, body: { errors: [{ id: `err-${code}`, status, code, title: detail, detail, source: { pointer: '/data/' } }] } };
}

export class KlaviyoFake extends FakeServer {
  readonly options: Required<KlaviyoFakeOptions>;
  private revoked = false;
  private readonly overrides = new Map<string, Partial<KlaviyoFakeMessageStats>>();

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
      campaignsPageSize: 10,
      reportPageSize: 25,
      metricsPageSize: 3,
      withPlacedOrder: true,
      retryAfterSeconds: 2,
      ...options,
    };
    this.route('GET', '/api/accounts', (request) => this.guard(request, () => this.accounts()));
    this.route('GET', '/api/metrics', (request) => this.guard(request, () => this.metrics(request)));
    this.route('GET', '/api/campaigns', (request) => this.guard(request, () => this.campaignsPage(request)));
    this.route('POST', '/api/campaign-values-reports', (request) => this.guard(request, () => this.campaignValues(request)));
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

  campaign(index: number): KlaviyoFakeCampaign {
    const random = seededRandom(this.options.seed * 1_000_003 + index * 7919);
    const id = `01KL${index.toString(36).toUpperCase().padStart(22, '0')}`;
    const dayOffset = Math.floor((index * this.options.days) / this.options.campaigns);
    const sendTime = new Date(Date.parse(`${this.options.start}T00:00:00Z`) + dayOffset * 86_400_000 + Math.floor(6 + random() * 14) * 3_600_000 + Math.floor(random() * 60) * 60_000);
    const messageCount = index % 5 === 0 ? 2 : 1;
    const messages = Array.from({ length: messageCount }, (_, m) => {
      const recipients = 500 + Math.floor(random() * 4500);
      const delivered = Math.floor(recipients * (0.95 + random() * 0.05));
      const opens = Math.floor(delivered * (0.2 + random() * 0.25));
      const conversions = Math.floor(random() * 30);
      const statistics: KlaviyoFakeMessageStats = {
        recipients,
        delivered,
        opens_unique: opens,
        clicks_unique: Math.floor(opens * (0.05 + random() * 0.2)),
        conversions,
        conversion_value: Math.round(conversions * (2000 + random() * 10000)) / 100,
        ...this.overrides.get(id),
      };
      return { id: `${id.slice(0, -1)}${String.fromCharCode(65 + m)}`, statistics };
    });
    return { id, name: `Campaign ${index + 1}: ${['Spring sale', 'New arrivals', 'Weekly picks', 'VIP early access', 'Back in stock'][index % 5]}`, channel: index % 7 === 3 ? 'sms' : 'email', sendTime: sendTime.toISOString(), messages };
  }

  /** The rows a connector should produce for campaigns sent in [since, until), in UTC days. */
  expectedRows(since: Date, until: Date) {
    const rows = [];
    for (let index = 0; index < this.options.campaigns; index++) {
      const campaign = this.campaign(index);
      const time = Date.parse(campaign.sendTime);
      if (campaign.channel !== 'email' || time < since.getTime() || time >= until.getTime()) continue;
      const sum = (key: keyof KlaviyoFakeMessageStats) => campaign.messages.reduce((total, message) => total + message.statistics[key], 0);
      rows.push({
        campaignId: campaign.id,
        day: campaign.sendTime.slice(0, 10),
        campaignName: campaign.name,
        sends: sum('recipients'),
        opens: sum('opens_unique'),
        clicks: sum('clicks_unique'),
        attributedOrders: this.options.withPlacedOrder ? sum('conversions') : 0,
        attributedRevenueMinor: this.options.withPlacedOrder ? campaign.messages.reduce((total, message) => total + Math.round(message.statistics.conversion_value * 100), 0) : 0,
      });
    }
    return rows;
  }

  private guard(request: FakeRequest, answer: () => FakeResponse): FakeResponse {
    const fault = this.takeFault(request);
    if (fault === 'rate_limit') {
      const response = jsonApiError(429, 'throttled', `Request was throttled. Expected available in ${this.options.retryAfterSeconds} seconds.`);
      return { ...response, headers: { ...response.headers, 'retry-after': String(this.options.retryAfterSeconds) } };
    }
    if (fault === 'server_error') return jsonApiError(503, 'service_unavailable', 'Service temporarily unavailable.');
    if (fault === 'malformed') return { status: 200, headers: { 'content-type': 'application/vnd.api+json' }, body: { data: { attributes: { results: 'not a list' } }, links: 7 } };
    if (fault === 'expired_token' || fault === 'revoked' || this.revoked || request.headers.authorization !== `Klaviyo-API-Key ${this.options.apiKey}`) {
      return jsonApiError(401, 'not_authenticated', 'Incorrect authentication credentials.');
    }
    if (!/^\d{4}-\d{2}-\d{2}(\.\w+)?$/.test(String(request.headers.revision ?? ''))) return jsonApiError(400, 'invalid', 'A valid revision header is required.');
    return answer();
  }

  private accounts(): FakeResponse {
    return {
      headers: { 'content-type': 'application/vnd.api+json' },
      body: {
        data: [{
          type: 'account',
          id: 'AbC123',
          attributes: { test_account: false, contact_information: { organization_name: this.options.organizationName, default_sender_email: 'shop@example.com' }, timezone: 'UTC', preferred_currency: this.options.currency, public_api_key: 'AbC123' },
          links: { self: `${this.url}/api/accounts/AbC123/` },
        }],
        links: { self: `${this.url}/api/accounts/`, next: null, prev: null },
      },
    };
  }

  private page<T>(items: T[], request: FakeRequest, size: number, path: string): { error: FakeResponse } | { items: T[]; next: string | null } {
    const offset = decodePageCursor(request.query.get('page[cursor]'));
    if (offset === null) return { error: jsonApiError(400, 'invalid', 'Invalid page cursor.') };
    const nextOffset = offset + size;
    return { items: items.slice(offset, nextOffset), next: nextOffset < items.length ? `${this.url}${path}?page%5Bcursor%5D=${encodePageCursor(nextOffset)}` : null };
  }

  private metrics(request: FakeRequest): FakeResponse {
    const names = this.options.withPlacedOrder ? METRIC_NAMES : METRIC_NAMES.filter((name) => name !== 'Placed Order');
    const metrics = names.map((name, index) => ({ type: 'metric', id: `M${String(index).padStart(5, '0')}`, attributes: { name, created: '2024-01-01T00:00:00+00:00' } }));
    const page = this.page(metrics, request, this.options.metricsPageSize, '/api/metrics');
    if ('error' in page) return page.error;
    return { body: { data: page.items, links: { self: `${this.url}/api/metrics`, next: page.next, prev: null } } };
  }

  private campaignsPage(request: FakeRequest): FakeResponse {
    const filter = request.query.get('filter') ?? '';
    const channel = /equals\(messages\.channel,'(\w+)'\)/.exec(filter)?.[1];
    if (!channel) return jsonApiError(400, 'invalid', 'A channel filter is required: filter=equals(messages.channel,...)');
    const all: unknown[] = [];
    for (let index = 0; index < this.options.campaigns; index++) {
      const campaign = this.campaign(index);
      if (campaign.channel !== channel) continue;
      all.push({
        type: 'campaign',
        id: campaign.id,
        attributes: { name: campaign.name, status: 'Sent', archived: false, send_time: campaign.sendTime.replace('.000Z', '+00:00'), scheduled_at: null, created_at: campaign.sendTime, updated_at: campaign.sendTime },
        links: { self: `${this.url}/api/campaigns/${campaign.id}/` },
      });
    }
    const page = this.page(all, request, this.options.campaignsPageSize, '/api/campaigns');
    if ('error' in page) return page.error;
    return { body: { data: page.items, links: { self: `${this.url}/api/campaigns`, next: page.next, prev: null } } };
  }

  private campaignValues(request: FakeRequest): FakeResponse {
    const body = request.body as { data?: { type?: string; attributes?: { statistics?: string[]; timeframe?: { start?: string; end?: string }; conversion_metric_id?: string } } } | undefined;
    const attributes = body?.data?.attributes;
    if (body?.data?.type !== 'campaign-values-report' || !attributes?.statistics?.length || !attributes.conversion_metric_id) {
      return jsonApiError(400, 'invalid', 'statistics, timeframe and conversion_metric_id are required.');
    }
    const start = Date.parse(attributes.timeframe?.start ?? '');
    const end = Date.parse(attributes.timeframe?.end ?? '');
    if (Number.isNaN(start) || Number.isNaN(end) || end < start || end - start > 366 * 86_400_000) return jsonApiError(400, 'invalid', 'timeframe must be a start/end of at most one year.');
    const placedOrderId = `M${String(METRIC_NAMES.indexOf('Placed Order')).padStart(5, '0')}`;
    const converts = this.options.withPlacedOrder && attributes.conversion_metric_id === placedOrderId;

    const results: unknown[] = [];
    for (let index = 0; index < this.options.campaigns; index++) {
      const campaign = this.campaign(index);
      const time = Date.parse(campaign.sendTime);
      if (campaign.channel !== 'email' || time < start || time > end) continue;
      for (const message of campaign.messages) {
        const statistics: Record<string, number> = {};
        for (const name of attributes.statistics) {
          const value = message.statistics[name as keyof KlaviyoFakeMessageStats] ?? 0;
          statistics[name] = !converts && (name === 'conversions' || name === 'conversion_value') ? 0 : value;
        }
        results.push({ groupings: { send_channel: 'email', campaign_id: campaign.id, campaign_message_id: message.id }, statistics });
      }
    }
    const offset = decodePageCursor(request.query.get('page_cursor'));
    if (offset === null) return jsonApiError(400, 'invalid', 'Invalid page_cursor.');
    const nextOffset = offset + this.options.reportPageSize;
    return {
      headers: { 'content-type': 'application/vnd.api+json', 'ratelimit-limit': '2', 'ratelimit-remaining': '1', 'ratelimit-reset': '30' },
      body: {
        data: {
          type: 'campaign-values-report',
          attributes: { results: results.slice(offset, nextOffset) },
          relationships: { campaigns: { data: [] } },
        },
        links: { self: `${this.url}/api/campaign-values-reports/`, next: nextOffset < results.length ? `${this.url}/api/campaign-values-reports/?page_cursor=${encodePageCursor(nextOffset)}` : null },
      },
    };
  }
}

export async function startKlaviyoFake(options: KlaviyoFakeOptions = {}): Promise<KlaviyoFake> {
  return new KlaviyoFake(options).start();
}
