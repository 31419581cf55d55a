import { z } from 'zod';
import type { ConnectorContext } from '../connector.ts';
import { ConnectorAuthError } from '../connector.ts';
import { defaultVerdict, type PlatformHttp, type PlatformResponse, type Verdict } from '../http.ts';

// Omnisend API v3 (platform-apis.md 9): `X-API-KEY`, the version in the URL, campaign lists paged by
// `paging.next` URLs (limit/offset). Errors are problem+json; a 429 carries no rate-limit headers
// (a `retryAfter` seconds field in the body on the 2026-03-15 API, honoured when present), so we back
// off. The list key `campaign`, id `campaignID` and the statistics sent/opened/clicked are as observed
// in third-party clients (Airbyte's source-omnisend), not in Omnisend's own reference.

export const OMNISEND_PLATFORM = 'omnisend';
export const OMNISEND_API_VERSION = process.env.OMNISEND_API_VERSION ?? 'v3';
export const OMNISEND_BASE_URL = `https://api.omnisend.com/${OMNISEND_API_VERSION}`;
export const OMNISEND_PAGE_SIZE = 100;

const rateLimitProblem = z.object({ retryAfter: z.number().nonnegative().optional() });

export function classifyOmnisend(response: PlatformResponse): Verdict | undefined {
  if (response.status === 401) {
    return { kind: 'auth', reason: 'Omnisend refused the API key: it was deleted or mistyped. Create a new API key in Omnisend (Store settings > API keys) and reconnect.' };
  }
  if (response.status === 403) return { kind: 'auth', reason: 'The Omnisend API key has no access to campaigns. Give the key read access to campaigns and reconnect.' };
  if (response.status === 429) {
    let afterMs: number | undefined;
    try {
      const seconds = rateLimitProblem.parse(JSON.parse(response.text)).retryAfter;
      afterMs = seconds === undefined ? undefined : seconds * 1000;
    } catch {
      afterMs = undefined;
    }
    return { kind: 'retry', reason: 'Omnisend rate limit (429)', afterMs };
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
