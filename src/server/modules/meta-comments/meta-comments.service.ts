import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ActionResult, CommentAction, CommentFilters, CommentPlatform, CommentRow, CommentRules, ReplyTemplate, SyncState } from '../../../shared/meta-comments.ts';
import { commentFilters } from '../../../shared/meta-comments.ts';
import { ConnectorAuthError, ConnectorRequestError, MalformedResponseError } from '../../connectors/connector.ts';
import type { PlatformHttpOptions } from '../../connectors/http.ts';
import { AppError } from '../../errors.ts';
import { PlatformConnection } from '../connections/platform-connection.entity.ts';
import { ConnectionAccount } from '../integrations/integration.entities.ts';
import { baseUrlFor, integrationsSettings } from '../integrations/integrations-runtime.ts';
import { openCredentials } from '../integrations/sealed-credentials.ts';
import type { LlmProvider } from '../llm/llm-provider.ts';
import { classifyComment } from './comment-classifier.ts';
import { sendComplaintEmail } from './complaint-email.ts';
import { llmLabels } from './llm-labels.ts';
import { MetaComment, MetaCommentSettings, MetaReplyTemplate, MetaWebhookDelivery, type MetaCommentEntity, type MetaCommentSettingsEntity } from './meta-comments.entities.ts';
import { MetaGraph, type GraphPost, type PageAccount } from './meta-graph.ts';

// The comments manager's rules: sync (poll) and webhooks fill meta_comments of the store whose Meta
// connection reaches the Page; actions go to the Graph API first and change our row only when Meta
// said yes. README "Meta comments manager".

type StoreRef = { id: number };

export const META_NOT_CONNECTED_MESSAGE = 'Connect Meta on the Integrations page to manage comments.';
export const RECONNECT_META_MESSAGE = 'Meta refused the access token: reconnect Meta on the Integrations page (/integrations).';
export const COMMENT_NOT_FOUND_MESSAGE = 'Comment not found';

export interface GraphOptions {
  http?: Partial<PlatformHttpOptions>;
  /** The optional LLM: a second opinion on new comments' labels. */
  llm?: LlmProvider | null;
}

async function settingsOf(em: EntityManager, storeId: number): Promise<MetaCommentSettingsEntity> {
  const existing = await em.findOne(MetaCommentSettings, { store: storeId });
  if (existing) return existing;
  const created = em.create(MetaCommentSettings, { store: storeId });
  await em.flush();
  return created;
}

async function graphOf(em: EntityManager, storeId: number, options: GraphOptions): Promise<{ graph: MetaGraph; adAccountIds: string[] } | null> {
  const connection = await em.findOne(PlatformConnection, { store: storeId, platform: 'metaads' });
  if (!connection?.sealedCredentials) return null;
  const settings = integrationsSettings();
  const credentials = openCredentials(settings, connection);
  if (!credentials?.accessToken) return null;
  const accounts = await em.find(ConnectionAccount, { store: storeId, connection: connection.id, selected: true });
  const adAccountIds = [...new Set([...accounts.map((account) => account.accountId), ...(connection.accountId ? [connection.accountId] : [])])].filter((id) => /^(act_)?\d+$/.test(id));
  return { graph: new MetaGraph(baseUrlFor(settings, 'metaads', credentials), credentials.apiVersion, credentials.accessToken, options.http), adAccountIds };
}

/** What a Graph failure means to the user, in one sentence. */
export function failureMessage(error: unknown): string {
  if (error instanceof ConnectorAuthError) return RECONNECT_META_MESSAGE;
  if (error instanceof ConnectorRequestError) return `Meta did not accept the request: ${error.detail}`;
  if (error instanceof MalformedResponseError) return 'Meta answered in a form we do not understand; try again later.';
  return 'Meta could not be reached; try again later.';
}

function labelsFor(message: string) {
  const { profanity, ...labels } = classifyComment(message);
  return { labels, profanity };
}

