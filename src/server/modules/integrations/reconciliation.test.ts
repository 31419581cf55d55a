import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCommerceStore } from '../../../../test/commerce-fixtures.ts';
import { startShopifyFake, type ShopifyFake } from '../../../../test/fakes/shopify.ts';
import { startWooCommerceFake, type WooCommerceFake } from '../../../../test/fakes/woocommerce.ts';
import { useTestApp } from '../../../../test/harness.ts';
import { PLATFORM_KEYS, type PlatformKey } from '../../../shared/platforms.ts';
import type { PlatformSettings } from '../../config.ts';
import { PlatformConnection } from '../connections/platform-connection.entity.ts';
import type { Connector } from '../../connectors/connector.ts';
import { connectorFor } from '../../connectors/registry.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { ingestRefunds } from '../commerce/ingest.ts';
import { countingOrderSql } from '../../../shared/commerce.ts';
import { dayInZone } from '../../../shared/date-ranges.ts';
import { Store } from '../stores/store.entity.ts';
import { ReconciliationResult, SyncRun } from './integration.entities.ts';
import { reconcileAfterSync } from './reconciliation.ts';
import { configureIntegrations, integrationsSettingsFrom, setIntegrationJobSender, type IntegrationsSettings } from './integrations-runtime.ts';
import { connectorContext, runSync, sealCredentials } from './sync-runner.ts';

const testApp = useTestApp();
const DAY_MS = 86_400_000;
const noSleep = { sleep: async () => {}, maxAttempts: 3 };

let shopify: ShopifyFake;
let woo: WooCommerceFake;
let settings: IntegrationsSettings;

beforeAll(async () => {
  const now = Date.now();
  // As on the integrations screen's journey: orders up to an hour ago.
  shopify = await startShopifyFake({ seed: 11, orders: 1500, products: 5, currency: 'GBP', from: new Date(now - 60 * DAY_MS), to: new Date(now - 3_600_000), rateLimit: false });
  woo = await startWooCommerceFake({ seed: 11, orders: 400, products: 5, from: new Date(now - 60 * DAY_MS), to: new Date(now - 3_600_000) });
  const platforms = Object.fromEntries(PLATFORM_KEYS.map((key) => [key, {} as PlatformSettings])) as Record<PlatformKey, PlatformSettings>;
  platforms.shopify = { baseUrl: shopify.url, clientId: shopify.clientId, clientSecret: shopify.clientSecret };
  platforms.woocommerce = { baseUrl: woo.url };
  settings = integrationsSettingsFrom({ encryptionKey: randomBytes(32).toString('hex'), dataDir: path.join(os.tmpdir(), 'storepulse-reconciliation-test'), platforms });
});
afterAll(async () => {
  setIntegrationJobSender(null);
  await Promise.all([shopify.close(), woo.close()]);
});
beforeEach(() => {
  configureIntegrations(settings);
  setIntegrationJobSender(async () => {});
});

async function connect(platform: 'shopify' | 'woocommerce', credentials: Record<string, string>, currency: string, timezone = 'Europe/London') {
  const store = await createCommerceStore(testApp.orm, { timezone, currency });
  const em = testApp.orm.em.fork();
  const connection = em.create(PlatformConnection, { store: store.id, platform, status: 'connected', connected: true, accountId: platform });
  await em.flush();
  sealCredentials(settings, connection, credentials);
  await em.flush();
  return { store, connection };
}

async function backfill(platform: 'shopify' | 'woocommerce', credentials: Record<string, string>, currency: string, connector?: Connector, timezone?: string) {
  const { store, connection } = await connect(platform, credentials, currency, timezone);
  const em = testApp.orm.em.fork();
  const run = em.create(SyncRun, { store: store.id, connection: connection.id, kind: 'backfill', windowSince: new Date(Date.now() - 90 * DAY_MS), windowUntil: new Date() });
  await em.flush();
  expect(await runSync(testApp.orm.em.fork(), run.id, { settings, http: noSleep, connector })).toBe('succeeded');
  const result = await testApp.orm.em.fork().findOneOrFail(ReconciliationResult, { connection: connection.id });
  return { store, connectionId: connection.id, window: { since: run.windowSince, until: run.windowUntil }, result };
}

const shopifyCredentials = () => ({ shop: shopify.shop, accessToken: shopify.initialToken! });
const wooCredentials = () => ({ storeUrl: woo.url, consumerKey: woo.consumerKey, consumerSecret: woo.consumerSecret });

async function countOf(sql: string, params: unknown[]): Promise<number> {
  const [row] = await sqlRunner(testApp.orm.em.fork()).rows<{ count: number }>(sql, params);
  return row!.count;
}

