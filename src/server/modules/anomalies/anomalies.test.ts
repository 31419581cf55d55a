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

/** 10 orders of £50 a day for 100 days, then 40 on SPIKE. */
async function ingestSpike(storeId: number): Promise<void> {
  const orders = [];
  for (let day = addDays(SPIKE, -100); day <= SPIKE; day = addDays(day, 1)) {
    const count = day === SPIKE ? 40 : 10;
    for (let index = 0; index < count; index += 1) {
      orders.push(testOrder({ externalId: `${day}-${index}`, placedAt: new Date(`${day}T${String(8 + (index % 12)).padStart(2, '0')}:00:00Z`), grossMinor: 5_000 }));
    }
  }
  await ingestOrders(testApp.orm.em.fork(), storeId, orders);
}

beforeAll(async () => {
  owner = await signedInStoreOwner(testApp, 'anomalies');
  stranger = await signedInStoreOwner(testApp, 'anomalies-stranger');
  await ingestSpike(owner.store.id);
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

  it('e-mails the new high-severity findings of a run once when the store\'s alerts are on, and nothing when they are off', async () => {
    const alerted = await signedInStoreOwner(testApp, 'anomalies-alerted');
    const quiet = await signedInStoreOwner(testApp, 'anomalies-quiet');
    await Promise.all([ingestSpike(alerted.store.id), ingestSpike(quiet.store.id)]);
    expect((await trpcMutation(alerted.client, 'anomalies.setAlertSettings', { emailAlerts: true, language: 'en' })).status).toBe(200);
    const outbox = async (storeOwner: StoreOwner) =>
      sqlRunner(testApp.orm.em.fork()).rows<{ text_body: string }>(
        `select e.text_body from outbound_emails e join users u on u.id = e.user_id where u.id = $1 and e.template = 'anomaly_alert'`,
        [storeOwner.user.id],
      );

    const first = await detectStore(testApp.orm.em.fork(), alerted.store.id, NOW);
    expect(first.alert).toMatchObject({ reason: 'sent' });
    const emails = await outbox(alerted);
    expect(emails).toHaveLength(1);
    // One e-mail listing every high-severity finding of the run (of the 4, the spike in the store's orders and net sales).
    expect(await rowsOf(alerted.store.id)).toHaveLength(4);
    const high = await sqlRunner(testApp.orm.em.fork()).rows<{ id: string }>(`select id::text as id from anomalies where store_id = $1 and severity = 'high' order by id`, [alerted.store.id]);
    expect(high.length).toBeGreaterThan(0);
    expect([...first.alert!.anomalyIds].sort()).toEqual(high.map((row) => row.id).sort());
    expect(emails[0]!.text_body).toContain(`Orders (Whole store, ${SPIKE}): 40 instead of about 10`);

    // The next hourly run finds the same anomalies: nothing new to send.
    const second = await detectStore(testApp.orm.em.fork(), alerted.store.id, new Date(NOW.getTime() + 3_600_000));
    expect(second.alert).toBeNull();
    // Resolved, then judged again: not sent again either.
    for (const row of await rowsOf(alerted.store.id)) await trpcMutation(alerted.client, 'anomalies.resolve', { id: row.id });
    await detectStore(testApp.orm.em.fork(), alerted.store.id, new Date(NOW.getTime() + 7_200_000));
    expect(await outbox(alerted)).toHaveLength(1);

    // Alerts off (the default): the same findings, no e-mail.
    const off = await detectStore(testApp.orm.em.fork(), quiet.store.id, NOW);
    expect(off.findings).toBe(4);
    expect(off.alert).toMatchObject({ reason: 'alerts_off' });
    expect(await outbox(quiet)).toHaveLength(0);
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
