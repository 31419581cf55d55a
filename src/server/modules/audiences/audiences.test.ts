import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKlaviyoFake, type KlaviyoFake } from '../../../../test/fakes/klaviyo.ts';
import { startMailchimpFake, type MailchimpFake } from '../../../../test/fakes/mailchimp.ts';
import { newGuestOf, ownerWithStore } from '../../../../test/guests.ts';
import { trpcMutation, trpcQuery, useTestApp } from '../../../../test/harness.ts';
import { PLATFORM_KEYS, type PlatformKey } from '../../../shared/platforms.ts';
import type { PlatformSettings } from '../../config.ts';
import { sealContact } from '../commerce/customer-contacts.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { PlatformConnection } from '../connections/platform-connection.entity.ts';
import { configureIntegrations, integrationsSettingsFrom, type IntegrationsSettings } from '../integrations/integrations-runtime.ts';
import { sealCredentials } from '../integrations/sealed-credentials.ts';
import { AudiencePush } from './audience-push.entity.ts';
import { audienceStatus, requestAudiencePush, runAudiencePush, splitName } from './audience-push.service.ts';
import { testContext } from '../../connectors/test-support.ts';
import { importChunks, KLAVIYO_IMPORT_MAX_BYTES, KLAVIYO_LIST_SCOPE_MESSAGE, KlaviyoLists } from './klaviyo-lists.ts';

// The segment push against the Klaviyo and Mailchimp fakes, with the real clients, database and API.

const testApp = useTestApp();
let klaviyo: KlaviyoFake;
let mailchimp: MailchimpFake;
let settings: IntegrationsSettings;
/** Waits the HTTP client would have slept (429 Retry-After, backoff, import polling). */
const waits: number[] = [];
const http = { sleep: async (ms: number) => void waits.push(ms), maxAttempts: 4 };

beforeAll(async () => {
  klaviyo = await startKlaviyoFake({ rateLimits: true });
  mailchimp = await startMailchimpFake();
  const platforms = Object.fromEntries(PLATFORM_KEYS.map((key) => [key, {}])) as Record<PlatformKey, PlatformSettings>;
  platforms.klaviyo = { baseUrl: klaviyo.apiUrl };
  platforms.mailchimp = { baseUrl: mailchimp.apiUrl };
  settings = integrationsSettingsFrom({ encryptionKey: randomBytes(32).toString('hex'), dataDir: path.join(os.tmpdir(), 'storepulse-audiences-test'), platforms });
  configureIntegrations(settings);
});
afterAll(async () => {
  await klaviyo.close();
  await mailchimp.close();
});

async function connect(storeId: number, platform: 'klaviyo' | 'mailchimp', apiKey: string) {
  const em = testApp.orm.em.fork();
  const connection = em.create(PlatformConnection, { store: storeId, platform, status: 'connected', connected: true, accountId: `${platform}-account` });
  await em.flush();
  sealCredentials(settings, connection, { apiKey });
  await em.flush();
}

/** Customers of the store with sealed names and e-mails; answers their ids in order. */
async function customers(storeId: number, people: { name: string | null; email: string | null }[]): Promise<number[]> {
  const ids: number[] = [];
  for (const person of people) {
    const externalId = `c-${randomBytes(6).toString('hex')}`;
    const sealed = sealContact(storeId, 'shopify', externalId, person);
    const rows = await sqlRunner(testApp.orm.em.fork()).rows<{ id: string }>(
      'insert into customers (store_id, platform, external_id, contact_sealed, contact_digest, name_search, updated_at) values ($1, $2, $3, $4, $5, $6, now()) returning id::text',
      [storeId, 'shopify', externalId, sealed.contact_sealed, sealed.contact_digest, sealed.name_search],
    );
    ids.push(Number(rows[0]!.id));
  }
  return ids;
}

function people(prefix: string, count: number) {
  return Array.from({ length: count }, (_, index) => ({ name: `${prefix}first${index} Van ${prefix}last${index}`, email: `${prefix}${index}@example.com` }));
}

async function run(pushId: number, options: { klaviyoChunk?: number } = {}) {
  return runAudiencePush(testApp.orm.em.fork(), pushId, { settings, http, ...options });
}

