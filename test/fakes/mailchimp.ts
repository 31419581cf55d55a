import { FakeServer, seededRandom, type FakeRequest, type FakeResponse } from './fake-server.ts';

// Mailchimp Marketing API 3.0 as its documentation and SDK types describe it (docs/platform-notes.md
// "## Mailchimp" lists each rule with its source): Basic (or Bearer) auth with the API key, GET /3.0/
// (the account, with account_timezone) and GET /3.0/reports with count (1..1000) / offset /
// total_items, `type` from the documented enum, since_send_time/before_send_time in the documented
// ISO 8601 form (2015-10-21T15:41:36+00:00) read as strictly after / strictly before (the docs say
// "after"/"before" and no more; the strict reading is the one a client must survive), problem+json
// errors, 429 above 10 simultaneous connections (no rate-limit headers) and, on request, a bare 403
// like Mailchimp under heavy load. Every 400 it answers is recorded in `refusals`. Reports are made
// lazily from the seed, sorted by send time: report i goes out on day floor(i * days / reports).
// Audiences for the segment push (modules/audiences): GET /3.0/lists (count, offset, sort_field
// date_created, sort_dir), the batch endpoint POST /3.0/lists/{list_id} (at most 500 members; status
// from the documented enum; update_existing false leaves an existing member as it is and reports it
// in errors as ERROR_CONTACT_EXISTS), static segments (GET and POST /3.0/lists/{list_id}/segments with
// static_segment, GET .../segments/{segment_id}/members, POST .../segments/{segment_id} with
// members_to_add / members_to_remove, at most 500 each, addresses not on the audience ignored).

export interface MailchimpFakeOptions {
  seed?: number;
  reports?: number;
  apiKey?: string;
  start?: string;
  days?: number;
  currency?: string;
  accountName?: string;
  /** Milliseconds each answer takes (so simultaneous connections overlap). */
  latencyMs?: number;
  maxConcurrent?: number;
  /** The account's time zone (GET /3.0/ `account_timezone`). */
  timezone?: string;
}

export interface MailchimpFakeReport {
  id: string;
  campaign_title: string;
  type: string;
  list_id: string;
  subject_line: string;
  send_time: string;
  emails_sent: number;
  abuse_reports: number;
  unsubscribed: number;
  opens: { opens_total: number; unique_opens: number; open_rate: number };
  clicks: { clicks_total: number; unique_clicks: number; unique_subscriber_clicks: number; click_rate: number };
  ecommerce: { total_orders: number; total_spent: number; total_revenue: number; currency_code: string };
}

function problem(status: number, title: string, detail: string): FakeResponse {
  return { status, headers: { 'content-type': 'application/problem+json' }, body: { type: 'https://mailchimp.com/developer/marketing/docs/errors/', title, status, detail, instance: `fake-${status}-${title.length}` } };
}

export interface MailchimpFakeMember {
  email_address: string;
  status: string;
  merge_fields: Record<string, string>;
}

interface MailchimpFakeAudience {
  id: string;
  name: string;
  date_created: string;
  members: Map<string, MailchimpFakeMember>;
  segments: Map<string, { name: string; members: Set<string> }>;
}

/** Documented: "Up to 500 members may be added or updated with each API call" / members_to_add, members_to_remove "Maximum 500". */
export const MAILCHIMP_FAKE_BATCH_MAX = 500;
const MEMBER_STATUSES = ['subscribed', 'unsubscribed', 'cleaned', 'pending', 'transactional'];

export class MailchimpFake extends FakeServer {
  readonly options: Required<MailchimpFakeOptions>;
  /** Every request the fake refused as invalid (400), with the reason. */
  readonly refusals: { path: string; reason: string }[] = [];
  /** The most simultaneous requests seen. */
  maxInFlight = 0;
  private inFlight = 0;
  private revoked = false;
  private bare403Remaining = 0;
  private readonly overrides = new Map<string, Partial<MailchimpFakeReport>>();
  /** The account's audiences, oldest first. */
  readonly audiences: MailchimpFakeAudience[] = [
    { id: 'b2c3d4e5f6', name: 'Newsletter (newer)', date_created: '2024-05-01T10:00:00+00:00', members: new Map(), segments: new Map() },
    { id: '1a2b3c4d5e', name: 'Fake Outdoor Co', date_created: '2021-03-01T10:00:00+00:00', members: new Map(), segments: new Map() },
  ];
  private nextSegmentId = 5001;

