import { describe, expect, it } from 'vitest';
import { setFxRates, signedInStoreOwner, testOrder, type StoreOwner } from '../../../../test/commerce-fixtures.ts';
import { ApiClient, signedInAdmin, trpcQuery, useTestApp, type Answer } from '../../../../test/harness.ts';
import { newGuestOf } from '../../../../test/guests.ts';
import { ingestAdMetrics, ingestOrders } from '../commerce/ingest.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { rebuildRollups } from '../commerce/rollups.ts';
import { requestRecompute } from '../attribution/credits.ts';
import { poolOf, versionsOnPool } from './answer-cache.ts';

const testApp = useTestApp();

const KPI_INPUT = { from: '2026-06-01', to: '2026-06-07', compare: 'previous_period' as const };
const kpisUrl = (input: object = KPI_INPUT) => `/trpc/commerce.kpis?input=${encodeURIComponent(JSON.stringify(input))}`;

async function order(storeId: number, day: string, grossMinor = 10_000) {
  await ingestOrders(testApp.orm.em.fork(), storeId, [testOrder({ placedAt: `${day}T10:00:00Z`, grossMinor })]);
}

async function versionOf(storeId: number, procedure = 'commerce.kpis') {
  return versionsOnPool(await poolOf(testApp.orm.em), storeId, procedure);
}

const ordersOf = (answer: Answer) => answer.body.result.data.kpis.orders.current as number;

async function ownerWithOrder(prefix: string): Promise<StoreOwner> {
  const owner = await signedInStoreOwner(testApp, prefix);
  await setFxRates(testApp.orm.em.fork(), [{ day: '2026-06-02', currency: 'GBP', rate: 0.85 }]);
  await order(owner.store.id, '2026-06-02');
  return owner;
}

describe('cached answers are never stale', () => {
  it('commerce.kpis: an ingested order is in the next answer, served from the cache while nothing changed', async () => {
    const { client, store } = await ownerWithOrder('kpicache');
    const first = await client.get(kpisUrl());
    expect(first.status).toBe(200);
    expect(ordersOf(first)).toBe(1);
    // The same request again: the fast path's body is byte for byte what tRPC sent.
    const again = await client.get(kpisUrl());
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.etag).toBe(first.headers.etag);

    await order(store.id, '2026-06-03');
    const after = await client.get(kpisUrl());
    expect(ordersOf(after)).toBe(2);
    expect(after.headers.etag).not.toBe(first.headers.etag);
    // And once more, now from the cache.
    expect(ordersOf(await client.get(kpisUrl()))).toBe(2);
  });

  it('commerce.dataStatus: an ingested order is in the next answer', async () => {
    const { client, store } = await ownerWithOrder('statuscache');
    expect((await trpcQuery(client, 'commerce.dataStatus', {})).body.result.data.orders).toBe(1);
    expect((await trpcQuery(client, 'commerce.dataStatus', {})).body.result.data.orders).toBe(1);
    await order(store.id, '2026-06-04');
    expect((await trpcQuery(client, 'commerce.dataStatus', {})).body.result.data.orders).toBe(2);
  });

  it('ETag: If-None-Match gives 304 while unchanged, and 200 with the new body after an ingest', async () => {
    const { client, store } = await ownerWithOrder('etag');
    const first = await client.get(kpisUrl());
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^".+"$/);
    const unchanged = await client.request('GET', kpisUrl(), undefined, { 'if-none-match': etag });
    expect(unchanged.status).toBe(304);
    expect(unchanged.body).toBe('');
    await order(store.id, '2026-06-05');
    const changed = await client.request('GET', kpisUrl(), undefined, { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(ordersOf(changed)).toBe(2);
    expect(changed.headers.etag).not.toBe(etag);
  });

  it('the data version moves with fx rates, rollup rebuilds, ad metrics, time zone, cost settings and expenses; not with another store', async () => {
    const { client, store } = await ownerWithOrder('versions');
    const other = await ownerWithOrder('otherstore');
    const em = testApp.orm.em.fork();
    const sql = sqlRunner(em);
    const steps: [string, () => Promise<unknown>][] = [
      ['fx rate', () => setFxRates(em, [{ day: '2026-06-03', currency: 'USD', rate: 1.2 }])],
      ['rollup rebuild', () => rebuildRollups(testApp.orm.em.fork(), store.id)],
      [
        'ad metrics',
        () =>
          ingestAdMetrics(testApp.orm.em.fork(), store.id, [
            { platform: 'googleads', accountId: 'g', campaignId: 'c', day: '2026-06-02', campaignName: 'C', currency: 'GBP', spendMinor: 100, impressions: 1, clicks: 1, conversions: 0, conversionValueMinor: 0 },
          ]),
      ],
      ['time zone', () => client.patch(`/api/stores/${store.id}`, { timezone: 'America/New_York' })],
      ['cost settings', () => sql.run(`insert into store_cost_settings (store_id, updated_at) values ($1, now()) on conflict (store_id) do update set shipping_cost_per_order_minor = 100`, [store.id])],
      [
        'expenses',
        () => sql.run(`insert into expenses (store_id, name, category, amount_minor, currency, recurrence, starts_on, created_at, updated_at) values ($1, 'Rent', 'rent', 1000, 'GBP', 'monthly', '2026-06-01', now(), now())`, [store.id]),
      ],
    ];
    for (const [what, step] of steps) {
      const before = await versionOf(store.id);
      const otherBefore = await versionOf(other.store.id);
      await step();
      expect((await versionOf(store.id)).data, what).not.toBe(before.data);
      if (what !== 'fx rate') expect((await versionOf(other.store.id)).data, `${what} of another store`).toBe(otherBefore.data);
    }
    // Another store's ingest leaves this store's version (and so its cached answers) alone.
    const before = await versionOf(store.id);
    await order(other.store.id, '2026-06-02');
    expect((await versionOf(store.id)).data).toBe(before.data);
  });

  it("attribution writes move the attribution answers' version only; the store's data moves both", async () => {
    const { store } = await ownerWithOrder('attrscope');
    const versions = async () => ({ kpis: (await versionOf(store.id, 'commerce.kpis')).data, report: (await versionOf(store.id, 'attribution.report')).data });
    // The attribution job's minute-by-minute writes (here: a recompute requested) leave the dashboard's cached answers alone.
    let before = await versions();
    await requestRecompute(sqlRunner(testApp.orm.em.fork()), store.id, 30);
    let after = await versions();
    expect(after.kpis).toBe(before.kpis);
    expect(after.report).not.toBe(before.report);
    // An order is in both.
    before = after;
    await order(store.id, '2026-06-03');
    after = await versions();
    expect(after.kpis).not.toBe(before.kpis);
    expect(after.report).not.toBe(before.report);
  });
});

