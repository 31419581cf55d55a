import { beforeAll, describe, expect, it } from 'vitest';
import { signedInStoreOwner, testOrder, type StoreOwner } from '../../../../test/commerce-fixtures.ts';
import { newGuestOf } from '../../../../test/guests.ts';
import { trpcMutation, trpcQuery, useTestApp } from '../../../../test/harness.ts';
import { addDays } from '../../../shared/date-ranges.ts';
import { ingestOrders } from '../commerce/ingest.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { detectStore, newestSettledDay } from './anomalies.service.ts';
import { eventOffset } from './engine.ts';

// Detection on a real PostgreSQL from the rollups, the states (resolved stays resolved when detection
// runs again), the tenant scoping of tRPC and REST, and the refusal of view-only members.
// The owner's store: 10 orders of £50 every day for 100 days, then 40 the day before yesterday (the
// spike); detection runs as of the spike's next day at 12:00 UTC (the list shows the last 30 days).

const testApp = useTestApp();
let owner: StoreOwner;
let stranger: StoreOwner;
/** The day before yesterday, or the last day before the Black Friday days if it is one of them (judged by last year's shape, which the store lacks). */
const SPIKE = (() => {
  let day = addDays(new Date().toISOString().slice(0, 10), -2);
  while (eventOffset(day) !== null) day = addDays(day, -1);
  return day;
})();
const NOW = new Date(`${addDays(SPIKE, 1)}T12:00:00Z`);

beforeAll(async () => {
  owner = await signedInStoreOwner(testApp, 'anomalies');
  stranger = await signedInStoreOwner(testApp, 'anomalies-stranger');
  const orders = [];
  for (let day = addDays(SPIKE, -100); day <= SPIKE; day = addDays(day, 1)) {
    const count = day === SPIKE ? 40 : 10;
    for (let index = 0; index < count; index += 1) {
      orders.push(testOrder({ externalId: `${day}-${index}`, placedAt: new Date(`${day}T${String(8 + (index % 12)).padStart(2, '0')}:00:00Z`), grossMinor: 5_000 }));
    }
  }
  await ingestOrders(testApp.orm.em.fork(), owner.store.id, orders);
});

const rowsOf = async (storeId: number) =>
  sqlRunner(testApp.orm.em.fork()).rows<{ id: string; metric: string; scope_key: string; state: string; day: string; intraday: boolean }>(
    `select id::text as id, metric, scope_key, state, to_char(day, 'YYYY-MM-DD') as day, intraday from anomalies where store_id = $1 order by id`,
    [storeId],
  );

