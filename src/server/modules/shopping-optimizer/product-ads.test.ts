import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGoogleAdsFake, type FakeProductDay, type GoogleAdsFake } from '../../../../test/fakes/googleads.ts';
import { signedInAdmin, trpcMutation, trpcQuery, useTestApp } from '../../../../test/harness.ts';
import { addDays, dayInZone } from '../../../shared/date-ranges.ts';
import { PLATFORM_KEYS, type PlatformKey } from '../../../shared/platforms.ts';
import type { PlatformSettings } from '../../config.ts';
import { upsertFxRates } from '../commerce/fx.ts';
import { Product } from '../commerce/product.entity.ts';
import { replaceProductAdMetrics } from '../commerce/product-ad-metrics.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { PlatformConnection } from '../connections/platform-connection.entity.ts';
import { Store } from '../stores/store.entity.ts';
import { ConnectionAccount } from '../integrations/integration.entities.ts';
import { integrationsSettingsFrom, type IntegrationsSettings } from '../integrations/integrations-runtime.ts';
import { queueNewSync, runSync, sealCredentials } from '../integrations/sync-runner.ts';

// Per-product Google Ads figures in the shopping optimizer (issue 20): the Google Ads fake's
// shopping_performance_view -> the sync -> product_ad_metrics_daily -> the optimizer's product list.

const testApp = useTestApp();
const noSleep = { sleep: async () => {}, maxAttempts: 3 };
const MANAGER = '9876543210';
const US_CLIENT = '1112223333';
const DE_CLIENT = '4445556666';

const today = dayInZone(new Date(), 'UTC');
const DAY1 = addDays(today, -2);
const DAY2 = addDays(today, -3);

let fake: GoogleAdsFake;
let settings: IntegrationsSettings;

type Admin = Awaited<ReturnType<typeof signedInAdmin>> & { storeId: number };

async function adminWithStore(name: string): Promise<Admin> {
  const admin = await signedInAdmin(testApp.app, testApp.orm);
  const created = await admin.client.post('/api/stores', { name });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  await testApp.orm.em.fork().nativeUpdate(Store, { id: created.body.id }, { currency: 'GBP', timezone: 'UTC' });
  return { ...admin, storeId: created.body.id };
}

async function addProducts(storeId: number, products: { externalId: string; title: string; imageUrl?: string }[]) {
  const em = testApp.orm.em.fork();
  for (const product of products) {
    em.create(Product, {
      store: storeId, platform: 'demo', externalId: product.externalId, title: product.title, sku: null, priceMinor: 2599, currency: 'GBP',
      unitCostMinor: null, imageUrl: product.imageUrl ?? null, active: true,
    });
  }
  await em.flush();
}

const data = <T = any>(answer: { status: number; body: any }): T => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.result.data as T;
};

const day = (itemId: string, on: string, costMinor: number, clicks = 10): FakeProductDay => ({ itemId, day: on, clicks, impressions: clicks * 20, costMinor, conversions: 1.5, conversionValueMinor: 3000 });

async function storedRows(storeId: number) {
  return sqlRunner(testApp.orm.em.fork()).rows<Record<string, unknown>>(
    `select account_id, product_item_id, to_char(day, 'YYYY-MM-DD') as day, currency::text, clicks::int, impressions::int, cost::text, conversions, conversion_value::text
       from product_ad_metrics_daily where store_id = $1 order by account_id, product_item_id, day`,
    [storeId],
  );
}

/** A Google Ads connection through the manager, with both clients chosen (the manager listed, never chosen). */
async function connectGoogleAds(storeId: number): Promise<number> {
  const em = testApp.orm.em.fork();
  const connection = em.create(PlatformConnection, { store: storeId, platform: 'googleads', status: 'connected', connected: true, backfillMonths: 1 });
  await em.flush();
  sealCredentials(settings, connection, fake.loginCredentials());
  const listedAt = new Date();
  em.create(ConnectionAccount, { store: storeId, connection, accountId: MANAGER, name: 'Agency', currency: 'USD', timezone: 'UTC', isManager: true, selected: true, access: {}, listedAt });
  em.create(ConnectionAccount, { store: storeId, connection, accountId: US_CLIENT, name: 'Shop US', currency: 'USD', timezone: 'UTC', selected: true, access: { loginCustomerId: MANAGER }, listedAt });
  em.create(ConnectionAccount, { store: storeId, connection, accountId: DE_CLIENT, name: 'Shop DE', currency: 'EUR', timezone: 'UTC', selected: true, access: { loginCustomerId: MANAGER }, listedAt });
  await em.flush();
  return connection.id;
}

