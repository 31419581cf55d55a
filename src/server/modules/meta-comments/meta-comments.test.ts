import { createHmac } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetaCommentsFake, type FakeComment } from '../../../../test/fakes/meta-comments.ts';
import { startMetaAdsFake, type MetaAdsFake } from '../../../../test/fakes/metaads.ts';
import { ownerWithStore } from '../../../../test/guests.ts';
import { createTestApp, signedInAdmin, testServices, trpcMutation, trpcQuery, useTestDatabase, type ApiClient } from '../../../../test/harness.ts';
import { PlatformConnection } from '../connections/platform-connection.entity.ts';
import { integrationsSettings } from '../integrations/integrations-runtime.ts';
import { sealCredentials } from '../integrations/sealed-credentials.ts';
import { FAKE_LLM_KEY, FakeLlm } from '../../../../test/fakes/llm.ts';
import { openAiCompatibleProvider } from '../llm/llm-provider.ts';
import { OutboundEmail } from '../email/outbound-email.entity.ts';
import { unsubscribe } from '../email/unsubscribe.ts';
import { MetaComment } from './meta-comments.entities.ts';
import { syncComments } from './meta-comments.service.ts';

const database = useTestDatabase();
let app: FastifyInstance;
let meta: MetaAdsFake;
let comments: MetaCommentsFake;

type Admin = { client: ApiClient; storeId: number };

async function adminWithMetaStore(name: string, connect = true): Promise<Admin> {
  const admin = await signedInAdmin(app, database.orm);
  const created = await admin.client.post('/api/stores', { name });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  if (connect) {
    const em = database.orm.em.fork();
    const connection = em.create(PlatformConnection, { store: created.body.id, platform: 'metaads', status: 'connected', connected: true, accountId: meta.accounts[0]!.id });
    await em.flush();
    sealCredentials(integrationsSettings(), connection, { accessToken: meta.auth.issueAccessToken().token });
    await em.flush();
  }
  return { client: admin.client, storeId: created.body.id };
}

const data = <T = any>(answer: { status: number; body: any }): T => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.result.data as T;
};

const webhookUrl = () => '/api/webhooks/meta';
const sign = (body: string, secret = meta.auth.clientSecret) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
const post = (body: string, signature: string) => app.inject({ method: 'POST', url: webhookUrl(), headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature }, payload: body });

let admin: Admin;
let other: Admin;

beforeAll(async () => {
  meta = await startMetaAdsFake({ campaigns: 2 });
  comments = new MetaCommentsFake(meta, { pageSize: 4, extraComments: 9 });
  app = await createTestApp(database.orm, testServices(), {
    PLATFORM_BASE_URL_METAADS: meta.url, METAADS_CLIENT_ID: meta.auth.clientId, METAADS_CLIENT_SECRET: meta.auth.clientSecret, METAADS_WEBHOOK_VERIFY_TOKEN: 'verify-me',
  });
  admin = await adminWithMetaStore('Comments Shop');
  other = await adminWithMetaStore('Other Comments Shop', false);
});

afterAll(async () => {
  await app?.close();
  await meta?.close();
});