describe('anomaly detection of a store', () => {
  it('judges the settled days from the rollups and finds the spike in orders and net sales', async () => {
    const result = await detectStore(testApp.orm.em.fork(), owner.store.id, NOW);
    expect(result.days).toEqual([addDays(SPIKE, -2), addDays(SPIKE, -1), SPIKE]);
    const rows = await rowsOf(owner.store.id);
    // The store's, and its one channel's (every test order is 'direct').
    expect(rows.map((row) => `${row.metric} ${row.scope_key} ${row.day} ${row.intraday}`).sort()).toEqual([
      `net_sales channel:direct ${SPIKE} false`, `net_sales store ${SPIKE} false`, `orders channel:direct ${SPIKE} false`, `orders store ${SPIKE} false`,
    ]);

    const list = (await trpcQuery(owner.client, 'anomalies.list')).body.result.data;
    expect(list.status).toBe('detected');
    expect(list.checkedAt).toBe(NOW.toISOString());
    type Item = { metric: string; scope: { level: string } };
    const orders = list.items.find((item: Item) => item.metric === 'orders' && item.scope.level === 'store');
    expect(orders).toMatchObject({
      day: SPIKE, intraday: false, detectedValue: 40, expectedValue: 10, percentChange: 300, severity: 'high', state: 'new',
      scope: { level: 'store', channel: null, campaignId: null, label: 'anomalies store' },
      recommendation: { code: 'find_growth_source', params: { scope: 'anomalies store', change: '300' } },
    });
    expect(orders.evidence).toHaveLength(28);
    const netSales = list.items.find((item: Item) => item.metric === 'net_sales' && item.scope.level === 'store');
    expect(netSales).toMatchObject({ detectedValue: 2000, expectedValue: 500 });
  });

  it('answers GET /api/anomalies in the documented shape, the recommendation in the language asked for', async () => {
    const english = await owner.client.get('/api/anomalies');
    expect(english.status).toBe(200);
    expect(english.body.status).toBe('detected');
    type Item = { metric: string; scope: { level: string }; recommendation: string };
    const storeOrders = (candidate: Item) => candidate.metric === 'orders' && candidate.scope.level === 'store';
    const item = english.body.items.find(storeOrders);
    expect(Object.keys(item).sort()).toEqual(['detectedAt', 'detectedValue', 'expectedValue', 'id', 'metric', 'percentChange', 'recommendation', 'scope', 'severity', 'state']);
    expect(item.recommendation).toBe('anomalies store rose by 300%: find the source (campaign, product, mention) and make the most of it.');
    const spanish = await owner.client.get('/api/anomalies?lang=es-ES');
    expect(spanish.body.items.find(storeOrders).recommendation).toBe(
      'anomalies store subió un 300 %: busca el origen (campaña, producto, mención) y aprovéchalo.',
    );
    const spec = (await owner.client.get('/api/openapi.json')).body;
    expect(Object.keys(spec.paths)).toEqual(expect.arrayContaining(['/anomalies', '/anomalies/{id}/acknowledge', '/anomalies/{id}/resolve']));
  });

  it('keeps a resolved anomaly resolved when detection runs again, with who resolved it and when', async () => {
    const [orders] = (await rowsOf(owner.store.id)).filter((row) => row.metric === 'orders' && row.scope_key === 'store');
    const resolved = (await trpcMutation(owner.client, 'anomalies.resolve', { id: orders!.id })).body.result.data;
    expect(resolved).toMatchObject({ id: orders!.id, state: 'resolved', stateChangedBy: String(owner.user.id) });
    expect(Date.parse(resolved.stateChangedAt)).toBeGreaterThan(Date.now() - 60_000);

    await detectStore(testApp.orm.em.fork(), owner.store.id, NOW);
    await detectStore(testApp.orm.em.fork(), owner.store.id, new Date(NOW.getTime() + 3_600_000));
    const rows = await rowsOf(owner.store.id);
    expect(rows).toHaveLength(4);
    expect(rows.find((row) => row.id === orders!.id)!.state).toBe('resolved');
    // Acknowledging a resolved anomaly does not bring it back.
    expect((await owner.client.post(`/api/anomalies/${orders!.id}/acknowledge`)).body).toMatchObject({ id: orders!.id, state: 'resolved' });
  });

  it('acknowledges through POST /api/anomalies/{id}/acknowledge and resolves through .../resolve', async () => {
    const [netSales] = (await rowsOf(owner.store.id)).filter((row) => row.metric === 'net_sales' && row.scope_key === 'store');
    const acknowledged = await owner.client.post(`/api/anomalies/${netSales!.id}/acknowledge`);
    expect(acknowledged.status).toBe(200);
    expect(acknowledged.body).toMatchObject({ id: netSales!.id, state: 'acknowledged' });
    const resolved = await owner.client.post(`/api/anomalies/${netSales!.id}/resolve`);
    expect(resolved.body).toMatchObject({ id: netSales!.id, state: 'resolved' });
    expect((await owner.client.get('/api/anomalies')).body.status).toBe('detected');
    for (const row of (await rowsOf(owner.store.id)).filter((candidate) => candidate.scope_key !== 'store')) {
      expect((await trpcMutation(owner.client, 'anomalies.resolve', { id: row.id })).status).toBe(200);
    }
    // Every item resolved: the store is back to normal, the items still listed with their state.
    const list = (await owner.client.get('/api/anomalies')).body;
    expect(list.status).toBe('normal');
    expect(list.items.map((item: { state: string }) => item.state)).toEqual(['resolved', 'resolved', 'resolved', 'resolved']);
  });

  it('scopes every read and change to the caller\'s store: another store\'s anomaly is not found', async () => {
    const [orders] = await rowsOf(owner.store.id);
    const trpcAnswer = await trpcMutation(stranger.client, 'anomalies.acknowledge', { id: orders!.id });
    expect(trpcAnswer.status).toBe(404);
    const restAnswer = await stranger.client.post(`/api/anomalies/${orders!.id}/resolve`);
    expect(restAnswer.status).toBe(404);
    expect(restAnswer.body).toEqual({ message: 'Anomaly not found' });
    expect((await stranger.client.post('/api/anomalies/not-a-number/resolve')).status).toBe(404);
    expect((await stranger.client.get('/api/anomalies')).body).toEqual({ status: 'normal', items: [] });
    const mine = (await trpcQuery(stranger.client, 'anomalies.list')).body.result.data;
    expect(mine).toEqual({ status: 'normal', items: [], explainAvailable: false, checkedAt: null });
    expect((await rowsOf(owner.store.id)).find((row) => row.id === orders!.id)!.state).toBe('resolved');
  });

  it('refuses a view-only member of the store the app\'s usual way, and lets them read', async () => {
    const member = await newGuestOf(testApp.app, testApp.orm, owner, owner.store.id);
    const [orders] = await rowsOf(owner.store.id);
    const refused = await member.client.post(`/api/anomalies/${orders!.id}/acknowledge`);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('You have view-only access to this store');
    expect((await member.client.get('/api/anomalies')).body.items).toHaveLength(4);
  });

  it('treats no day as settled while a sync of the store is queued or running', async () => {
    const store = { id: owner.store.id, name: 'x', currency: 'GBP', timezone: 'Europe/London' };
    expect(await newestSettledDay(testApp.orm.em.fork(), store, NOW)).toBe(SPIKE);
    // The day before is the newest settled one until 06:00 (SETTLE_HOURS) of the next day.
    expect(await newestSettledDay(testApp.orm.em.fork(), store, new Date(`${addDays(SPIKE, 1)}T04:00:00Z`))).toBe(addDays(SPIKE, -1));
    const q = sqlRunner(testApp.orm.em.fork());
    const [connection] = await q.rows<{ id: number }>(`insert into platform_connections (store_id, platform, created_at) values ($1, 'shopify', now()) returning id`, [owner.store.id]);
    await q.run(
      `insert into sync_runs (store_id, connection_id, kind, status, window_since, window_until, created_at) values ($1, $2, 'incremental', 'running', now(), now(), now())`,
      [owner.store.id, connection!.id],
    );
    expect(await newestSettledDay(testApp.orm.em.fork(), store, NOW)).toBeNull();
    await q.run(`delete from sync_runs where store_id = $1`, [owner.store.id]);
  });
});
