import { beforeAll, describe, expect, it } from 'vitest';
import { createCommerceStore, setFlatFxRates, setFxRates, signedInStoreOwner, testOrder } from '../../../../test/commerce-fixtures.ts';
import { newGuestOf } from '../../../../test/guests.ts';
import { grantTestPlan, signedInClient, trpcQuery, useTestApp } from '../../../../test/harness.ts';
import { ingestAdMetrics, ingestOrders, ingestRefunds } from '../commerce/ingest.ts';
import { dayKpis, todayVsYesterday } from './dashboard.service.ts';

const testApp = useTestApp();

beforeAll(async () => {
  // Units per EUR. 3 June: USD->GBP = 0.88 / 1.10 = 0.8; 8-10 June: 0.85 / 1.25 = 0.68.
  await setFxRates(testApp.orm.em.fork(), [
    { day: '2026-06-03', currency: 'GBP', rate: 0.88 },
    { day: '2026-06-03', currency: 'USD', rate: 1.1 },
  ]);
  await setFlatFxRates(testApp.orm.em.fork(), '2026-06-08', '2026-06-10');
});

describe("today's sales so far against yesterday up to the same local time", () => {
  it('counts net sales and orders of both windows, refunds on the day they were made, in the store currency', async () => {
    // Europe/London is UTC+1 in June: "now" is 15:30 local on Wednesday 10 June.
    const store = await createCommerceStore(testApp.orm, { timezone: 'Europe/London', currency: 'GBP' });
    const now = new Date('2026-06-10T14:30:00Z');
    await ingestOrders(testApp.orm.em.fork(), store.id, [
      testOrder({ externalId: 'today-1', placedAt: '2026-06-10T08:00:00Z', grossMinor: 10_000, discountsMinor: 1_000 }), // 90.00
      testOrder({ externalId: 'today-2', placedAt: '2026-06-10T14:00:00Z', grossMinor: 5_000 }), // 50.00
      testOrder({ externalId: 'today-usd', placedAt: '2026-06-10T10:00:00Z', grossMinor: 2_500, currency: 'USD' }), // 25.00 USD = 17.00
      testOrder({ externalId: 'today-cancelled', placedAt: '2026-06-10T09:00:00Z', grossMinor: 99_900, status: 'cancelled' }),
      testOrder({ externalId: 'yesterday-1', placedAt: '2026-06-09T10:00:00Z', grossMinor: 8_000 }), // 80.00
      // 00:30 local on the 9th, although the 8th in UTC.
      testOrder({ externalId: 'yesterday-early', placedAt: '2026-06-08T23:30:00Z', grossMinor: 4_000 }), // 40.00
      // 17:00 local yesterday: after the same time, not compared.
      testOrder({ externalId: 'yesterday-late', placedAt: '2026-06-09T16:00:00Z', grossMinor: 20_000 }),
    ]);
    await ingestRefunds(testApp.orm.em.fork(), store.id, [
      // Made today on yesterday's order: lowers today.
      { platform: 'shopify', externalId: 'refund-today', orderExternalId: 'yesterday-1', refundedAt: '2026-06-10T12:00:00Z', amountMinor: 3_000, currency: 'GBP' },
      // Made yesterday evening, after the same time: not compared.
      { platform: 'shopify', externalId: 'refund-late', orderExternalId: 'yesterday-early', refundedAt: '2026-06-09T20:00:00Z', amountMinor: 1_000, currency: 'GBP' },
    ]);

    const result = await todayVsYesterday(testApp.orm.em.fork(), store, {}, now);
    expect(result.localTime).toBe('15:30');
    // 90 + 50 + 17 - 30 = 127.00 over 3 orders; 80 + 40 = 120.00 over 2 orders.
    expect(result.today).toEqual({ day: '2026-06-10', netSales: 12_700, orders: 3, until: '2026-06-10T14:30:00.000Z' });
    expect(result.yesterday).toEqual({ day: '2026-06-09', netSales: 12_000, orders: 2, until: '2026-06-09T14:30:00.000Z' });
    expect(result.delta.netSales.absolute).toBe(700);
    expect(result.delta.netSales.percent).toBeCloseTo(5.833, 3);
    expect(result.delta.orders).toEqual({ absolute: 1, percent: 50 });

    // In US dollars at each day's rate: 127.00 / 0.68 and 120.00 / 0.68.
    const inDollars = await todayVsYesterday(testApp.orm.em.fork(), store, { currency: 'USD' }, now);
    expect(inDollars.currency).toBe('USD');
    expect(inDollars.today.netSales).toBe(18_676);
    expect(inDollars.yesterday.netSales).toBe(17_647);
  });

  it("takes today and the same time yesterday in the store's own time zone", async () => {
    // 03:00 UTC on 10 June is still 23:00 on the 9th in New York (UTC-4).
    const store = await createCommerceStore(testApp.orm, { timezone: 'America/New_York', currency: 'GBP' });
    await ingestOrders(testApp.orm.em.fork(), store.id, [
      testOrder({ externalId: 'ny-today', placedAt: '2026-06-10T02:00:00Z', grossMinor: 6_000 }), // 22:00 on the 9th
      testOrder({ externalId: 'ny-yesterday', placedAt: '2026-06-09T02:30:00Z', grossMinor: 3_000 }), // 22:30 on the 8th
      testOrder({ externalId: 'ny-too-late', placedAt: '2026-06-09T03:30:00Z', grossMinor: 7_000 }), // 23:30 on the 8th
    ]);
    const result = await todayVsYesterday(testApp.orm.em.fork(), store, {}, new Date('2026-06-10T03:00:00Z'));
    expect(result.localTime).toBe('23:00');
    expect(result.today).toMatchObject({ day: '2026-06-09', netSales: 6_000, orders: 1 });
    expect(result.yesterday).toMatchObject({ day: '2026-06-08', netSales: 3_000, orders: 1, until: '2026-06-09T03:00:00.000Z' });
    expect(result.delta.netSales).toEqual({ absolute: 3_000, percent: 100 });
  });

  it('answers zeros without a previous value for an empty store (no NaN)', async () => {
    const store = await createCommerceStore(testApp.orm);
    const result = await todayVsYesterday(testApp.orm.em.fork(), store, {}, new Date('2026-06-10T14:30:00Z'));
    expect(result.today.netSales).toBe(0);
    expect(result.yesterday.orders).toBe(0);
    expect(result.delta.netSales).toEqual({ absolute: 0, percent: null });
  });
});

