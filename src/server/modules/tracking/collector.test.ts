import type { FastifyInstance } from 'fastify';
import { randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInStoreOwner, type StoreOwner } from '../../../../test/commerce-fixtures.ts';
import { ApiClient, createTestApp, testServices, useTestApp } from '../../../../test/harness.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { emailHashOf } from './event-schema.ts';
import { EventWriter, partitionOf } from './event-writer.ts';
import { buildPixel } from './pixel.ts';
import { firstPartyCookieDomain } from './collector.routes.ts';
import pg from 'pg';
import { waitFor } from '../../../../test/two-instances.ts';

// The collector over real HTTP (the app listening on a loopback port) and a real PostgreSQL.

const testApp = useTestApp();
let baseUrl: string;
let owner: StoreOwner;
let setup: { storeKey: string; snippet: string };
const BROWSER_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

beforeAll(async () => {
  baseUrl = await testApp.app.listen({ port: 0, host: '127.0.0.1' });
  owner = await signedInStoreOwner(testApp, 'collector');
  const answer = await owner.client.get('/api/tracking/setup');
  expect(answer.status).toBe(200);
  setup = answer.body;
});

const sql = () => sqlRunner(testApp.orm.em.fork());
async function count(query: string, params: unknown[] = []): Promise<number> {
  const [row] = await sql().rows<{ n: number }>(query, params);
  return row!.n;
}

let eventCounter = 0;
function pageEvent(overrides: Record<string, unknown> = {}) {
  eventCounter += 1;
  return { name: 'page_view', id: `ev${eventCounter}_${randomBytes(6).toString('hex')}`, ts: Date.now(), url: 'https://shop.example/products/mug?utm_source=google&utm_medium=cpc&gclid=abc', ref: 'https://www.google.com/', title: 'Mug', screen: '1280x800', lang: 'en-GB', ...overrides };
}

function beacon(body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${baseUrl}/p/e`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain;charset=UTF-8', origin: 'https://shop.example', 'user-agent': BROWSER_UA, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function batch(key: string, events: unknown[], extra: Record<string, unknown> = {}) {
  return { key, aid: `anon_${randomBytes(8).toString('hex')}`, consent: 1, now: Date.now(), events, ...extra };
}

async function drops(storeId: number): Promise<Record<string, number>> {
  const rows = await sql().rows<{ reason: string; count: number }>(`select reason, sum(count)::int as count from tracking_drops where store_id = $1 group by reason`, [storeId]);
  return Object.fromEntries(rows.map((row) => [row.reason, row.count]));
}

describe('the pixel', () => {
  it('is built from src/pixel/p.ts and stays at most 1,500 bytes gzipped', async () => {
    const code = await buildPixel();
    const gzipped = gzipSync(code, { level: 9 }).length;
    expect(code).toContain('sendBeacon');
    expect(gzipped).toBeLessThanOrEqual(1500);
  });

  it('is served as JavaScript with a long cache, gzipped, and loadable from other sites', async () => {
    const answer = await fetch(`${baseUrl}/p.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(answer.headers.get('cache-control')).toMatch(/public, max-age=86400/);
    expect(answer.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    const body = await answer.text(); // fetch decodes the gzip
    expect(body).toBe(await buildPixel());
    const raw = await testApp.app.inject({ method: 'GET', url: '/p.js', headers: { 'accept-encoding': 'gzip' } });
    expect(raw.headers['content-encoding']).toBe('gzip');
    expect(raw.rawPayload.length).toBeLessThanOrEqual(1500);
    expect(gunzipSync(raw.rawPayload).toString()).toBe(body);
  });
});