describe('who may see a cached answer', () => {
  it("another user never gets a store's cached answer: their own store's, or the usual 404 for a store id they may not see", async () => {
    const owner = await ownerWithOrder('tenant-a');
    const stranger = await signedInStoreOwner(testApp, 'tenant-b');
    expect(ordersOf(await owner.client.get(kpisUrl()))).toBe(1);
    expect(ordersOf(await owner.client.get(kpisUrl({ ...KPI_INPUT, storeId: owner.store.id })))).toBe(1);
    // Both stores at the same data version: only the store in the key tells their answers apart.
    await sqlRunner(testApp.orm.em.fork()).run(`update cache_versions set version = 1000 where scope = any($1::text[])`, [[`store:${owner.store.id}`, `store:${stranger.store.id}`]]);
    expect(ordersOf(await owner.client.get(kpisUrl()))).toBe(1);

    expect(ordersOf(await stranger.client.get(kpisUrl()))).toBe(0);
    const foreign = await stranger.client.get(kpisUrl({ ...KPI_INPUT, storeId: owner.store.id }));
    expect(foreign.status).toBe(404);
    expect(JSON.stringify(foreign.body)).not.toContain('"orders"');
    // A forged cookie with the owner's URL is not the owner's session.
    const forged = new ApiClient(testApp.app);
    forged.sessionCookie = `${owner.client.sessionCookie}x`;
    expect((await forged.get(kpisUrl())).status).toBe(401);
  });

  it('after sign-out the old cookie is refused, even for an answer it was just given', async () => {
    const { client } = await ownerWithOrder('signout');
    expect((await client.get(kpisUrl())).status).toBe(200);
    expect((await client.get(kpisUrl())).status).toBe(200);
    const old = new ApiClient(testApp.app);
    old.sessionCookie = client.sessionCookie;
    await client.get('/api/logout');
    expect((await old.get(kpisUrl())).status).toBe(401);
  });

  it('a subscription that ended is refused at once', async () => {
    const { client, user } = await ownerWithOrder('ended');
    expect((await client.get(kpisUrl())).status).toBe(200);
    expect((await client.get(kpisUrl())).status).toBe(200);
    await sqlRunner(testApp.orm.em.fork()).run(`update subscriptions set status = 'canceled' where user_id = $1`, [user.id]);
    expect((await client.get(kpisUrl())).status).toBe(403);
  });

  it('a guest whose access is ended is refused; switching the active store answers for the new store', async () => {
    const owner = await ownerWithOrder('sharer');
    const guest = await newGuestOf(testApp.app, testApp.orm, owner, owner.store.id);
    const sharedUrl = kpisUrl({ ...KPI_INPUT, storeId: owner.store.id });
    expect(ordersOf(await guest.client.get(sharedUrl))).toBe(1);
    expect(ordersOf(await guest.client.get(sharedUrl))).toBe(1);
    const removed = await owner.client.delete(`/api/stores/${owner.store.id}/guests/${guest.user.id}`);
    expect(removed.status, JSON.stringify(removed.body)).toBeLessThan(300);
    expect((await guest.client.get(sharedUrl)).status).not.toBe(200);

    // The owner makes a second store and switches to it: the same URL now answers for that store.
    const second = await owner.client.post('/api/stores', { name: 'Second' });
    expect(second.status).toBe(201);
    expect(ordersOf(await owner.client.get(kpisUrl()))).toBe(1);
    expect((await owner.client.post('/api/stores/active', { storeId: second.body.id })).status).toBe(200);
    expect(ordersOf(await owner.client.get(kpisUrl()))).toBe(0);
  });

  it("guest mode: an admin sees the viewed user's store, and their own again after leaving it", async () => {
    const owner = await ownerWithOrder('viewed');
    const admin = await signedInAdmin(testApp.app, testApp.orm);
    const own = await admin.client.post('/api/stores', { name: 'Admin store' });
    expect(own.status).toBe(201);
    expect(ordersOf(await admin.client.get(kpisUrl()))).toBe(0);
    expect(ordersOf(await admin.client.get(kpisUrl()))).toBe(0);
    expect((await admin.client.post('/api/admin/enter-guest-mode', { userId: owner.user.id })).status).toBe(200);
    expect(ordersOf(await admin.client.get(kpisUrl()))).toBe(1);
    expect((await admin.client.post('/api/admin/exit-guest-mode')).status).toBe(200);
    expect(ordersOf(await admin.client.get(kpisUrl()))).toBe(0);
  });
});
