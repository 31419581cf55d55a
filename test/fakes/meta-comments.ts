import { createHmac, randomBytes } from 'node:crypto';
import { bearerToken } from './ads-common.ts';
import type { FakeRequest, FakeResponse } from './fake-server.ts';
import type { MetaAdsFake } from './metaads.ts';

// The Page and Instagram comment edges of the Graph API, served on the Meta Ads fake's own port (one
// Graph root): /me/accounts (Page access tokens), /{page-id}/posts, /act_{id}/ads with the creative's
// effective_object_story_id, /{post-id}/comments, /{ig-user-id}/media, /{ig-media-id}/comments and
// the moderation actions (POST /{comment-id} is_hidden|hide, DELETE /{comment-id}, POST
// /{comment-id}/comments|replies|likes), with cursor paging, Graph's error envelope and throttling
// (codes 4/613 with X-App-Usage / X-Business-Use-Case-Usage). It also sends signed webhooks
// (X-Hub-Signature-256 = sha256 HMAC of the raw body with the app secret), as Meta does.
// Sources: docs/platform-notes.md, "Meta Graph API: Page and Instagram comments".

export interface FakeComment {
  id: string;
  platform: 'facebook' | 'instagram';
  /** The post or IG media it is on. */
  objectId: string;
  parentId: string | null;
  authorId: string;
  authorName: string;
  message: string;
  createdTime: Date;
  hidden: boolean;
  liked: boolean;
  deleted: boolean;
  likeCount: number;
}

interface FakePost {
  id: string;
  message: string;
  permalink: string;
  /** Dark posts of ads are not on the Page's /posts edge; only the ad's creative names them. */
  adId: string | null;
}

const PAGE = { id: '104000000000001', name: 'Fake Store' };
const IG_USER = { id: '17841400000000001', username: 'fakestore' };

function graphError(code: number, message: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { error: { message, type: 'OAuthException', code, fbtrace_id: 'FakeTraceComments', ...extra } };
}

const encodeAfter = (offset: number) => Buffer.from(`c:${offset}`).toString('base64url');
const decodeAfter = (after: string | null): number | null => {
  if (!after) return 0;
  const match = /^c:(\d+)$/.exec(Buffer.from(after, 'base64url').toString('utf8'));
  return match ? Number(match[1]) : null;
};

/** Graph's ISO form: 2026-11-28T10:00:00+0000. */
const graphTime = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, '+0000');

/** The seeded comments: hand-written, in the four languages the app classifies. */
const SEED: { on: number; author: string; message: string; minutesAgo: number }[] = [
  { on: 0, author: 'Jane Miller', message: 'Love this jacket, the quality is amazing!', minutesAgo: 30 },
  { on: 0, author: 'Carlos Ruiz', message: '¿Cuándo llega el pedido a Madrid?', minutesAgo: 50 },
  { on: 0, author: 'Promo Bot', message: 'Earn $500 a day from home!!! DM me or visit http://spam.example/win', minutesAgo: 70 },
  { on: 1, author: 'Marie Dubois', message: 'Est-ce que vous livrez en Belgique ?', minutesAgo: 90 },
  { on: 1, author: 'Tom Becker', message: 'Die Lieferung kam kaputt an und niemand antwortet. Ich will mein Geld zurück!', minutesAgo: 110 },
  { on: 2, author: 'Sam Lee', message: 'Terrible service, my order never arrived. I want a refund.', minutesAgo: 130 },
  { on: 2, author: 'Ana Gómez', message: 'Me encanta, ¡excelente calidad!', minutesAgo: 150 },
  { on: 3, author: 'lena.k', message: 'Wie viel kostet der Versand nach Österreich?', minutesAgo: 40 },
  { on: 3, author: 'happy_buyer', message: 'Superbe, je recommande !', minutesAgo: 60 },
];

export interface MetaCommentsFakeOptions {
  /** The most comments one page of a comments edge holds (Graph's default is 25). */
  pageSize?: number;
  /** Extra comments on the first post, to make paging go several pages deep. */
  extraComments?: number;
  appSecret?: string;
}

