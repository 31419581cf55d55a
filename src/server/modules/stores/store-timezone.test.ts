import type { EntityManager } from '@mikro-orm/postgresql';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommerceStore, dailyRollup, readRollups, setFxRates, signedInStoreOwner, testOrder } from '../../../../test/commerce-fixtures.ts';
import { newGuestOf } from '../../../../test/guests.ts';
import { signedInAdmin, trpcQuery, useTestApp } from '../../../../test/harness.ts';
import { startJobs, type JobRunner } from '../../jobs/boss.ts';
import { ingestAdMetrics, ingestOrders, ingestRefunds } from '../commerce/ingest.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { rebuildRollups } from '../commerce/rollups.ts';
import { setIntegrationJobSender } from '../integrations/integrations-runtime.ts';
import {
  changeStoreTimezone,
  latestTimezoneChange,
  runTimezoneChange,
  STORE_TIMEZONE_JOB,
  type TimezoneChangeStep,
} from './store-timezone.service.ts';

// Changing a store's time zone on real PostgreSQL: the days of orders and refunds move, the rollups
// follow and equal a rebuild, ad rows keep their platform day, progress is visible from outside the
// job's transaction while readers still see the old figures, and only the owner may ask.

const testApp = useTestApp();
const em = (): EntityManager => testApp.orm.em.fork();

/** A promise with its resolve outside. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/** A connection of its own: not the pool's, never the job's transaction. */
async function otherConnection(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: testApp.databaseUrl });
  await client.connect();
  return client;
}

async function storeZone(storeId: number): Promise<string> {
  const [row] = await sqlRunner(em()).rows<{ timezone: string }>(`select timezone from stores where id = $1`, [storeId]);
  return row!.timezone;
}

async function days(storeId: number) {
  const q = sqlRunner(em());
  const orders = await q.rows<{ external_id: string; day: string }>(
    `select external_id, to_char(placed_day, 'YYYY-MM-DD') as day from orders where store_id = $1 order by external_id`,
    [storeId],
  );
  const refunds = await q.rows<{ external_id: string; day: string }>(
    `select external_id, to_char(refunded_day, 'YYYY-MM-DD') as day from refunds where store_id = $1 order by external_id`,
    [storeId],
  );
  return Object.fromEntries([...orders, ...refunds].map((row) => [row.external_id, row.day]));
}

/** The figures of a day that this file's fixtures move (GBP rows; 0 when the day has no row). */
async function figures(storeId: number, day: string) {
  const row = await dailyRollup(em(), storeId, day);
  return {
    orders: row?.orders_count ?? 0,
    gross: row?.gross_minor ?? 0,
    refunds: row?.refunds_minor ?? 0,
    net: row?.net_sales_minor ?? 0,
    newCustomers: row?.new_customers ?? 0,
    ltv30: row?.ltv_net_30_minor ?? 0,
    shipping: row?.shipping_minor ?? 0,
    spend: row?.spend_minor ?? 0,
  };
}

/**
 * A London store (GBP) with, in UTC:
 *   A 2026-03-01T03:30Z £100.00, customer "ann"  -> London 1 March (GMT, +0)   New York 28 Feb 22:30 (EST, -5)
 *   B 2026-02-28T12:00Z  £50.00, guest           -> London 28 Feb              New York 28 Feb 07:00
 *   F 2026-03-03T02:00Z  $100.00, customer "bob" -> London 3 March             New York 2 March 21:00
 *   R refund of A, 2026-03-02T02:00Z, £25.00 and £5.00 of shipping -> London 2 March, New York 1 March 21:00
 *   a Meta Ads row of £30.00 on the platform's day 1 March (it stays there).
 */