describe('metaComments: sync, list and actions against the Graph API fake', () => {
  it('follows every comments page to the end and lists Page, ad and Instagram comments newest first', async () => {
    const state = data(await trpcMutation(admin.client, 'metaComments.syncNow', {}));
    expect(state).toMatchObject({ metaConnected: true, lastSyncError: null, comments: comments.comments.length });
    // The first post has 3 seeded + 9 extra comments, 4 a page: its edge is read over 3 pages.
    expect(meta.requests.filter((request) => request.method === 'GET' && request.path.endsWith(`${comments.posts[0]!.id}/comments`)).length).toBe(3);
    const list = data(await trpcQuery(admin.client, 'metaComments.list', {}));
    expect(list.comments).toHaveLength(18);
    const times = list.comments.map((row: any) => row.createdTime);
    expect([...times].sort().reverse()).toEqual(times);
    const adComment = list.comments.find((row: any) => row.message.startsWith('Terrible service'));
    expect(adComment).toMatchObject({ adId: '23850000000000901', postId: comments.posts[2]!.id, category: 'complaint', sentimentLabel: 'negative', language: 'en' });
    expect(list.comments.find((row: any) => row.authorName === 'lena.k')).toMatchObject({ platform: 'instagram', category: 'question', language: 'de' });
    expect(list.comments.find((row: any) => row.authorName === 'Promo Bot')).toMatchObject({ category: 'spam' });
  });

  it('filters by platform, category and text', async () => {
    expect(data(await trpcQuery(admin.client, 'metaComments.list', { platform: 'instagram' })).comments).toHaveLength(2);
    const questions = data(await trpcQuery(admin.client, 'metaComments.list', { category: 'question' })).comments.map((row: any) => row.authorName);
    expect(questions.sort()).toEqual(['Carlos Ruiz', 'Marie Dubois', 'lena.k']);
    expect(data(await trpcQuery(admin.client, 'metaComments.list', { search: 'BELGIQUE' })).comments.map((row: any) => row.authorName)).toEqual(['Marie Dubois']);
  });

  it('hide, like, reply and delete change the fake and our rows; a re-sync agrees', async () => {
    const [spam, praise, question, ig] = ['Promo Bot', 'Jane Miller', 'Carlos Ruiz', 'lena.k'].map((name) => comments.comments.find((comment) => comment.authorName === name)!) as [FakeComment, FakeComment, FakeComment, FakeComment];
    expect(data(await trpcMutation(admin.client, 'metaComments.act', { commentIds: [spam.id, ig.id], action: 'hide' }))).toEqual({ done: [spam.id, ig.id], failed: [] });
    expect([spam.hidden, ig.hidden]).toEqual([true, true]);
    data(await trpcMutation(admin.client, 'metaComments.act', { commentIds: [praise.id], action: 'like' }));
    expect(praise.liked).toBe(true);
    const replied = data(await trpcMutation(admin.client, 'metaComments.reply', { commentId: question.id, message: 'Hola Carlos, 2-3 días.' }));
    expect(replied.replied).toBe(true);
    expect(comments.comments.some((comment) => comment.parentId === question.id && comment.message === 'Hola Carlos, 2-3 días.')).toBe(true);
    data(await trpcMutation(admin.client, 'metaComments.act', { commentIds: [spam.id], action: 'delete' }));
    expect(spam.deleted).toBe(true);
    comments.comment(praise.id)!.hidden = true; // hidden on Facebook itself
    data(await trpcMutation(admin.client, 'metaComments.syncNow', {}));
    const rows = data(await trpcQuery(admin.client, 'metaComments.list', { hidden: true })).comments.map((row: any) => row.authorName).sort();
    expect(rows).toEqual(['Jane Miller', 'lena.k']);
    expect(data(await trpcQuery(admin.client, 'metaComments.list', { search: 'Promo' })).comments).toEqual([]);
  });

  it('a rate limit (613, then 4) is waited out without losing a comment', async () => {
    const em = database.orm.em.fork();
    const waits: number[] = [];
    comments.throttleNext(2, 613);
    await em.nativeDelete(MetaComment, { store: admin.storeId });
    await syncComments(em, { id: admin.storeId }, { http: { sleep: async (ms) => void waits.push(ms) } });
    expect(waits).toHaveLength(2);
    expect(await em.fork().count(MetaComment, { store: admin.storeId, deleted: false })).toBe(comments.comments.filter((comment) => !comment.deleted && comment.parentId === null).length);
  });

  it('an expired token says to reconnect Meta, and the sync state keeps saying it until a sync works', async () => {
    comments.expirePageTokens();
    try {
      const answer = await trpcMutation(admin.client, 'metaComments.act', { commentIds: [comments.comments[1]!.id], action: 'hide' });
      expect([answer.status, answer.body.error.message]).toEqual([400, 'Meta refused the access token: reconnect Meta on the Integrations page (/integrations).']);
      expect(comments.comments[1]!.hidden).toBe(false);
      expect((await trpcMutation(admin.client, 'metaComments.syncNow', {})).status).toBe(400);
      expect(data(await trpcQuery(admin.client, 'metaComments.status'))).toMatchObject({ reconnectNeeded: true, lastSyncError: expect.stringContaining('reconnect Meta') });
    } finally {
      comments.restorePageTokens();
    }
    expect(data(await trpcMutation(admin.client, 'metaComments.syncNow', {}))).toMatchObject({ reconnectNeeded: false, lastSyncError: null });
  });

  it('rules: new spam is hidden on Meta automatically, new complaints are flagged', async () => {
    data(await trpcMutation(admin.client, 'metaComments.updateRules', { autoHideSpam: true, autoHideProfanity: false, notifyComplaints: true }));
    const before = data(await trpcQuery(admin.client, 'metaComments.list', {})).complaintsToSee;
    const spam = comments.addComment({ platform: 'facebook', objectId: comments.posts[1]!.id, authorName: 'Spammer', message: 'Cheap followers, DM me now' });
    const complaint = comments.addComment({ platform: 'facebook', objectId: comments.posts[1]!.id, authorName: 'Angry Ann', message: 'My parcel arrived broken, I want a refund' });
    data(await trpcMutation(admin.client, 'metaComments.syncNow', {}));
    expect(comments.comment(spam.id)!.hidden).toBe(true);
    expect(comments.comment(complaint.id)!.hidden).toBe(false);
    const list = data(await trpcQuery(admin.client, 'metaComments.list', {}));
    expect(list.comments.find((row: any) => row.commentId === spam.id)).toMatchObject({ hidden: true, category: 'spam' });
    expect(list.complaintsToSee).toBe(before + 1);
    data(await trpcMutation(admin.client, 'metaComments.updateRules', { autoHideSpam: false, autoHideProfanity: false, notifyComplaints: true }));
  });

  it("new complaints are e-mailed to the store's owner, once, until the e-mail's unsubscribe link turns the notices off", async () => {
    const complaintMails = (text: string) =>
      database.orm.em.fork().find(OutboundEmail, { template: 'comment_complaints', textBody: { $like: `%${text}%` } });
    comments.addComment({ platform: 'facebook', objectId: comments.posts[0]!.id, authorName: 'Irate Ida', message: 'Awful service: the parcel arrived broken, I want a refund' });
    data(await trpcMutation(admin.client, 'metaComments.syncNow', {}));
    const [mail, ...more] = await complaintMails('Awful service: the parcel arrived broken');
    expect(more).toEqual([]);
    const [owner] = await database.orm.em.fork().getConnection().execute<{ email: string }[]>('select u.email from stores s join users u on u.id = s.owner_id where s.id = ?', [admin.storeId]);
    expect(mail).toMatchObject({ toAddress: owner!.email, subject: 'New complaints in the comments of Comments Shop' });
    expect(mail!.textBody).toContain('Irate Ida (Facebook');
    data(await trpcMutation(admin.client, 'metaComments.syncNow', {}));
    expect(await complaintMails('Awful service: the parcel arrived broken')).toHaveLength(1);

    await unsubscribe(database.orm.em.fork(), { kind: 'comment_complaints', storeId: admin.storeId });
    expect(data(await trpcQuery(admin.client, 'metaComments.rules'))).toMatchObject({ notifyComplaints: false });
    comments.addComment({ platform: 'facebook', objectId: comments.posts[0]!.id, authorName: 'Grumpy Gus', message: 'Broken on arrival, refund please, terrible' });
    data(await trpcMutation(admin.client, 'metaComments.syncNow', {}));
    expect(await complaintMails('Broken on arrival')).toEqual([]);
    data(await trpcMutation(admin.client, 'metaComments.updateRules', { autoHideSpam: false, autoHideProfanity: false, notifyComplaints: true }));
  });
});