describe('one day hour by hour (dashboard.day): today like with like, whole days in full', () => {
  // Europe/London is UTC+1 in June: "now" is 15:30 local on Wednesday 10 June.
  const now = new Date('2026-06-10T14:30:00Z');
  async function dayStore() {
    const store = await createCommerceStore(testApp.orm, { timezone: 'Europe/London', currency: 'GBP' });
    const customer = (id: string) => ({ externalId: id });
    await ingestOrders(testApp.orm.em.fork(), store.id, [
      // 09:xx local today: 100.00 - 10.00 discount, shipping 5.00, taxes 15.00, a new customer.
      testOrder({ externalId: 'd-today-1', placedAt: '2026-06-10T08:00:00Z', grossMinor: 10_000, discountsMinor: 1_000, shippingMinor: 500, taxesMinor: 1_500, customer: customer('c1') }),
      // 15:00 local today: 50.00, a new customer.
      testOrder({ externalId: 'd-today-2', placedAt: '2026-06-10T14:00:00Z', grossMinor: 5_000, customer: customer('c2') }),
      // 11:00 local yesterday: 80.00, a new customer.
      testOrder({ externalId: 'd-yesterday-1', placedAt: '2026-06-09T10:00:00Z', grossMinor: 8_000, customer: customer('c3') }),
      // 17:00 local yesterday, after 15:30: in yesterday's hour 17, not in the comparison.
      testOrder({ externalId: 'd-yesterday-late', placedAt: '2026-06-09T16:00:00Z', grossMinor: 20_000, customer: customer('c4') }),
    ]);
    await ingestRefunds(testApp.orm.em.fork(), store.id, [
      // 13:00 local today, on yesterday's order: lowers today's hour 13.
      { platform: 'shopify', externalId: 'd-refund', orderExternalId: 'd-yesterday-1', refundedAt: '2026-06-10T12:00:00Z', amountMinor: 3_000, currency: 'GBP' },
    ]);
    await ingestAdMetrics(testApp.orm.em.fork(), store.id, [
      { platform: 'googleads', accountId: 'g', campaignId: 'c', day: '2026-06-10', campaignName: 'C', currency: 'GBP', spendMinor: 4_000, clicks: 30 },
      { platform: 'googleads', accountId: 'g', campaignId: 'c', day: '2026-06-09', campaignName: 'C', currency: 'GBP', spendMinor: 9_600, clicks: 96 },
    ]);
    return store;
  }

  it('compares today so far with yesterday up to the same local time in every KPI, and gives 24 local hours', async () => {
    const store = await dayStore();
    const result = await dayKpis(testApp.orm.em.fork(), store, { day: '2026-06-10', compare: 'previous_period' }, now);
    expect(result).toMatchObject({ day: '2026-06-10', compareDay: '2026-06-09', localTime: '15:30', compareUntil: '2026-06-09T14:30:00.000Z' });
    // 15 h 30 of a 24-hour day.
    expect(result.compareShare).toBeCloseTo(15.5 / 24, 10);
    const { kpis } = result;
    // Today: 90 + 50 - 30 (refund) = 110.00 over 2 orders; yesterday to 15:30: 80.00 over 1 order (the 200.00 at 17:00 is left out).
    expect(kpis.netSales).toEqual({ current: 11_000, previous: 8_000, delta: { absolute: 3_000, percent: 37.5 } });
    expect(kpis.orders).toEqual({ current: 2, previous: 1, delta: { absolute: 1, percent: 100 } });
    // Spend: today's 40.00 so far against 96.00 x 15.5/24 = 62.00 estimated; clicks 30 against 96 x 15.5/24 = 62.
    expect(kpis.spend.current).toBe(4_000);
    expect(kpis.spend.previous).toBe(6_200);
    expect(kpis.clicks).toMatchObject({ current: 30, previous: 62 });
    // ROAS 110 / 40 = 2.75 against 80 / 62 = 1.2903; AOV 55.00 against 80.00; CAC 40 / 2 = 20.00 against 62 / 1 = 62.00.
    expect(kpis.roas.current).toBeCloseTo(2.75, 6);
    expect(kpis.roas.previous).toBeCloseTo(80 / 62, 6);
    expect(kpis.aov).toMatchObject({ current: 5_500, previous: 8_000 });
    expect(kpis.cac).toMatchObject({ current: 2_000, previous: 6_200 });
    // Customers hours old: no LTV comparison.
    expect(kpis.ltv.previous).toBeNull();
    expect(kpis.ltv.delta.percent).toBeNull();

    expect(result.hours).toHaveLength(24);
    const hour = (h: number) => result.hours[h]!;
    expect(hour(9)).toEqual({ hour: 9, netSales: 9_000, orders: 1, previousNetSales: 0, previousOrders: 0 });
    expect(hour(13)).toMatchObject({ netSales: -3_000, orders: 0 });
    expect(hour(15)).toMatchObject({ netSales: 5_000, orders: 1 });
    // Hours still to come today are empty, yesterday's whole day is there to read against.
    expect(hour(16)).toMatchObject({ netSales: null, orders: null });
    expect(hour(11)).toMatchObject({ previousNetSales: 8_000, previousOrders: 1 });
    expect(hour(17)).toMatchObject({ netSales: null, previousNetSales: 20_000, previousOrders: 1 });
    // The hours add up to the day: 90 - 30 + 50 = 110.00.
    expect(result.hours.reduce((sum, h) => sum + (h.netSales ?? 0), 0)).toBe(11_000);

    // The "Today" card reads the same window.
    const card = await todayVsYesterday(testApp.orm.em.fork(), store, {}, now);
    expect(card.today).toMatchObject({ netSales: 11_000, orders: 2 });
    expect(card.yesterday).toMatchObject({ netSales: 8_000, orders: 1 });
  });

  it('compares a day that is over in full with the whole day before', async () => {
    const store = await dayStore();
    const result = await dayKpis(testApp.orm.em.fork(), store, { day: '2026-06-09', compare: 'previous_period' }, now);
    expect(result).toMatchObject({ day: '2026-06-09', compareDay: '2026-06-08', localTime: null, compareShare: 1 });
    // 80 + 200 = 280.00 over 2 orders against nothing on the 8th; the whole day's 96.00 of spend.
    expect(result.kpis.netSales).toEqual({ current: 28_000, previous: 0, delta: { absolute: 28_000, percent: null } });
    expect(result.kpis.spend.current).toBe(9_600);
    expect(result.hours.every((h) => h.netSales !== null)).toBe(true);
    expect(result.hours[17]).toMatchObject({ netSales: 20_000, orders: 1, previousNetSales: 0 });
  });

  it('without a comparison gives no previous figures', async () => {
    const store = await dayStore();
    const result = await dayKpis(testApp.orm.em.fork(), store, { day: '2026-06-10', compare: 'none' }, now);
    expect(result.compareDay).toBeNull();
    expect(result.kpis.netSales).toMatchObject({ current: 11_000, previous: null });
    expect(result.hours[9]).toMatchObject({ netSales: 9_000, previousNetSales: null });
  });
});

