import { z } from 'zod';
import { ConnectorAuthError, ConnectorRequestError, MalformedResponseError } from '../../connectors/connector.ts';
import { PlatformHttp, type PlatformHttpOptions } from '../../connectors/http.ts';
import { META_API_VERSION, metaHttp } from '../../connectors/metaads/client.ts';
import type { CommentAction, CommentPlatform } from '../../../shared/meta-comments.ts';

// The Graph API calls of the comments manager (docs/platform-notes.md, "Meta Graph API: Page and
// Instagram comments"). Every request goes through PlatformHttp (outbound checks, retries) with the
// Meta Ads connector's reading of Graph errors: 4/17/32/613 are waited out, 190 and 10/200-299 end
// the connection's use until the user reconnects.

const PAGE_LIMIT = 100;
/** A cursor chain longer than this is cut: one sync never pages forever. */
const MAX_PAGES = 200;

const pagingSchema = z.object({ cursors: z.object({ after: z.string().optional() }).loose().optional(), next: z.string().optional() }).loose().optional();
const listOf = <T extends z.ZodType>(row: T) => z.object({ data: z.array(row), paging: pagingSchema }).loose();

export const pageAccountSchema = z.object({
  id: z.string(),
  name: z.string().default(''),
  access_token: z.string(),
  instagram_business_account: z.object({ id: z.string() }).optional(),
}).loose();
export type PageAccount = z.infer<typeof pageAccountSchema>;

const postSchema = z.object({ id: z.string(), message: z.string().optional(), caption: z.string().optional(), permalink_url: z.string().optional(), permalink: z.string().optional() }).loose();
const adSchema = z.object({ id: z.string(), name: z.string().optional(), creative: z.object({ effective_object_story_id: z.string().optional() }).loose().optional() }).loose();

export const facebookCommentSchema = z.object({
  id: z.string(),
  message: z.string().default(''),
  from: z.object({ id: z.string().optional(), name: z.string().optional() }).loose().optional(),
  created_time: z.string(),
  is_hidden: z.boolean().optional(),
  user_likes: z.boolean().optional(),
  comment_count: z.number().optional(),
  parent: z.object({ id: z.string() }).optional(),
}).loose();

export const instagramCommentSchema = z.object({
  id: z.string(),
  text: z.string().default(''),
  username: z.string().optional(),
  timestamp: z.string(),
  hidden: z.boolean().optional(),
  parent_id: z.string().optional(),
}).loose();

export const FACEBOOK_COMMENT_FIELDS = 'id,message,from,created_time,is_hidden,can_hide,like_count,comment_count,user_likes,permalink_url,parent';
export const INSTAGRAM_COMMENT_FIELDS = 'id,text,username,timestamp,hidden,like_count,parent_id';

export interface GraphPost {
  id: string;
  text: string;
  link: string | null;
  adId: string | null;
}

export class MetaGraph {
  private readonly http: PlatformHttp;
  private readonly root: string;

  private readonly userToken: string;

  constructor(baseUrl: string, version: string | undefined, userToken: string, httpOptions: Partial<PlatformHttpOptions> = {}) {
    this.userToken = userToken;
    this.root = `${baseUrl.replace(/\/+$/, '')}/${version || META_API_VERSION}`;
    this.http = metaHttp(new PlatformHttp({ platform: 'metaads', maxAttempts: 5, baseDelayMs: 1000, maxDelayMs: 60_000, ...httpOptions }));
  }

  private async all<T>(path: string, schema: z.ZodType<T>, token: string, query: Record<string, string>): Promise<T[]> {
    const rows: T[] = [];
    let url: string | null = `${this.root}/${path}`;
    let first = true;
    for (let page = 0; url && page < MAX_PAGES; page++) {
      const response = await this.http.request(url, { query: first ? { ...query, limit: String(PAGE_LIMIT), access_token: token } : undefined });
      const parsed = listOf(schema).safeParse(response.json());
      if (!parsed.success) throw new MalformedResponseError('metaads', `${path}: ${parsed.error.issues[0]?.message ?? 'unexpected shape'}`);
      rows.push(...(parsed.data.data as T[]));
      url = parsed.data.paging?.next ?? null;
      first = false;
    }
    return rows;
  }