interface IncomingComment {
  commentId: string;
  platform: CommentPlatform;
  accountId: string;
  post: GraphPost;
  authorName: string;
  message: string;
  createdTime: Date;
  hidden: boolean;
  liked: boolean | null;
  parentId: string | null;
}

/** Inserts or refreshes one comment; returns whether it is new, and its profanity flag. */
function upsertComment(em: EntityManager, storeId: number, existing: Map<string, MetaCommentEntity>, incoming: IncomingComment): { row: MetaCommentEntity; created: boolean; profanity: boolean } {
  const { labels, profanity } = labelsFor(incoming.message);
  const current = existing.get(incoming.commentId);
  const values = {
    platform: incoming.platform, accountId: incoming.accountId, postId: incoming.post.id, postLink: incoming.post.link, postText: incoming.post.text, adId: incoming.post.adId,
    authorName: incoming.authorName.slice(0, 255), message: incoming.message, createdTime: incoming.createdTime, hidden: incoming.hidden, parentId: incoming.parentId, deleted: false, ...labels,
  };
  if (current) {
    em.assign(current, { ...values, liked: incoming.liked ?? current.liked, postText: incoming.post.text || current.postText, postLink: incoming.post.link ?? current.postLink, adId: incoming.post.adId ?? current.adId });
    return { row: current, created: false, profanity };
  }
  const row = em.create(MetaComment, { store: storeId, commentId: incoming.commentId, ...values, liked: incoming.liked ?? false });
  existing.set(row.commentId, row);
  return { row, created: true, profanity };
}

/** The store's rules on new comments: auto-hide spam / profanity (through Meta), mark complaints to notify. */
async function applyRules(em: EntityManager, storeId: number, graph: MetaGraph | null, pages: PageAccount[], settings: MetaCommentSettingsEntity, fresh: { row: MetaCommentEntity; profanity: boolean }[]): Promise<void> {
  const complaints: MetaCommentEntity[] = [];
  for (const { row, profanity } of fresh) {
    if (settings.notifyComplaints && row.category === 'complaint' && !row.notifiedAt) {
      row.notifiedAt = new Date();
      complaints.push(row);
    }
    const hide = !row.hidden && ((settings.autoHideSpam && row.category === 'spam') || (settings.autoHideProfanity && profanity));
    const token = pageTokenFor(pages, row);
    if (!hide || !graph || !token) continue;
    try {
      await graph.act(row.platform, row.commentId, 'hide', token);
      row.hidden = true;
    } catch {
      // The comment stays visible; the next sync tries again.
    }
  }
  await sendComplaintEmail(em, storeId, complaints);
}

function pageTokenFor(pages: PageAccount[], row: Pick<MetaCommentEntity, 'accountId'>): string | null {
  const page = pages.find((candidate) => candidate.id === row.accountId || candidate.instagram_business_account?.id === row.accountId);
  return page?.access_token ?? null;
}

const parseGraphTime = (value: string) => new Date(value.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));