describe('dashboard.todayVsYesterday through the router', () => {
  it("reads the caller's active store only", async () => {
    const owner = await signedInStoreOwner(testApp, 'tvyowner');
    const other = await signedInStoreOwner(testApp, 'tvyother');
    // Placed now: today's window (midnight to the time of the request) holds it. An hour ago was
    // in neither window just after midnight (yesterday counts only up to the same time of day).
    const justNow = new Date().toISOString();
    await ingestOrders(testApp.orm.em.fork(), owner.store.id, [testOrder({ externalId: 'mine', placedAt: justNow, grossMinor: 4_200 })]);
    await ingestOrders(testApp.orm.em.fork(), other.store.id, [testOrder({ externalId: 'theirs', placedAt: justNow, grossMinor: 9_900 })]);

    const own = await trpcQuery(owner.client, 'dashboard.todayVsYesterday');
    expect(own.status).toBe(200);
    expect(own.body.result.data).toMatchObject({ storeId: owner.store.id, currency: 'GBP' });
    // This store's 42.00 only.
    const { today, yesterday } = own.body.result.data;
    expect(today.netSales + yesterday.netSales).toBe(4_200);

    const theirs = await trpcQuery(other.client, 'dashboard.todayVsYesterday');
    expect(theirs.body.result.data.storeId).toBe(other.store.id);
    expect(theirs.body.result.data.today.netSales + theirs.body.result.data.yesterday.netSales).toBe(9_900);
  });

  it('refuses a caller without a subscription', async () => {
    const unsubscribed = await signedInClient(testApp.app, 'tvynosub');
    expect((await trpcQuery(unsubscribed.client, 'dashboard.todayVsYesterday')).status).toBe(403);
  });
});