  /** The Pages the user manages, each with its Page access token (GET /me/accounts). */
  pages(): Promise<PageAccount[]> {
    return this.all('me/accounts', pageAccountSchema, this.userToken, { fields: 'id,name,access_token,instagram_business_account,tasks' });
  }

  async pagePosts(page: PageAccount): Promise<GraphPost[]> {
    const posts = await this.all(`${page.id}/posts`, postSchema, page.access_token, { fields: 'id,message,permalink_url' });
    return posts.map((post) => ({ id: post.id, text: post.message ?? '', link: post.permalink_url ?? null, adId: null }));
  }

  /** The Page's posts that ads run (dark posts included): the creative's effective_object_story_id. */
  async adPosts(adAccountIds: string[], page: PageAccount): Promise<GraphPost[]> {
    const posts = new Map<string, GraphPost>();
    for (const account of adAccountIds) {
      const ads = await this.all(`act_${account.replace(/^act_/, '')}/ads`, adSchema, this.userToken, { fields: 'id,name,creative{effective_object_story_id}' });
      for (const ad of ads) {
        const story = ad.creative?.effective_object_story_id;
        if (story?.startsWith(`${page.id}_`) && !posts.has(story)) {
          posts.set(story, { id: story, text: ad.name ?? '', link: `https://www.facebook.com/${story.replace('_', '/posts/')}`, adId: ad.id });
        }
      }
    }
    return [...posts.values()];
  }

  async instagramMedia(page: PageAccount): Promise<GraphPost[]> {
    const igUser = page.instagram_business_account?.id;
    if (!igUser) return [];
    const media = await this.all(`${igUser}/media`, postSchema, page.access_token, { fields: 'id,caption,permalink' });
    return media.map((item) => ({ id: item.id, text: item.caption ?? '', link: item.permalink ?? null, adId: null }));
  }

  facebookComments(postId: string, page: PageAccount) {
    return this.all(`${postId}/comments`, facebookCommentSchema, page.access_token, { fields: FACEBOOK_COMMENT_FIELDS, filter: 'stream', order: 'reverse_chronological' });
  }

  instagramComments(mediaId: string, page: PageAccount) {
    return this.all(`${mediaId}/comments`, instagramCommentSchema, page.access_token, { fields: INSTAGRAM_COMMENT_FIELDS });
  }

  /** One moderation action on a comment with the Page token. */
  async act(platform: CommentPlatform, commentId: string, action: CommentAction, token: string): Promise<void> {
    const node = `${this.root}/${encodeURIComponent(commentId)}`;
    if (action === 'delete') {
      await this.http.request(node, { method: 'DELETE', query: { access_token: token } });
    } else if (action === 'like') {
      if (platform === 'instagram') throw new ConnectorRequestError('metaads', 400, 'Instagram does not let apps like comments.');
      await this.http.request(`${node}/likes`, { method: 'POST', body: new URLSearchParams({ access_token: token }) });
    } else {
      const key = platform === 'instagram' ? 'hide' : 'is_hidden';
      await this.http.request(node, { method: 'POST', body: new URLSearchParams({ [key]: String(action === 'hide'), access_token: token }) });
    }
  }

  async reply(platform: CommentPlatform, commentId: string, message: string, token: string): Promise<string> {
    const edge = platform === 'instagram' ? 'replies' : 'comments';
    const response = await this.http.request(`${this.root}/${encodeURIComponent(commentId)}/${edge}`, { method: 'POST', body: new URLSearchParams({ message, access_token: token }) });
    return z.object({ id: z.string() }).loose().parse(response.json()).id;
  }
}

export { ConnectorAuthError };
