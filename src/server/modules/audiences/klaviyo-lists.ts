import { z } from 'zod';
import { ConnectorAuthError, type ConnectorContext } from '../../connectors/connector.ts';
import { classifyKlaviyo, KLAVIYO_PLATFORM, KLAVIYO_REVISION } from '../../connectors/klaviyo/client.ts';
import { queryParamOf } from '../../connectors/email-shared/cursor.ts';
import { defaultVerdict, type PlatformHttp, type PlatformResponse, type Verdict } from '../../connectors/http.ts';

// Klaviyo lists and the Bulk Import Profiles API (docs/platform-notes.md "## Segment push (audiences)",
// each rule with its source): a list found by name (GET /api/lists?filter=equals(name,"…")) or created
// (POST /api/lists, 150 a day per account), profiles upserted into it by import jobs
// (POST /api/profile-bulk-import-jobs with relationships.lists; at most 10,000 profiles and 5 MB per
// job, 10/s burst and 150/m steady) whose status is polled until `complete`; those no longer in the
// segment are taken off the list (GET /api/lists/{id}/profiles, DELETE .../relationships/profiles, at
// most 1,000 a call), which leaves their consent as it was. Only e-mail and first /
// last name are sent, and no subscription: list membership is not consent to marketing.

const JSON_API = 'application/vnd.api+json';
/** The documented maximum number of profiles in one import job. */
export const KLAVIYO_IMPORT_MAX_PROFILES = 10_000;
/** The documented maximum payload of one import job (5 MB); chunks stay under it with room for the envelope. */
export const KLAVIYO_IMPORT_MAX_BYTES = 5 * 1024 * 1024;
const PAYLOAD_BUDGET_BYTES = KLAVIYO_IMPORT_MAX_BYTES - 64 * 1024;
/** Profiles per page of a list's members (get_profiles_for_list page[size] maximum). */
export const KLAVIYO_LIST_PAGE_SIZE = 100;
/** Profiles per remove_profiles_from_list call (documented: "a maximum of 1000 profiles per call"). */
export const KLAVIYO_REMOVE_MAX = 1000;
/** How long to wait between two looks at an import job. */
export const KLAVIYO_IMPORT_POLL_MS = 2_000;

/** A 403 on the lists or import endpoints: the private key lacks lists:write / profiles:write. */
export const KLAVIYO_LIST_SCOPE_MESSAGE =
  'Reconnect Klaviyo and allow list access: the private API key needs the lists:write and profiles:write scopes (Klaviyo > Settings > API keys: edit the key or create one with them, then reconnect it in StorePulse).';

function classifyLists(response: PlatformResponse): Verdict {
  if (response.status === 403) return { kind: 'fail', reason: KLAVIYO_LIST_SCOPE_MESSAGE };
  return classifyKlaviyo(response) ?? defaultVerdict(response);
}

export interface AudienceProfile {
  email: string;
  firstName: string | null;
  lastName: string | null;
}

const list = z.object({ id: z.string(), attributes: z.object({ name: z.string().nullish() }) });
const listsPage = z.object({ data: z.array(list) });
const oneList = z.object({ data: list });
const importJob = z.object({
  id: z.string(),
  attributes: z.object({
    status: z.enum(['cancelled', 'complete', 'processing', 'queued']),
    total_count: z.number().int().nullish(),
    completed_count: z.number().int().nullish(),
    failed_count: z.number().int().nullish(),
  }),
});
const oneImportJob = z.object({ data: importJob });
const memberPage = z.object({
  data: z.array(z.object({ id: z.string(), attributes: z.object({ email: z.string().nullish() }) })),
  links: z.object({ next: z.string().nullish() }).optional(),
});
export type KlaviyoImportJob = z.infer<typeof importJob>;

/** A profile as the import job takes it: e-mail, and first / last name when known. */
function profileResource(profile: AudienceProfile) {
  const attributes: Record<string, string> = { email: profile.email };
  if (profile.firstName) attributes.first_name = profile.firstName;
  if (profile.lastName) attributes.last_name = profile.lastName;
  return { type: 'profile', attributes };
}

/**
 * The profiles cut into import jobs: at most `maxProfiles` each (the documented 10,000 unless a test
 * asks for fewer) and under the documented 5 MB.
 */