describe('dashboard.allStores', () => {
  const JUNE = { from: '2026-06-01', to: '2026-06-07', compare: 'none' };

  /**
   * Store A (GBP): order 100.00, Google spend 20.00 on 3 June.
   * Store B (USD): order USD 50.00 and Meta spend USD 5.00 on 3 June; USD->GBP 0.8 -> 40.00 and 4.00.
   * Total in GBP: net sales 140.00, spend 24.00, 2 orders; ROAS = MER = 140 / 24 = 5.8333 (not the
   * average of A's 5 and B's 10), AOV 70.00.
   */
  async function twoStores(prefix: string) {
    const owner = await signedInStoreOwner(testApp, prefix);
    const second = await owner.client.post('/api/stores', { name: `${prefix} US shop` });
    expect(second.status).toBe(201);
    const storeB = second.body as { id: number };
    expect((await owner.client.patch(`/api/stores/${storeB.id}`, { currency: 'USD' })).status).toBe(200);
    await ingestOrders(testApp.orm.em.fork(), owner.store.id, [testOrder({ externalId: 'a1', placedAt: '2026-06-03T10:00:00Z', grossMinor: 10_000, gclid: 'g' })]);
    await ingestAdMetrics(testApp.orm.em.fork(), owner.store.id, [
      { platform: 'googleads', accountId: 'g', campaignId: 'c', day: '2026-06-03', campaignName: 'C', currency: 'GBP', spendMinor: 2_000, clicks: 40 },
    ]);
    await ingestOrders(testApp.orm.em.fork(), storeB.id, [testOrder({ externalId: 'b1', placedAt: '2026-06-03T10:00:00Z', grossMinor: 5_000, currency: 'USD', fbclid: 'f' })]);
    await ingestAdMetrics(testApp.orm.em.fork(), storeB.id, [
      { platform: 'metaads', accountId: 'm', campaignId: 'c', day: '2026-06-03', campaignName: 'C', currency: 'USD', spendMinor: 500, clicks: 10 },
    ]);
    return { ...owner, storeA: owner.store, storeB };
  }

  it('puts every store side by side in one currency at the daily rate, with a total row whose ratios come from the sums', async () => {
    const owner = await twoStores('allstores');
    const answer = await trpcQuery(owner.client, 'dashboard.allStores', { ...JUNE, currency: 'GBP' });
    expect(answer.status).toBe(200);
    const data = answer.body.result.data;
    expect(data.currency).toBe('GBP');
    expect(data.stores.map((store: { storeId: number }) => store.storeId)).toEqual([owner.storeA.id, owner.storeB.id]);
    const [a, b] = data.stores;
    expect(a.kpis.netSales.current).toBe(10_000);
    expect(a.kpis.roas.current).toBe(5);
    expect(b.storeCurrency).toBe('USD');
    expect(b.kpis.netSales.current).toBe(4_000);
    expect(b.kpis.spend.current).toBe(400);
    expect(b.kpis.roas.current).toBe(10);
    expect(data.total.netSales.current).toBe(14_000);
    expect(data.total.spend.current).toBe(2_400);
    expect(data.total.orders.current).toBe(2);
    expect(data.total.clicks.current).toBe(50);
    expect(data.total.roas.current).toBeCloseTo(5.8333, 4);
    expect(data.total.mer.current).toBeCloseTo(5.8333, 4);
    expect(data.total.aov.current).toBe(7_000);
    expect(data.previousRange).toBeNull();

    // In dollars: GBP->USD 1.25 on 3 June; store B keeps its own 50.00.
    const dollars = (await trpcQuery(owner.client, 'dashboard.allStores', { ...JUNE, currency: 'USD' })).body.result.data;
    expect(dollars.stores.map((store: { kpis: { netSales: { current: number } } }) => store.kpis.netSales.current)).toEqual([12_500, 5_000]);
    expect(dollars.total.netSales.current).toBe(17_500);
  });

  it('compares with the previous period, the total delta included', async () => {
    const owner = await twoStores('allstoresprev');
    // 27 May, in the previous period of 1-7 June: store A sold 70.00.
    await ingestOrders(testApp.orm.em.fork(), owner.storeA.id, [testOrder({ externalId: 'a0', placedAt: '2026-05-27T10:00:00Z', grossMinor: 7_000 })]);
    const data = (await trpcQuery(owner.client, 'dashboard.allStores', { ...JUNE, compare: 'previous_period', currency: 'GBP' })).body.result.data;
    expect(data.previousRange).toEqual({ from: '2026-05-25', to: '2026-05-31' });
    expect(data.total.netSales).toEqual({ current: 14_000, previous: 7_000, delta: { absolute: 7_000, percent: 100 } });
  });

  it("defaults to the active store's currency, includes stores shared with the caller and never another user's", async () => {
    const owner = await twoStores('allstoresmix');
    const stranger = await signedInStoreOwner(testApp, 'allstoresstranger');
    await ingestOrders(testApp.orm.em.fork(), stranger.store.id, [testOrder({ externalId: 's1', placedAt: '2026-06-03T10:00:00Z', grossMinor: 77_700 })]);

    const guest = await newGuestOf(testApp.app, testApp.orm, owner, owner.storeA.id);
    await grantTestPlan(testApp.orm, guest.credentials.username, 'business');
    const seen = (await trpcQuery(guest.client, 'dashboard.allStores', JUNE)).body.result.data;
    expect(seen.stores).toHaveLength(1);
    expect(seen.stores[0]).toMatchObject({ storeId: owner.storeA.id, role: 'guest', ownerUsername: owner.credentials.username });

    const mine = (await trpcQuery(owner.client, 'dashboard.allStores', JUNE)).body.result.data;
    expect(mine.currency).toBe('GBP');
    expect(mine.stores.map((store: { storeId: number }) => store.storeId)).not.toContain(stranger.store.id);
    expect(mine.total.netSales.current).toBe(14_000);
    expect(mine.activeStoreId).toBe(owner.storeA.id);

    // With the US store active, the figures default to dollars.
    expect((await owner.client.post('/api/stores/active', { storeId: owner.storeB.id })).status).toBe(200);
    const inDollars = (await trpcQuery(owner.client, 'dashboard.allStores', JUNE)).body.result.data;
    expect(inDollars).toMatchObject({ currency: 'USD', activeStoreId: owner.storeB.id });
    expect(inDollars.total.netSales.current).toBe(17_500);

    const strangers = (await trpcQuery(stranger.client, 'dashboard.allStores', JUNE)).body.result.data;
    expect(strangers.stores.map((store: { storeId: number }) => store.storeId)).toEqual([stranger.store.id]);
    expect(strangers.total.netSales.current).toBe(77_700);
  });

  it('refuses an invalid range with a clear message, and a caller without a subscription', async () => {
    const owner = await signedInStoreOwner(testApp, 'allstoresbad');
    const reversed = await trpcQuery(owner.client, 'dashboard.allStores', { from: '2026-06-07', to: '2026-06-01' });
    expect(reversed.status).toBe(400);
    expect(JSON.stringify(reversed.body)).toContain('The start date must not be after the end date');
    const tooLong = await trpcQuery(owner.client, 'dashboard.allStores', { from: '2020-01-01', to: '2026-06-01' });
    expect(JSON.stringify(tooLong.body)).toContain('A range can span at most 800 days');
    const unsubscribed = await signedInClient(testApp.app, 'allstoresnosub');
    expect((await trpcQuery(unsubscribed.client, 'dashboard.allStores', JUNE)).status).toBe(403);
  });
});