/** Reads every comment of the store's Pages, ads' posts and Instagram media into meta_comments. */
export async function syncComments(em: EntityManager, store: StoreRef, options: GraphOptions = {}): Promise<SyncState> {
  const settings = await settingsOf(em, store.id);
  const access = await graphOf(em, store.id, options);
  if (!access) throw new AppError('BAD_REQUEST', META_NOT_CONNECTED_MESSAGE);
  const { graph, adAccountIds } = access;
  try {
    const pages = await graph.pages();
    const existing = new Map((await em.find(MetaComment, { store: store.id })).map((row) => [row.commentId, row]));
    const seen = new Set<string>();
    const listedPosts = new Set<string>();
    const fresh: { row: MetaCommentEntity; profanity: boolean }[] = [];
    const take = (incoming: IncomingComment) => {
      seen.add(incoming.commentId);
      const result = upsertComment(em, store.id, existing, incoming);
      if (result.created) fresh.push(result);
    };
    for (const page of pages) {
      const posts = [...(await graph.pagePosts(page)), ...(await graph.adPosts(adAccountIds, page))];
      for (const post of posts) {
        for (const comment of await graph.facebookComments(post.id, page)) {
          take({ commentId: comment.id, platform: 'facebook', accountId: page.id, post, authorName: comment.from?.name ?? '', message: comment.message, createdTime: parseGraphTime(comment.created_time), hidden: comment.is_hidden ?? false, liked: comment.user_likes ?? null, parentId: comment.parent?.id ?? null });
        }
        listedPosts.add(post.id);
      }
      const igUser = page.instagram_business_account?.id;
      for (const media of await graph.instagramMedia(page)) {
        for (const comment of await graph.instagramComments(media.id, page)) {
          take({ commentId: comment.id, platform: 'instagram', accountId: igUser!, post: media, authorName: comment.username ?? '', message: comment.text, createdTime: parseGraphTime(comment.timestamp), hidden: comment.hidden ?? false, liked: null, parentId: comment.parent_id ?? null });
        }
        listedPosts.add(media.id);
      }
    }
    // A comment no longer listed on a post we read in full was deleted on Meta.
    for (const row of existing.values()) if (!seen.has(row.commentId) && listedPosts.has(row.postId)) row.deleted = true;
    if (options.llm && fresh.length > 0) {
      const better = await llmLabels(options.llm, fresh.map(({ row }) => ({ id: row.commentId, message: row.message })));
      for (const { row } of fresh) Object.assign(row, better.get(row.commentId) ?? {});
    }
    await applyRules(em, store.id, graph, pages, settings, fresh);
    settings.accountIds = pages.flatMap((page) => [page.id, ...(page.instagram_business_account ? [page.instagram_business_account.id] : [])]);
    settings.lastSyncAt = new Date();
    settings.lastSyncError = null;
    settings.reconnectNeeded = false;
    await em.flush();
  } catch (error) {
    if (error instanceof AppError) throw error;
    settings.lastSyncError = failureMessage(error);
    settings.reconnectNeeded = error instanceof ConnectorAuthError;
    await em.flush();
    throw new AppError('BAD_REQUEST', settings.lastSyncError);
  }
  return syncStateOf(em, store);
}

export async function syncStateOf(em: EntityManager, store: StoreRef): Promise<SyncState> {
  const connection = await em.findOne(PlatformConnection, { store: store.id, platform: 'metaads' });
  const settings = await em.findOne(MetaCommentSettings, { store: store.id });
  const comments = await em.count(MetaComment, { store: store.id, deleted: false });
  return {
    metaConnected: Boolean(connection?.sealedCredentials),
    lastSyncAt: settings?.lastSyncAt?.toISOString() ?? null,
    lastSyncError: settings?.lastSyncError ?? null,
    reconnectNeeded: settings?.reconnectNeeded ?? false,
    comments,
  };
}

function rowOf(row: MetaCommentEntity): CommentRow {
  return {
    commentId: row.commentId, platform: row.platform, postId: row.postId, postLink: row.postLink ?? null, postText: row.postText, adId: row.adId ?? null, authorName: row.authorName,
    message: row.message, createdTime: row.createdTime.toISOString(), hidden: row.hidden, liked: row.liked, replied: row.replied, parentId: row.parentId ?? null,
    sentimentScore: Number(row.sentimentScore), sentimentLabel: row.sentimentLabel, category: row.category, language: row.language,
  };
}