async function sync(connectionId: number) {
  const em = testApp.orm.em.fork();
  const connection = await em.findOneOrFail(PlatformConnection, { id: connectionId });
  const run = await queueNewSync(em, connection);
  expect(await runSync(testApp.orm.em.fork(), run.id, { settings, http: noSleep })).toBe('succeeded');
}

beforeAll(async () => {
  fake = await startGoogleAdsFake({
    campaigns: 1,
    customers: [
      { id: MANAGER, name: 'Agency', currency: 'USD', timeZone: 'UTC', manager: true, clients: [US_CLIENT, DE_CLIENT] },
      { id: US_CLIENT, name: 'Shop US', currency: 'USD', timeZone: 'UTC' },
      { id: DE_CLIENT, name: 'Shop DE', currency: 'EUR', timeZone: 'UTC' },
    ],
  });
  const platforms = Object.fromEntries(PLATFORM_KEYS.map((key) => [key, {} as PlatformSettings])) as Record<PlatformKey, PlatformSettings>;
  platforms.googleads = { baseUrl: fake.url, authorizeUrl: fake.url, clientId: fake.auth.clientId, clientSecret: fake.auth.clientSecret };
  settings = integrationsSettingsFrom({ encryptionKey: randomBytes(32).toString('hex'), dataDir: path.join(os.tmpdir(), 'storepulse-product-ads-test'), platforms });
  // Rates per EUR, different on each day: each day's cost is converted at its own day's rate.
  await upsertFxRates(testApp.orm.em.fork(), [
    { day: DAY2, currency: 'USD', rate: 1.0 }, { day: DAY2, currency: 'GBP', rate: 0.8 },
    { day: DAY1, currency: 'USD', rate: 1.1 }, { day: DAY1, currency: 'GBP', rate: 0.85 },
  ]);
});
afterAll(() => fake.close());