describe('reconciliation after a clean sync', () => {
  it('Shopify: both sides count the same orders (test, cancelled and voided ones on neither), so it matches the source', async () => {
    const { store, result } = await backfill('shopify', shopifyCredentials(), 'GBP');
    // The shop has test and cancelled orders, and orders up to an hour ago: all of them synced.
    expect(await countOf(`select count(*)::int as count from orders where store_id = $1 and (is_test or status = 'cancelled')`, [store.id])).toBeGreaterThan(40);
    expect(await countOf(`select count(*)::int as count from orders where store_id = $1`, [store.id])).toBe(1500);
    const counted = shopify.countMatching('test:false -status:cancelled -financial_status:voided -financial_status:expired');
    expect(result).toMatchObject({ matches: true, ourOrders: counted, sourceOrders: counted, sourceNetSalesMinor: null, days: [], explanations: [] });
  });

  it("Shopify in the shop's own time zone: net sales per day are compared with Shopify's (ShopifyQL), and a difference in money shows on its day", async () => {
    const { store, connectionId, window, result } = await backfill('shopify', shopifyCredentials(), 'GBP', undefined, 'America/New_York');
    expect(result).toMatchObject({ matches: true, days: [] });
    expect(result.sourceNetSalesMinor).toBe(result.ourNetSalesMinor);
    expect(result.ourNetSalesMinor).toBeGreaterThan(0);

    // A refund of 12.34 that Shopify does not have (as if a sync had read one the shop then deleted):
    // its day differs by exactly that, in money, and so does the period.
    const [order] = await sqlRunner(testApp.orm.em.fork()).rows<{ external_id: string }>(
      `select external_id from orders where store_id = $1 and not is_test and status not in ('cancelled', 'unpaid') and placed_at < now() - interval '20 days' order by placed_at desc limit 1`,
      [store.id],
    );
    const refundedAt = new Date(Date.now() - 10 * DAY_MS);
    await ingestRefunds(testApp.orm.em.fork(), store.id, [{ platform: 'shopify', externalId: 'not-at-shopify', orderExternalId: order!.external_id, refundedAt, amountMinor: 1234, currency: 'GBP' }]);
    const em = testApp.orm.em.fork();
    const storeEntity = await em.findOneOrFail(Store, { id: store.id });
    const ctx = connectorContext(settings, 'shopify', shopifyCredentials(), storeEntity, noSleep);
    await reconcileAfterSync(em, { connection: await em.findOneOrFail(PlatformConnection, { id: connectionId }), store: storeEntity, connector: connectorFor('shopify'), ctx, window, checkedAt: new Date() });
    const differing = await testApp.orm.em.fork().findOneOrFail(ReconciliationResult, { connection: connectionId });
    const day = dayInZone(refundedAt, 'America/New_York');
    expect(differing.matches).toBe(false);
    expect(differing.days).toEqual([{ day, ourOrders: expect.any(Number), sourceOrders: expect.any(Number), ourNetSales: expect.any(Number), sourceNetSales: expect.any(Number) }]);
    expect(differing.days[0]!.ourOrders).toBe(differing.days[0]!.sourceOrders);
    expect(differing.days[0]!.sourceNetSales! - differing.days[0]!.ourNetSales).toBe(1234);
    expect(differing.sourceNetSalesMinor! - differing.ourNetSalesMinor).toBe(1234);
  });

  it('WooCommerce: the orders and net sales we count are the ones WooCommerce Analytics counts', async () => {
    const { store, result } = await backfill('woocommerce', wooCredentials(), 'EUR');
    expect(await countOf(`select count(*)::int as count from orders where store_id = $1 and status in ('cancelled', 'unpaid')`, [store.id])).toBeGreaterThan(10);
    const counted = await countOf(`select count(*)::int as count from orders where store_id = $1 and status not in ('cancelled', 'unpaid')`, [store.id]);
    expect(result).toMatchObject({ matches: true, ourOrders: counted, sourceOrders: counted, sourceNetSalesMinor: result.ourNetSalesMinor, days: [], explanations: [] });
    expect(result.ourNetSalesMinor).toBeGreaterThan(0);
  });

  it('is stored before the run is marked succeeded', async () => {
    const statusSeen: string[] = [];
    const base = connectorFor('woocommerce');
    const watching: Connector = {
      ...base,
      async sourceTotals(ctx, window) {
        const [row] = await sqlRunner(testApp.orm.em.fork()).rows<{ status: string }>(`select status from sync_runs order by id desc limit 1`, []);
        statusSeen.push(row!.status);
        return base.sourceTotals!(ctx, window);
      },
    };
    const { connectionId } = await backfill('woocommerce', wooCredentials(), 'EUR', watching);
    expect(statusSeen).toEqual(['running']);
    const run = await testApp.orm.em.fork().findOneOrFail(SyncRun, { connection: connectionId });
    const result = await testApp.orm.em.fork().findOneOrFail(ReconciliationResult, { connection: connectionId });
    expect(run.status).toBe('succeeded');
    expect(result.checkedAt.getTime()).toBe(run.finishedAt!.getTime());
  });
});

