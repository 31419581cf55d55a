import { z } from 'zod';
import type { ConnectorContext } from '../../connectors/connector.ts';
import { ConnectorAuthError, ConnectorRequestError } from '../../connectors/connector.ts';
import { classifyMailchimp, MAILCHIMP_PLATFORM, slotsFor } from '../../connectors/mailchimp/client.ts';
import { defaultVerdict, type PlatformHttp, type PlatformRequest } from '../../connectors/http.ts';
import type { AudienceProfile } from './klaviyo-lists.ts';

// Mailchimp audiences (lists), members and static segments, Marketing API 3.0 (docs/platform-notes.md
// "## Segment push (audiences)", each rule with its source): the audience is the account's oldest
// (GET /lists sorted by date_created ascending); members are added with the batch endpoint (POST
// /lists/{list_id}, at most 500 members a call) as `transactional`, with update_existing false so that
// an existing member's subscription status is never changed (list membership is not consent); the
// segment is a static segment named after the StorePulse segment, created once (POST
// /lists/{list_id}/segments) and brought to exactly the pushed members with members_to_add /
// members_to_remove (POST /lists/{list_id}/segments/{segment_id}, at most 500 of each a call).

/** Members per batch call, and e-mails per members_to_add / members_to_remove (documented: "up to 500"). */
export const MAILCHIMP_BATCH_MAX = 500;
const PAGE = 1000;

const listsPage = z.object({ lists: z.array(z.object({ id: z.string(), name: z.string().nullish() })), total_items: z.number().int() });
const segment = z.object({ id: z.union([z.number(), z.string()]).transform(String), name: z.string(), type: z.string().nullish() });
const segmentsPage = z.object({ segments: z.array(segment), total_items: z.number().int() });
const membersPage = z.object({ members: z.array(z.object({ email_address: z.string() })), total_items: z.number().int() });
const batchResult = z.object({
  total_created: z.number().int().nullish(),
  total_updated: z.number().int().nullish(),
  error_count: z.number().int().nullish(),
  errors: z.array(z.object({ email_address: z.string().nullish(), error: z.string().nullish(), error_code: z.string().nullish() })).nullish(),
});
const segmentUpdate = z.object({ total_added: z.number().int().nullish(), total_removed: z.number().int().nullish() });

/** Mailchimp's batch answer says an address is already on the audience: not a failure for us. */
const ALREADY_MEMBER = /already a list member|ERROR_CONTACT_EXISTS/i;

export class MailchimpSegments {
  private readonly http: PlatformHttp;
  private readonly baseUrl: string;
  private readonly authorization: string;
  private readonly slots: ReturnType<typeof slotsFor>;

  constructor(ctx: ConnectorContext) {
    const apiKey = ctx.credentials.apiKey?.trim();
    if (!apiKey) throw new ConnectorAuthError(MAILCHIMP_PLATFORM, 'No Mailchimp API key is stored for this connection. Reconnect with an API key.');
    this.http = ctx.http.with({ classify: (response) => classifyMailchimp(response) ?? defaultVerdict(response) });
    this.baseUrl = ctx.baseUrl.replace(/\/+$/, '');
    this.authorization = `Basic ${Buffer.from(`storepulse:${apiKey}`).toString('base64')}`;
    this.slots = slotsFor(apiKey);
  }

  private call<T>(path: string, schema: z.ZodType<T>, request: PlatformRequest = {}): Promise<T> {
    return this.slots.run(async () => (await this.http.json(`${this.baseUrl}${path}`, schema, { ...request, headers: { authorization: this.authorization } })).data);
  }

  /** The account's oldest audience (the one a store's customers usually live in). */
  async defaultAudience(): Promise<string> {
    const page = await this.call('/lists', listsPage, { query: { fields: 'lists.id,lists.name,total_items', count: 1, sort_field: 'date_created', sort_dir: 'ASC' } });
    const first = page.lists[0];
    if (!first) throw new ConnectorRequestError(MAILCHIMP_PLATFORM, 404, 'The Mailchimp account has no audience: create one in Mailchimp, then push again.');
    return first.id;
  }

  /**
   * Adds the profiles to the audience as transactional contacts; existing members are left as they
   * are. Answers how many Mailchimp refused for another reason than already being members.
   */
  async addMembers(listId: string, profiles: AudienceProfile[]): Promise<{ refused: number }> {
    const result = await this.call(`/lists/${encodeURIComponent(listId)}`, batchResult, {
      method: 'POST',
      json: {
        update_existing: false,
        members: profiles.map((profile) => ({
          email_address: profile.email,
          status: 'transactional',
          merge_fields: { FNAME: profile.firstName ?? '', LNAME: profile.lastName ?? '' },
        })),
      },
    });
    const refused = (result.errors ?? []).filter((error) => !ALREADY_MEMBER.test(`${error.error ?? ''} ${error.error_code ?? ''}`)).length;
    return { refused };
  }

  /** The static segment's id: `knownId` if it still exists, else one named `name`, else a new one. */
  async findOrCreateSegment(listId: string, name: string, knownId: string | null): Promise<string> {
    for (let offset = 0; ; offset += PAGE) {
      const page = await this.call(`/lists/${encodeURIComponent(listId)}/segments`, segmentsPage, {
        query: { type: 'static', count: PAGE, offset, fields: 'segments.id,segments.name,segments.type,total_items' },
      });
      const found = page.segments.find((entry) => entry.id === knownId) ?? page.segments.find((entry) => entry.name === name);
      if (found) return found.id;
      if (offset + PAGE >= page.total_items) break;
    }
    const created = await this.call(`/lists/${encodeURIComponent(listId)}/segments`, segment, { method: 'POST', json: { name, static_segment: [] } });
    return created.id;
  }

  /** The e-mail addresses in the segment now (lower-cased). */
  async segmentEmails(listId: string, segmentId: string): Promise<Set<string>> {
    const emails = new Set<string>();
    for (let offset = 0; ; offset += PAGE) {
      const page = await this.call(`/lists/${encodeURIComponent(listId)}/segments/${encodeURIComponent(segmentId)}/members`, membersPage, {
        query: { count: PAGE, offset, fields: 'members.email_address,total_items' },
      });
      for (const member of page.members) emails.add(member.email_address.toLowerCase());
      if (page.members.length === 0 || offset + PAGE >= page.total_items) return emails;
    }
  }

  /** One call adding and removing up to MAILCHIMP_BATCH_MAX addresses each. */
  async updateSegment(listId: string, segmentId: string, add: string[], remove: string[]): Promise<void> {
    await this.call(`/lists/${encodeURIComponent(listId)}/segments/${encodeURIComponent(segmentId)}`, segmentUpdate, {
      method: 'POST',
      json: { members_to_add: add, members_to_remove: remove },
    });
  }
}
