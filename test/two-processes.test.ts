import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabaseIfMissing } from '../src/server/database/database.ts';
import { sqlRunner } from '../src/server/modules/commerce/raw-sql.ts';
import { PlatformConnection } from '../src/server/modules/connections/platform-connection.entity.ts';
import { integrationsSettingsFrom } from '../src/server/modules/integrations/integrations-runtime.ts';
import { sealCredentials } from '../src/server/modules/integrations/sync-runner.ts';
import { PLATFORM_KEYS, type PlatformKey } from '../src/shared/platforms.ts';
import type { PlatformSettings } from '../src/server/config.ts';
import { createCommerceStore } from './commerce-fixtures.ts';
import { startShopifyFake, type ShopifyFake } from './fakes/shopify.ts';
import { uniqueUser, useTestDatabase } from './harness.ts';
import { HttpClient, startServerProcess, waitFor, type ServerProcess } from './two-instances.ts';

// Two `node src/server/main.ts` processes, as `npm start` runs them, on one PostgreSQL database:
// what one process does must hold in the other (sessions, rate limits, jobs, webhook de-duplication).
// Each process runs its own pg-boss workers, as in production.

const database = useTestDatabase();
const DAY_MS = 86_400_000;

let shopify: ShopifyFake;
let a: ServerProcess;
let b: ServerProcess;
const shared = {
  // One set-up, one secret of each kind: otherwise each process generates its own into its data directory.
  SESSION_SECRET: randomBytes(32).toString('hex'),
  ENCRYPTION_KEY: randomBytes(32).toString('hex'),
};

beforeAll(async () => {
  const now = Date.now();
  shopify = await startShopifyFake({ seed: 15, orders: 10, products: 3, from: new Date(now - 10 * DAY_MS), to: new Date(now - DAY_MS), rateLimit: false });
  const env = {
    ...shared,
    SHOPIFY_CLIENT_ID: shopify.clientId,
    SHOPIFY_CLIENT_SECRET: shopify.clientSecret,
    PLATFORM_BASE_URL_SHOPIFY: shopify.url,
  };
  [a, b] = await Promise.all([startServerProcess('A', database.url, env), startServerProcess('B', database.url, env)]);
});

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await shopify?.close();
});

