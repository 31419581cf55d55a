import { z } from 'zod';
import type { ConnectorContext, ConnectorCredentials } from '../connector.ts';
import { ConnectorAuthError } from '../connector.ts';
import { defaultVerdict, type PlatformHttp, type PlatformRequest, type PlatformResponse, type Verdict } from '../http.ts';

// The Mailchimp Marketing API 3.0 (docs/platform-notes.md "## Mailchimp", each rule with its source):
// the API key ends in its data centre ("…-us21" -> https://us21.api.mailchimp.com/3.0), HTTP Basic with
// any user name and the key as password, offset pages of /reports (count <= 1000, offset, total_items)
// filtered by send time in the documented ISO 8601 form (2015-10-21T15:41:36+00:00). Mailchimp limits
// simultaneous connections (10 per user; more -> 429, at high volume sometimes a bare 403) and sends
// no rate-limit headers, so every request here holds one of 10 slots per API key and retries with
// backoff.

export const MAILCHIMP_PLATFORM = 'mailchimp';
export const MAILCHIMP_API_VERSION = process.env.MAILCHIMP_API_VERSION ?? '3.0';
export const MAILCHIMP_MAX_CONCURRENT = 10;
export const MAILCHIMP_PAGE_SIZE = 100;

/** "0123abcd-us21" -> "us21"; null when the key has no data centre suffix. */
export function dataCentreOf(apiKey: string | undefined): string | null {
  return /-([a-z]{2,}\d+)$/.exec(apiKey?.trim() ?? '')?.[1] ?? null;
}

function apiKeyOf(credentials: ConnectorCredentials): string {
  const apiKey = credentials.apiKey?.trim();
  if (!apiKey) throw new ConnectorAuthError(MAILCHIMP_PLATFORM, 'No Mailchimp API key is stored for this connection. Reconnect with an API key.');
  return apiKey;
}

export function mailchimpBaseUrl(credentials: ConnectorCredentials): string {
  const dataCentre = dataCentreOf(apiKeyOf(credentials));
  if (!dataCentre) {
    throw new ConnectorAuthError(MAILCHIMP_PLATFORM, 'This does not look like a Mailchimp API key: it should end in its data centre, like "-us21". Copy the whole key from Mailchimp.');
  }
  return `https://${dataCentre}.api.mailchimp.com/${MAILCHIMP_API_VERSION}`;
}

const problem = z.object({ title: z.string().optional(), detail: z.string().optional() });

export function classifyMailchimp(response: PlatformResponse): Verdict | undefined {
  if (response.status === 401) {
    return { kind: 'auth', reason: 'Mailchimp refused the API key: it was disabled, deleted or mistyped. Create a new API key in Mailchimp and reconnect.' };
  }
  if (response.status === 403) {
    // A refusal comes as problem+json ("Forbidden", "User Disabled"); a bare 403 is Mailchimp shedding load.
    let refusal: z.infer<typeof problem> | null = null;
    try {
      const parsed = problem.safeParse(JSON.parse(response.text));
      if (parsed.success && (parsed.data.title || parsed.data.detail)) refusal = parsed.data;
    } catch {
      refusal = null;
    }
    if (!refusal) return { kind: 'retry', reason: 'Mailchimp is shedding load (bare 403)' };
    return { kind: 'auth', reason: `Mailchimp denied access (${refusal.title ?? 'Forbidden'}): ${refusal.detail ?? 'the account or key may be disabled.'}` };
  }
  if (response.status === 429) return { kind: 'retry', reason: 'Mailchimp allows 10 simultaneous connections per user (429)' };
  return undefined;
}

/** At most `limit` requests in flight per key, across every sync of this process. */
class Slots {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
    try {
      return await task();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}

const slotsByKey = new Map<string, Slots>();

/** The slots of an API key, shared by every caller of this process (syncs and the segment push, modules/audiences). */
export function slotsFor(apiKey: string): Pick<Slots, 'run'> {
  let slots = slotsByKey.get(apiKey);
  if (!slots) {
    slots = new Slots(MAILCHIMP_MAX_CONCURRENT);
    slotsByKey.set(apiKey, slots);
  }
  return slots;
}

export class MailchimpClient {
  private readonly http: PlatformHttp;
  private readonly baseUrl: string;
  private readonly authorization: string;
  private readonly slots: Pick<Slots, 'run'>;

  constructor(ctx: ConnectorContext) {
    const apiKey = apiKeyOf(ctx.credentials);
    this.http = ctx.http.with({ classify: (response) => classifyMailchimp(response) ?? defaultVerdict(response) });
    this.baseUrl = ctx.baseUrl.replace(/\/+$/, '');
    this.authorization = `Basic ${Buffer.from(`storepulse:${apiKey}`).toString('base64')}`;
    this.slots = slotsFor(apiKey);
  }

  private get<T>(path: string, schema: z.ZodType<T>, query: PlatformRequest['query']): Promise<T> {
    return this.slots.run(async () => (await this.http.json(`${this.baseUrl}${path}`, schema, { headers: { authorization: this.authorization }, query })).data);
  }

  /** The API root: who the key belongs to. */
  account(): Promise<MailchimpAccount> {
    return this.get('/', accountSchema, { fields: 'account_id,account_name,email,account_timezone' });
  }

  /**
   * One offset page of campaign reports sent around [since, until): Mailchimp documents "sent after"
   * and "sent before" without saying whether the bound itself is in, so the query starts a second
   * early and the caller keeps [since, until).
   */
  reportsPage(since: Date, until: Date, offset: number, count = MAILCHIMP_PAGE_SIZE): Promise<MailchimpReportsPage> {
    return this.get('/reports', reportsPageSchema, {
      count,
      offset,
      since_send_time: mailchimpTime(new Date(since.getTime() - 1000)),
      before_send_time: mailchimpTime(until),
      fields: 'reports.id,reports.campaign_title,reports.subject_line,reports.type,reports.send_time,reports.emails_sent,reports.opens,reports.clicks,reports.ecommerce,total_items',
    });
  }
}

/** An instant in the form Mailchimp documents for since_send_time/before_send_time: 2015-10-21T15:41:36+00:00 (UTC, whole seconds). */
export function mailchimpTime(instant: Date): string {
  return new Date(Math.floor(instant.getTime() / 1000) * 1000).toISOString().replace('.000Z', '+00:00');
}

const accountSchema = z.object({ account_id: z.string(), account_name: z.string().nullish(), email: z.string().nullish(), account_timezone: z.string().nullish() });
export type MailchimpAccount = z.infer<typeof accountSchema>;

const count = z.number().nonnegative().nullish();
const reportSchema = z.object({
  id: z.string(),
  campaign_title: z.string().nullish(),
  subject_line: z.string().nullish(),
  type: z.string().nullish(),
  send_time: z.string(),
  emails_sent: count,
  opens: z.object({ opens_total: count, unique_opens: count }).nullish(),
  clicks: z.object({ clicks_total: count, unique_clicks: count, unique_subscriber_clicks: count }).nullish(),
  ecommerce: z.object({ total_orders: count, total_spent: z.number().nullish(), total_revenue: z.number().nullish(), currency_code: z.string().nullish() }).nullish(),
});
export type MailchimpReport = z.infer<typeof reportSchema>;
const reportsPageSchema = z.object({ reports: z.array(reportSchema), total_items: z.number().int().nonnegative() });
export type MailchimpReportsPage = z.infer<typeof reportsPageSchema>;