describe('POST /p/e', () => {
  it('stores the good events of a batch, drops the bad ones with their reason, and answers 204 after commit', async () => {
    const aid = `anon_${randomBytes(8).toString('hex')}`;
    const orderId = `order-${randomBytes(4).toString('hex')}`;
    const events = [
      pageEvent(),
      pageEvent({ url: 'not a url' }),
      pageEvent({ name: 'Bad Name!' }),
      pageEvent({ name: 'purchase', props: { order_id: orderId, value: 49.99, currency: 'eur', items: [{ id: 'mug', quantity: 2, price: 24.995 }] } }),
      pageEvent({ name: 'purchase', props: { value: 10 } }),
      pageEvent({ name: 'add_to_cart', props: { items: [{ id: 'mug', quantity: 1 }], value: 12, currency: 'GBP' } }),
    ];
    const answer = await beacon(batch(setup.storeKey, events, { aid }));
    expect(answer.status).toBe(204);
    const rows = await sql().rows<Record<string, unknown>>(
      `select name, event_id, anonymous_id, utm_source, utm_medium, gclid, order_id, value_minor::int as value_minor, currency, consent, visitor_hash, props
         from tracking_events where store_id = $1 and anonymous_id = $2 order by seq`,
      [owner.store.id, aid],
    );
    expect(rows.map((row) => row.name)).toEqual(['page_view', 'purchase', 'add_to_cart']);
    expect(rows[0]).toMatchObject({ utm_source: 'google', utm_medium: 'cpc', gclid: 'abc', consent: true, visitor_hash: null });
    // The order id is the purchase's event id; 49.99 EUR is 4999 minor units.
    expect(rows[1]).toMatchObject({ event_id: orderId, order_id: orderId, value_minor: 4999, currency: 'EUR', props: { items: [{ id: 'mug', quantity: 2, price: 24.995 }] } });
    expect(await drops(owner.store.id)).toMatchObject({ 'invalid url': 1, 'invalid name': 1, 'invalid purchase: order_id, value and currency required': 1 });
    expect(await count(`select count(*)::int as n from tracking_purchases where store_id = $1 and order_id = $2`, [owner.store.id, orderId])).toBe(1);
    // The client's address is in no column of any stored row.
    expect(await count(`select count(*)::int as n from tracking_events e where e::text like '%127.0.0.1%'`)).toBe(0);
  });

  it('refuses an unknown or forged store key, and a body that is not a batch', async () => {
    expect((await beacon(batch('sp_999999_AAAAAAAAAAAAAAAAAAAA', [pageEvent()]))).status).toBe(403);
    const forged = setup.storeKey.replace(/^sp_\d+_/, `sp_${owner.store.id + 1}_`);
    expect((await beacon(batch(forged, [pageEvent()]))).status).toBe(403);
    expect((await beacon('{not json')).status).toBe(400);
    expect((await beacon({ key: setup.storeKey, now: Date.now(), events: [] })).status).toBe(400);
  });

  it('refuses bodies over 64 KB with 413', async () => {
    const big = batch(setup.storeKey, [pageEvent({ title: 'x'.repeat(70 * 1024) })]);
    expect((await beacon(big)).status).toBe(413);
  });

  it('drops bots: crawler user agents, headless browsers and automation', async () => {
    const before = await count(`select count(*)::int as n from tracking_events where store_id = $1`, [owner.store.id]);
    const googlebot = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
    expect((await beacon(batch(setup.storeKey, [pageEvent()]), { 'user-agent': googlebot })).status).toBe(204);
    expect((await beacon(batch(setup.storeKey, [pageEvent()]), { 'user-agent': BROWSER_UA.replace('Chrome/', 'HeadlessChrome/') })).status).toBe(204);
    expect((await beacon(batch(setup.storeKey, [pageEvent(), pageEvent()], { wd: 1 }))).status).toBe(204);
    expect(await count(`select count(*)::int as n from tracking_events where store_id = $1`, [owner.store.id])).toBe(before);
    expect(await drops(owner.store.id)).toMatchObject({ 'bot: crawler': 1, 'bot: headless browser': 1, 'bot: automation': 2 });
  });

  it('without consent, or with Global Privacy Control, keeps no id and sets no cookie: a daily visitor hash only', async () => {
    const aid = `anon_${randomBytes(8).toString('hex')}`;
    const refused = await beacon(batch(setup.storeKey, [pageEvent({ props: { email_hash: emailHashOf('a@example.com') } })], { aid, consent: 0 }), { host: 'shop.example' });
    expect(refused.status).toBe(204);
    expect(refused.headers.getSetCookie()).toEqual([]);
    const gpc = await beacon(batch(setup.storeKey, [pageEvent()], { aid }), { 'sec-gpc': '1' });
    expect(gpc.status).toBe(204);
    expect(await count(`select count(*)::int as n from tracking_events where store_id = $1 and anonymous_id = $2`, [owner.store.id, aid])).toBe(0);
    const cookieless = await sql().rows<{ visitor_hash: string; email_hash: string | null }>(
      `select visitor_hash, email_hash from tracking_events where store_id = $1 and consent = false order by seq`,
      [owner.store.id],
    );
    expect(cookieless).toHaveLength(2);
    // The same browser on the same day: one visitor.
    expect(cookieless[0]!.visitor_hash).toMatch(/^[\w-]{32}$/);
    expect(cookieless[1]!.visitor_hash).toBe(cookieless[0]!.visitor_hash);
    expect(cookieless[0]!.email_hash).toBeNull();

    // A store that does not honour GPC keeps the id of a GPC visitor who consented.
    await owner.client.patch('/api/tracking/settings', { honourGpc: false });
    const ignoring = await createTestApp(testApp.orm);
    try {
      const answer = await ignoring.inject({ method: 'POST', url: '/p/e', headers: { 'content-type': 'text/plain', origin: 'https://shop.example', 'user-agent': BROWSER_UA, 'sec-gpc': '1' }, payload: JSON.stringify(batch(setup.storeKey, [pageEvent()], { aid })) });
      expect(answer.statusCode).toBe(204);
      expect(await count(`select count(*)::int as n from tracking_events where store_id = $1 and anonymous_id = $2`, [owner.store.id, aid])).toBe(1);
    } finally {
      await ignoring.close();
      await owner.client.patch('/api/tracking/settings', { honourGpc: true });
    }
  });

  it('sets the id cookie itself (400 days) only when reached under the shop’s own site', async () => {
    const send = (host: string) =>
      testApp.app.inject({ method: 'POST', url: '/p/e', headers: { host, 'content-type': 'text/plain', origin: 'https://www.shop.example', 'user-agent': BROWSER_UA }, payload: JSON.stringify(batch(setup.storeKey, [pageEvent()], { aid: 'first_party_id_1' })) });
    const proxied = await send('www.shop.example');
    expect(proxied.statusCode).toBe(204);
    expect(proxied.headers['set-cookie']).toBe('_sp_id=first_party_id_1; Max-Age=34560000; Path=/; SameSite=Lax');
    const cname = await send('t.shop.example');
    expect(cname.headers['set-cookie']).toBe('_sp_id=first_party_id_1; Max-Age=34560000; Path=/; SameSite=Lax; Domain=shop.example');
    const thirdParty = await send('collector.storepulse.example');
    expect(thirdParty.headers['set-cookie']).toBeUndefined();
    expect(firstPartyCookieDomain('shop.example', 'storepulse.example')).toBeNull();
  });

  it('refuses sites outside the store’s allowed domains (counted), and takes its subdomains', async () => {
    const other = await signedInStoreOwner(testApp, 'domains');
    const key = (await other.client.get('/api/tracking/setup')).body.storeKey as string;
    expect((await other.client.patch('/api/tracking/settings', { allowedDomains: ['Shop.Example'] })).body.allowedDomains).toEqual(['shop.example']);
    // A fresh app: the collector caches a store's settings for 10 s.
    const fresh = await createTestApp(testApp.orm);
    try {
      const post = (origin: string) =>
        fresh.inject({ method: 'POST', url: '/p/e', headers: { 'content-type': 'text/plain', origin, 'user-agent': BROWSER_UA }, payload: JSON.stringify(batch(key, [pageEvent(), pageEvent()])) });
      expect((await post('https://evil.example')).statusCode).toBe(403);
      expect((await post('https://shop.example.evil.example')).statusCode).toBe(403);
      expect((await post('https://www.shop.example')).statusCode).toBe(204);
      expect(await count(`select count(*)::int as n from tracking_events where store_id = $1`, [other.store.id])).toBe(2);
      expect(await drops(other.store.id)).toEqual({ 'domain not allowed': 4 });
    } finally {
      await fresh.close();
    }
  });

  it('answers outside the app-wide hooks (no session, no page CSP), with nosniff, its resource policy and ALLOWED_HOSTS', async () => {
    const answer = await beacon(batch(setup.storeKey, [pageEvent()]), { cookie: 'sp_session=anything' });
    expect(answer.status).toBe(204);
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('cross-origin-resource-policy')).toBe('same-origin');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    // helmet's page headers and the session plugin's cookie belong to the app's pages, not to the collector.
    expect(answer.headers.get('content-security-policy')).toBeNull();
    expect(answer.headers.get('set-cookie')).toBeNull();
    const hosted = await createTestApp(testApp.orm, testServices(), { ALLOWED_HOSTS: 'stats.example' });
    try {
      const post = (host: string) => hosted.inject({ method: 'POST', url: '/p/e', headers: { host, 'content-type': 'text/plain', origin: 'https://shop.example', 'user-agent': BROWSER_UA }, payload: JSON.stringify(batch(setup.storeKey, [pageEvent()])) });
      expect((await post('other.example')).statusCode).toBe(400);
      expect((await post('stats.example')).statusCode).toBe(204);
    } finally {
      await hosted.close();
    }
  });

  it('limits requests per client address and events per store with 429 and Retry-After', async () => {
    const limitedApp = await createTestApp(testApp.orm, testServices(), { TRACKING_REQUESTS_PER_IP_PER_SECOND: '2', TRACKING_EVENTS_PER_STORE_PER_SECOND: '1000' });
    const storeLimited = await createTestApp(testApp.orm, testServices(), { TRACKING_REQUESTS_PER_IP_PER_SECOND: '1000', TRACKING_EVENTS_PER_STORE_PER_SECOND: '3' });
    try {
      const send = (app: FastifyInstance, events: number) =>
        app.inject({ method: 'POST', url: '/p/e', headers: { 'content-type': 'text/plain', origin: 'https://shop.example', 'user-agent': BROWSER_UA }, payload: JSON.stringify(batch(setup.storeKey, Array.from({ length: events }, () => pageEvent()))) });
      // Five at once: at most two per one-second window get through, so at least one is refused.
      const answers = await Promise.all(Array.from({ length: 5 }, () => send(limitedApp, 1)));
      const refused = answers.filter((answer) => answer.statusCode === 429);
      expect(refused.length).toBeGreaterThanOrEqual(1);
      expect(refused[0]!.headers['retry-after']).toBe('1');
      const byStore = await Promise.all(Array.from({ length: 4 }, () => send(storeLimited, 2)));
      expect(byStore.filter((answer) => answer.statusCode === 429).length).toBeGreaterThanOrEqual(1);
    } finally {
      await limitedApp.close();
      await storeLimited.close();
    }
  });
});