describe('Google Ads per-product shopping performance: sync and optimizer', () => {
  let shop: Admin;
  let rival: Admin;
  let connectionId: number;

  beforeAll(async () => {
    shop = await adminWithStore('Spend shop');
    rival = await adminWithStore('Rival shop');
    await addProducts(shop.storeId, [
      { externalId: 'MUG-1', title: 'Blue mug' },
      { externalId: 'tee-1', title: 'Black tee' },
      { externalId: 'hat-1', title: 'Red hat' },
    ]);
    // The same offer id in another store: its figures come from its own rows only.
    await addProducts(rival.storeId, [{ externalId: 'mug-1', title: 'Rival mug' }]);
    fake.setProductDays(US_CLIENT, [day('mug-1', DAY1, 1100), day('mug-1', DAY2, 500), day('tee-1', DAY1, 220, 4), day('gone-9', DAY1, 110, 1)]);
    fake.setProductDays(DE_CLIENT, [day('MUG-1', DAY2, 1000, 6)]);
    connectionId = await connectGoogleAds(shop.storeId);
    await sync(connectionId);
  });

  it("stores each client account's product days in its own currency, cost from micros, and never asks the manager for metrics", async () => {
    const rows = await storedRows(shop.storeId);
    expect(rows).toEqual([
      { account_id: US_CLIENT, product_item_id: 'gone-9', day: DAY1, currency: 'USD', clicks: 1, impressions: 20, cost: '1.100000', conversions: 1.5, conversion_value: '30.000000' },
      { account_id: US_CLIENT, product_item_id: 'mug-1', day: DAY2, currency: 'USD', clicks: 10, impressions: 200, cost: '5.000000', conversions: 1.5, conversion_value: '30.000000' },
      { account_id: US_CLIENT, product_item_id: 'mug-1', day: DAY1, currency: 'USD', clicks: 10, impressions: 200, cost: '11.000000', conversions: 1.5, conversion_value: '30.000000' },
      { account_id: US_CLIENT, product_item_id: 'tee-1', day: DAY1, currency: 'USD', clicks: 4, impressions: 80, cost: '2.200000', conversions: 1.5, conversion_value: '30.000000' },
      { account_id: DE_CLIENT, product_item_id: 'MUG-1', day: DAY2, currency: 'EUR', clicks: 6, impressions: 120, cost: '10.000000', conversions: 1.5, conversion_value: '30.000000' },
    ].sort((a, b) => a.account_id.localeCompare(b.account_id) || a.product_item_id.localeCompare(b.product_item_id) || a.day.localeCompare(b.day)));
    expect(fake.queriesFor(MANAGER).filter((query) => /metrics\./.test(query))).toEqual([]);
    expect(fake.queriesFor(US_CLIENT).some((query) => /FROM shopping_performance_view/.test(query))).toBe(true);
  });

  it('a sync read again changes nothing, and a restated day replaces what was stored for it', async () => {
    const before = await storedRows(shop.storeId);
    await sync(connectionId);
    expect(await storedRows(shop.storeId)).toEqual(before);
    // Google no longer reports the tee on DAY1 (e.g. invalid clicks credited): its row goes.
    fake.setProductDays(US_CLIENT, [day('mug-1', DAY1, 1100), day('mug-1', DAY2, 500), day('gone-9', DAY1, 110, 1)]);
    await sync(connectionId);
    const after = await storedRows(shop.storeId);
    expect(after.map((row) => row.product_item_id)).not.toContain('tee-1');
    expect(after).toHaveLength(before.length - 1);
    fake.setProductDays(US_CLIENT, [day('mug-1', DAY1, 1100), day('mug-1', DAY2, 500), day('tee-1', DAY1, 220, 4), day('gone-9', DAY1, 110, 1)]);
    await sync(connectionId);
  });

  it("shows each product's spend in the store currency at each day's rate, matched case-insensitively, and sorts by spend", async () => {
    const audit = data(await trpcQuery(shop.client, 'shoppingOptimizer.audit', { sort: 'spend', direction: 'desc' }));
    // Mug: $11.00 on DAY1 (0.85 / 1.1) = £8.50, $5.00 on DAY2 (0.8 / 1.0) = £4.00, €10.00 on DAY2 (0.8) = £8.00.
    expect(audit.products.map((product: any) => [product.offerId, product.ads])).toEqual([
      ['MUG-1', { clicks: 26, impressions: 520, costMinor: 2050, conversions: 4.5 }],
      ['tee-1', { clicks: 4, impressions: 80, costMinor: 170, conversions: 1.5 }],
      ['hat-1', null],
    ]);
    // The unmatched item's $1.10 counts in the total, and is said to match no product.
    expect(audit.adsPerformance).toMatchObject({ status: 'ready', days: 30, currency: 'GBP', costMinor: 2050 + 170 + 85, unmatchedItems: 1, to: today });
    const ascending = data(await trpcQuery(shop.client, 'shoppingOptimizer.audit', { sort: 'spend', direction: 'asc' }));
    expect(ascending.products.map((product: any) => product.offerId)).toEqual(['hat-1', 'tee-1', 'MUG-1']);
  });

  it('a store without Google Ads is told so, and never sees another store\'s figures for the same offer id', async () => {
    const week = data(await trpcQuery(shop.client, 'shoppingOptimizer.audit', { days: 7 }));
    expect(week.adsPerformance.status).toBe('ready');
    const theirs = data(await trpcQuery(rival.client, 'shoppingOptimizer.audit'));
    expect(theirs.adsPerformance).toMatchObject({ status: 'not_connected', costMinor: 0, unmatchedItems: 0 });
    // Their mug has the same offer id as ours: none of our figures.
    expect(theirs.products).toEqual([expect.objectContaining({ offerId: 'mug-1', ads: null })]);
  });

  it('a store with Google Ads but no shopping rows in the window is told so', async () => {
    await replaceProductAdMetrics(testApp.orm.em.fork(), shop.storeId, [
      { platform: 'googleads', accountId: US_CLIENT, from: addDays(today, -60), to: today, rows: [] },
      { platform: 'googleads', accountId: DE_CLIENT, from: addDays(today, -60), to: today, rows: [] },
    ]);
    const audit = data(await trpcQuery(shop.client, 'shoppingOptimizer.audit'));
    expect(audit.adsPerformance).toMatchObject({ status: 'no_rows', costMinor: 0 });
    expect(audit.products.every((product: any) => product.ads === null)).toBe(true);
    await sync(connectionId);
  });

  it('refuses a bad slice and keeps what was stored', async () => {
    const before = await storedRows(shop.storeId);
    const bad = replaceProductAdMetrics(testApp.orm.em.fork(), shop.storeId, [
      { platform: 'googleads', accountId: US_CLIENT, from: DAY2, to: DAY1, rows: [{ ...{ productItemId: 'mug-1', day: addDays(today, -40), currency: 'USD', clicks: 1, impressions: 1, costMicros: '1', conversions: 0, conversionValue: 0 } }] },
    ]);
    await expect(bad).rejects.toThrow(/outside the slice/);
    expect(await storedRows(shop.storeId)).toEqual(before);
  });
});