async function londonStoreWithOrders() {
  const store = await createCommerceStore(testApp.orm, { timezone: 'Europe/London', currency: 'GBP' });
  // Units of the currency per EUR: on 2 March $1 = £0.85/1.25 = £0.68, on 3 March $1 = £0.85/1.10.
  await setFxRates(em(), [
    { day: '2026-03-02', currency: 'GBP', rate: 0.85 },
    { day: '2026-03-02', currency: 'USD', rate: 1.25 },
    { day: '2026-03-03', currency: 'GBP', rate: 0.85 },
    { day: '2026-03-03', currency: 'USD', rate: 1.1 },
  ]);
  await ingestOrders(em(), store.id, [
    testOrder({ externalId: 'A', placedAt: '2026-03-01T03:30:00Z', grossMinor: 10_000, customer: { externalId: 'ann' } }),
    testOrder({ externalId: 'B', placedAt: '2026-02-28T12:00:00Z', grossMinor: 5_000 }),
    testOrder({ externalId: 'F', placedAt: '2026-03-03T02:00:00Z', grossMinor: 10_000, currency: 'USD', customer: { externalId: 'bob' } }),
  ]);
  await ingestRefunds(em(), store.id, [
    { platform: 'shopify', externalId: 'R', orderExternalId: 'A', refundedAt: '2026-03-02T02:00:00Z', amountMinor: 2_500, shippingMinor: 500, currency: 'GBP' },
  ]);
  await ingestAdMetrics(em(), store.id, [
    { platform: 'metaads', accountId: 'act_1', campaignId: 'c1', campaignName: 'Spring', day: '2026-03-01', currency: 'GBP', spendMinor: 3_000, clicks: 40 },
  ]);
  return store;
}

async function customerTotals(storeId: number) {
  const rows = await sqlRunner(em()).rows<{ external_id: string; total: string }>(
    `select external_id, total_spent_minor::text as total from customers where store_id = $1 order by external_id`,
    [storeId],
  );
  return Object.fromEntries(rows.map((row) => [row.external_id, Number(row.total)]));
}

