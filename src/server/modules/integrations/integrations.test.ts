import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGoogleAdsFake, type GoogleAdsFake } from '../../../../test/fakes/googleads.ts';
import { startKlaviyoFake, type KlaviyoFake } from '../../../../test/fakes/klaviyo.ts';
import { startShopifyFake, type ShopifyFake } from '../../../../test/fakes/shopify.ts';
import { startMetaAdsFake, type MetaAdsFake } from '../../../../test/fakes/metaads.ts';
import { startTikTokAdsFake, type TikTokAdsFake } from '../../../../test/fakes/tiktokads.ts';
import { startBingAdsFake, type BingAdsFake } from '../../../../test/fakes/bingads.ts';
import { allowOnConsentPage } from './demo-via-connectors.ts';
import { newGuestOf, ownerWithStore } from '../../../../test/guests.ts';
import { ApiClient, useTestApp } from '../../../../test/harness.ts';
import { PLATFORM_KEYS, type PlatformKey } from '../../../shared/platforms.ts';
import type { PlatformSettings } from '../../config.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { ingestOrders } from '../commerce/ingest.ts';
import { PlatformConnection } from '../connections/platform-connection.entity.ts';
import { Store } from '../stores/store.entity.ts';
import { STALE_RUN_MESSAGE, checkConnectionHealth, scheduleIncrementalSyncs } from './integration-jobs.ts';
import { SyncRun } from './integration.entities.ts';
import { configureIntegrations, integrationsSettingsFrom, setIntegrationJobSender, type IntegrationsSettings } from './integrations-runtime.ts';
import { runSync, openCredentials, sealCredentials } from './sync-runner.ts';
import { reconcileAfterSync } from './reconciliation.ts';
import { connectorContext } from './sync-runner.ts';
import { connectorFor } from '../../connectors/registry.ts';
import type { Connector } from '../../connectors/connector.ts';

const testApp = useTestApp();
const DAY_MS = 86_400_000;

let klaviyo: KlaviyoFake;
let shopify: ShopifyFake;
let google: GoogleAdsFake;
let meta: MetaAdsFake;
let tiktok: TikTokAdsFake;
let bing: BingAdsFake;
let settings: IntegrationsSettings;
const sentJobs: { queue: string; data: Record<string, unknown> }[] = [];
const noSleep = { sleep: async () => {}, maxAttempts: 3 };

beforeAll(async () => {
  const now = Date.now();
  klaviyo = await startKlaviyoFake({ seed: 5, campaigns: 20, start: new Date(now - 40 * DAY_MS).toISOString().slice(0, 10), days: 40 });
  shopify = await startShopifyFake({ seed: 9, orders: 60, products: 5, from: new Date(now - 30 * DAY_MS), to: new Date(now - 2 * DAY_MS), rateLimit: false });
  google = await startGoogleAdsFake({ seed: 3, campaigns: 2 });
  meta = await startMetaAdsFake({ seed: 3, campaigns: 2 });
  tiktok = await startTikTokAdsFake({ seed: 3, campaigns: 2 });
  bing = await startBingAdsFake({ seed: 3, campaigns: 2, pollsBeforeReady: 0 });
  const platforms = Object.fromEntries(PLATFORM_KEYS.map((key) => [key, {} as PlatformSettings])) as Record<PlatformKey, PlatformSettings>;
  platforms.klaviyo = { baseUrl: klaviyo.apiUrl };
  platforms.woocommerce = { baseUrl: 'http://127.0.0.1:9' };
  platforms.shopify = { baseUrl: shopify.url, authorizeUrl: shopify.url, clientId: shopify.clientId, clientSecret: shopify.clientSecret };
  for (const [key, fake] of [['googleads', google], ['metaads', meta], ['tiktokads', tiktok], ['bingads', bing]] as const) {
    platforms[key] = { baseUrl: fake.url, authorizeUrl: fake.url, clientId: fake.auth.clientId, clientSecret: fake.auth.clientSecret };
  }
  platforms.bingads.developerToken = bing.developerToken;
  settings = integrationsSettingsFrom({ encryptionKey: randomBytes(32).toString('hex'), dataDir: path.join(os.tmpdir(), 'storepulse-integrations-test'), platforms });
});
afterAll(async () => {
  setIntegrationJobSender(null);
  await Promise.all([klaviyo.close(), shopify.close(), google.close(), meta.close(), tiktok.close(), bing.close()]);
});
beforeEach(() => {
  // The app configured the engine from its own (fake-less) configuration when it was built.
  configureIntegrations(settings);
  sentJobs.length = 0;
  setIntegrationJobSender(async (queue, data) => void sentJobs.push({ queue, data: data as Record<string, unknown> }));
});

