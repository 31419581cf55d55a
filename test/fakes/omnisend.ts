import { FakeClock, FixedWindows } from '../../src/server/connectors/email-shared/fixed-windows.ts';
import { FakeServer, seededRandom, type FakeRequest, type FakeResponse } from './fake-server.ts';

// Omnisend API v3 as its v3 reference describes it (docs/platform-notes.md "## Omnisend" lists each
// rule with its source): `X-API-KEY`, GET /v3/campaigns?limit&offset answering {campaign: [...],
// paging: {previous, next (full URL), limit, offset, total}} with the documented campaign fields and
// statuses (draft, scheduled, paused, inProgress, sent), 400 requests a minute per key with
// X-Rate-Limit-Limit / -Remaining / -Reset on every answer and 429 past it. Every 400 it answers is
// recorded in `refusals`. Campaign i is made lazily from the seed and starts on day
// floor(i * days / campaigns); every tenth is a draft, every 25th is still sending.

export interface OmnisendFakeOptions {
  seed?: number;
  campaigns?: number;
  apiKey?: string;
  start?: string;
  days?: number;
  /** Requests a minute per key (the documented 400; tests lower it to see the limit). */
  requestsPerMinute?: number;
  /** The instant the fake's clock starts at; it skips ahead by each X-Rate-Limit-Reset it refuses with (see FakeClock). */
  now?: string;
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
  readonly options: Required<Omit<OmnisendFakeOptions, 'now'>> & Pick<OmnisendFakeOptions, 'now'>;
  /** Every request the fake refused as invalid (400), with the reason. */
  readonly refusals: { path: string; reason: string }[] = [];
  /** Every X-Rate-Limit-Reset (seconds) the fake refused with, in order. */
  readonly throttles: number[] = [];
  readonly clock: FakeClock;
  private revoked = false;
  private readonly overrides = new Map<string, Partial<OmnisendFakeCampaign>>();
  private readonly windows = new FixedWindows();

  constructor(options: OmnisendFakeOptions = {}) {
    super();
    this.options = {
      seed: 1,
      campaigns: 150,
      apiKey: '5f0123456789abcdef012345-0123456789abcdef0123456789abcdef0123456789abcdef01',
      start: '2025-01-01',
      days: 365,
      // "API requests limit rate: 400 requests per 1 minute" (https://api-docs.omnisend.com/v3/reference/rate-limit-timeouts-errors)
      requestsPerMinute: 400,
      ...options,
    };
    this.clock = new FakeClock('skip-ahead', this.options.now ? new Date(this.options.now) : undefined);
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
    const sending = !draft && index % 25 === 12;
    const sent = draft ? 0 : 300 + Math.floor(random() * 6000);
    const opened = Math.floor(sent * (0.2 + random() * 0.3));
    const created = new Date(start.getTime() - 2 * 86_400_000).toISOString();
    return {
      campaignID: id,
      name: `Omnisend campaign ${index + 1}`,
      status: draft ? 'draft' : sending ? 'inProgress' : 'sent',
      // "standart" is how the v3 reference spells the ordinary campaign type
      type: 'standart',
      fromName: 'Fake Outdoor Co',
      subject: `Subject ${index + 1}`,
      createdAt: created,
      updatedAt: created,
      startDate: draft ? null : start.toISOString(),
      endDate: draft || sending ? null : new Date(start.getTime() + 3_600_000).toISOString(),
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
    // The v3 reference documents the 429 and the headers, not the body; this one is the problem
    // document of Omnisend's current API (unconfirmed for v3).
    if (fault === 'rate_limit') return problem(429, 'Too Many Requests', 'Rate limit exceeded: 400 requests per minute.');
    if (fault === 'server_error') return problem(500, 'Internal Server Error', 'Unexpected error occurred.');
    if (fault === 'malformed') return { status: 200, body: { campaign: { campaignID: 1 }, paging: 'next' } };
    if (fault === 'expired_token' || fault === 'revoked' || this.revoked || request.headers['x-api-key'] !== this.options.apiKey) {
      return problem(401, 'Unauthorized', 'Authentication is missing or invalid.');
    }
    // 400 requests per minute, "returned with every request in the following headers: X-Rate-Limit-Limit,
    // X-Rate-Limit-Remaining, X-Rate-Limit-Reset (the number of seconds left in the current period)";
    // past it, 429 (https://api-docs.omnisend.com/v3/reference/rate-limit-timeouts-errors).
    const limit = this.options.requestsPerMinute;
    const verdict = this.windows.take(this.options.apiKey, [{ limit, ms: 60_000 }], this.clock.now());
    if (!verdict.ok) {
      this.clock.throttled(verdict.retryAfterSeconds);
      this.throttles.push(verdict.retryAfterSeconds);
      const refused = problem(429, 'Too Many Requests', `Rate limit exceeded: ${limit} requests per minute.`);
      return { ...refused, headers: { ...refused.headers, 'x-rate-limit-limit': String(limit), 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': String(verdict.retryAfterSeconds) } };
    }
    const response = answer();
    const window = verdict.windows[0]!;
    return { ...response, headers: { ...response.headers, 'x-rate-limit-limit': String(limit), 'x-rate-limit-remaining': String(window.remaining), 'x-rate-limit-reset': String(window.resetSeconds) } };
  }

  private refuse(request: FakeRequest, detail: string): FakeResponse {
    this.refusals.push({ path: request.path, reason: detail });
    return problem(400, 'Bad Request', detail);
  }

  private campaignsPage(request: FakeRequest): FakeResponse {
    // limit/offset paging. A limit of at most 250 is documented for the current campaigns API (its
    // OpenAPI, GET /campaigns: "Maximum page size is 250 items. Default: 100"; harvested in
    // github.com/api-evangelist/omnisend openapi/_original/omnisend-campaigns-api-2026-03-15.json) and
    // kept for v3, whose reference we could not read on this point (unconfirmed).
    const limit = Number(request.query.get('limit') ?? 100);
    const offset = Number(request.query.get('offset') ?? 0);
    if (!Number.isInteger(limit) || limit < 1 || limit > 250 || !Number.isInteger(offset) || offset < 0) return this.refuse(request, 'limit must be 1..250 and offset >= 0.');
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