describe('metaComments: the optional LLM', () => {
  const llm = new FakeLlm({
    reply: (request) => {
      const asked = JSON.parse((request.body as { messages: { content: string }[] }).messages.at(-1)!.content) as { id: string; text: string }[];
      // The model reads "Nice post number 1" (praise by the rules) as a question; everything else it leaves out.
      return `\`\`\`json\n${JSON.stringify(asked.filter((item) => item.text === 'Nice post number 1').map((item) => ({ id: item.id, sentiment: 'neutral', category: 'question' })))}\n\`\`\``;
    },
  });
  beforeAll(async () => {
    await llm.start();
  });
  afterAll(async () => {
    await llm.close();
  });

  it('improves the labels of new comments when configured; a failure keeps the rule labels', async () => {
    const provider = openAiCompatibleProvider({ baseUrl: llm.baseUrl, apiKey: FAKE_LLM_KEY, model: 'fake-model', timeoutMs: 5_000, maxTokens: 4_000 });
    const em = database.orm.em.fork();
    const label = async () => (await em.fork().findOneOrFail(MetaComment, { store: admin.storeId, message: 'Nice post number 1' })).category;
    await em.nativeDelete(MetaComment, { store: admin.storeId });
    await syncComments(em, { id: admin.storeId }, { llm: provider });
    expect(await label()).toBe('question');

    llm.failNext = { status: 500, message: 'overloaded', type: 'server_error' };
    await em.nativeDelete(MetaComment, { store: admin.storeId });
    await syncComments(database.orm.em.fork(), { id: admin.storeId }, { llm: provider });
    expect(await label()).toBe('praise');
  });
});

