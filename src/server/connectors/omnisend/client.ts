import { z } from 'zod';
import type { ConnectorContext } from '../connector.ts';
import { ConnectorAuthError } from '../connector.ts';
import { defaultVerdict, type PlatformHttp, type PlatformResponse, type Verdict } from '../http.ts';

// Omnisend API v3 (docs/platform-notes.md "## Omnisend", each rule with its source): `X-API-KEY`, the
// version in the URL, campaign lists paged by `paging.next` URLs (limit/offset). The v3 reference
// documents 400 requests a minute, and X-Rate-Limit-Limit / -Remaining / -Reset (seconds left in the
// current period) on every answer: a 429 waits X-Rate-Limit-Reset, or the `retryAfter` seconds of the
// 2026-03-15 API's rate-limit problem, or backs off. The campaign fields (campaignID, name, status,
// startDate, sent, opened, clicked) are those of Omnisend's v3 campaigns reference; the list key
// `campaign` is as third-party clients read it (Airbyte's source-omnisend).

export const OMNISEND_PLATFORM = 'omnisend';
export const OMNISEND_API_VERSION = process.env.OMNISEND_API_VERSION ?? 'v3';
export const OMNISEND_BASE_URL = `https://api.omnisend.com/${OMNISEND_API_VERSION}`;
export const OMNISEND_PAGE_SIZE = 100;

const rateLimitProblem = z.object({ retryAfter: z.number().nonnegative().optional() });

/** Seconds in a 429's X-Rate-Limit-Reset ("the number of seconds left in the current period"), or null. */
function rateLimitResetMs(response: PlatformResponse): number | null {
  const value = response.headers.get('x-rate-limit-reset')?.trim();
  return value && /^\d+(\.\d+)?$/.test(value) ? Math.round(Number(value) * 1000) : null;
}

export function classifyOmnisend(response: PlatformResponse): Verdict | undefined {
  if (response.status === 401) {
    return { kind: 'auth', reason: 'Omnisend refused the API key: it was deleted or mistyped. Create a new API key in Omnisend (Store settings > API keys) and reconnect.' };
  }
  if (response.status === 403) return { kind: 'auth', reason: 'The Omnisend API key has no access to campaigns. Give the key read access to campaigns and reconnect.' };
  if (response.status === 429) {
    let afterMs: number | undefined = rateLimitResetMs(response) ?? undefined;
    if (afterMs === undefined) {
      try {
        const seconds = rateLimitProblem.parse(JSON.parse(response.text)).retryAfter;
        afterMs = seconds === undefined ? undefined : seconds * 1000;
      } catch {
        afterMs = undefined;
      }
    }
    return { kind: 'retry', reason: 'Omnisend rate limit (429: 400 requests a minute per store)', afterMs };
  }
  return undefined;
}

export class OmnisendClient {
  private readonly http: PlatformHttp;
  private readonly baseUrl: string;
  private readonly apiKey: string;

  constructor(ctx: ConnectorContext) {
    const apiKey = ctx.credentials.apiKey?.trim();
    if (!apiKey) throw new ConnectorAuthError(OMNISEND_PLATFORM, 'No Omnisend API key is stored for this connection. Reconnect with an API key.');
    this.apiKey = apiKey;
    this.http = ctx.http.with({ classify: (response) => classifyOmnisend(response) ?? defaultVerdict(response) });
    this.baseUrl = ctx.baseUrl.replace(/\/+$/, '');
  }

  /**
   * One page of campaigns. `pageQuery` is the query string of the previous page's paging.next (we
   * keep only the query so requests never leave the configured base URL).
   */
  async campaignsPage(pageQuery: string | null, limit = OMNISEND_PAGE_SIZE): Promise<{ page: OmnisendCampaignsPage; nextPageQuery: string | null }> {
    const url = `${this.baseUrl}/campaigns${pageQuery ?? `?limit=${limit}&offset=0`}`;
    const { data } = await this.http.json(url, campaignsPageSchema, { headers: { 'x-api-key': this.apiKey } });
    let nextPageQuery: string | null = null;
    if (data.paging?.next) {
      try {
        nextPageQuery = new URL(data.paging.next, 'http://relative.invalid').search || null;
      } catch {
        nextPageQuery = null;
      }
    }
    return { page: data, nextPageQuery };
  }
}

const count = z.number().nonnegative().nullish();
const campaignSchema = z.object({
  campaignID: z.string(),
  name: z.string().nullish(),
  status: z.string().nullish(),
  type: z.string().nullish(),
  subject: z.string().nullish(),
  createdAt: z.string().nullish(),
  updatedAt: z.string().nullish(),
  startDate: z.string().nullish(),
  endDate: z.string().nullish(),
  sent: count,
  opened: count,
  clicked: count,
});
export type OmnisendCampaign = z.infer<typeof campaignSchema>;
const campaignsPageSchema = z.object({
  campaign: z.array(campaignSchema),
  paging: z.object({ next: z.string().nullish(), previous: z.string().nullish(), total: z.number().int().nonnegative().nullish() }).nullish(),
});
export type OmnisendCampaignsPage = z.infer<typeof campaignsPageSchema>;