export function importChunks(profiles: AudienceProfile[], maxProfiles = KLAVIYO_IMPORT_MAX_PROFILES): AudienceProfile[][] {
  const chunks: AudienceProfile[][] = [];
  let current: AudienceProfile[] = [];
  let bytes = 0;
  for (const profile of profiles) {
    const size = Buffer.byteLength(JSON.stringify(profileResource(profile))) + 1;
    if (current.length > 0 && (current.length >= maxProfiles || bytes + size > PAYLOAD_BUDGET_BYTES)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(profile);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

export class KlaviyoLists {
  private readonly http: PlatformHttp;
  private readonly baseUrl: string;
  private readonly headers: Record<string, string>;

  constructor(ctx: ConnectorContext, revision: string = KLAVIYO_REVISION) {
    const apiKey = ctx.credentials.apiKey?.trim();
    if (!apiKey) throw new ConnectorAuthError(KLAVIYO_PLATFORM, 'No Klaviyo private API key is stored for this connection. Reconnect with a private key.');
    this.http = ctx.http.with({ classify: classifyLists });
    this.baseUrl = ctx.baseUrl.replace(/\/+$/, '');
    this.headers = { authorization: `Klaviyo-API-Key ${apiKey}`, revision, accept: JSON_API };
  }

  /** The list named `name` (the first, should there be several), creating it when there is none. */
  async findOrCreateList(name: string): Promise<string> {
    // Klaviyo's filter syntax quotes strings with double quotes; a quote inside is escaped with a backslash.
    const quoted = `"${name.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
    const { data } = await this.http.json(`${this.baseUrl}/lists`, listsPage, {
      headers: this.headers,
      query: { filter: `equals(name,${quoted})`, 'fields[list]': 'name' },
    });
    const found = data.data.find((entry) => entry.attributes.name === name);
    if (found) return found.id;
    const created = await this.http.json(`${this.baseUrl}/lists`, oneList, {
      method: 'POST',
      headers: { ...this.headers, 'content-type': JSON_API },
      json: { data: { type: 'list', attributes: { name } } },
    });
    return created.data.data.id;
  }

  /** Sends one import job adding `profiles` to the list; answers the job's id. */
  async startImport(listId: string, profiles: AudienceProfile[]): Promise<string> {
    const { data } = await this.http.json(`${this.baseUrl}/profile-bulk-import-jobs`, oneImportJob, {
      method: 'POST',
      headers: { ...this.headers, 'content-type': JSON_API },
      json: {
        data: {
          type: 'profile-bulk-import-job',
          attributes: { profiles: { data: profiles.map(profileResource) } },
          relationships: { lists: { data: [{ type: 'list', id: listId }] } },
        },
      },
    });
    return data.data.id;
  }

  async importJob(jobId: string): Promise<KlaviyoImportJob> {
    const { data } = await this.http.json(`${this.baseUrl}/profile-bulk-import-jobs/${encodeURIComponent(jobId)}`, oneImportJob, {
      headers: this.headers,
      query: { 'fields[profile-bulk-import-job]': 'status,total_count,completed_count,failed_count' },
    });
    return data.data;
  }

  /** The list's members: lower-cased e-mail -> profile id (profiles without an e-mail are left out). */
  async listMembers(listId: string): Promise<Map<string, string>> {
    const members = new Map<string, string>();
    let cursor: string | null = null;
    do {
      const { data } = await this.http.json(`${this.baseUrl}/lists/${encodeURIComponent(listId)}/profiles`, memberPage, {
        headers: this.headers,
        query: { 'fields[profile]': 'email', 'page[size]': KLAVIYO_LIST_PAGE_SIZE, 'page[cursor]': cursor ?? undefined },
      });
      for (const profile of data.data) if (profile.attributes.email) members.set(profile.attributes.email.toLowerCase(), profile.id);
      cursor = queryParamOf(data.links?.next, 'page[cursor]');
    } while (cursor);
    return members;
  }

  /** Takes profiles off the list (their consent and subscriptions are untouched), at most KLAVIYO_REMOVE_MAX a call. */
  async removeFromList(listId: string, profileIds: string[]): Promise<void> {
    for (let start = 0; start < profileIds.length; start += KLAVIYO_REMOVE_MAX) {
      await this.http.request(`${this.baseUrl}/lists/${encodeURIComponent(listId)}/relationships/profiles`, {
        method: 'DELETE',
        headers: { ...this.headers, 'content-type': JSON_API },
        json: { data: profileIds.slice(start, start + KLAVIYO_REMOVE_MAX).map((id) => ({ type: 'profile', id })) },
      });
    }
  }

  /** Polls the job until it is complete (answers it) or cancelled (throws), pausing between looks. */
  async waitForImport(jobId: string, onProgress?: (job: KlaviyoImportJob) => Promise<void>): Promise<KlaviyoImportJob> {
    for (;;) {
      const job = await this.importJob(jobId);
      await onProgress?.(job);
      if (job.attributes.status === 'complete') return job;
      if (job.attributes.status === 'cancelled') throw new Error(`Klaviyo cancelled the profile import job ${jobId}.`);
      await this.http.pause(KLAVIYO_IMPORT_POLL_MS);
    }
  }
}