export class MetaCommentsFake {
  readonly page = PAGE;
  readonly igUser = IG_USER;
  readonly posts: FakePost[];
  readonly igMedia: FakePost[];
  readonly comments: FakeComment[] = [];
  readonly appSecret: string;
  private readonly pageSize: number;
  private readonly pageTokens = new Set<string>();
  private throttled: { remaining: number; code: number } = { remaining: 0, code: 613 };
  private pageTokensExpired = false;
  private nextId = 1;

  private readonly fake: MetaAdsFake;

  constructor(fake: MetaAdsFake, options: MetaCommentsFakeOptions = {}) {
    this.fake = fake;
    this.pageSize = options.pageSize ?? 25;
    this.appSecret = options.appSecret ?? fake.auth.clientSecret;
    const adId = '23850000000000901';
    this.posts = [
      { id: `${PAGE.id}_1001`, message: 'New autumn jackets are here', permalink: `https://www.facebook.com/${PAGE.id}/posts/1001`, adId: null },
      { id: `${PAGE.id}_1002`, message: 'Free shipping this weekend', permalink: `https://www.facebook.com/${PAGE.id}/posts/1002`, adId: null },
      { id: `${PAGE.id}_3003`, message: 'Winter sale: 30% off', permalink: `https://www.facebook.com/${PAGE.id}/posts/3003`, adId },
    ];
    this.igMedia = [{ id: '17900000000000001', message: 'Behind the scenes at the studio', permalink: 'https://www.instagram.com/p/FAKE1/', adId: null }];
    const now = Date.now();
    for (const seed of SEED) {
      const object = seed.on < 3 ? this.posts[seed.on]! : this.igMedia[0]!;
      this.addComment({ platform: seed.on < 3 ? 'facebook' : 'instagram', objectId: object.id, authorName: seed.author, message: seed.message, createdTime: new Date(now - seed.minutesAgo * 60_000) });
    }
    for (let index = 0; index < (options.extraComments ?? 0); index++) {
      this.addComment({ platform: 'facebook', objectId: this.posts[0]!.id, authorName: `Reader ${index + 1}`, message: `Nice post number ${index + 1}`, createdTime: new Date(now - (200 + index) * 60_000) });
    }

    const guarded = (handler: (request: FakeRequest) => FakeResponse) => (request: FakeRequest) => this.guarded(request, handler);
    fake.route('GET', '/:version/me/accounts', (request) => this.accounts(request));
    fake.route('GET', '/:version/:node/posts', guarded((request) => this.pagePosts(request)));
    fake.route('GET', '/:version/:node/ads', guarded((request) => this.ads(request)));
    fake.route('GET', '/:version/:node/media', guarded((request) => this.media(request)));
    fake.route('GET', '/:version/:node/comments', guarded((request) => this.listComments(request, request.params.node!)));
    fake.route('GET', '/:version/:node/replies', guarded((request) => this.listComments(request, request.params.node!)));
    fake.route('POST', '/:version/:node/comments', guarded((request) => this.reply(request)));
    fake.route('POST', '/:version/:node/replies', guarded((request) => this.reply(request)));
    fake.route('POST', '/:version/:node/likes', guarded((request) => this.like(request, true)));
    fake.route('DELETE', '/:version/:node/likes', guarded((request) => this.like(request, false)));
    fake.route('POST', '/:version/:node', guarded((request) => this.hide(request)));
    fake.route('DELETE', '/:version/:node', guarded((request) => this.remove(request)));
  }

  /** The next `count` comment requests answer Graph's throttling error (613: calls within one hour exceeded; 4: app limit). */
  throttleNext(count: number, code: 4 | 17 | 32 | 613 = 613): void {
    this.throttled = { remaining: count, code };
  }

  /** Page tokens stop working (code 190), as after the user changed their password. */
  expirePageTokens(): void {
    this.pageTokensExpired = true;
  }