describe('two server processes on one database', () => {
  it('start together on a database that has no schema yet: one applies the migrations, the other waits for them', async () => {
    const name = `test_empty_${randomBytes(4).toString('hex')}`;
    const url = new URL(database.url);
    const maintenance = new URL(database.url);
    maintenance.pathname = '/postgres';
    await createDatabaseIfMissing(maintenance.toString(), name);
    url.pathname = `/${name}`;
    const started = await Promise.allSettled([startServerProcess('C', url.toString(), shared), startServerProcess('D', url.toString(), shared)]);
    try {
      for (const result of started) {
        if (result.status === 'rejected') throw result.reason;
      }
      for (const result of started) {
        const server = (result as PromiseFulfilledResult<ServerProcess>).value;
        const answer = await new HttpClient().request(server.baseUrl, 'GET', '/api/user');
        expect(answer.status).toBe(401);
      }
    } finally {
      await Promise.all(started.map((result) => (result.status === 'fulfilled' ? result.value.stop() : undefined)));
    }
  });

  it('a session created on A works on B, and a sign-out on B ends it on A', async () => {
    const client = new HttpClient();
    const credentials = uniqueUser('twoproc');
    const registered = await client.request(a.baseUrl, 'POST', '/api/register', credentials);
    expect(registered.status).toBe(201);
    const onB = await client.request(b.baseUrl, 'GET', '/api/user');
    expect(onB.status).toBe(200);
    expect(onB.body.id).toBe(registered.body.id);

    const signedInCookie = client.cookie;
    const signedOut = await client.request(b.baseUrl, 'GET', '/api/logout');
    expect(signedOut.status).toBe(302);
    const replay = new HttpClient();
    replay.cookie = signedInCookie;
    expect((await replay.request(a.baseUrl, 'GET', '/api/user')).status).toBe(401);
  });

  it('counts failed sign-ins on both: the sixth attempt from one address is refused whichever process gets it', async () => {
    const owner = new HttpClient();
    const credentials = uniqueUser('guessed');
    expect((await owner.request(a.baseUrl, 'POST', '/api/register', credentials)).status).toBe(201);
    // RATE_LIMIT_FAILED_LOGINS_PER_USERNAME_AND_IP defaults to 5 per 15 minutes: 3 failures on A and 2
    // on B are 5 in all, so the 6th attempt is refused even with the right password (a process that
    // counted only its own would have seen 2 and let it in).
    const attempt = (server: ServerProcess, password: string) =>
      new HttpClient().request(server.baseUrl, 'POST', '/api/login', { username: credentials.username, password });
    for (const server of [a, b, a, b, a]) expect((await attempt(server, 'not-the-password')).status).toBe(401);
    const sixth = await attempt(b, credentials.password);
    expect(sixth.status).toBe(429);
    expect(sixth.body.message).toMatch(/^Too many failed sign-in attempts\. Please try again in 15 minutes\.$/);
    expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(14 * 60);
  });

  it('counts password-reset requests on both (5 per address per 15 minutes)', async () => {
    // 3 requests on A and 2 on B use up the address's 5; the 6th is refused on A.
    const ask = (server: ServerProcess, n: number) =>
      new HttpClient().request(server.baseUrl, 'POST', '/api/forgot-password', { email: `nobody-${n}-${randomBytes(3).toString('hex')}@example.com` });
    const statuses: number[] = [];
    for (const [n, server] of [a, b, a, b, a].entries()) statuses.push((await ask(server, n)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const sixth = await ask(a, 6);
    expect(sixth.status).toBe(429);
    expect(sixth.body.message).toMatch(/^Too many password reset requests\./);
  });

  it('stores and processes the same webhook delivered to A and B at once exactly once, in one job', async () => {
    const store = await createCommerceStore(database.orm, { timezone: 'UTC', currency: 'USD' });
    const platforms = Object.fromEntries(PLATFORM_KEYS.map((key) => [key, {} as PlatformSettings])) as Record<PlatformKey, PlatformSettings>;
    const settings = integrationsSettingsFrom({ encryptionKey: shared.ENCRYPTION_KEY, dataDir: path.join(os.tmpdir(), 'storepulse-two-processes'), platforms });
    const em = database.orm.em.fork();
    const connection = em.create(PlatformConnection, { store: store.id, platform: 'shopify', status: 'connected', connected: true, accountId: shopify.shop });
    await em.flush();
    sealCredentials(settings, connection, { shop: shopify.shop, accessToken: shopify.initialToken! });
    await em.flush();

    const delivery = shopify.webhookDelivery('orders/create', shopify.orderId(2), { webhookId: 'wh-two-processes' });
    const post = (server: ServerProcess) => fetch(`${server.baseUrl}/api/webhooks/shopify`, { method: 'POST', headers: delivery.headers, body: delivery.body });
    const answers = await Promise.all([post(a), post(b)]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);

    const q = sqlRunner(database.orm.em.fork());
    const processed = await waitFor('the delivery to be processed', async () => {
      const rows = await q.rows<{ id: number; processed: boolean; error: string | null }>(
        `select id, processed_at is not null as processed, error from webhook_deliveries where store_id = $1`,
        [store.id],
      );
      return rows.every((row) => row.processed) && rows.length > 0 ? rows : undefined;
    });
    expect(processed).toEqual([{ id: expect.any(Number), processed: true, error: null }]);
    const orders = await q.rows<{ external_id: string }>(`select external_id from orders where store_id = $1`, [store.id]);
    expect(orders).toEqual([{ external_id: shopify.orderId(2) }]);
    const jobs = await q.rows<{ state: string; retry_count: number }>(
      `select state::text, retry_count from pgboss.job where name = 'integrations.webhook' and data->>'deliveryId' = $1`,
      [String(processed[0]!.id)],
    );
    expect(jobs).toEqual([{ state: 'completed', retry_count: 0 }]);
  });
});