describe('explanations from the platform\'s own list of a differing day', () => {
  it('Shopify: an order missing here and one edited at the source after our copy, looked up for that day only', async () => {
    const { store, connectionId, window } = await backfill('shopify', shopifyCredentials(), 'GBP');
    const q = sqlRunner(testApp.orm.em.fork());
    // Two counting orders of one day: one we lose, one cancelled in our copy that the shop then reinstates.
    const day = (await q.rows<{ day: string }>(`select to_char(placed_day, 'YYYY-MM-DD') as day from orders where store_id = $1 and placed_at > now() - interval '20 days' order by placed_at limit 1`, [store.id]))[0]!.day;
    const picked = await q.rows<{ id: number; external_id: string; order_number: string }>(
      `select id, external_id, order_number from orders where store_id = $1 and placed_day = $2 and not is_test and status <> 'cancelled' and refunds_minor = 0 order by external_id limit 2`,
      [store.id, day],
    );
    const [lost, edited] = picked as [(typeof picked)[0], (typeof picked)[0]];
    await q.run(`delete from order_lines where store_id = $1 and order_id = $2`, [store.id, lost.id]);
    await q.run(`delete from orders where store_id = $1 and id = $2`, [store.id, lost.id]);
    await q.run(`update orders set status = 'cancelled', updated_at = now() - interval '1 hour' where store_id = $1 and id = $2`, [store.id, edited.id]);
    shopify.updateOrder(edited.external_id, { at: new Date() });

    const requestsBefore = shopify.requests.length;
    const em = testApp.orm.em.fork();
    const connection = await em.findOneOrFail(PlatformConnection, { id: connectionId });
    const storeEntity = await em.findOneOrFail(Store, { id: store.id });
    const ctx = connectorContext(settings, 'shopify', shopifyCredentials(), storeEntity, noSleep);
    await reconcileAfterSync(em, { connection, store: storeEntity, connector: connectorFor('shopify'), ctx, window, checkedAt: new Date() });
    const result = await testApp.orm.em.fork().findOneOrFail(ReconciliationResult, { connection: connectionId });

    expect(result.matches).toBe(false);
    expect(result.days).toEqual([expect.objectContaining({ day, sourceOrders: expect.any(Number) })]);
    expect(result.days[0]!.sourceOrders! - result.days[0]!.ourOrders).toBe(2);
    expect(result.explanations).toEqual([
      expect.objectContaining({ orderExternalId: lost.external_id, orderNumber: lost.order_number, reason: 'missing_here' }),
      expect.objectContaining({ orderExternalId: edited.external_id, orderNumber: edited.order_number, reason: 'edited_after_sync' }),
    ]);
    // One bounded list, for the one differing day.
    const lookups = shopify.requests.slice(requestsBefore).filter((request) => request.rawBody.includes('query DayOrders'));
    expect(lookups).toHaveLength(1);
    expect(JSON.parse(lookups[0]!.rawBody).variables.first).toBe(250);
  });

  it('WooCommerce: an order missing here is named, and an order we count that the shop no longer counts', async () => {
    const { store, connectionId, window } = await backfill('woocommerce', wooCredentials(), 'EUR');
    const q = sqlRunner(testApp.orm.em.fork());
    const [lost] = await q.rows<{ id: number; external_id: string; day: string }>(
      `select id, external_id, to_char(placed_day, 'YYYY-MM-DD') as day from orders where store_id = $1 and ${countingOrderSql()} and refunds_minor = 0 order by placed_at desc limit 1`,
      [store.id],
    );
    await q.run(`delete from order_lines where store_id = $1 and order_id = $2`, [store.id, lost!.id]);
    await q.run(`delete from orders where store_id = $1 and id = $2`, [store.id, lost!.id]);
    const [counted] = await q.rows<{ external_id: string; day: string }>(
      `select external_id, to_char(placed_day, 'YYYY-MM-DD') as day from orders where store_id = $1 and ${countingOrderSql()} and placed_day < $2 order by placed_at desc limit 1`,
      [store.id, lost!.day],
    );
    woo.updateOrder(counted!.external_id, { status: 'cancelled', at: new Date(Date.now() - 60_000) });

    const em = testApp.orm.em.fork();
    const connection = await em.findOneOrFail(PlatformConnection, { id: connectionId });
    const storeEntity = await em.findOneOrFail(Store, { id: store.id });
    const ctx = connectorContext(settings, 'woocommerce', wooCredentials(), storeEntity, noSleep);
    await reconcileAfterSync(em, { connection, store: storeEntity, connector: connectorFor('woocommerce'), ctx, window, checkedAt: new Date() });
    const result = await testApp.orm.em.fork().findOneOrFail(ReconciliationResult, { connection: connectionId });
    expect(result.matches).toBe(false);
    expect(result.explanations).toEqual([
      expect.objectContaining({ orderExternalId: counted!.external_id, reason: 'missing_at_source' }),
      expect.objectContaining({ orderExternalId: lost!.external_id, reason: 'missing_here' }),
    ]);
  });
});