  constructor(options: MailchimpFakeOptions = {}) {
    super();
    this.options = {
      seed: 1,
      reports: 250,
      apiKey: '0123456789abcdef0123456789abcdef-us21',
      start: '2025-01-01',
      days: 365,
      currency: 'USD',
      accountName: 'Fake Outdoor Co',
      latencyMs: 0,
      // "each user account is permitted up to 10 simultaneous connections"
      // (https://mailchimp.com/developer/marketing/docs/fundamentals/, API limits)
      maxConcurrent: 10,
      timezone: 'UTC',
      ...options,
    };
    this.route('GET', '/3.0/', (request) =>
      this.guard(request, () => ({ body: { account_id: '8d3a3db4d97663a9074efcc16', login_id: '12345', account_name: this.options.accountName, email: 'owner@example.com', account_timezone: this.options.timezone } })),
    );
    this.route('GET', '/3.0/reports', (request) => this.guard(request, () => this.reportsPage(request)));
    this.route('GET', '/3.0/lists', (request) => this.guard(request, () => this.listsPage(request)));
    this.route('POST', '/3.0/lists/:list_id', (request) => this.guard(request, () => this.withAudience(request, (audience) => this.batchMembers(request, audience))));
    this.route('GET', '/3.0/lists/:list_id/segments', (request) => this.guard(request, () => this.withAudience(request, (audience) => this.segmentsPage(request, audience))));
    this.route('POST', '/3.0/lists/:list_id/segments', (request) => this.guard(request, () => this.withAudience(request, (audience) => this.createSegment(request, audience))));
    this.route('GET', '/3.0/lists/:list_id/segments/:segment_id/members', (request) =>
      this.guard(request, () => this.withAudience(request, (audience) => this.segmentMembers(request, audience))),
    );
    this.route('POST', '/3.0/lists/:list_id/segments/:segment_id', (request) => this.guard(request, () => this.withAudience(request, (audience) => this.updateSegment(request, audience))));
  }

  get apiUrl(): string {
    return `${this.url}/3.0`;
  }

  revokeKey(): void {
    this.revoked = true;
  }

  /** The next `times` requests get a bare 403 with an empty body. */
  shedLoadWithBare403(times = 1): void {
    this.bare403Remaining += times;
  }

  updateReport(id: string, changes: Partial<MailchimpFakeReport>): void {
    this.overrides.set(id, { ...this.overrides.get(id), ...changes });
  }

  report(index: number): MailchimpFakeReport {
    const random = seededRandom(this.options.seed * 999_983 + index * 104_729);
    const id = (0x4269_4e9e57 + index * 7_919).toString(16).padStart(10, '0').slice(-10);
    const dayOffset = Math.floor((index * this.options.days) / this.options.reports);
    const sendTime = new Date(Date.parse(`${this.options.start}T00:00:00Z`) + dayOffset * 86_400_000 + Math.floor(random() * 86_400) * 1000);
    const sent = 200 + Math.floor(random() * 9800);
    const uniqueOpens = Math.floor(sent * (0.15 + random() * 0.35));
    const uniqueSubscriberClicks = Math.floor(uniqueOpens * (0.05 + random() * 0.25));
    const orders = Math.floor(random() * 25);
    const revenueCents = Math.floor(orders * (1500 + random() * 9000));
    return {
      id,
      campaign_title: index % 11 === 4 ? '' : `Newsletter ${index + 1}`,
      type: 'regular',
      list_id: '1a2b3c4d5e',
      subject_line: `Subject ${index + 1}`,
      send_time: sendTime.toISOString().replace('.000Z', '+00:00'),
      emails_sent: sent,
      abuse_reports: 0,
      unsubscribed: Math.floor(random() * 10),
      opens: { opens_total: uniqueOpens + Math.floor(random() * uniqueOpens), unique_opens: uniqueOpens, open_rate: uniqueOpens / sent },
      clicks: { clicks_total: uniqueSubscriberClicks * 2, unique_clicks: uniqueSubscriberClicks + 3, unique_subscriber_clicks: uniqueSubscriberClicks, click_rate: uniqueSubscriberClicks / sent },
      ecommerce: { total_orders: orders, total_spent: (revenueCents + orders * 499) / 100, total_revenue: revenueCents / 100, currency_code: this.options.currency },
      ...this.overrides.get(id),
    };
  }

