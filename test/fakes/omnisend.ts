import { FakeServer, seededRandom, type FakeRequest, type FakeResponse } from './fake-server.ts';

// Omnisend API v3 as platform-apis.md 9 and third-party clients describe it: `X-API-KEY`,
// GET /v3/campaigns?limit&offset answering {campaign: [...], paging: {previous, next (full URL),
// limit, offset, total}}, problem+json errors and 429 without any rate-limit header. Campaign i is
// made lazily from the seed and starts on day floor(i * days / campaigns); every tenth is a draft.

export interface OmnisendFakeOptions {
  seed?: number;
  campaigns?: number;
  apiKey?: string;
  start?: string;
  days?: number;
}

export interface OmnisendFakeCampaign {
  campaignID: string;
  name: string;
  status: string;
  type: string;
  fromName: string;
  subject: string;
  createdAt: string;
  updatedAt: string;
  startDate: string | null;
  endDate: string | null;
  sent: number;
  opened: number;
  clicked: number;
  bounced: number;
  unsubscribed: number;
}

function problem(status: number, title: string, detail: string): FakeResponse {
  return { status, headers: { 'content-type': 'application/problem+json' }, body: { type: 'https://problems.omnisend.com/problem', title, status, detail, instance: `urn:omnisend:request:fake-${status}` } };
}

export class OmnisendFake extends FakeServer {
  readonly options: Required<OmnisendFakeOptions>;
  private revoked = false;
  private readonly overrides = new Map<string, Partial<OmnisendFakeCampaign>>();

  constructor(options: OmnisendFakeOptions = {}) {
    super();
    this.options = { seed: 1, campaigns: 150, apiKey: '5f0123456789abcdef012345-0123456789abcdef0123456789abcdef0123456789abcdef01', start: '2025-01-01', days: 365, ...options };
    this.route('GET', '/v3/campaigns', (request) => this.guard(request, () => this.campaignsPage(request)));
  }

  get apiUrl(): string {
    return `${this.url}/v3`;
  }

  revokeKey(): void {
    this.revoked = true;
  }

  updateCampaign(id: string, changes: Partial<OmnisendFakeCampaign>): void {
    this.overrides.set(id, { ...this.overrides.get(id), ...changes });
  }

  campaign(index: number): OmnisendFakeCampaign {
    const random = seededRandom(this.options.seed * 65_537 + index * 31_337);
    const id = (index + 1).toString(16).padStart(24, '5f0a');
    const dayOffset = Math.floor((index * this.options.days) / this.options.campaigns);
    const start = new Date(Date.parse(`${this.options.start}T00:00:00Z`) + dayOffset * 86_400_000 + Math.floor(random() * 86_400) * 1000);
    const draft = index % 10 === 9;
    const sent = draft ? 0 : 300 + Math.floor(random() * 6000);
    const opened = Math.floor(sent * (0.2 + random() * 0.3));
    const created = new Date(start.getTime() - 2 * 86_400_000).toISOString();
    return {
      campaignID: id,
      name: `Omnisend campaign ${index + 1}`,
      status: draft ? 'draft' : 'sent',
      type: 'regular',
      fromName: 'Fake Outdoor Co',
      subject: `Subject ${index + 1}`,
      createdAt: created,
      updatedAt: created,
      startDate: draft ? null : start.toISOString(),
      endDate: draft ? null : new Date(start.getTime() + 3_600_000).toISOString(),
      sent,
      opened,
      clicked: Math.floor(opened * (0.05 + random() * 0.2)),
      bounced: Math.floor(sent * 0.01),
      unsubscribed: Math.floor(random() * 5),
      ...this.overrides.get(id),
    };
  }

  /** The rows a connector should produce for campaigns started in [since, until), UTC days. */
  expectedRows(since: Date, until: Date) {
    const rows = [];
    for (let index = 0; index < this.options.campaigns; index++) {
      const campaign = this.campaign(index);
      if (!campaign.startDate || campaign.status === 'draft') continue;
      const time = Date.parse(campaign.startDate);
      if (time < since.getTime() || time >= until.getTime()) continue;
      rows.push({ campaignId: campaign.campaignID, day: campaign.startDate.slice(0, 10), campaignName: campaign.name, sends: campaign.sent, opens: campaign.opened, clicks: campaign.clicked });
    }
    return rows;
  }

  private guard(request: FakeRequest, answer: () => FakeResponse): FakeResponse {
    const fault = this.takeFault(request);
    if (fault === 'rate_limit') return problem(429, 'Too Many Requests', 'Rate limit exceeded: 400 requests per minute.');
    if (fault === 'server_error') return problem(500, 'Internal Server Error', 'Unexpected error occurred.');
    if (fault === 'malformed') return { status: 200, body: { campaign: { campaignID: 1 }, paging: 'next' } };
    if (fault === 'expired_token' || fault === 'revoked' || this.revoked || request.headers['x-api-key'] !== this.options.apiKey) {
      return problem(401, 'Unauthorized', 'Authentication is missing or invalid.');
    }
    return answer();
  }

  private campaignsPage(request: FakeRequest): FakeResponse {
    const limit = Number(request.query.get('limit') ?? 100);
    const offset = Number(request.query.get('offset') ?? 0);
    if (!Number.isInteger(limit) || limit < 1 || limit > 250 || !Number.isInteger(offset) || offset < 0) return problem(400, 'Bad Request', 'limit must be 1..250 and offset >= 0.');
    const total = this.options.campaigns;
    const campaigns = [];
    for (let index = offset; index < Math.min(total, offset + limit); index++) campaigns.push(this.campaign(index));
    const link = (at: number) => `${this.url}/v3/campaigns?limit=${limit}&offset=${at}`;
    return {
      body: {
        campaign: campaigns,
        paging: { previous: offset > 0 ? link(Math.max(0, offset - limit)) : null, next: offset + limit < total ? link(offset + limit) : null, limit, offset, total },
      },
    };
  }
}

export async function startOmnisendFake(options: OmnisendFakeOptions = {}): Promise<OmnisendFake> {
  return new OmnisendFake(options).start();
}