describe('POST /api/tracking/events (server-side)', () => {
  it('needs the store’s secret key; stores a purchase once whether the pixel or the backend sent it; hashes e-mails', async () => {
    const events = (body: unknown, secret?: string) =>
      fetch(`${baseUrl}/api/tracking/events`, { method: 'POST', headers: { 'content-type': 'application/json', ...(secret ? { authorization: `Bearer ${secret}` } : {}) }, body: JSON.stringify(body) });
    expect((await events({ events: [{ name: 'page_view' }] })).status).toBe(401);
    const rotated = await owner.client.post('/api/tracking/secret-key');
    expect(rotated.status).toBe(200);
    const secret = rotated.body.secretKey as string;
    expect((await owner.client.get('/api/tracking/setup')).body.secretKeyHint).toBe(secret.slice(-4));
    expect((await events({ events: [{ name: 'page_view' }] }, `${secret.slice(0, -1)}x`)).status).toBe(401);
    // The new key works as soon as the collector has looked the store up again (at most 100 ms later).
    await waitFor('the new secret key to be accepted', async () => ((await events({ events: [{ name: 'page_view', id: 'key-check' }] }, secret)).status === 200 ? true : undefined));

    const orderId = `order-${randomBytes(4).toString('hex')}`;
    // The pixel's purchase first...
    expect((await beacon(batch(setup.storeKey, [pageEvent({ name: 'purchase', props: { order_id: orderId, value: 20, currency: 'GBP' } })]))).status).toBe(204);
    // ...then the checkout server's, with the buyer's e-mail (hashed here, never stored) and a month-old event.
    const monthAgo = new Date(Date.now() - 40 * 86_400_000);
    const answer = await events(
      {
        events: [
          { name: 'purchase', email: ' Buyer@Example.com ', checkout_token: 'tok-1', props: { order_id: orderId, value: 20, currency: 'GBP' } },
          { name: 'purchase', props: { order_id: orderId, value: 20, currency: 'GBP' } },
          { name: 'begin_checkout', id: 'srv-1', time: monthAgo.toISOString(), anonymous_id: 'anon_server_1' },
          { name: 'page_view', url: 'ftp://nope' },
          { name: 'page_view', time: '2001-01-01T00:00:00Z' },
        ],
      },
      secret,
    );
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ stored: 1, duplicates: 2, dropped: [{ index: 3, reason: 'invalid url' }, { index: 4, reason: 'invalid time: out of range' }] });
    expect(await count(`select count(*)::int as n from tracking_purchases where store_id = $1 and order_id = $2`, [owner.store.id, orderId])).toBe(1);
    expect(await count(`select count(*)::int as n from tracking_events where store_id = $1 and order_id = $2`, [owner.store.id, orderId])).toBe(1);
    // The month-old event went into its month's partition, created at write time.
    const partition = partitionOf(monthAgo).name;
    expect(await count(`select count(*)::int as n from ${partition} where store_id = $1 and event_id = 'srv-1'`, [owner.store.id])).toBe(1);
    expect(await count(`select count(*)::int as n from tracking_events e where e::text ilike '%buyer@example.com%'`)).toBe(0);
  });
});