function query(path: string, input?: unknown) {
  return `/trpc/integrations.${path}${input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(input))}`}`;
}

async function list(client: ApiClient, input?: unknown) {
  const answer = await client.get(query('list', input));
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.result.data as { platform: string; status: string; [key: string]: unknown }[];
}

async function entry(client: ApiClient, platform: string) {
  return (await list(client)).find((candidate) => candidate.platform === platform)! as Record<string, any>;
}

function call(client: ApiClient, procedure: string, input: unknown) {
  return client.post(`/trpc/integrations.${procedure}`, input);
}

async function connectionOf(storeId: number, platform: PlatformKey) {
  return testApp.orm.em.fork().findOne(PlatformConnection, { store: storeId, platform });
}

async function runQueued(storeId: number, platform: PlatformKey) {
  const em = testApp.orm.em.fork();
  const connection = await em.findOneOrFail(PlatformConnection, { store: storeId, platform });
  const run = await em.findOneOrFail(SyncRun, { connection: connection.id }, { orderBy: { id: 'desc' } });
  return runSync(testApp.orm.em.fork(), run.id, { settings, http: noSleep });
}

describe('integrations.list', () => {
  it('lists all ten platform keys, not connected, with how each connects', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'List shop');
    const entries = await list(owner.client);
    expect(entries.map((candidate) => candidate.platform)).toEqual([...PLATFORM_KEYS]);
    expect(entries.every((candidate) => candidate.status === 'not_connected' && candidate.currentRun === null && candidate.reconciliation === null)).toBe(true);
    expect(entries.find((candidate) => candidate.platform === 'woocommerce')).toMatchObject({
      displayName: 'WooCommerce', kind: 'store', authKind: 'credentials', credentialFields: ['storeUrl', 'consumerKey', 'consumerSecret'], backfillMonths: 12, rowsSynced: 0,
    });
    expect(entries.find((candidate) => candidate.platform === 'shopify')).toMatchObject({ kind: 'store', authKind: 'oauth', credentialFields: [] });
    expect(entries.find((candidate) => candidate.platform === 'email')).toMatchObject({ kind: 'email', authKind: 'upload' });
  });
});

describe('connecting with credentials', () => {
  it('refuses a wrong Klaviyo key with a clear message and stores nothing', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Wrong key shop');
    const answer = await call(owner.client, 'connect', { platform: 'klaviyo', credentials: { apiKey: 'pk_wrong' } });
    expect(answer.status).toBe(400);
    // One sentence, the platform named once, saying what to do.
    expect(answer.body.error.message).toBe('Klaviyo refused the private API key: it was revoked, deleted or mistyped. Create a new private key and reconnect.');
    expect(await connectionOf(owner.store.id, 'klaviyo')).toBeNull();
    expect(sentJobs).toEqual([]);
  });

  it('refuses a WooCommerce address that is not https, and OAuth platforms', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Http shop');
    const woo = await call(owner.client, 'connect', { platform: 'woocommerce', credentials: { storeUrl: 'http://shop.example.com', consumerKey: 'ck', consumerSecret: 'cs' } });
    expect(woo.status).toBe(400);
    expect(woo.body.error.message).toBe('The store address must be an https:// address (WooCommerce only accepts API keys over HTTPS).');
    const missing = await call(owner.client, 'connect', { platform: 'omnisend', credentials: {} });
    expect(missing.body.error.message).toBe('Omnisend: apiKey is required');
    const oauth = await call(owner.client, 'connect', { platform: 'shopify', credentials: { apiKey: 'x' } });
    expect(oauth.body.error.message).toBe('Shopify is connected by signing in with it (Connect).');
  });

  it('seals a working key, queues the backfill, syncs it and shows progress, then disconnects keeping the data', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Klaviyo shop');
    const apiKey = klaviyo.options.apiKey;
    const answer = await call(owner.client, 'connect', { platform: 'klaviyo', credentials: { apiKey } });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.result.data).toMatchObject({ platform: 'klaviyo', status: 'connected', accountName: expect.any(String), currentRun: { kind: 'backfill', status: 'queued', rowsDone: 0 } });
    expect(sentJobs).toEqual([{ queue: 'integrations.sync', data: { runId: answer.body.result.data.currentRun.id } }]);

    const connection = (await connectionOf(owner.store.id, 'klaviyo'))!;
    expect(connection.sealedCredentials).not.toContain(apiKey);
    expect(openCredentials(settings, connection)).toEqual({ apiKey });
    expect((await owner.client.get('/api/connection-status')).body).toEqual([{ platform: 'klaviyo', connected: true, lastChecked: expect.any(String) }]);

    // A second "Sync now" while one is queued does not queue another.
    const again = await call(owner.client, 'syncNow', { platform: 'klaviyo' });
    expect(again.body.result.data.currentRun.id).toBe(answer.body.result.data.currentRun.id);

    expect(await runQueued(owner.store.id, 'klaviyo')).toBe('succeeded');
    const synced = await entry(owner.client, 'klaviyo');
    const emailRows = await sqlRunner(testApp.orm.em.fork()).rows<{ count: number }>(`select count(*)::int as count from email_metrics_daily where store_id = $1`, [owner.store.id]);
    expect(emailRows[0]!.count).toBeGreaterThan(0);
    expect(synced).toMatchObject({ status: 'connected', rowsSynced: emailRows[0]!.count, lastSyncAt: expect.any(String), currentRun: { status: 'succeeded', rowsDone: emailRows[0]!.count } });

    const incremental = await call(owner.client, 'syncNow', { platform: 'klaviyo' });
    expect(incremental.body.result.data.currentRun).toMatchObject({ kind: 'incremental', status: 'queued' });
    const cancelled = await call(owner.client, 'cancelSync', { platform: 'klaviyo' });
    expect(cancelled.body.result.data.currentRun).toMatchObject({ kind: 'incremental', status: 'cancelled' });
    expect((await call(owner.client, 'cancelSync', { platform: 'klaviyo' })).body.error.message).toBe('No sync is running for this platform');

    const disconnected = await call(owner.client, 'disconnect', { platform: 'klaviyo' });
    expect(disconnected.body.result.data).toMatchObject({ status: 'not_connected', accountName: expect.any(String) });
    expect((await connectionOf(owner.store.id, 'klaviyo'))!.sealedCredentials).toBeNull();
    const kept = await sqlRunner(testApp.orm.em.fork()).rows<{ count: number }>(`select count(*)::int as count from email_metrics_daily where store_id = $1`, [owner.store.id]);
    expect(kept[0]!.count).toBe(emailRows[0]!.count);
    expect((await call(owner.client, 'syncNow', { platform: 'klaviyo' })).body.error.message).toBe('This platform is not connected');
    // Disconnected by the user: no longer a connection the header reports.
    expect((await owner.client.get('/api/connection-status')).body).toEqual([]);
  });

  it('cancels a running sync between pages', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Cancel shop');
    await call(owner.client, 'connect', { platform: 'klaviyo', credentials: { apiKey: klaviyo.options.apiKey } });
    const em = testApp.orm.em.fork();
    const run = await em.findOneOrFail(SyncRun, { store: owner.store.id });
    const status = await runSync(testApp.orm.em.fork(), run.id, {
      settings,
      ingestBatchRows: 1,
      afterIngest: async () => void (await call(owner.client, 'cancelSync', { platform: 'klaviyo' })),
    });
    expect(status).toBe('cancelled');
    expect(await entry(owner.client, 'klaviyo')).toMatchObject({ status: 'connected', currentRun: { status: 'cancelled', finishedAt: expect.any(String) } });
  });

  it('disconnecting during a sync stops it and the connection stays disconnected', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Disconnect shop');
    await call(owner.client, 'connect', { platform: 'klaviyo', credentials: { apiKey: klaviyo.options.apiKey } });
    const run = await testApp.orm.em.fork().findOneOrFail(SyncRun, { store: owner.store.id });
    const status = await runSync(testApp.orm.em.fork(), run.id, {
      settings,
      ingestBatchRows: 1,
      afterIngest: async () => void (await call(owner.client, 'disconnect', { platform: 'klaviyo' })),
    });
    expect(status).toBe('cancelled');
    expect(await entry(owner.client, 'klaviyo')).toMatchObject({ status: 'not_connected', currentRun: { status: 'cancelled' } });
    expect((await connectionOf(owner.store.id, 'klaviyo'))!.sealedCredentials).toBeNull();
  });
});

describe('uploadEmailCsv', () => {
  it('explains what is wrong with a file, then imports a good one', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'CSV shop');
    const bad = await call(owner.client, 'uploadEmailCsv', { fileName: 'bad.csv', csvText: 'day,campaign_id,sends\n2026-13-40,c1,12\n' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('"bad.csv" cannot be imported');
    expect(bad.body.error.message).toContain('Line 2');
    expect(await connectionOf(owner.store.id, 'email')).toBeNull();

    const yesterday = new Date(Date.now() - DAY_MS).toISOString().slice(0, 10);
    const good = await call(owner.client, 'uploadEmailCsv', { fileName: 'october.csv', csvText: `day,campaign_id,campaign_name,sends,revenue,currency\n${yesterday},c1,Autumn,1200,99.90,USD\n` });
    expect(good.status, JSON.stringify(good.body)).toBe(200);
    expect(good.body.result.data).toMatchObject({ status: 'connected', accountName: 'october.csv', currentRun: { kind: 'backfill', status: 'queued' } });
    expect(await runQueued(owner.store.id, 'email')).toBe('succeeded');
    const rows = await sqlRunner(testApp.orm.em.fork()).rows<{ sends: number; revenue: string }>(
      `select sends::int as sends, attributed_revenue_minor::text as revenue from email_metrics_daily where store_id = $1 and platform = 'email'`,
      [owner.store.id],
    );
    expect(rows).toEqual([{ sends: 1200, revenue: '9990' }]);
  });

  it('refuses a file over 5 MB', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Big CSV shop');
    const answer = await owner.client.request('POST', '/api/integrations/email-csv', { fileName: 'big.csv', csvText: 'x'.repeat(5 * 1024 * 1024 + 1) });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toBe('The file must be at most 5 MB');
  });
});

describe('setBackfillMonths', () => {
  it('accepts 1 to 36 months, also before connecting, without a connection in the header', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Backfill shop');
    expect((await call(owner.client, 'setBackfillMonths', { platform: 'metaads', months: 0 })).body.error.message).toBe('Backfill at least 1 month');
    expect((await call(owner.client, 'setBackfillMonths', { platform: 'metaads', months: 37 })).body.error.message).toBe('Backfill at most 36 months');
    const set = await call(owner.client, 'setBackfillMonths', { platform: 'metaads', months: 24 });
    expect(set.body.result.data).toMatchObject({ platform: 'metaads', backfillMonths: 24, status: 'not_connected' });
    expect((await owner.client.get('/api/connection-status')).body).toEqual([]);
  });
});

describe('Shopify OAuth', () => {
  it('sends the browser to the consent page with a single-use state and connects on the signed callback', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'OAuth shop');
    expect((await call(owner.client, 'startOAuth', { platform: 'shopify' })).body.error.message).toBe('Enter your Shopify store address (your-store.myshopify.com) to connect it.');
    const started = await call(owner.client, 'startOAuth', { platform: 'shopify', shop: shopify.shop });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const authorizeUrl = new URL(started.body.result.data.authorizeUrl);
    expect(authorizeUrl.origin + authorizeUrl.pathname).toBe(`${shopify.url}/admin/oauth/authorize`);
    expect(authorizeUrl.searchParams.get('client_id')).toBe(shopify.clientId);
    expect(authorizeUrl.searchParams.get('redirect_uri')).toMatch(/\/api\/integrations\/oauth\/shopify\/callback$/);
    const state = authorizeUrl.searchParams.get('state')!;
    expect(state).toMatch(/^[0-9a-f]{64}$/);

    const forged = { ...shopify.issueAuthorizationCode(state), hmac: '00'.repeat(32) };
    const refused = await owner.client.get(`/api/integrations/oauth/shopify/callback?${new URLSearchParams(forged)}`);
    expect(refused.status).toBe(302);
    expect(decodeURIComponent(String(refused.headers.location))).toBe('/integrations?error=The answer from Shopify was not signed correctly; start connecting again.');
    expect((await connectionOf(owner.store.id, 'shopify'))?.sealedCredentials ?? null).toBeNull();

    // The forged callback used the state up: a new authorization is needed.
    const restarted = new URL((await call(owner.client, 'startOAuth', { platform: 'shopify', shop: shopify.shop })).body.result.data.authorizeUrl);
    const callback = shopify.issueAuthorizationCode(restarted.searchParams.get('state')!);
    const answer = await owner.client.get(`/api/integrations/oauth/shopify/callback?${new URLSearchParams(callback)}`);
    expect(answer.status).toBe(302);
    expect(answer.headers.location).toBe('/integrations?connected=shopify');
    expect(await entry(owner.client, 'shopify')).toMatchObject({ status: 'connected', accountName: expect.any(String), currentRun: { kind: 'backfill', status: 'queued' } });
    const connection = (await connectionOf(owner.store.id, 'shopify'))!;
    expect(connection.accountId).toBe(shopify.shop);
    expect(openCredentials(settings, connection)).toMatchObject({ shop: shopify.shop, accessToken: expect.any(String) });
    // The store's days become the shop's (the store was empty: at once).
    expect((await testApp.orm.em.fork().findOneOrFail(Store, { id: owner.store.id })).timezone).toBe('America/New_York');
    expect(await entry(owner.client, 'shopify')).toMatchObject({ storeTimezone: 'America/New_York', accountTimezone: 'America/New_York' });

    const replayed = await owner.client.get(`/api/integrations/oauth/shopify/callback?${new URLSearchParams(callback)}`);
    expect(decodeURIComponent(String(replayed.headers.location))).toBe('/integrations?error=This Shopify sign-in has expired or was already used. Start connecting again.');
    const unknown = await owner.client.get(`/api/integrations/oauth/shopify/callback?code=abc&state=${'ab'.repeat(32)}`);
    expect(decodeURIComponent(String(unknown.headers.location))).toBe('/integrations?error=This Shopify sign-in was not started here. Start connecting again.');

    // The backfill, then the reconciliation with Shopify's own counts.
    expect(await runQueued(owner.store.id, 'shopify')).toBe('succeeded');
    const synced = await entry(owner.client, 'shopify');
    expect(synced.reconciliation).toMatchObject({ matches: true, currency: 'USD', days: [], explanations: [] });
    expect(synced.reconciliation.ourOrders).toBe(synced.reconciliation.sourceOrders);
    expect(synced.reconciliation.ourOrders).toBeGreaterThan(0);
    // Same days as the shop: Shopify's own net sales per day (ShopifyQL) are compared too, and match.
    expect(synced.reconciliation.sourceNetSales).toBe(synced.reconciliation.ourNetSales);
    expect(synced.reconciliation.ourNetSales).toBeGreaterThan(0);
  });

  it("a store with orders already moves to the shop's time zone through the rebuild job; an ad account's zone does not move it", async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Busy shop');
    await ingestOrders(testApp.orm.em.fork(), owner.store.id, [
      { platform: 'csv', externalId: 'earlier', placedAt: '2026-03-01T03:30:00Z', currency: 'GBP', grossMinor: 1_000, status: 'paid' },
    ]);
    // A Meta account in Los Angeles: the store has orders, so its days stay.
    const metaStart = await call(owner.client, 'startOAuth', { platform: 'metaads' });
    await owner.client.get(`/api/integrations/oauth/metaads/callback?${new URLSearchParams(await allowOnConsentPage(metaStart.body.result.data.authorizeUrl))}`);
    await call(owner.client, 'chooseAccounts', { platform: 'metaads', accountIds: ['1234567890'] });
    expect((await testApp.orm.em.fork().findOneOrFail(Store, { id: owner.store.id })).timezone).toBe('Europe/London');

    const started = await call(owner.client, 'startOAuth', { platform: 'shopify', shop: shopify.shop });
    const callback = shopify.issueAuthorizationCode(new URL(started.body.result.data.authorizeUrl).searchParams.get('state')!);
    await owner.client.get(`/api/integrations/oauth/shopify/callback?${new URLSearchParams(callback)}`);
    // Until the job has rebuilt the figures, the store keeps its days; the change waits in the queue.
    expect((await testApp.orm.em.fork().findOneOrFail(Store, { id: owner.store.id })).timezone).toBe('Europe/London');
    const changes = await sqlRunner(testApp.orm.em.fork()).rows<{ to_timezone: string; status: string }>(`select to_timezone, status from store_timezone_changes where store_id = $1`, [owner.store.id]);
    expect(changes).toEqual([{ to_timezone: 'America/New_York', status: 'queued' }]);
    expect(sentJobs.filter((job) => job.queue === 'stores.timezone')).toHaveLength(1);
  });

  it('reports the days that differ and the orders that explain them', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Mismatch shop');
    const em = testApp.orm.em.fork();
    const store = await em.findOneOrFail(Store, { id: owner.store.id });
    store.timezone = 'UTC';
    await em.flush();
    const connection = em.create(PlatformConnection, { store: store.id, platform: 'shopify', status: 'connected', connected: true, accountId: shopify.shop });
    await em.flush();
    const credentials = { shop: shopify.shop, accessToken: shopify.initialToken! };
    sealCredentials(settings, connection, credentials);
    await em.flush();
    const run = em.create(SyncRun, { store: store.id, connection, kind: 'backfill', windowSince: new Date(Date.now() - 40 * DAY_MS), windowUntil: new Date() });
    await em.flush();
    expect(await runSync(testApp.orm.em.fork(), run.id, { settings, http: noSleep })).toBe('succeeded');

    // Our copy of one order becomes a test order (as if edited here): that day now counts one order fewer.
    const [order] = await sqlRunner(em).rows<{ external_id: string; order_number: string; day: string; placed_at: string }>(
      `select external_id, order_number, to_char(placed_day, 'YYYY-MM-DD') as day, placed_at from orders where store_id = $1 and not is_test and status <> 'cancelled' order by placed_at limit 1`,
      [store.id],
    );
    await ingestOrders(em, store.id, [{ platform: 'shopify', externalId: order!.external_id, orderNumber: order!.order_number, placedAt: order!.placed_at, updatedAt: new Date(), currency: 'USD', grossMinor: 100, status: 'paid', isTest: true }]);
    const ctx = connectorContext(settings, 'shopify', credentials, store, noSleep);
    await reconcileAfterSync(em, { connection, store, connector: connectorFor('shopify'), ctx, window: { since: run.windowSince, until: run.windowUntil }, checkedAt: new Date() });
    const result = (await entry(owner.client, 'shopify')).reconciliation;
    expect(result.matches).toBe(false);
    expect(result.sourceOrders - result.ourOrders).toBe(1);
    const day = result.days.find((candidate: { day: string }) => candidate.day === order!.day);
    expect(day.sourceOrders - day.ourOrders).toBe(1);
    expect(result.days).toHaveLength(1);
    expect(result.explanations).toContainEqual({ orderExternalId: order!.external_id, orderNumber: order!.order_number, reason: 'test_order', detail: `A test order on ${order!.day}: counted nowhere.` });
  });
});

describe('OAuth and the browser that started it', () => {
  it('a consent link finished in another browser session connects nothing, signed in or not; the starting browser still can', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Bound shop');
    const started = await call(owner.client, 'startOAuth', { platform: 'metaads' });
    const callback = `/api/integrations/oauth/metaads/callback?${new URLSearchParams(await allowOnConsentPage(started.body.result.data.authorizeUrl))}`;
    const refusal = '/integrations?error=This Meta Ads sign-in was started in another browser session. Sign in to StorePulse and start connecting again.';

    // The consent link was sent to someone else, who allowed it with their own ad account, signed out of StorePulse.
    const signedOut = await new ApiClient(testApp.app).get(callback);
    expect(signedOut.status).toBe(302);
    expect(decodeURIComponent(String(signedOut.headers.location))).toBe(refusal);
    // The same account signed in in another browser: another session, refused too.
    const otherBrowser = new ApiClient(testApp.app, { remoteAddress: '10.7.7.7' });
    expect((await otherBrowser.post('/api/login', { username: owner.credentials.username, password: owner.credentials.password })).status).toBe(200);
    expect(decodeURIComponent(String((await otherBrowser.get(callback)).headers.location))).toBe(refusal);
    expect(await connectionOf(owner.store.id, 'metaads')).toBeNull();

    // The refusals did not use the state up: the browser that started the flow finishes it.
    const home = await owner.client.get(callback);
    expect(home.headers.location).toBe('/integrations?connected=metaads');
    expect((await connectionOf(owner.store.id, 'metaads'))?.status).toBe('choose_accounts');
  });

  it("the redirect URI is the installation's origin, not the Host header of the request that started the flow", async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Redirect shop');
    const started = await owner.client.request('POST', '/trpc/integrations.startOAuth', { platform: 'metaads' }, { host: 'evil.test' });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    // This file's first request came to the test server's default host, localhost:80.
    expect(new URL(started.body.result.data.authorizeUrl).searchParams.get('redirect_uri')).toBe('http://localhost/api/integrations/oauth/metaads/callback');
  });
});

describe('OAuth through each consent page', () => {
  it.each(['shopify', 'googleads', 'bingads', 'tiktokads'] as const)('%s: Allow on the consent page connects and queues the backfill', async (platform) => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, `${platform} shop`);
    const started = await call(owner.client, 'startOAuth', { platform, shop: platform === 'shopify' ? shopify.shop : undefined });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const query = await allowOnConsentPage(started.body.result.data.authorizeUrl);
    const answer = await owner.client.get(`/api/integrations/oauth/${platform}/callback?${new URLSearchParams(query)}`);
    expect(decodeURIComponent(String(answer.headers.location))).toBe(`/integrations?connected=${platform}`);
    // A login that reaches several accounts (the Microsoft fake's user has two) waits for the owner's choice.
    const connected = await entry(owner.client, platform);
    if (connected.status === 'choose_accounts') {
      expect(connected.currentRun).toBeNull();
      const accountIds = connected.accounts.filter((account: { isManager: boolean }) => !account.isManager).map((account: { accountId: string }) => account.accountId);
      expect(accountIds.length).toBeGreaterThan(1);
      expect((await call(owner.client, 'chooseAccounts', { platform, accountIds })).status).toBe(200);
    }
    expect(await entry(owner.client, platform)).toMatchObject({ status: 'connected', accountName: expect.any(String), currentRun: { kind: 'backfill', status: 'queued' } });
  });

  it('a Meta login that reaches two ad accounts waits for the choice, then syncs the chosen ones in their own currency and days', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Two accounts shop');
    const started = await call(owner.client, 'startOAuth', { platform: 'metaads' });
    const consent = await allowOnConsentPage(started.body.result.data.authorizeUrl);
    const answer = await owner.client.get(`/api/integrations/oauth/metaads/callback?${new URLSearchParams(consent)}`);
    expect(decodeURIComponent(String(answer.headers.location))).toBe('/integrations?connected=metaads');
    // Nothing is synced until the owner chooses: no run, not connected in the header.
    const waiting = await entry(owner.client, 'metaads');
    expect(waiting).toMatchObject({ status: 'choose_accounts', canChooseAccounts: true, currentRun: null, storeTimezone: 'Europe/London' });
    expect(waiting.accounts).toEqual([
      { accountId: '1234567890', name: 'Fake Store – Meta', currency: 'USD', timezone: 'America/Los_Angeles', isManager: false, selected: false, timezoneDiffers: true },
      { accountId: '5550001111', name: 'Other brand', currency: 'EUR', timezone: 'Europe/Berlin', isManager: false, selected: false, timezoneDiffers: true },
    ]);
    expect((await owner.client.get('/api/connection-status')).body).toEqual([{ platform: 'metaads', connected: false, lastChecked: expect.any(String) }]);
    const listed = await owner.client.get(query('accounts', { platform: 'metaads' }));
    expect(listed.body.result.data).toMatchObject({ listError: null, accounts: [{ accountId: '1234567890' }, { accountId: '5550001111' }] });

    // Refused: nothing, and an account the login does not reach.
    expect((await call(owner.client, 'chooseAccounts', { platform: 'metaads', accountIds: [] })).body.error.message).toBe('Choose at least one account to sync.');
    expect((await call(owner.client, 'chooseAccounts', { platform: 'metaads', accountIds: ['999'] })).body.error.message).toBe('Account 999 is not one this Meta Ads login reaches.');
    const chosen = await call(owner.client, 'chooseAccounts', { platform: 'metaads', accountIds: ['1234567890', '5550001111'] });
    expect(chosen.status, JSON.stringify(chosen.body)).toBe(200);
    expect(chosen.body.result.data).toMatchObject({ status: 'connected', accountName: '2 accounts: Fake Store – Meta, Other brand', currentRun: { kind: 'backfill', status: 'queued' } });
    await testApp.orm.em.fork().nativeUpdate(PlatformConnection, { store: owner.store.id, platform: 'metaads' }, { backfillMonths: 1 });
    expect(await runQueued(owner.store.id, 'metaads')).toBe('succeeded');

    // Each account's spend in its own currency, on the account's own reporting days, every campaign (deleted and archived too).
    const stored = await sqlRunner(testApp.orm.em.fork()).rows<{ account_id: string; currency: string; spend: string; from: string; to: string }>(
      `select account_id, currency, sum(spend_minor)::text as spend, to_char(min(day), 'YYYY-MM-DD') as from, to_char(max(day), 'YYYY-MM-DD') as to
         from ad_metrics_daily where store_id = $1 and platform = 'metaads' group by account_id, currency order by account_id`,
      [owner.store.id],
    );
    expect(stored.map((row) => [row.account_id, row.currency])).toEqual([['1234567890', 'USD'], ['5550001111', 'EUR']]);
    for (const row of stored) {
      const expected = Object.values(meta.campaignSpend(row.account_id, row.from, row.to)).reduce((sum, value) => sum + value, 0);
      expect(Number(row.spend)).toBe(expected);
    }
    const synced = await entry(owner.client, 'metaads');
    expect(synced.reconciliation).toMatchObject({ matches: true });
    expect(synced.accounts.filter((account: { selected: boolean }) => account.selected)).toHaveLength(2);

    // Leaving one out: it stops syncing, nothing new is backfilled, its data stays.
    const narrowed = await call(owner.client, 'chooseAccounts', { platform: 'metaads', accountIds: ['5550001111'] });
    expect(narrowed.body.result.data).toMatchObject({ status: 'connected', accountName: 'Other brand', currentRun: { status: 'succeeded' } });
    expect(await testApp.orm.em.fork().count(SyncRun, { store: owner.store.id })).toBe(1);
  });

  it('a declined consent comes back as an error on the integrations page', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Declined shop');
    const started = await call(owner.client, 'startOAuth', { platform: 'metaads' });
    const state = new URL(started.body.result.data.authorizeUrl).searchParams.get('state')!;
    const answer = await owner.client.get(`/api/integrations/oauth/metaads/callback?error=access_denied&error_description=Permissions+error&state=${state}`);
    expect(decodeURIComponent(String(answer.headers.location))).toBe('/integrations?error=Meta Ads did not grant access (Permissions error).');
    expect((await entry(owner.client, 'metaads')).status).toBe('not_connected');
  });

  it('says what the administrator must set when a platform has no OAuth app', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Unconfigured shop');
    configureIntegrations({ ...settings, platforms: { ...settings.platforms, tiktokads: {} } });
    const answer = await call(owner.client, 'startOAuth', { platform: 'tiktokads' });
    expect(answer.body.error.message).toBe('Connecting tiktokads is not set up on this server: the administrator must set TIKTOKADS_CLIENT_ID and TIKTOKADS_CLIENT_SECRET.');
  });
});

describe('token refresh, failures, health checks and the schedule', () => {
  async function googleConnection(credentials: Record<string, string>) {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Google shop');
    const em = testApp.orm.em.fork();
    const connection = em.create(PlatformConnection, { store: owner.store.id, platform: 'googleads', status: 'connected', connected: true, backfillMonths: 1 });
    await em.flush();
    sealCredentials(settings, connection, credentials);
    await em.flush();
    return { owner, connectionId: connection.id };
  }

  it('refreshes a token expiring within 5 minutes before syncing, and re-seals it', async () => {
    const credentials: Record<string, string> = { ...google.connectedCredentials(), expiresAt: new Date(Date.now() + 60_000).toISOString() };
    const { owner } = await googleConnection(credentials);
    await call(owner.client, 'syncNow', { platform: 'googleads' });
    expect(await runQueued(owner.store.id, 'googleads')).toBe('succeeded');
    const stored = openCredentials(settings, (await connectionOf(owner.store.id, 'googleads'))!)!;
    expect(stored.accessToken).not.toBe(credentials.accessToken);
    expect(Date.parse(stored.expiresAt!)).toBeGreaterThan(Date.now() + 30 * 60_000);
    expect(stored.customerId).toBe(credentials.customerId);
  });

  it('an access token refused mid-sync is refreshed once and the page read again', async () => {
    const credentials = google.connectedCredentials();
    const { owner } = await googleConnection(credentials);
    google.auth.expireAccessTokens();
    await call(owner.client, 'syncNow', { platform: 'googleads' });
    expect(await runQueued(owner.store.id, 'googleads')).toBe('succeeded');
    expect(openCredentials(settings, (await connectionOf(owner.store.id, 'googleads'))!)!.accessToken).not.toBe(credentials.accessToken);
  });

  it('a long sync refreshes the token every time it expires, not just once', async () => {
    const credentials = google.connectedCredentials();
    const { owner } = await googleConnection(credentials);
    await testApp.orm.em.fork().nativeUpdate(PlatformConnection, { store: owner.store.id, platform: 'googleads' }, { backfillMonths: 4 });
    await call(owner.client, 'syncNow', { platform: 'googleads' });
    const em = testApp.orm.em.fork();
    const connection = await em.findOneOrFail(PlatformConnection, { store: owner.store.id, platform: 'googleads' });
    const run = await em.findOneOrFail(SyncRun, { connection: connection.id }, { orderBy: { id: 'desc' } });
    const refreshGrants = () => google.requests.filter((request) => request.rawBody.includes('grant_type=refresh_token')).length;
    const grantsBefore = refreshGrants();
    // Four months are four 31-day slices, each its own batch. The token expires just before each slice
    // after the first is read (once per slice: not again when the slice is read again with the fresh
    // token), so three reads meet an expired token; the old runner refreshed once, then disconnected.
    const base = connectorFor('googleads');
    const slicesSeen = new Set<string | null>();
    const expiring: Connector = {
      ...base,
      fetchBatch(ctx, window, cursor) {
        if (!slicesSeen.has(cursor)) {
          if (slicesSeen.size > 0) google.auth.expireAccessTokens();
          slicesSeen.add(cursor);
        }
        return base.fetchBatch(ctx, window, cursor);
      },
    };
    const status = await runSync(testApp.orm.em.fork(), run.id, { settings, http: noSleep, ingestBatchRows: 1, connector: expiring });
    expect(status).toBe('succeeded');
    expect(slicesSeen.size).toBe(4);
    expect(refreshGrants() - grantsBefore).toBe(3);
    const finished = await testApp.orm.em.fork().findOneOrFail(SyncRun, { id: run.id });
    expect(finished.rowsDone).toBeGreaterThan(0);
    const stored = openCredentials(settings, (await connectionOf(owner.store.id, 'googleads'))!)!;
    expect(stored.accessToken).not.toBe(credentials.accessToken);
    expect(await entry(owner.client, 'googleads')).toMatchObject({ status: 'connected', disconnectReason: null });
  });

  it('a refresh token that no longer works disconnects with the platform reason; the data stays', async () => {
    const credentials = { ...google.connectedCredentials(), refreshToken: 'a-revoked-refresh-token' };
    const { owner } = await googleConnection(credentials);
    google.auth.expireAccessTokens();
    await call(owner.client, 'syncNow', { platform: 'googleads' });
    expect(await runQueued(owner.store.id, 'googleads')).toBe('failed');
    const shown = await entry(owner.client, 'googleads');
    expect(shown).toMatchObject({ status: 'disconnected', disconnectReason: expect.stringMatching(/Google Ads/) });
    expect((await connectionOf(owner.store.id, 'googleads'))!.sealedCredentials).toBeNull();
  });

  it('a platform that keeps failing fails the run but keeps the credentials, with the error shown', async () => {
    const credentials = google.connectedCredentials();
    const { owner } = await googleConnection(credentials);
    google.injectFault('server_error', { times: 10 });
    await call(owner.client, 'syncNow', { platform: 'googleads' });
    expect(await runQueued(owner.store.id, 'googleads')).toBe('failed');
    google.clearFaults();
    const shown = await entry(owner.client, 'googleads');
    expect(shown).toMatchObject({ status: 'error', lastError: expect.stringMatching(/^Google Ads kept failing \(HTTP 5\d\d\) during the sync\. The next sync tries again\.$/), currentRun: { status: 'failed' } });
    expect(openCredentials(settings, (await connectionOf(owner.store.id, 'googleads'))!)).toEqual(credentials);
  });

  it('health checks set lastCheckedAt and disconnect refused credentials with the reason', async () => {
    const { owner } = await googleConnection(google.connectedCredentials());
    const checkedAt = new Date('2026-11-21T06:40:00Z');
    const em = testApp.orm.em.fork();
    const result = await checkConnectionHealth(em, { settings, now: checkedAt });
    expect(result.checked).toBeGreaterThanOrEqual(1);
    expect((await owner.client.get('/api/connection-status')).body).toEqual([{ platform: 'googleads', connected: true, lastChecked: '2026-11-21T06:40:00.000Z' }]);

    const isolated = await googleConnection({ ...google.connectedCredentials(), accessToken: 'revoked-token', refreshToken: 'revoked-refresh' });
    await checkConnectionHealth(testApp.orm.em.fork(), { settings });
    const refused = await entry(isolated.owner.client, 'googleads');
    expect(refused).toMatchObject({ status: 'disconnected', disconnectReason: expect.stringMatching(/\w/) });
    expect((await isolated.owner.client.get('/api/connection-status')).body).toEqual([{ platform: 'googleads', connected: false, lastChecked: expect.any(String) }]);
  });

  it('the schedule syncs Klaviyo at most hourly (its reporting quota is 225 calls a day), other platforms every time', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Hourly shop');
    const em = testApp.orm.em.fork();
    const now = new Date('2026-11-25T12:00:00Z');
    const klaviyoConnection = em.create(PlatformConnection, { store: owner.store.id, platform: 'klaviyo', status: 'connected', connected: true, lastSyncAt: new Date(now.getTime() - 20 * 60_000), syncedUntil: now });
    const googleConnection = em.create(PlatformConnection, { store: owner.store.id, platform: 'googleads', status: 'connected', connected: true, lastSyncAt: new Date(now.getTime() - 20 * 60_000), syncedUntil: now });
    await em.flush();
    sealCredentials(settings, klaviyoConnection, { apiKey: klaviyo.options.apiKey });
    sealCredentials(settings, googleConnection, google.connectedCredentials());
    await em.flush();
    const queuedFor = async (connectionId: number) => testApp.orm.em.fork().count(SyncRun, { connection: connectionId });
    await scheduleIncrementalSyncs(testApp.orm.em.fork(), now);
    expect([await queuedFor(klaviyoConnection.id), await queuedFor(googleConnection.id)]).toEqual([0, 1]);
    // 59 minutes after its last sync (a tick that late is due), Klaviyo syncs again.
    await testApp.orm.em.fork().nativeUpdate(PlatformConnection, { id: klaviyoConnection.id }, { lastSyncAt: new Date(now.getTime() - 59 * 60_000) });
    await scheduleIncrementalSyncs(testApp.orm.em.fork(), now);
    expect(await queuedFor(klaviyoConnection.id)).toBe(1);
  });

  it('the schedule queues one incremental sync per connected connection and fails runs that stopped moving', async () => {
    const { owner, connectionId } = await googleConnection(google.connectedCredentials());
    const em = testApp.orm.em.fork();
    const stale = em.create(SyncRun, {
      store: owner.store.id, connection: connectionId, kind: 'backfill', status: 'running',
      windowSince: new Date(Date.now() - 30 * DAY_MS), windowUntil: new Date(), heartbeatAt: new Date(Date.now() - 2 * 3_600_000),
    });
    await em.flush();
    await scheduleIncrementalSyncs(testApp.orm.em.fork());
    const runs = await testApp.orm.em.fork().find(SyncRun, { connection: connectionId }, { orderBy: { id: 'asc' } });
    expect(runs.map((run) => [run.id === stale.id, run.status, run.error])).toEqual([
      [true, 'failed', STALE_RUN_MESSAGE],
      [false, 'queued', null],
    ]);
    expect(sentJobs.filter((job) => job.data.runId === runs[1]!.id)).toHaveLength(1);
    await scheduleIncrementalSyncs(testApp.orm.em.fork());
    expect(await testApp.orm.em.fork().count(SyncRun, { connection: connectionId })).toBe(2);

    // 31 days on, the stale run is forgotten; the latest run stays for the screen.
    await sqlRunner(em).run(`update sync_runs set status = 'succeeded', finished_at = now() where id = $1`, [runs[1]!.id]);
    await scheduleIncrementalSyncs(testApp.orm.em.fork(), new Date(Date.now() + 31 * DAY_MS));
    const kept = await testApp.orm.em.fork().find(SyncRun, { connection: connectionId }, { orderBy: { id: 'asc' } });
    expect(kept.map((run) => run.id)).toEqual([runs[1]!.id, kept[1]!.id]);
    expect(kept[1]!.status).toBe('queued');
  });
});

describe('tenant isolation', () => {
  it("another user's store answers 404 to every procedure; an invited viewer may look but not change", async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Private shop');
    await call(owner.client, 'setBackfillMonths', { platform: 'klaviyo', months: 3 });
    const stranger = await ownerWithStore(testApp.app, testApp.orm, 'Stranger shop');
    const storeId = owner.store.id;
    expect((await stranger.client.get(query('list', { storeId }))).status).toBe(404);
    for (const [procedure, input] of [
      ['connect', { platform: 'klaviyo', credentials: { apiKey: klaviyo.options.apiKey }, storeId }],
      ['disconnect', { platform: 'klaviyo', storeId }],
      ['syncNow', { platform: 'klaviyo', storeId }],
      ['cancelSync', { platform: 'klaviyo', storeId }],
      ['setBackfillMonths', { platform: 'klaviyo', months: 9, storeId }],
      ['startOAuth', { platform: 'shopify', shop: shopify.shop, storeId }],
      ['uploadEmailCsv', { fileName: 'a.csv', csvText: 'day,campaign_id\n2026-01-01,c\n', storeId }],
    ] as const) {
      const answer = await call(stranger.client, procedure, input);
      expect([procedure, answer.status, answer.body.error.message]).toEqual([procedure, 404, 'Store not found']);
    }
    expect((await connectionOf(storeId, 'klaviyo'))!.backfillMonths).toBe(3);
    expect(await connectionOf(stranger.store.id, 'klaviyo')).toBeNull();

    const viewer = await newGuestOf(testApp.app, testApp.orm, owner, storeId);
    expect((await list(viewer.client, { storeId })).find((candidate) => candidate.platform === 'klaviyo')).toMatchObject({ backfillMonths: 3 });
    const refused = await call(viewer.client, 'setBackfillMonths', { platform: 'klaviyo', months: 9, storeId });
    expect(refused.status).toBe(403);
  });
});
