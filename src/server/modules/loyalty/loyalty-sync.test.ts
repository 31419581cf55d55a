import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startShopifyFake, type ShopifyFake } from '../../../../test/fakes/shopify.ts';
import { createTestDatabase } from '../../../../test/harness.ts';
import { PLATFORM_KEYS, type PlatformKey } from '../../../shared/platforms.ts';
import type { PlatformSettings } from '../../config.ts';
import { createShopifyConnector } from '../../connectors/shopify/index.ts';
import { startJobs } from '../../jobs/boss.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { PlatformConnection } from '../connections/platform-connection.entity.ts';
import { configureIntegrations, integrationsSettingsFrom, setIntegrationJobSender, type IntegrationsSettings } from '../integrations/integrations-runtime.ts';
import { queueSync, runSync } from '../integrations/sync-runner.ts';
import { connectedStore } from '../integrations/test-support.ts';
import { LOYALTY_DEBOUNCE_SECONDS, LOYALTY_JOB, LOYALTY_QUEUE, queueLoyaltyScores } from './loyalty-job.ts';

// A completed store sync queues the store's loyalty job (sync-runner.ts), through the same sender
// as every integration job (a recorder here instead of pg-boss); on a real pg-boss, a burst of syncs
// gives one recompute now and one in the next slot, not one per sync.

const DAY_MS = 86_400_000;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let shopify: ShopifyFake;
let settings: IntegrationsSettings;
const sent: { queue: string; data: object; options?: object }[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  shopify = await startShopifyFake({ seed: 18, orders: 40, products: 4, from: new Date(Date.now() - 20 * DAY_MS), to: new Date(Date.now() - DAY_MS), rateLimit: false });
  const platforms = Object.fromEntries(PLATFORM_KEYS.map((key) => [key, {} as PlatformSettings])) as Record<PlatformKey, PlatformSettings>;
  platforms.shopify = { baseUrl: shopify.url, clientId: shopify.clientId, clientSecret: shopify.clientSecret };
  settings = integrationsSettingsFrom({ encryptionKey: randomBytes(32).toString('hex'), dataDir: path.join(os.tmpdir(), 'storepulse-loyalty-sync-test'), platforms });
  configureIntegrations(settings);
  setIntegrationJobSender(async (queue, data, options) => { sent.push({ queue, data, options }); });
});
afterAll(async () => {
  setIntegrationJobSender(null);
  await shopify?.close();
  await database?.close();
});

it('a completed Shopify sync sends the loyalty job for its store', async () => {
  const { storeId, connectionId } = await connectedStore(database.orm, settings, 'shopify', { shop: shopify.shop, accessToken: shopify.initialToken! }, { accountId: 'loyal.myshopify.com' });
  const em = database.orm.em.fork();
  const run = await queueSync(em, await em.findOneOrFail(PlatformConnection, { id: connectionId }));
  sent.length = 0;
  expect(await runSync(database.orm.em.fork(), run.id, { settings, connector: createShopifyConnector({ bulkThreshold: Number.POSITIVE_INFINITY }) })).toBe('succeeded');
  expect(sent.filter((job) => job.queue === LOYALTY_QUEUE).map(({ queue, data }) => ({ queue, data }))).toEqual([{ queue: LOYALTY_QUEUE, data: { storeId } }]);
});

it('a burst of syncs queues one recompute now and one in the next slot (pg-boss debounce)', async () => {
  // The jobs' rows are the point; the worker that takes them finds no such store and does nothing.
  const jobs = await startJobs({ databaseUrl: database.url, orm: database.orm, baseUrl: 'http://localhost', logger: { info: () => {}, error: () => {} }, jobs: [LOYALTY_JOB], checks: [], schedule: false });
  try {
    setIntegrationJobSender((queue, data, options) => jobs.boss.send(queue, data, options));
    const storeId = 987_654;
    for (let sync = 0; sync < 5; sync++) await queueLoyaltyScores(storeId);
    const rows = await sqlRunner(database.orm.em.fork()).rows<{ slot: string }>(
      `select extract(epoch from singleton_on)::bigint::text as slot from pgboss.job where name = $1 and singleton_key = $2 order by singleton_on`,
      [LOYALTY_QUEUE, `loyalty:${storeId}`],
    );
    expect(rows).toHaveLength(2);
    expect(Number(rows[1]!.slot) - Number(rows[0]!.slot)).toBe(LOYALTY_DEBOUNCE_SECONDS);
  } finally {
    setIntegrationJobSender(async (queue, data, options) => { sent.push({ queue, data, options }); });
    await jobs.stop();
  }
});