export async function listComments(em: EntityManager, store: StoreRef, input: CommentFilters): Promise<{ comments: CommentRow[]; complaintsToSee: number }> {
  const filters = commentFilters.parse(input);
  const where: Record<string, unknown> = { store: store.id, deleted: false };
  if (filters.platform) where.platform = filters.platform;
  if (filters.sentiment) where.sentimentLabel = filters.sentiment;
  if (filters.category) where.category = filters.category;
  if (filters.hidden !== undefined) where.hidden = filters.hidden;
  if (filters.replied !== undefined) where.replied = filters.replied;
  if (filters.search) {
    const pattern = `%${filters.search.replace(/[\\%_]/g, (match) => `\\${match}`)}%`;
    where.$or = [{ message: { $ilike: pattern } }, { authorName: { $ilike: pattern } }, { postText: { $ilike: pattern } }];
  }
  const rows = await em.find(MetaComment, where, { orderBy: { createdTime: 'desc', commentId: 'asc' }, limit: filters.limit });
  const complaintsToSee = await em.count(MetaComment, { store: store.id, deleted: false, category: 'complaint', replied: false, hidden: false, notifiedAt: { $ne: null } });
  return { comments: rows.map(rowOf), complaintsToSee };
}

async function rowsFor(em: EntityManager, store: StoreRef, commentIds: string[]): Promise<Map<string, MetaCommentEntity>> {
  const rows = await em.find(MetaComment, { store: store.id, commentId: { $in: commentIds }, deleted: false });
  return new Map(rows.map((row) => [row.commentId, row]));
}

async function connectedGraph(em: EntityManager, store: StoreRef, options: GraphOptions) {
  const access = await graphOf(em, store.id, options);
  if (!access) throw new AppError('BAD_REQUEST', META_NOT_CONNECTED_MESSAGE);
  try {
    return { graph: access.graph, pages: await access.graph.pages() };
  } catch (error) {
    throw new AppError('BAD_REQUEST', failureMessage(error));
  }
}

/** One action on each comment; each is done on Meta first, then recorded. Unknown ids (another store's too) are "not found". */
export async function actOnComments(em: EntityManager, store: StoreRef, commentIds: string[], action: CommentAction, options: GraphOptions = {}): Promise<ActionResult> {
  const rows = await rowsFor(em, store, commentIds);
  if (rows.size === 0) throw new AppError('NOT_FOUND', COMMENT_NOT_FOUND_MESSAGE);
  const { graph, pages } = await connectedGraph(em, store, options);
  const result: ActionResult = { done: [], failed: [] };
  for (const commentId of commentIds) {
    const row = rows.get(commentId);
    const token = row ? pageTokenFor(pages, row) : null;
    if (!row || !token) {
      result.failed.push({ commentId, message: row ? 'This Facebook login no longer manages the Page of this comment.' : COMMENT_NOT_FOUND_MESSAGE });
      continue;
    }
    try {
      await graph.act(row.platform, row.commentId, action, token);
      if (action === 'hide' || action === 'unhide') row.hidden = action === 'hide';
      if (action === 'delete') row.deleted = true;
      if (action === 'like') row.liked = true;
      result.done.push(commentId);
    } catch (error) {
      result.failed.push({ commentId, message: failureMessage(error) });
    }
  }
  await em.flush();
  if (result.done.length === 0 && result.failed.every((failure) => failure.message === RECONNECT_META_MESSAGE)) throw new AppError('BAD_REQUEST', RECONNECT_META_MESSAGE);
  return result;
}

export async function replyToComment(em: EntityManager, store: StoreRef, commentId: string, message: string, options: GraphOptions = {}): Promise<CommentRow> {
  const row = (await rowsFor(em, store, [commentId])).get(commentId);
  if (!row) throw new AppError('NOT_FOUND', COMMENT_NOT_FOUND_MESSAGE);
  const { graph, pages } = await connectedGraph(em, store, options);
  const token = pageTokenFor(pages, row);
  if (!token) throw new AppError('BAD_REQUEST', 'This Facebook login no longer manages the Page of this comment.');
  try {
    await graph.reply(row.platform, row.commentId, message, token);
  } catch (error) {
    throw new AppError('BAD_REQUEST', failureMessage(error));
  }
  row.replied = true;
  await em.flush();
  return rowOf(row);
}