  restorePageTokens(): void {
    this.pageTokensExpired = false;
  }

  comment(id: string): FakeComment | undefined {
    return this.comments.find((comment) => comment.id === id);
  }

  addComment(input: { platform: 'facebook' | 'instagram'; objectId: string; authorName: string; message: string; createdTime?: Date; parentId?: string | null }): FakeComment {
    const serial = String(this.nextId++).padStart(4, '0');
    const id = input.platform === 'facebook' ? `${input.objectId.split('_')[1] ?? input.objectId}_${serial}` : `1799000000000${serial}`;
    const comment: FakeComment = {
      id, platform: input.platform, objectId: input.objectId, parentId: input.parentId ?? null, authorId: `9000${serial}`, authorName: input.authorName,
      message: input.message, createdTime: input.createdTime ?? new Date(), hidden: false, liked: false, deleted: false, likeCount: 0,
    };
    this.comments.push(comment);
    return comment;
  }

  /**
   * A new comment, then its webhook POSTed to `url` as Meta sends it: Page field `feed` (item comment,
   * verb add) or Instagram field `comments`, signed with the app secret. Returns the delivery's status.
   */
  async deliverNewComment(url: string, input: { platform?: 'facebook' | 'instagram'; authorName: string; message: string; postIndex?: number }, options: { secret?: string; rawBody?: string } = {}): Promise<{ status: number; comment: FakeComment; body: string }> {
    const platform = input.platform ?? 'facebook';
    const object = platform === 'facebook' ? this.posts[input.postIndex ?? 0]! : this.igMedia[0]!;
    const comment = this.addComment({ platform, objectId: object.id, authorName: input.authorName, message: input.message });
    const body = options.rawBody ?? JSON.stringify(this.webhookPayload(comment));
    const status = await this.postSigned(url, body, options.secret ?? this.appSecret);
    return { status, comment, body };
  }

  webhookPayload(comment: FakeComment): Record<string, unknown> {
    const time = Math.floor(comment.createdTime.getTime() / 1000);
    if (comment.platform === 'instagram') {
      return {
        object: 'instagram',
        entry: [{ id: IG_USER.id, time, changes: [{ field: 'comments', value: { id: comment.id, text: comment.message, from: { id: comment.authorId, username: comment.authorName }, media: { id: comment.objectId, media_product_type: 'FEED' }, ...(comment.parentId ? { parent_id: comment.parentId } : {}) } }] }],
      };
    }
    return {
      object: 'page',
      entry: [{
        id: PAGE.id, time, changes: [{
          field: 'feed',
          value: { from: { id: comment.authorId, name: comment.authorName }, post: { id: comment.objectId, status_type: 'added_photos', is_published: true }, message: comment.message, post_id: comment.objectId, comment_id: comment.id, created_time: time, item: 'comment', parent_id: comment.parentId ?? comment.objectId, verb: 'add' },
        }],
      }],
    };
  }