  /** The rows a connector should produce for reports sent in [since, until), UTC days. */
  expectedRows(since: Date, until: Date) {
    const rows = [];
    for (let index = 0; index < this.options.reports; index++) {
      const report = this.report(index);
      const time = Date.parse(report.send_time);
      if (time < since.getTime() || time >= until.getTime()) continue;
      rows.push({
        campaignId: report.id,
        day: report.send_time.slice(0, 10),
        campaignName: report.campaign_title || report.subject_line,
        sends: report.emails_sent,
        opens: report.opens.unique_opens,
        clicks: report.clicks.unique_subscriber_clicks,
        attributedOrders: report.ecommerce.total_orders,
        attributedRevenueMinor: Math.round(report.ecommerce.total_revenue * 100),
      });
    }
    return rows;
  }

  private async guard(request: FakeRequest, answer: () => FakeResponse): Promise<FakeResponse> {
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (this.options.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.options.latencyMs));
      if (this.inFlight > this.options.maxConcurrent) return problem(429, 'Too Many Requests', 'You have exceeded the limit of 10 simultaneous connections.');
      const fault = this.takeFault(request);
      if (fault === 'rate_limit') return problem(429, 'Too Many Requests', 'You have exceeded the limit of 10 simultaneous connections.');
      if (fault === 'server_error') return problem(503, 'Service Unavailable', 'Mailchimp is temporarily unavailable.');
      if (fault === 'malformed') return { status: 200, body: { reports: [{ id: 42, send_time: null }], total_items: 'many' } };
      if (this.bare403Remaining > 0) {
        this.bare403Remaining--;
        return { status: 403, body: '' };
      }
      if (fault === 'expired_token' || fault === 'revoked' || this.revoked || !this.authorized(request)) {
        return problem(401, 'API Key Invalid', "Your API key may be invalid, or you've attempted to access the wrong datacenter.");
      }
      return answer();
    } finally {
      this.inFlight--;
    }
  }

  private authorized(request: FakeRequest): boolean {
    const header = request.headers.authorization ?? '';
    if (header.startsWith('Bearer ')) return header.slice(7) === this.options.apiKey;
    if (!header.startsWith('Basic ')) return false;
    const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
    return decoded.slice(decoded.indexOf(':') + 1) === this.options.apiKey;
  }

  private refuse(request: FakeRequest, detail: string): FakeResponse {
    this.refusals.push({ path: request.path, reason: detail });
    return problem(400, 'Invalid Resource', detail);
  }

  /** The oldest audience (the one a push goes to). */
  get defaultAudience(): MailchimpFakeAudience {
    return [...this.audiences].sort((a, b) => a.date_created.localeCompare(b.date_created))[0]!;
  }

  /** The e-mails of the static segment named `name` in the oldest audience, sorted. */
  segmentEmails(name: string): string[] {
    const segment = [...this.defaultAudience.segments.values()].find((entry) => entry.name === name);
    return [...(segment?.members ?? [])].sort();
  }

  private paging(request: FakeRequest): { count: number; offset: number } | null {
    const count = Number(request.query.get('count') ?? 10);
    const offset = Number(request.query.get('offset') ?? 0);
    return Number.isInteger(count) && count >= 1 && count <= 1000 && Number.isInteger(offset) && offset >= 0 ? { count, offset } : null;
  }

  private withAudience(request: FakeRequest, answer: (audience: MailchimpFakeAudience) => FakeResponse): FakeResponse {
    const audience = this.audiences.find((entry) => entry.id === request.params.list_id);
    return audience ? answer(audience) : problem(404, 'Resource Not Found', 'The requested resource could not be found.');
  }

  private listsPage(request: FakeRequest): FakeResponse {
    const paging = this.paging(request);
    if (!paging) return this.refuse(request, 'count must be 1..1000 and offset >= 0.');
    const sortField = request.query.get('sort_field');
    const sortDir = request.query.get('sort_dir');
    if (sortField !== null && sortField !== 'date_created') return this.refuse(request, `Unknown sort_field ${sortField}.`);
    if (sortDir !== null && !['ASC', 'DESC'].includes(sortDir)) return this.refuse(request, `Unknown sort_dir ${sortDir}.`);
    // Without sort_field the order is not documented: the fake answers the newest first, so a client must ask.
    const sorted = [...this.audiences].sort((a, b) => (sortField && sortDir !== 'DESC' ? a.date_created.localeCompare(b.date_created) : b.date_created.localeCompare(a.date_created)));
    const lists = sorted.slice(paging.offset, paging.offset + paging.count).map(({ id, name, date_created }) => ({ id, name, date_created, stats: {} }));
    return { body: { lists, total_items: this.audiences.length } };
  }

  private batchMembers(request: FakeRequest, audience: MailchimpFakeAudience): FakeResponse {
    const body = request.body as { members?: unknown; update_existing?: unknown } | undefined;
    if (!Array.isArray(body?.members)) return this.refuse(request, 'members must be a list.');
    if (body.members.length > MAILCHIMP_FAKE_BATCH_MAX) return this.refuse(request, `At most ${MAILCHIMP_FAKE_BATCH_MAX} members per call (got ${body.members.length}).`);
    const updateExisting = body.update_existing === true;
    const created: MailchimpFakeMember[] = [];
    const updated: MailchimpFakeMember[] = [];
    const errors: { email_address: string; error: string; error_code: string }[] = [];
    for (const raw of body.members as { email_address?: unknown; status?: unknown; merge_fields?: Record<string, string> }[]) {
      if (typeof raw.email_address !== 'string' || !raw.email_address.includes('@')) return this.refuse(request, 'Every member needs an email_address.');
      if (typeof raw.status !== 'string' || !MEMBER_STATUSES.includes(raw.status)) return this.refuse(request, `Unknown member status ${String(raw.status)}.`);
      const key = raw.email_address.toLowerCase();
      const existing = audience.members.get(key);
      if (existing && !updateExisting) {
        errors.push({ email_address: raw.email_address, error: `${raw.email_address} is already a list member.`, error_code: 'ERROR_CONTACT_EXISTS' });
        continue;
      }
      const member = { email_address: raw.email_address, status: existing && updateExisting ? raw.status : raw.status, merge_fields: { ...existing?.merge_fields, ...raw.merge_fields } };
      audience.members.set(key, member);
      (existing ? updated : created).push(member);
    }
    return { body: { new_members: created, updated_members: updated, errors, total_created: created.length, total_updated: updated.length, error_count: errors.length } };
  }

  private segmentsPage(request: FakeRequest, audience: MailchimpFakeAudience): FakeResponse {
    const paging = this.paging(request);
    if (!paging) return this.refuse(request, 'count must be 1..1000 and offset >= 0.');
    const type = request.query.get('type');
    if (type !== null && !['saved', 'static', 'fuzzy'].includes(type)) return this.refuse(request, `Unknown segment type ${type}.`);
    const all = [...audience.segments].map(([id, segment]) => ({ id: Number(id), name: segment.name, member_count: segment.members.size, type: 'static', list_id: audience.id }));
    return { body: { segments: all.slice(paging.offset, paging.offset + paging.count), list_id: audience.id, total_items: all.length } };
  }

  private createSegment(request: FakeRequest, audience: MailchimpFakeAudience): FakeResponse {
    const body = request.body as { name?: unknown; static_segment?: unknown; options?: unknown } | undefined;
    if (typeof body?.name !== 'string' || body.name === '') return this.refuse(request, 'A segment needs a name.');
    if (body.static_segment !== undefined && body.options !== undefined) return this.refuse(request, 'static_segment cannot be provided with options.');
    if (!Array.isArray(body.static_segment)) return this.refuse(request, 'This fake makes static segments only: static_segment is required.');
    const id = String(this.nextSegmentId++);
    // "Any emails provided that are not present on the list will be ignored."
    const members = new Set((body.static_segment as string[]).map((email) => email.toLowerCase()).filter((email) => audience.members.has(email)));
    audience.segments.set(id, { name: body.name, members });
    return { body: { id: Number(id), name: body.name, member_count: members.size, type: 'static', list_id: audience.id } };
  }

  private segmentMembers(request: FakeRequest, audience: MailchimpFakeAudience): FakeResponse {
    const segment = audience.segments.get(request.params.segment_id ?? '');
    if (!segment) return problem(404, 'Resource Not Found', 'The requested segment could not be found.');
    const paging = this.paging(request);
    if (!paging) return this.refuse(request, 'count must be 1..1000 and offset >= 0.');
    const members = [...segment.members].sort().map((email) => audience.members.get(email)!);
    return { body: { members: members.slice(paging.offset, paging.offset + paging.count), total_items: members.length } };
  }

  private updateSegment(request: FakeRequest, audience: MailchimpFakeAudience): FakeResponse {
    const segment = audience.segments.get(request.params.segment_id ?? '');
    if (!segment) return problem(404, 'Resource Not Found', 'The requested segment could not be found.');
    const body = request.body as { members_to_add?: unknown; members_to_remove?: unknown } | undefined;
    const add = body?.members_to_add ?? [];
    const remove = body?.members_to_remove ?? [];
    if (!Array.isArray(add) || !Array.isArray(remove)) return this.refuse(request, 'members_to_add and members_to_remove must be lists of e-mails.');
    if (add.length > MAILCHIMP_FAKE_BATCH_MAX || remove.length > MAILCHIMP_FAKE_BATCH_MAX) return this.refuse(request, `At most ${MAILCHIMP_FAKE_BATCH_MAX} e-mails to add and to remove per call.`);
    let added = 0;
    let removed = 0;
    for (const email of add as string[]) {
      const key = email.toLowerCase();
      if (audience.members.has(key) && !segment.members.has(key)) {
        segment.members.add(key);
        added++;
      }
    }
    for (const email of remove as string[]) if (segment.members.delete(email.toLowerCase())) removed++;
    return { body: { members_added: [], members_removed: [], errors: [], total_added: added, total_removed: removed, error_count: 0 } };
  }

  private reportsPage(request: FakeRequest): FakeResponse {
    // count: "Default value is 10. Maximum value is 1000"; offset: "Default value is 0"
    // (ListReportsRequest, mailchimp/mailchimp-marketing-typescript-sdk).
    const count = Number(request.query.get('count') ?? 10);
    const offset = Number(request.query.get('offset') ?? 0);
    if (!Number.isInteger(count) || count < 1 || count > 1000 || !Number.isInteger(offset) || offset < 0) return this.refuse(request, 'count must be 1..1000 and offset >= 0.');
    // type: regular, plaintext, absplit, rss, variate (ListReportsRequestType).
    const type = request.query.get('type');
    if (type !== null && !['regular', 'plaintext', 'absplit', 'rss', 'variate'].includes(type)) return this.refuse(request, `Unknown campaign type ${type}.`);
    // "Uses ISO 8601 time format: 2015-10-21T15:41:36+00:00" (ListReportsRequest).
    const instant = (name: string, absent: number) => {
      const value = request.query.get(name);
      if (value === null) return absent;
      return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:[+-]\d{2}:\d{2}|Z)$/.test(value) ? Date.parse(value) : NaN;
    };
    const sinceTime = instant('since_send_time', -Infinity);
    const beforeTime = instant('before_send_time', Infinity);
    if (Number.isNaN(sinceTime) || Number.isNaN(beforeTime)) {
      return this.refuse(request, 'since_send_time/before_send_time must be ISO 8601 like 2015-10-21T15:41:36+00:00.');
    }
    const matching: MailchimpFakeReport[] = [];
    for (let index = 0; index < this.options.reports; index++) {
      const report = this.report(index);
      const time = Date.parse(report.send_time);
      if (time > sinceTime && time < beforeTime) matching.push(report);
    }
    return { body: { reports: matching.slice(offset, offset + count), total_items: matching.length, _links: [] } };
  }
}

export async function startMailchimpFake(options: MailchimpFakeOptions = {}): Promise<MailchimpFake> {
  return new MailchimpFake(options).start();
}