describe('tenancy', () => {
  it('a store’s keys never write into another store, and nobody reads a store’s setup without access to it', async () => {
    const a = await signedInStoreOwner(testApp, 'tenantA');
    const b = await signedInStoreOwner(testApp, 'tenantB');
    const keyA = (await a.client.get('/api/tracking/setup')).body.storeKey as string;
    const keyB = (await b.client.get('/api/tracking/setup')).body.storeKey as string;
    expect(keyA).not.toBe(keyB);
    const secretA = (await a.client.post('/api/tracking/secret-key')).body.secretKey as string;
    // A's key with B's store id in it (or B's with A's random part) is no key at all.
    expect((await beacon(batch(keyA.replace(/^sp_\d+_/, `sp_${b.store.id}_`), [pageEvent()]))).status).toBe(403);
    const serverAnswer = await fetch(`${baseUrl}/api/tracking/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secretA.replace(/^sps_\d+_/, `sps_${b.store.id}_`)}` },
      body: JSON.stringify({ events: [{ name: 'page_view' }] }),
    });
    expect(serverAnswer.status).toBe(401);
    expect((await beacon(batch(keyA, [pageEvent(), pageEvent()]))).status).toBe(204);
    expect(await count(`select count(*)::int as n from tracking_events where store_id = $1`, [b.store.id])).toBe(0);
    expect(await count(`select count(*)::int as n from tracking_events where store_id = $1`, [a.store.id])).toBe(2);

    // A cannot switch to B's store, so A's setup is A's; a stranger gets none.
    expect((await a.client.post('/api/stores/active', { storeId: b.store.id })).status).toBe(404);
    expect((await a.client.get('/api/tracking/setup')).body.storeKey).toBe(keyA);
    expect((await new ApiClient(testApp.app).get('/api/tracking/setup')).status).toBe(401);
    expect((await new ApiClient(testApp.app).post('/api/tracking/secret-key')).status).toBe(401);
  });

  it('GET /api/tracking/setup is in /api/openapi.json, with the tag to install', async () => {
    const document = (await owner.client.get('/api/openapi.json')).body;
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/tracking/setup', '/tracking/settings', '/tracking/secret-key']));
    expect(setup.snippet).toBe(`<script async src="${new URL(setup.snippet.match(/src="([^"]+)"/)![1]!).origin}/p.js" data-store="${setup.storeKey}"></script>`);
  });
});