describe('changing a store with data to America/New_York', () => {
  it('moves orders, refunds, cohorts and customer totals to New York days; the ad row keeps its day; the rollups equal a rebuild', async () => {
    const store = await londonStoreWithOrders();
    expect(await days(store.id)).toEqual({ A: '2026-03-01', B: '2026-02-28', F: '2026-03-03', R: '2026-03-02' });
    // London: 28 Feb holds B; 1 March A (ann's first order: a new customer, LTV 100.00 - 25.00 refunded
    // = 75.00 on her cohort day) and the £30 of ads; 2 March the refund (net -25.00, shipping -5.00).
    expect(await figures(store.id, '2026-02-28')).toEqual({ orders: 1, gross: 5_000, refunds: 0, net: 5_000, newCustomers: 0, ltv30: 0, shipping: 0, spend: 0 });
    expect(await figures(store.id, '2026-03-01')).toEqual({ orders: 1, gross: 10_000, refunds: 0, net: 10_000, newCustomers: 1, ltv30: 7_500, shipping: 0, spend: 3_000 });
    expect(await figures(store.id, '2026-03-02')).toEqual({ orders: 0, gross: 0, refunds: 2_500, net: -2_500, newCustomers: 0, ltv30: 0, shipping: -500, spend: 0 });
    // Bob's $100.00 at 3 March's rate: 10,000 x 0.85 / 1.10 = 7,727.27 -> 7,727 pence.
    expect(await customerTotals(store.id)).toEqual({ ann: 7_500, bob: 7_727 });

    const change = await changeStoreTimezone(em(), store, 'America/New_York', { runNow: true });

    // 3 orders + 1 refund recomputed.
    expect(change).toMatchObject({ status: 'succeeded', fromTimezone: 'Europe/London', toTimezone: 'America/New_York', rowsDone: 4, rowsTotal: 4, error: null });
    expect(await storeZone(store.id)).toBe('America/New_York');
    expect(await days(store.id)).toEqual({ A: '2026-02-28', B: '2026-02-28', F: '2026-03-02', R: '2026-03-01' });
    // New York: 28 Feb holds A and B (150.00, ann new, her LTV with it); 1 March the refund and the
    // ad row (the platform's day, not ours); 2 March nothing in GBP any more.
    expect(await figures(store.id, '2026-02-28')).toEqual({ orders: 2, gross: 15_000, refunds: 0, net: 15_000, newCustomers: 1, ltv30: 7_500, shipping: 0, spend: 0 });
    expect(await figures(store.id, '2026-03-01')).toEqual({ orders: 0, gross: 0, refunds: 2_500, net: -2_500, newCustomers: 0, ltv30: 0, shipping: -500, spend: 3_000 });
    expect(await dailyRollup(em(), store.id, '2026-03-02')).toBeNull();
    // Bob's order is now on 2 March: 10,000 x 0.85 / 1.25 = 6,800 pence; its USD row moved with it.
    expect(await customerTotals(store.id)).toEqual({ ann: 7_500, bob: 6_800 });
    expect((await dailyRollup(em(), store.id, '2026-03-02', 'USD'))?.gross_minor).toBe(10_000);
    expect(await dailyRollup(em(), store.id, '2026-03-03', 'USD')).toBeNull();

    const afterChange = await readRollups(em(), store.id);
    await rebuildRollups(em(), store.id);
    expect(afterChange).toEqual(await readRollups(em(), store.id));
  });

  it('follows New York across the start of daylight saving time (2026-03-08, 02:00 EST -> 03:00 EDT, i.e. 07:00 UTC)', async () => {
    const store = await createCommerceStore(testApp.orm, { timezone: 'Europe/London', currency: 'GBP' });
    await ingestOrders(em(), store.id, [
      // 04:30Z is before the switch: 23:30 EST (-5) on 7 March. A fixed -4 would say 00:30 on the 8th.
      testOrder({ externalId: 'E', placedAt: '2026-03-08T04:30:00Z', grossMinor: 7_000 }),
      // 06:59Z is 01:59 EST, the last minute of standard time: 8 March.
      testOrder({ externalId: 'G', placedAt: '2026-03-08T06:59:00Z', grossMinor: 1_000 }),
      // 04:30Z the next day is after the switch: 00:30 EDT (-4) on 9 March. A fixed -5 would say 23:30 on the 8th.
      testOrder({ externalId: 'D', placedAt: '2026-03-09T04:30:00Z', grossMinor: 4_000 }),
    ]);
    expect(await days(store.id)).toEqual({ D: '2026-03-09', E: '2026-03-08', G: '2026-03-08' });

    await changeStoreTimezone(em(), store, 'America/New_York', { runNow: true });

    expect(await days(store.id)).toEqual({ D: '2026-03-09', E: '2026-03-07', G: '2026-03-08' });
    expect((await figures(store.id, '2026-03-07')).gross).toBe(7_000);
    expect((await figures(store.id, '2026-03-08')).gross).toBe(1_000);
    expect((await figures(store.id, '2026-03-09')).gross).toBe(4_000);
  });

  it('writes its progress chunk by chunk where another connection sees it, up to the total, while readers keep the old zone and figures until the commit', async () => {
    const store = await londonStoreWithOrders();
    const oldFigures = await readRollups(em(), store.id);
    const queued = await changeStoreTimezone(em(), store, 'America/New_York');
    // No queue runs in this test process: the change waits.
    expect(queued).toMatchObject({ status: 'queued', rowsDone: 0, rowsTotal: null, startedAt: null });

    const reader = await otherConnection();
    const seen: { phase: string; status: string; rowsDone: number; rowsTotal: number | null; zone: string; londonMarch1Orders: number }[] = [];
    const atCommit = deferred();
    const release = deferred();
    const afterStep = async (step: TimezoneChangeStep) => {
      if (step.phase === 'committing') {
        atCommit.resolve();
        await release.promise;
        return;
      }
      const [change] = (await reader.query(`select status, rows_done, rows_total from store_timezone_changes where store_id = $1`, [store.id])).rows;
      const [zone] = (await reader.query(`select timezone from stores where id = $1`, [store.id])).rows;
      const [march1] = (await reader.query(`select orders_count from daily_rollups where store_id = $1 and day = '2026-03-01' and currency = 'GBP'`, [store.id])).rows;
      seen.push({ phase: step.phase, status: change.status, rowsDone: change.rows_done, rowsTotal: change.rows_total, zone: zone.timezone, londonMarch1Orders: march1.orders_count });
    };
    try {
      const job = runTimezoneChange(em(), { storeId: store.id, changeId: queued!.id }, { chunkRows: 2, afterStep });
      await atCommit.promise;

      // Everything is written inside the transaction; outside it the store is still London's.
      const progress = (await reader.query(`select status, rows_done, rows_total from store_timezone_changes where store_id = $1`, [store.id])).rows[0];
      expect(progress).toEqual({ status: 'running', rows_done: 4, rows_total: 4 });
      expect((await reader.query(`select timezone from stores where id = $1`, [store.id])).rows[0].timezone).toBe('Europe/London');
      expect((await reader.query(`select to_char(placed_day, 'YYYY-MM-DD') as day from orders where store_id = $1 and external_id = 'A'`, [store.id])).rows[0].day).toBe('2026-03-01');
      const march1 = (await reader.query(`select orders_count, net_sales_minor::int as net from daily_rollups where store_id = $1 and day = '2026-03-01' and currency = 'GBP'`, [store.id])).rows[0];
      expect(march1).toEqual({ orders_count: 1, net: 10_000 });
      // The store's screens read through the pool: the same old figures.
      expect(await readRollups(em(), store.id)).toEqual(oldFigures);
      expect((await latestTimezoneChange(em(), store.id))?.status).toBe('running');

      release.resolve();
      const finished = await job;
      expect(finished).toMatchObject({ status: 'succeeded', rowsDone: 4, rowsTotal: 4 });
    } finally {
      release.resolve();
      await reader.end();
    }

    // Orders in chunks of 2 (2, then 3 of 4), then the refund (4 of 4), each seen from outside while
    // the old zone and figures still held.
    expect(seen).toEqual([
      { phase: 'days', status: 'running', rowsDone: 2, rowsTotal: 4, zone: 'Europe/London', londonMarch1Orders: 1 },
      { phase: 'days', status: 'running', rowsDone: 3, rowsTotal: 4, zone: 'Europe/London', londonMarch1Orders: 1 },
      { phase: 'days', status: 'running', rowsDone: 4, rowsTotal: 4, zone: 'Europe/London', londonMarch1Orders: 1 },
    ]);
    expect(await storeZone(store.id)).toBe('America/New_York');
    expect((await figures(store.id, '2026-02-28')).orders).toBe(2);
  });

  it('a failure rolls everything back and records the error', async () => {
    const store = await londonStoreWithOrders();
    const before = await readRollups(em(), store.id);
    const queued = await changeStoreTimezone(em(), store, 'Asia/Tokyo');
    const failed = await runTimezoneChange(
      em(),
      { storeId: store.id, changeId: queued!.id },
      {
        afterStep: (step) => {
          if (step.phase === 'committing') throw new Error('disk full');
        },
      },
    );
    expect(failed).toMatchObject({ status: 'failed', error: 'disk full', toTimezone: 'Asia/Tokyo' });
    expect(await storeZone(store.id)).toBe('Europe/London');
    expect(await days(store.id)).toEqual({ A: '2026-03-01', B: '2026-02-28', F: '2026-03-03', R: '2026-03-02' });
    expect(await readRollups(em(), store.id)).toEqual(before);
    // The same job again (a pg-boss retry) finds nothing queued and changes nothing.
    expect(await runTimezoneChange(em(), { storeId: store.id, changeId: queued!.id })).toBeNull();
  });
});