describe('the optimizer product list: server-side paging, sorting and filtering', () => {
  let shop: Admin;
  beforeAll(async () => {
    shop = await adminWithStore('Paging shop');
    // 30 products: even ones have an image, odd ones miss it (missing_image).
    await addProducts(
      shop.storeId,
      Array.from({ length: 30 }, (_, index) => ({ externalId: `sku-${String(index).padStart(2, '0')}`, title: `Product ${String(index).padStart(2, '0')}`, imageUrl: index % 2 === 0 ? 'https://cdn.example/p.jpg' : undefined })),
    );
  });

  it('returns the requested page in the requested order, with totals over every product', async () => {
    const first = data(await trpcQuery(shop.client, 'shoppingOptimizer.audit', { sort: 'title', direction: 'asc', pageSize: 10 }));
    expect(first.products.map((product: any) => product.offerId)).toEqual(Array.from({ length: 10 }, (_, index) => `sku-${String(index).padStart(2, '0')}`));
    expect(first).toMatchObject({ matching: 30, productCount: 30, page: 1, pageSize: 10 });
    expect(first.totals.missing_image).toBe(15);
    const last = data(await trpcQuery(shop.client, 'shoppingOptimizer.audit', { sort: 'title', direction: 'desc', pageSize: 10, page: 3 }));
    expect(last.products.map((product: any) => product.offerId).at(-1)).toBe('sku-00');
    // A page past the end answers the last page.
    expect(data(await trpcQuery(shop.client, 'shoppingOptimizer.audit', { sort: 'title', pageSize: 10, page: 99 })).page).toBe(3);
  });

  it('filters by issue type and by search, totals unchanged', async () => {
    const missing = data(await trpcQuery(shop.client, 'shoppingOptimizer.audit', { issue: 'missing_image', pageSize: 100 }));
    expect(missing.matching).toBe(15);
    expect(missing.products.every((product: any) => product.issues.some((issue: any) => issue.type === 'missing_image'))).toBe(true);
    expect(missing.productCount).toBe(30);
    const search = data(await trpcQuery(shop.client, 'shoppingOptimizer.audit', { search: 'SKU-2', sort: 'title' }));
    expect(search.products.map((product: any) => product.offerId)).toEqual(Array.from({ length: 10 }, (_, index) => `sku-2${index}`));
    expect(search.totals.missing_image).toBe(15);
  });

  it('refuses bad paging input with a clear error', async () => {
    const answer = await trpcQuery(shop.client, 'shoppingOptimizer.audit', { pageSize: 5000 });
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toMatch(/pageSize/);
    expect((await trpcQuery(shop.client, 'shoppingOptimizer.audit', { sort: 'price' })).status).toBe(400);
  });

  it('accepts the suggestions of the filtered products only', async () => {
    const before = data(await trpcQuery(shop.client, 'shoppingOptimizer.audit', { search: 'sku-0', pageSize: 100 }));
    const accepted = data(await trpcMutation(shop.client, 'shoppingOptimizer.acceptSuggestions', { filter: { issue: null, search: 'sku-0' } }));
    expect(accepted.accepted).toBe(before.suggestionCount);
    const after = data(await trpcQuery(shop.client, 'shoppingOptimizer.audit', { pageSize: 100 }));
    const untouched = after.products.filter((product: any) => !product.offerId.startsWith('sku-0'));
    expect(untouched.every((product: any) => Object.keys(product.overrides).length === 0)).toBe(true);
  });
});