describe('group commit', () => {
  it('writes many concurrent batches in fewer statements, and answers each once its statement committed', async () => {
    const pool = new pg.Pool({ connectionString: testApp.databaseUrl, max: 4 });
    const writer = new EventWriter(pool);
    try {
      const storeId = owner.store.id;
      const now = new Date();
      const row = (index: number) => ({
        storeId, occurredAt: now, eventId: `group-${index}`, name: 'page_view', source: 'server' as const, consent: true, anonymousId: 'group_writer', visitorHash: null,
        url: null, referrer: null, title: null, utm: { utm_source: null, utm_medium: null, utm_campaign: null, utm_content: null, utm_term: null },
        clickIds: { gclid: null, gbraid: null, wbraid: null, fbclid: null, msclkid: null, ttclid: null }, screen: null, language: null, country: null,
        emailHash: null, customerId: null, checkoutToken: null, orderId: null, valueMinor: null, currency: null, props: null,
      });
      const results = await Promise.all(Array.from({ length: 200 }, (_, index) => writer.write([row(index)], [])));
      expect(results.every((result) => result.stored === 1)).toBe(true);
      expect(await count(`select count(*)::int as n from tracking_events where store_id = $1 and anonymous_id = 'group_writer'`, [storeId])).toBe(200);
      expect(writer.stats.groups).toBeLessThan(200);
      // The same events again are duplicates, stored once.
      expect(await writer.write([row(1)], [])).toEqual({ stored: 0, duplicates: 1 });
    } finally {
      await writer.close();
      await pool.end();
    }
  });
});

afterAll(async () => {
  await testApp.app.close();
});