describe('metaComments: webhooks', () => {
  it('answers the verification handshake only with the verify token', async () => {
    const good = await app.inject({ method: 'GET', url: `${webhookUrl()}?hub.mode=subscribe&hub.verify_token=verify-me&hub.challenge=1158201444` });
    expect([good.statusCode, good.body]).toEqual([200, '1158201444']);
    expect((await app.inject({ method: 'GET', url: `${webhookUrl()}?hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=1` })).statusCode).toBe(403);
  });

  it('stores a signed new comment once; a bad signature is refused and stores nothing; an unknown Page is ignored', async () => {
    const comment = comments.addComment({ platform: 'facebook', objectId: comments.posts[1]!.id, authorName: 'Webhook Wendy', message: 'Do you ship to Canada?' });
    const body = JSON.stringify(comments.webhookPayload(comment));
    const forged = await post(body, sign(body, 'not-the-app-secret'));
    expect(forged.statusCode).toBe(403);
    expect(data(await trpcQuery(admin.client, 'metaComments.list', { search: 'Wendy' })).comments).toEqual([]);

    expect((await post(body, sign(body))).statusCode).toBe(200);
    const replayed = await post(body, sign(body));
    expect([replayed.statusCode, replayed.json().message]).toEqual([200, 'Already processed']);
    const rows = data(await trpcQuery(admin.client, 'metaComments.list', { search: 'Wendy' })).comments;
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ category: 'question', postText: 'Free shipping this weekend' });

    const stranger = JSON.stringify({ object: 'page', entry: [{ id: '999', time: 1, changes: [{ field: 'feed', value: { item: 'comment', verb: 'add', comment_id: '1_2', post_id: '999_1', message: 'hi' } }] }] });
    const ignored = await post(stranger, sign(stranger));
    expect([ignored.statusCode, ignored.json().message]).toEqual([200, 'Ignored']);
  });
});

describe('metaComments: access', () => {
  it("another store's comment id is not found", async () => {
    const theirs = data(await trpcQuery(admin.client, 'metaComments.list', {})).comments[0].commentId;
    const answer = await trpcMutation(other.client, 'metaComments.act', { commentIds: [theirs], action: 'hide' });
    expect(answer.status).toBe(404);
    expect((await trpcMutation(other.client, 'metaComments.reply', { commentId: theirs, message: 'hi' })).status).toBe(404);
    expect(data(await trpcQuery(other.client, 'metaComments.list', {})).comments).toEqual([]);
    expect(data(await trpcQuery(other.client, 'metaComments.status')).metaConnected).toBe(false);
  });

  it('a subscriber who is not an admin is refused, and so is an admin in guest mode', async () => {
    const owner = await ownerWithStore(app, database.orm, 'Pro Comments');
    const answer = await trpcQuery(owner.client, 'metaComments.list', {});
    expect([answer.status, answer.body.error.message]).toEqual([403, 'Administrator access required']);
    const viewer = await signedInAdmin(app, database.orm);
    expect((await viewer.client.post('/api/admin/enter-guest-mode', { userId: owner.user.id })).status).toBe(200);
    expect((await trpcQuery(viewer.client, 'metaComments.list', {})).status).toBe(403);
  });

  it('reply templates are per store', async () => {
    const saved = data(await trpcMutation(admin.client, 'metaComments.saveTemplate', { name: 'Thanks', body: 'Thank you {first_name}!' }));
    expect(saved).toEqual([expect.objectContaining({ name: 'Thanks', body: 'Thank you {first_name}!' })]);
    expect(data(await trpcQuery(other.client, 'metaComments.templates'))).toEqual([]);
    expect((await trpcMutation(other.client, 'metaComments.deleteTemplate', { id: saved[0].id })).status).toBe(404);
  });
});