  async postSigned(url: string, body: string, secret: string): Promise<number> {
    const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature }, body });
    await answer.arrayBuffer();
    return answer.status;
  }

  // ---------------------------------------------------------------------------------------------

  private tokenOf(request: FakeRequest): string | undefined {
    return this.parameters(request).get('access_token') ?? bearerToken(request.headers.authorization) ?? undefined;
  }

  private guarded(request: FakeRequest, handler: (request: FakeRequest) => FakeResponse): FakeResponse {
    if (this.throttled.remaining > 0) {
      this.throttled.remaining--;
      const code = this.throttled.code;
      return {
        status: 400,
        headers: {
          'x-app-usage': JSON.stringify({ call_count: 100, total_cputime: 35, total_time: 60 }),
          'x-business-use-case-usage': JSON.stringify({ [PAGE.id]: [{ type: 'pages', call_count: 100, total_cputime: 30, total_time: 40, estimated_time_to_regain_access: 0 }] }),
        },
        body: graphError(code, code === 613 ? 'Calls to this api have exceeded the rate limit.' : 'Application request limit reached', { is_transient: true }),
      };
    }
    const token = this.tokenOf(request);
    // The ad account's /ads edge takes the user token; everything else a Page token.
    const userTokenOk = this.fake.auth.accessTokenState(token) === 'valid' && request.params.node?.startsWith('act_');
    if (!userTokenOk && !(token && this.pageTokens.has(token))) {
      return { status: 400, body: graphError(190, 'Invalid OAuth access token - Cannot parse access token') };
    }
    if (this.pageTokensExpired && !userTokenOk) {
      return { status: 400, body: graphError(190, 'Error validating access token: Session has expired.', { error_subcode: 463 }) };
    }
    return handler(request);
  }

  private paged(request: FakeRequest, rows: unknown[]): FakeResponse {
    const offset = decodeAfter(request.query.get('after'));
    if (offset === null) return { status: 400, body: graphError(100, '(#100) The after cursor is not valid') };
    const limit = Math.min(Number(request.query.get('limit') ?? 25) || 25, this.pageSize);
    const page = rows.slice(offset, offset + limit);
    const hasNext = offset + limit < rows.length;
    const next = new URL(`${this.fake.url}${request.path}`);
    for (const [key, value] of request.query) next.searchParams.set(key, value);
    next.searchParams.set('after', encodeAfter(offset + limit));
    return { body: { data: page, paging: { cursors: { before: encodeAfter(offset), after: encodeAfter(offset + page.length) }, ...(hasNext ? { next: next.toString() } : {}) } } };
  }

  // GET /me/accounts: the Pages the user manages, each with its Page access token and tasks.
  private accounts(request: FakeRequest): FakeResponse {
    const token = this.tokenOf(request);
    const state = this.fake.auth.accessTokenState(token);
    if (state !== 'valid') return { status: 400, body: graphError(190, 'Error validating access token: Session has expired.', { error_subcode: 463 }) };
    const pageToken = `EAAP${randomBytes(12).toString('hex')}`;
    this.pageTokens.add(pageToken);
    return this.paged(request, [{
      id: PAGE.id, name: PAGE.name, access_token: pageToken, category: 'Clothing store', tasks: ['ANALYZE', 'ADVERTISE', 'MODERATE', 'CREATE_CONTENT', 'MANAGE'],
      instagram_business_account: { id: IG_USER.id },
    }]);
  }

  private pagePosts(request: FakeRequest): FakeResponse {
    if (request.params.node !== PAGE.id) return this.noSuchObject(request.params.node!);
    return this.paged(request, this.posts.filter((post) => !post.adId).map((post) => ({ id: post.id, message: post.message, permalink_url: post.permalink, created_time: graphTime(new Date(Date.now() - 86_400_000)) })));
  }

  private ads(request: FakeRequest): FakeResponse {
    const node = request.params.node!;
    if (!node.startsWith('act_')) return this.noSuchObject(node);
    return this.paged(request, this.posts.filter((post) => post.adId).map((post) => ({ id: post.adId, name: 'Winter sale – carousel', creative: { id: '23850000000000950', effective_object_story_id: post.id } })));
  }

  private media(request: FakeRequest): FakeResponse {
    if (request.params.node !== IG_USER.id) return this.noSuchObject(request.params.node!);
    return this.paged(request, this.igMedia.map((media) => ({ id: media.id, caption: media.message, permalink: media.permalink, timestamp: graphTime(new Date(Date.now() - 86_400_000)) })));
  }

  private objectOf(id: string): FakePost | undefined {
    return [...this.posts, ...this.igMedia].find((post) => post.id === id);
  }

  private listComments(request: FakeRequest, node: string): FakeResponse {
    const object = this.objectOf(node);
    const parent = object ? null : this.comment(node);
    if (!object && !parent) return this.noSuchObject(node);
    const rows = this.comments
      .filter((comment) => !comment.deleted && (object ? comment.objectId === object.id && comment.parentId === null : comment.parentId === parent!.id))
      .sort((a, b) => b.createdTime.getTime() - a.createdTime.getTime());
    return this.paged(request, rows.map((comment) => this.commentJson(comment)));
  }

  private commentJson(comment: FakeComment): Record<string, unknown> {
    const replies = this.comments.filter((reply) => reply.parentId === comment.id && !reply.deleted).length;
    if (comment.platform === 'instagram') {
      return { id: comment.id, text: comment.message, username: comment.authorName, from: { id: comment.authorId, username: comment.authorName }, timestamp: graphTime(comment.createdTime), hidden: comment.hidden, like_count: comment.likeCount, media: { id: comment.objectId }, ...(comment.parentId ? { parent_id: comment.parentId } : {}), replies_count: replies };
    }
    return {
      id: comment.id, message: comment.message, from: { id: comment.authorId, name: comment.authorName }, created_time: graphTime(comment.createdTime), is_hidden: comment.hidden, can_hide: true,
      like_count: comment.likeCount, comment_count: replies, user_likes: comment.liked, permalink_url: `${this.objectOf(comment.objectId)?.permalink ?? ''}?comment_id=${comment.id}`,
      ...(comment.parentId ? { parent: { id: comment.parentId } } : {}),
    };
  }

  private noSuchObject(id: string): FakeResponse {
    return { status: 400, body: graphError(100, `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`, { error_subcode: 33 }) };
  }

  private parameters(request: FakeRequest): URLSearchParams {
    const parameters = new URLSearchParams(request.query);
    if (request.rawBody && !request.rawBody.trimStart().startsWith('{')) for (const [key, value] of new URLSearchParams(request.rawBody)) parameters.set(key, value);
    if (request.body && typeof request.body === 'object') for (const [key, value] of Object.entries(request.body)) parameters.set(key, String(value));
    return parameters;
  }

  // POST /{comment-id}?is_hidden=true|false (Page) or ?hide=true|false (Instagram).
  private hide(request: FakeRequest): FakeResponse {
    const comment = this.comment(request.params.node!);
    if (!comment || comment.deleted) return this.noSuchObject(request.params.node!);
    const parameters = this.parameters(request);
    const value = comment.platform === 'instagram' ? parameters.get('hide') : parameters.get('is_hidden');
    if (value !== 'true' && value !== 'false') return { status: 400, body: graphError(100, `(#100) The parameter ${comment.platform === 'instagram' ? 'hide' : 'is_hidden'} is required`) };
    comment.hidden = value === 'true';
    return { body: { success: true } };
  }

  private remove(request: FakeRequest): FakeResponse {
    const comment = this.comment(request.params.node!);
    if (!comment || comment.deleted) return this.noSuchObject(request.params.node!);
    comment.deleted = true;
    return { body: { success: true } };
  }

  private reply(request: FakeRequest): FakeResponse {
    const parent = this.comment(request.params.node!);
    if (!parent || parent.deleted) return this.noSuchObject(request.params.node!);
    const message = this.parameters(request).get('message');
    if (!message) return { status: 400, body: graphError(100, '(#100) The parameter message is required') };
    if (parent.platform === 'instagram' && parent.hidden) return { status: 400, body: graphError(100, '(#100) You cannot reply to a hidden comment') };
    const reply = this.addComment({ platform: parent.platform, objectId: parent.objectId, authorName: parent.platform === 'facebook' ? PAGE.name : IG_USER.username, message, parentId: parent.parentId ?? parent.id });
    return { body: { id: reply.id } };
  }

  private like(request: FakeRequest, liked: boolean): FakeResponse {
    const comment = this.comment(request.params.node!);
    if (!comment || comment.deleted || comment.platform !== 'facebook') return this.noSuchObject(request.params.node!);
    if (comment.liked !== liked) comment.likeCount += liked ? 1 : -1;
    comment.liked = liked;
    return { body: { success: true } };
  }
}