describe('what a change request does', () => {
  it('refuses an unknown zone, or a known one in the wrong case, with "Unknown time zone: X"; takes an IANA link such as Asia/Kolkata', async () => {
    const store = await londonStoreWithOrders();
    for (const zone of ['Mars/Olympus_Mons', 'america/new_york', 'EST+5', '', 'Etc/GMT+13']) {
      await expect(changeStoreTimezone(em(), store, zone)).rejects.toThrow(`Unknown time zone: ${zone}`);
    }
    expect(await latestTimezoneChange(em(), store.id)).toBeNull();
    // ICU lists India as Asia/Calcutta; the IANA name Asia/Kolkata (a store platform may send it) is the same zone.
    const kolkata = await changeStoreTimezone(em(), store, 'Asia/Kolkata', { runNow: true });
    expect(kolkata).toMatchObject({ status: 'succeeded', toTimezone: 'Asia/Kolkata' });
    // A: 03:30Z + 5:30 = 09:00 on 1 March.
    expect((await days(store.id)).A).toBe('2026-03-01');
    // A fixed offset (a WooCommerce site set to "UTC-5"): Etc/GMT+5 is five hours behind UTC, so A is 22:30 on 28 February.
    expect(await changeStoreTimezone(em(), store, 'Etc/GMT+5', { runNow: true })).toMatchObject({ status: 'succeeded', toTimezone: 'Etc/GMT+5' });
    expect((await days(store.id)).A).toBe('2026-02-28');
  });

  it('does nothing for the zone the store already has, and sets the zone of a store without data at once', async () => {
    const store = await londonStoreWithOrders();
    expect(await changeStoreTimezone(em(), store, 'Europe/London')).toBeNull();
    expect(await latestTimezoneChange(em(), store.id)).toBeNull();

    const empty = await createCommerceStore(testApp.orm);
    expect(await changeStoreTimezone(em(), empty, 'UTC')).toBeNull();
    expect(await storeZone(empty.id)).toBe('UTC');
    expect(await latestTimezoneChange(em(), empty.id)).toBeNull();
  });

  it('a second request while one is queued takes its place; while one runs it is refused with a clear message', async () => {
    const store = await londonStoreWithOrders();
    const first = await changeStoreTimezone(em(), store, 'Asia/Tokyo');
    const second = await changeStoreTimezone(em(), store, 'America/New_York');
    expect(second).toMatchObject({ id: first!.id, status: 'queued', toTimezone: 'America/New_York' });

    const running = deferred();
    const release = deferred();
    const job = runTimezoneChange(em(), { storeId: store.id, changeId: first!.id }, {
      afterStep: async (step) => {
        if (step.phase !== 'committing') return;
        running.resolve();
        await release.promise;
      },
    });
    try {
      await running.promise;
      await expect(changeStoreTimezone(em(), store, 'Europe/Paris')).rejects.toThrow(
        "This store's figures are being recomputed in America/New_York. Change the time zone again once that has finished.",
      );
      // Asking for the running change's own target is no new request.
      expect(await changeStoreTimezone(em(), store, 'America/New_York')).toMatchObject({ id: first!.id, status: 'running' });
    } finally {
      release.resolve();
    }
    expect(await job).toMatchObject({ status: 'succeeded', toTimezone: 'America/New_York' });
    expect(await storeZone(store.id)).toBe('America/New_York');
  });
});