describe('audiences', () => {
  it('splits a name into first and last name', () => {
    expect(splitName('Zoë O\'Brien Smith')).toEqual({ firstName: 'Zoë', lastName: "O'Brien Smith" });
    expect(splitName('Cher')).toEqual({ firstName: 'Cher', lastName: null });
    expect(splitName(null)).toEqual({ firstName: null, lastName: null });
  });

  it('Klaviyo: import jobs stay within the documented 10,000 profiles and 5 MB; the fake refuses a job over the maximum', async () => {
    const many = Array.from({ length: 25_000 }, (_, index) => ({ email: `p${index}@example.com`, firstName: 'A', lastName: 'B' }));
    expect(importChunks(many).map((chunk) => chunk.length)).toEqual([10_000, 10_000, 5_000]);
    const long = Array.from({ length: 9_000 }, (_, index) => ({ email: `long${index}@example.com`, firstName: 'x'.repeat(600), lastName: 'y'.repeat(600) }));
    const chunks = importChunks(long);
    expect(chunks.length).toBeGreaterThan(1);
    for (const chunk of chunks) {
      const body = JSON.stringify({ data: chunk.map((profile) => ({ type: 'profile', attributes: { email: profile.email, first_name: profile.firstName, last_name: profile.lastName } })) });
      expect(Buffer.byteLength(body)).toBeLessThan(KLAVIYO_IMPORT_MAX_BYTES);
    }
    const lists = new KlaviyoLists(testContext('klaviyo', klaviyo.apiUrl, { apiKey: klaviyo.options.apiKey }));
    const listId = await lists.findOrCreateList('StorePulse – Oversized');
    await expect(lists.startImport(listId, many.slice(0, 10_001))).rejects.toThrow(/400/);
    expect(klaviyo.refusals.at(-1)?.reason).toMatch(/at most 10000 profiles/);
    klaviyo.refusals.length = 0;
  });

  it('two requests of the same segment at once make one push', async () => {
    const { store } = await ownerWithStore(testApp.app, testApp.orm, 'Race Shop');
    await connect(store.id, 'mailchimp', mailchimp.options.apiKey);
    const ids = await customers(store.id, people('race', 1));
    const input = { platform: 'mailchimp' as const, segment: 'race', label: 'Race', customerIds: ids };
    const [first, second] = await Promise.all([requestAudiencePush(testApp.orm.em.fork(), store, null, input), requestAudiencePush(testApp.orm.em.fork(), store, null, input)]);
    expect(first.id).toBe(second.id);
    expect(await testApp.orm.em.fork().count(AudiencePush, { store: store.id, segmentKey: 'race' })).toBe(1);
  });

  it('Klaviyo: creates the list once, imports every profile with names in chunks, polls the jobs, and a re-push adds the new ones to the same list and takes off those who left', async () => {
    const { client, store } = await ownerWithStore(testApp.app, testApp.orm, 'Klaviyo Push Shop');
    await connect(store.id, 'klaviyo', klaviyo.options.apiKey);
    const ids = await customers(store.id, [...people('k', 7), { name: 'No Mail', email: null }]);
    const importPosts = () => klaviyo.requests.filter((request) => request.method === 'POST' && request.path === '/api/profile-bulk-import-jobs').length;
    const postsBefore = importPosts();

    const requested = await trpcMutation(client, 'audiences.push', { platform: 'klaviyo', segment: 'at_risk', label: 'At risk', customerIds: ids });
    expect(requested.status, JSON.stringify(requested.body)).toBe(200);
    const push = requested.body.result.data as { id: number; status: string; total: number; listName: string };
    expect(push).toMatchObject({ status: 'queued', total: 8, listName: 'StorePulse – At risk' });

    // While it is queued, asking again answers the same push.
    const again = await trpcMutation(client, 'audiences.push', { platform: 'klaviyo', segment: 'at_risk', label: 'At risk', customerIds: ids });
    expect((again.body.result.data as { id: number }).id).toBe(push.id);

    const done = await run(push.id, { klaviyoChunk: 3 });
    expect(done.status).toBe('done');
    expect(done.total).toBe(7); // the customer without an e-mail is not sent
    expect(done.done).toBe(7);
    expect(klaviyo.refusals).toEqual([]);
    expect([...klaviyo.lists.values()].filter((name) => name === 'StorePulse – At risk')).toHaveLength(1);
    const listed = klaviyo.listProfiles('StorePulse – At risk');
    expect(listed).toHaveLength(7);
    expect(listed[0]).toEqual({ email: 'k0@example.com', first_name: 'kfirst0', last_name: 'Van klast0' });
    expect(listed.every((profile) => profile.subscribed === undefined)).toBe(true);
    // 7 profiles in jobs of at most 3: three import jobs, each polled until complete.
    expect(importPosts() - postsBefore).toBe(3);

    const status = await trpcQuery(client, 'audiences.status', { segment: 'at_risk' });
    expect(status.body.result.data).toMatchObject({ pushes: [{ id: push.id, status: 'done', total: 7, done: 7, progress: 1 }] });

    // A re-push after done: the same list, the new customers added, those who left (k0, k1) taken off.
    const more = await customers(store.id, people('k2-', 2));
    const second = await requestAudiencePush(testApp.orm.em.fork(), store, null, { platform: 'klaviyo', segment: 'at_risk', label: 'At risk', customerIds: [...ids.slice(2), ...more] });
    expect(second.id).not.toBe(push.id);
    expect((await run(second.id)).status).toBe('done');
    expect(klaviyo.refusals).toEqual([]);
    expect([...klaviyo.lists.values()].filter((name) => name === 'StorePulse – At risk')).toHaveLength(1);
    expect(klaviyo.listProfiles('StorePulse – At risk').map((profile) => profile.email).sort()).toEqual(
      ['k2-0@example.com', 'k2-1@example.com', 'k2@example.com', 'k3@example.com', 'k4@example.com', 'k5@example.com', 'k6@example.com'].sort(),
    );
    // Taken off the list, not deleted: the profiles stay in the account.
    expect(klaviyo.profiles.has('k0@example.com')).toBe(true);
  });

  it('Klaviyo: a 429 on an import is waited out (Retry-After) and the push completes', async () => {
    const { store } = await ownerWithStore(testApp.app, testApp.orm, 'Klaviyo Throttled Shop');
    await connect(store.id, 'klaviyo', klaviyo.options.apiKey);
    const ids = await customers(store.id, people('t', 3));
    const push = await requestAudiencePush(testApp.orm.em.fork(), store, null, { platform: 'klaviyo', segment: 'lost', label: 'Lost', customerIds: ids });
    klaviyo.injectFault('rate_limit', { pathIncludes: 'profile-bulk-import-jobs', times: 2 });
    waits.length = 0;
    const done = await run(push.id);
    expect(done.status).toBe('done');
    expect(waits.filter((ms) => ms === klaviyo.options.retryAfterSeconds * 1000).length).toBeGreaterThanOrEqual(2);
    expect(klaviyo.listProfiles('StorePulse – Lost')).toHaveLength(3);
  });

  it('Klaviyo: a push interrupted by failures resumes where it stopped, without sending a chunk twice', async () => {
    const { store } = await ownerWithStore(testApp.app, testApp.orm, 'Klaviyo Retry Shop');
    await connect(store.id, 'klaviyo', klaviyo.options.apiKey);
    const ids = await customers(store.id, people('v', 4));
    const push = await requestAudiencePush(testApp.orm.em.fork(), store, null, { platform: 'klaviyo', segment: 'retry', label: 'Retry', customerIds: ids });
    const posts = () => klaviyo.requests.filter((request) => request.method === 'POST' && request.path === '/api/profile-bulk-import-jobs').length;
    const before = posts();
    // Every look at an import job fails (503) for longer than the client's 4 attempts.
    klaviyo.injectFault('server_error', { pathIncludes: '/api/profile-bulk-import-jobs/', times: 4 });
    await expect(run(push.id, { klaviyoChunk: 2 })).rejects.toThrow(/503|gave up/);
    const interrupted = await testApp.orm.em.fork().findOneOrFail(AudiencePush, push.id);
    expect(interrupted).toMatchObject({ status: 'running', cursor: 0, attempts: 1 });
    expect(interrupted.platformJobId).not.toBeNull();
    expect(interrupted.error).toMatch(/503|gave up/);
    // The job's retry: polls the import job already sent, then sends the second chunk only.
    const resumed = await run(push.id, { klaviyoChunk: 2 });
    expect(resumed).toMatchObject({ status: 'done', done: 4, attempts: 2, error: null });
    expect(posts() - before).toBe(2);
    expect(klaviyo.listProfiles('StorePulse – Retry')).toHaveLength(4);
  });

  it('Klaviyo: a key without lists:write / profiles:write fails the push with a clear message', async () => {
    const scopeless = await startKlaviyoFake({ listsScope: false });
    try {
      const { store } = await ownerWithStore(testApp.app, testApp.orm, 'Klaviyo Scopeless Shop');
      await connect(store.id, 'klaviyo', scopeless.options.apiKey);
      const ids = await customers(store.id, people('s', 2));
      const push = await requestAudiencePush(testApp.orm.em.fork(), store, null, { platform: 'klaviyo', segment: 'at_risk', label: 'At risk', customerIds: ids });
      const localSettings = { ...settings, platforms: { ...settings.platforms, klaviyo: { baseUrl: scopeless.apiUrl } } };
      const failed = await runAudiencePush(testApp.orm.em.fork(), push.id, { settings: localSettings, http });
      expect(failed.status).toBe('failed');
      expect(failed.error).toBe(KLAVIYO_LIST_SCOPE_MESSAGE);
      expect(failed.error).toMatch(/^Reconnect Klaviyo and allow list access/);
      const [latest] = await audienceStatus(testApp.orm.em.fork(), store.id, 'at_risk');
      expect(latest).toMatchObject({ status: 'failed', error: KLAVIYO_LIST_SCOPE_MESSAGE });
    } finally {
      await scopeless.close();
    }
  });

  it('Mailchimp: members added as transactional to the oldest audience, a static segment holding exactly them; a re-push adds the new and removes those who left', async () => {
    const { store } = await ownerWithStore(testApp.app, testApp.orm, 'Mailchimp Push Shop');
    await connect(store.id, 'mailchimp', mailchimp.options.apiKey);
    // Someone already subscribed keeps their subscription.
    mailchimp.defaultAudience.members.set('m0@example.com', { email_address: 'm0@example.com', status: 'subscribed', merge_fields: { FNAME: 'Old' } });
    const ids = await customers(store.id, people('m', 4));
    const push = await requestAudiencePush(testApp.orm.em.fork(), store, null, { platform: 'mailchimp', segment: 'champions', label: 'Champions', customerIds: ids });
    const done = await run(push.id);
    expect(done.status, done.error ?? '').toBe('done');
    expect(done.done).toBe(4);
    expect(mailchimp.refusals).toEqual([]);
    const audience = mailchimp.defaultAudience;
    expect(audience.id).toBe('1a2b3c4d5e');
    expect(audience.members.get('m1@example.com')).toMatchObject({ status: 'transactional', merge_fields: { FNAME: 'mfirst1', LNAME: 'Van mlast1' } });
    expect(audience.members.get('m0@example.com')!.status).toBe('subscribed');
    expect(mailchimp.segmentEmails('StorePulse – Champions')).toEqual(['m0@example.com', 'm1@example.com', 'm2@example.com', 'm3@example.com']);

    // m0 and m1 left the segment, two joined.
    const joined = await customers(store.id, people('m-new', 2));
    const second = await requestAudiencePush(testApp.orm.em.fork(), store, null, { platform: 'mailchimp', segment: 'champions', label: 'Champions', customerIds: [ids[2]!, ids[3]!, ...joined] });
    expect((await run(second.id)).status).toBe('done');
    expect(audience.segments.size).toBe(1);
    expect(mailchimp.segmentEmails('StorePulse – Champions')).toEqual(['m-new0@example.com', 'm-new1@example.com', 'm2@example.com', 'm3@example.com']);
  });

  it('Mailchimp: a 429 is retried and the push completes', async () => {
    const { store } = await ownerWithStore(testApp.app, testApp.orm, 'Mailchimp Throttled Shop');
    await connect(store.id, 'mailchimp', mailchimp.options.apiKey);
    const ids = await customers(store.id, people('r', 2));
    const push = await requestAudiencePush(testApp.orm.em.fork(), store, null, { platform: 'mailchimp', segment: 'loyal', label: 'Loyal', customerIds: ids });
    mailchimp.injectFault('rate_limit', { pathIncludes: '/lists/', times: 2 });
    expect((await run(push.id)).status).toBe('done');
    expect(mailchimp.segmentEmails('StorePulse – Loyal')).toEqual(['r0@example.com', 'r1@example.com']);
  });

  it("never pushes another store's customers, refuses a platform that is not connected, and refuses guests", async () => {
    const a = await ownerWithStore(testApp.app, testApp.orm, 'Store A');
    const b = await ownerWithStore(testApp.app, testApp.orm, 'Store B');
    await connect(a.store.id, 'mailchimp', mailchimp.options.apiKey);
    const ofA = await customers(a.store.id, people('iso-a', 1));
    const ofB = await customers(b.store.id, people('iso-b', 2));

    const notConnected = await trpcMutation(a.client, 'audiences.push', { platform: 'klaviyo', segment: 'x', label: 'X', customerIds: ofA });
    expect(notConnected.status).toBe(400);
    expect(notConnected.body.error.message).toBe('Klaviyo is not connected to this store: connect it under Integrations, then push again.');

    const requested = await trpcMutation(a.client, 'audiences.push', { platform: 'mailchimp', segment: 'iso', label: 'Isolation', customerIds: [...ofA, ...ofB] });
    expect(requested.status).toBe(200);
    const pushId = (requested.body.result.data as { id: number; total: number }).id;
    expect((requested.body.result.data as { total: number }).total).toBe(1);
    const row = await testApp.orm.em.fork().findOneOrFail(AudiencePush, pushId);
    expect(row.customerIds).toEqual(ofA);
    expect((await run(pushId)).status).toBe('done');
    expect(mailchimp.segmentEmails('StorePulse – Isolation')).toEqual(['iso-a0@example.com']);
    expect(mailchimp.defaultAudience.members.has('iso-b0@example.com')).toBe(false);

    const guest = await newGuestOf(testApp.app, testApp.orm, a, a.store.id);
    const refused = await trpcMutation(guest.client, 'audiences.push', { platform: 'mailchimp', segment: 'iso', label: 'Isolation', customerIds: ofA });
    expect(refused.status).toBe(403);
  });
});