// ---------------------------------------------------------------------------------------------
// Rules and templates

export async function rulesOf(em: EntityManager, store: StoreRef): Promise<CommentRules> {
  const settings = await settingsOf(em, store.id);
  return { autoHideSpam: settings.autoHideSpam, autoHideProfanity: settings.autoHideProfanity, notifyComplaints: settings.notifyComplaints };
}

export async function updateRules(em: EntityManager, store: StoreRef, rules: CommentRules): Promise<CommentRules> {
  const settings = await settingsOf(em, store.id);
  em.assign(settings, rules);
  await em.flush();
  return rulesOf(em, store);
}

export async function templatesOf(em: EntityManager, store: StoreRef): Promise<ReplyTemplate[]> {
  const rows = await em.find(MetaReplyTemplate, { store: store.id }, { orderBy: { name: 'asc', id: 'asc' } });
  return rows.map((row) => ({ id: row.id, name: row.name, body: row.body }));
}

export async function saveTemplate(em: EntityManager, store: StoreRef, input: { id?: number; name: string; body: string }): Promise<ReplyTemplate[]> {
  if (input.id !== undefined) {
    const row = await em.findOne(MetaReplyTemplate, { store: store.id, id: input.id });
    if (!row) throw new AppError('NOT_FOUND', 'Template not found');
    em.assign(row, { name: input.name, body: input.body });
  } else {
    em.create(MetaReplyTemplate, { store: store.id, name: input.name, body: input.body });
  }
  await em.flush();
  return templatesOf(em, store);
}

export async function deleteTemplate(em: EntityManager, store: StoreRef, id: number): Promise<ReplyTemplate[]> {
  const removed = await em.nativeDelete(MetaReplyTemplate, { store: store.id, id });
  if (removed === 0) throw new AppError('NOT_FOUND', 'Template not found');
  return templatesOf(em, store);
}

// ---------------------------------------------------------------------------------------------
// Webhooks

export interface WebhookAnswer {
  status: number;
  message: string;
}

/** X-Hub-Signature-256 = "sha256=" + hex HMAC-SHA256 of the raw body with the app secret, compared in constant time. */
export function validSignature(rawBody: Buffer, header: string | undefined, appSecret: string): boolean {
  const match = /^sha256=([0-9a-f]{64})$/i.exec(header?.trim() ?? '');
  if (!match) return false;
  const expected = createHmac('sha256', appSecret).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(match[1]!, 'hex'));
}

interface FeedValue { item?: string; verb?: string; comment_id?: string; post_id?: string; parent_id?: string; message?: string; from?: { name?: string }; created_time?: number }
interface InstagramValue { id?: string; text?: string; from?: { username?: string }; media?: { id?: string }; parent_id?: string }
interface WebhookBody { object?: string; entry?: { id?: string; time?: number; changes?: { field?: string; value?: unknown }[] }[] }

/** A Page `feed` or Instagram `comments` delivery, signature checked first; applied once per body. */
export async function receiveMetaWebhook(em: EntityManager, rawBody: Buffer, signature: string | undefined, appSecret: string | undefined): Promise<WebhookAnswer> {
  if (!appSecret || !validSignature(rawBody, signature, appSecret)) return { status: 403, message: 'Invalid signature' };
  let body: WebhookBody;
  try {
    body = JSON.parse(rawBody.toString('utf8')) as WebhookBody;
  } catch {
    return { status: 400, message: 'The body is not JSON' };
  }
  const digest = createHash('sha256').update(rawBody).digest('hex');
  return em.transactional(async (tx) => {
    const inserted = await tx.getConnection().execute<{ digest: string }[]>('insert into meta_webhook_deliveries (digest, received_at) values (?, now()) on conflict do nothing returning digest', [digest]);
    if (inserted.length === 0) return { status: 200, message: 'Already processed' };
    let applied = 0;
    for (const entry of body.entry ?? []) {
      if (!entry.id) continue;
      const stores = await tx.find(MetaCommentSettings, { accountIds: { $contains: [entry.id] } } as never);
      for (const settings of stores) applied += await applyEntry(tx, settings, entry.id, body.object ?? '', entry.changes ?? []);
    }
    return { status: 200, message: applied > 0 ? `Applied ${applied} change(s)` : 'Ignored' };
  });
}