describe('PATCH /api/stores/{storeId} with a time zone', () => {
  let jobs: JobRunner;
  beforeAll(async () => {
    jobs = await startJobs({
      databaseUrl: testApp.databaseUrl,
      orm: testApp.orm,
      baseUrl: 'http://localhost',
      logger: { info: () => {}, error: () => {} },
      jobs: [STORE_TIMEZONE_JOB],
      schedule: false,
    });
    setIntegrationJobSender((queue, data, options) => jobs.boss.send(queue, data, options));
  });
  afterAll(async () => {
    setIntegrationJobSender(null);
    await jobs?.stop();
  });

  it("queues the rebuild on pg-boss; the store's JSON carries the zone once it has run; stores.timezoneChange shows its progress", async () => {
    const owner = await signedInStoreOwner(testApp, 'tzowner');
    expect(owner.store.timezone).toBe('Europe/London');
    await ingestOrders(em(), owner.store.id, [testOrder({ externalId: 'A', placedAt: '2026-03-01T03:30:00Z', grossMinor: 10_000 })]);

    const patched = await owner.client.patch(`/api/stores/${owner.store.id}`, { timezone: 'America/New_York' });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({ id: owner.store.id, timezone: expect.any(String) });

    await expect
      .poll(async () => (await owner.client.get(`/api/stores/timezone-change?storeId=${owner.store.id}`)).body.change?.status)
      .toBe('succeeded');
    const progress = await owner.client.get('/api/stores/timezone-change');
    expect(progress.body.change).toMatchObject({ storeId: owner.store.id, fromTimezone: 'Europe/London', toTimezone: 'America/New_York', rowsDone: 1, rowsTotal: 1, error: null });
    expect((await owner.client.get('/api/stores/active')).body.store.timezone).toBe('America/New_York');
    expect(await days(owner.store.id)).toEqual({ A: '2026-02-28' });
    const viaTrpc = await trpcQuery(owner.client, 'stores.timezoneChange', { storeId: owner.store.id });
    expect(viaTrpc.body.result.data.change.status).toBe('succeeded');
  });

  it('refuses a bad zone with 400 and changes nothing else of the request', async () => {
    const owner = await signedInStoreOwner(testApp, 'tzbad');
    const refused = await owner.client.patch(`/api/stores/${owner.store.id}`, { name: 'Renamed', timezone: 'Atlantis/Lost_City' });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ message: 'Unknown time zone: Atlantis/Lost_City', errors: [{ field: 'timezone', message: 'Unknown time zone: Atlantis/Lost_City' }] });
    expect((await owner.client.get('/api/stores/active')).body.store).toMatchObject({ name: 'tzbad store', timezone: 'Europe/London' });
  });

  it('an empty store takes its new zone in the answer itself', async () => {
    const owner = await signedInStoreOwner(testApp, 'tzempty');
    const patched = await owner.client.patch(`/api/stores/${owner.store.id}`, { timezone: 'Australia/Sydney' });
    expect(patched.status).toBe(200);
    expect(patched.body.timezone).toBe('Australia/Sydney');
    expect((await owner.client.get('/api/stores/timezone-change')).body).toEqual({ change: null });
  });

  it('guests (an admin in guest mode, a view-only member) cannot change it', async () => {
    const owner = await signedInStoreOwner(testApp, 'tzguarded');
    await ingestOrders(em(), owner.store.id, [testOrder({ externalId: 'A', placedAt: '2026-03-01T03:30:00Z' })]);

    const admin = await signedInAdmin(testApp.app, testApp.orm);
    expect((await admin.client.post('/api/admin/enter-guest-mode', { userId: owner.user.id })).status).toBe(200);
    const asGuest = await admin.client.patch(`/api/stores/${owner.store.id}`, { timezone: 'America/New_York' });
    expect(asGuest.status).toBe(403);
    expect(asGuest.body).toEqual({ message: 'Guest mode is read-only' });
    // Looking is allowed: the admin sees the (absent) progress of the viewed user's store.
    expect((await admin.client.get('/api/stores/timezone-change')).body).toEqual({ change: null });

    const member = await newGuestOf(testApp.app, testApp.orm, owner, owner.store.id);
    const asMember = await member.client.patch(`/api/stores/${owner.store.id}`, { timezone: 'America/New_York' });
    expect(asMember.status).toBe(404);
    expect(asMember.body).toEqual({ message: 'Store not found' });

    expect(await storeZone(owner.store.id)).toBe('Europe/London');
    expect(await latestTimezoneChange(em(), owner.store.id)).toBeNull();
  });
});