async function applyEntry(em: EntityManager, settings: MetaCommentSettingsEntity, accountId: string, object: string, changes: { field?: string; value?: unknown }[]): Promise<number> {
  const storeId = settings.store.id;
  let applied = 0;
  const fresh: { row: MetaCommentEntity; profanity: boolean }[] = [];
  for (const change of changes) {
    let commentId: string | undefined;
    let incoming: Omit<IncomingComment, 'post'> & { postId: string } | null = null;
    let verb = 'add';
    if (object === 'page' && change.field === 'feed') {
      const value = (change.value ?? {}) as FeedValue;
      if (value.item !== 'comment' || !value.comment_id || !value.post_id) continue;
      commentId = value.comment_id;
      verb = value.verb ?? 'add';
      incoming = {
        commentId, platform: 'facebook', accountId, postId: value.post_id, authorName: value.from?.name ?? '', message: value.message ?? '', createdTime: value.created_time ? new Date(value.created_time * 1000) : new Date(),
        hidden: verb === 'hide', liked: null, parentId: value.parent_id && value.parent_id !== value.post_id ? value.parent_id : null,
      };
    } else if (object === 'instagram' && change.field === 'comments') {
      const value = (change.value ?? {}) as InstagramValue;
      if (!value.id || !value.media?.id) continue;
      commentId = value.id;
      incoming = { commentId, platform: 'instagram', accountId, postId: value.media.id, authorName: value.from?.username ?? '', message: value.text ?? '', createdTime: new Date(), hidden: false, liked: null, parentId: value.parent_id ?? null };
    }
    if (!incoming || !commentId) continue;
    const current = await em.findOne(MetaComment, { store: storeId, commentId });
    if (verb === 'remove') {
      if (current) current.deleted = true;
    } else if (verb === 'hide' || verb === 'unhide') {
      if (current) current.hidden = verb === 'hide';
    } else {
      const sibling = current ?? (await em.findOne(MetaComment, { store: storeId, postId: incoming.postId }));
      const post: GraphPost = { id: incoming.postId, text: sibling?.postText ?? '', link: sibling?.postLink ?? null, adId: sibling?.adId ?? null };
      const existing = new Map(current ? [[commentId, current]] : []);
      const result = upsertComment(em, storeId, existing, { ...incoming, post, hidden: current?.hidden ?? false });
      if (result.created) fresh.push(result);
    }
    applied++;
  }
  if (fresh.length > 0) {
    // Auto-hide needs the Page token: only when the rules ask for it.
    const graphNeeded = settings.autoHideSpam || settings.autoHideProfanity;
    const access = graphNeeded ? await graphOf(em, storeId, {}) : null;
    let pages: PageAccount[] = [];
    try {
      pages = access ? await access.graph.pages() : [];
    } catch {
      pages = [];
    }
    await applyRules(em, storeId, access?.graph ?? null, pages, settings, fresh);
  }
  await em.flush();
  return applied;
}

/** Every store with a Meta connection and comments synced before: the polling fallback (every 15 minutes). */
export async function syncAllStores(fork: () => EntityManager, log: (message: string) => void): Promise<void> {
  const stores = await fork().find(MetaCommentSettings, { lastSyncAt: { $ne: null } });
  for (const settings of stores) {
    try {
      await syncComments(fork(), { id: settings.store.id });
    } catch (error) {
      log(`meta comments sync of store ${settings.store.id} failed: ${(error as Error).message}`);
    }
  }
}
