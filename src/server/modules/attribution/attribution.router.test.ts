import { beforeAll, describe, expect, it } from 'vitest';
import { setFlatFxRates, signedInStoreOwner, testOrder, type StoreOwner } from '../../../../test/commerce-fixtures.ts';
import { trpcMutation, trpcQuery, useTestApp } from '../../../../test/harness.ts';
import { trackingEvent, useEventWriter } from '../../../../test/tracking-fixtures.ts';
import { ingestAdMetrics, ingestEmailMetrics, ingestOrders } from '../commerce/ingest.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import type { EventRow } from '../tracking/event-schema.ts';
import { buildSessions } from '../tracking/sessions.ts';
import { runAttribution } from './credits.ts';

// The attribution procedures and GET /api/attribution over HTTP (the app's REST adapter), on a real
// PostgreSQL: two orders on 10 October 2026, one after visits from Meta (campaign "spring", two days
// before) and Google (one day before), one with no visit (landed from Klaviyo); Meta spent £40.00 and
// reports £300.00, Google spent £10.00 and reports £150.00, Klaviyo reports £80.00 for itself.

const testApp = useTestApp();
const events = useEventWriter(() => testApp.databaseUrl);
let owner: StoreOwner;
let stranger: StoreOwner;
const DAY = 86_400_000;
const T = Date.UTC(2026, 9, 10, 12);
const D = '2026-10-10';
let orderWithVisits: number;

const event = (storeId: number, visitor: string, at: number, url: string, overrides: Partial<Omit<EventRow, 'url'>> = {}): EventRow =>
  trackingEvent(storeId, visitor, new Date(at), { url, ...overrides });

beforeAll(async () => {
  owner = await signedInStoreOwner(testApp, 'attribution');
  stranger = await signedInStoreOwner(testApp, 'stranger');
  const storeId = owner.store.id;
  const em = () => testApp.orm.em.fork();
  await ingestOrders(em(), storeId, [
    testOrder({ externalId: 'R-1', placedAt: new Date(T), grossMinor: 20_000 }),
    testOrder({ externalId: 'R-2', placedAt: new Date(T), grossMinor: 5_000, landingSite: '/?utm_source=klaviyo&utm_medium=email&utm_campaign=welcome' }),
  ]);
  await ingestAdMetrics(em(), storeId, [
    { platform: 'metaads', accountId: 'a', campaignId: '111', day: D, campaignName: 'Spring', currency: 'GBP', spendMinor: 4_000, conversions: 2, conversionValueMinor: 30_000 },
    { platform: 'googleads', accountId: 'g', campaignId: '222', day: D, campaignName: 'Brand', currency: 'GBP', spendMinor: 1_000, conversions: 1, conversionValueMinor: 15_000 },
  ]);
  await ingestEmailMetrics(em(), storeId, [{ platform: 'klaviyo', campaignId: 'welcome', day: D, campaignName: 'Welcome', currency: 'GBP', attributedOrders: 1, attributedRevenueMinor: 8_000 }]);
  await events.writer.write([
    event(storeId, 'rv1', T - 2 * DAY, 'https://shop.example/?fbclid=F&utm_campaign=spring'),
    event(storeId, 'rv1', T - DAY, 'https://shop.example/?gclid=G&utm_campaign=brand'),
    event(storeId, 'rv1', T + 60_000, 'https://shop.example/thanks', { name: 'purchase', orderId: 'R-1', eventId: 'R-1', valueMinor: 20_000, currency: 'GBP' }),
  ], []);
  await buildSessions(em(), storeId, { settleMs: 0 });
  await sqlRunner(em()).run(`update tracking_purchases set created_at = created_at - interval '1 minute' where store_id = $1`, [storeId]);
  await runAttribution(em(), storeId);
  const [row] = await sqlRunner(em()).rows<{ id: string }>(`select id::text from orders where store_id = $1 and external_id = 'R-1'`, [storeId]);
  orderWithVisits = Number(row!.id);
});

describe('GET /api/attribution', () => {
  it('answers exactly the documented shape: decimals in the store’s currency, fractional orders under sharing models', async () => {
    const answer = await owner.client.get(`/api/attribution?from=${D}&to=${D}&model=linear&window=30`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      currency: 'GBP',
      total: { orders: 2, revenue: 250 },
      channels: [
        { channel: 'googleads', orders: 0.5, revenue: 100, spend: 10, roas: 10, platformReportedRevenue: 150 },
        { channel: 'metaads', orders: 0.5, revenue: 100, spend: 40, roas: 2.5, platformReportedRevenue: 300 },
        { channel: 'klaviyo', orders: 1, revenue: 50, spend: 0, roas: null, platformReportedRevenue: 80 },
      ],
    });
    const first = await owner.client.get(`/api/attribution?from=${D}&to=${D}&model=first_click&window=30`);
    expect(first.body.channels.slice(0, 2)).toEqual([
      { channel: 'metaads', orders: 1, revenue: 200, spend: 40, roas: 5, platformReportedRevenue: 300 },
      { channel: 'klaviyo', orders: 1, revenue: 50, spend: 0, roas: null, platformReportedRevenue: 80 },
    ]);
    // A window the store does not keep is computed from the journeys: 1 day keeps only Google.
    const oneDay = await owner.client.get(`/api/attribution?from=${D}&to=${D}&model=first_click&window=1`);
    expect(oneDay.body.channels.find((row: { channel: string }) => row.channel === 'googleads')).toMatchObject({ orders: 1, revenue: 200 });
  });

  it('refuses bad input with 400 and a clear message', async () => {
    const cases: [string, RegExp][] = [
      [`from=${D}&to=${D}&model=markov`, /Unknown model: use one of first_click, last_click, linear, time_decay, position_based/],
      [`from=${D}&to=${D}&model=linear&window=45`, /window must be one of 1, 7, 14, 28, 30, 60, 90/],
      [`from=2026-10-11&to=${D}&model=linear`, /"from" must not be after "to"/],
      [`from=2026-02-30&to=${D}&model=linear`, /Not a valid date/],
      [`from=yesterday&to=${D}`, /Use a date like 2026-01-31/],
    ];
    for (const [query, message] of cases) {
      const answer = await owner.client.get(`/api/attribution?${query}`);
      expect(answer.status, query).toBe(400);
      expect(answer.body.message, query).toMatch(message);
    }
  });

  it('is described in /api/openapi.json', async () => {
    const document = (await owner.client.get('/api/openapi.json')).body;
    expect(Object.keys(document.paths)).toContain('/attribution');
    expect(document.paths['/attribution'].get).toBeDefined();
  });
});

describe('attribution procedures', () => {
  it('report: channels and campaigns with spend, ROAS, CAC and what the platforms report, and a comparison period', async () => {
    const answer = await trpcQuery(owner.client, 'attribution.report', { from: D, to: D, model: 'last_click', window: 30, compare: 'previous_period' });
    expect(answer.status).toBe(200);
    const report = answer.body.result.data;
    expect(report.fromRollups).toBe(true);
    expect(report.current.total).toEqual({ orders: 2, revenueMinor: 25_000, spendMinor: 5_000, ownSourceOrders: 1, ownSourceRevenueMinor: 5_000 });
    expect(report.current.channels[0]).toEqual({
      channel: 'googleads', orders: 1, revenueMinor: 20_000, ownSourceOrders: 0, ownSourceRevenueMinor: 0, spendMinor: 1_000, roas: 20, cac: 1_000, platformConversions: 1, platformReportedRevenueMinor: 15_000,
    });
    expect(report.current.campaigns).toEqual([
      { channel: 'googleads', campaign: 'brand', orders: 1, revenueMinor: 20_000, ownSourceOrders: 0, ownSourceRevenueMinor: 0, spendMinor: 1_000, roas: 20, cac: 1_000, platformConversions: 1, platformReportedRevenueMinor: 15_000 },
      { channel: 'klaviyo', campaign: 'welcome', orders: 1, revenueMinor: 5_000, ownSourceOrders: 1, ownSourceRevenueMinor: 5_000, spendMinor: 0, roas: null, cac: null, platformConversions: 1, platformReportedRevenueMinor: 8_000 },
    ]);
    expect(report.previous).toMatchObject({ from: '2026-10-09', to: '2026-10-09', total: { orders: 0, revenueMinor: 0 } });
  });

  it('report and GET /api/attribution from the rollups: the store’s currency summed over the range, another currency converted per day, the same channels with or without campaigns', async () => {
    // Rollup rows written directly on days nothing else uses: Meta "spring" in GBP on two days,
    // Meta "autumn" in EUR (GBP 0.85 per EUR), Google without a campaign.
    const storeId = owner.store.id;
    await setFlatFxRates(testApp.orm.em.fork(), '2026-10-20', '2026-10-21');
    await sqlRunner(testApp.orm.em.fork()).run(
      `insert into attribution_daily (store_id, window_days, model, day, channel, campaign, currency, orders, revenue_minor, own_source_orders, own_source_revenue_minor)
       values ($1, 30, 'linear', '2026-10-20', 'metaads', 'spring', 'GBP', 1, 10000, 0, 0), ($1, 30, 'linear', '2026-10-21', 'metaads', 'spring', 'GBP', 0.5, 3333, 0, 0),
              ($1, 30, 'linear', '2026-10-20', 'metaads', 'autumn', 'EUR', 1, 11765, 0, 0), ($1, 30, 'linear', '2026-10-21', 'googleads', '', 'GBP', 1, 5000, 1, 5000)`,
      [storeId],
    );
    const report = (await trpcQuery(owner.client, 'attribution.report', { from: '2026-10-20', to: '2026-10-21', model: 'linear', window: 30 })).body.result.data;
    // Meta: 10,000 + 3,333 + 11,765 x 0.85 (10,000.25) = 23,333.25 minor.
    expect(report.current.total).toEqual({ orders: 3.5, revenueMinor: 28_333, spendMinor: 0, ownSourceOrders: 1, ownSourceRevenueMinor: 5_000 });
    expect(report.current.channels.map((row: { channel: string; orders: number; revenueMinor: number }) => [row.channel, row.orders, row.revenueMinor])).toEqual([['metaads', 2.5, 23_333], ['googleads', 1, 5_000]]);
    expect(report.current.campaigns.map((row: { campaign: string; orders: number; revenueMinor: number }) => [row.campaign, row.orders, row.revenueMinor])).toEqual([['spring', 1.5, 13_333], ['autumn', 1, 10_000]]);
    const rest = await owner.client.get('/api/attribution?from=2026-10-20&to=2026-10-21&model=linear&window=30');
    expect(rest.body).toEqual({
      currency: 'GBP',
      total: { orders: 3.5, revenue: 283.33 },
      channels: [
        { channel: 'metaads', orders: 2.5, revenue: 233.33, spend: 0, roas: null, platformReportedRevenue: 0 },
        { channel: 'googleads', orders: 1, revenue: 50, spend: 0, roas: null, platformReportedRevenue: 0 },
      ],
    });
  });

  it('report and GET /api/attribution from the answer cache: a new credit is in the next answer', async () => {
    const storeId = owner.store.id;
    const input = { from: '2026-10-25', to: '2026-10-26', model: 'last_click', window: 30 };
    const report = async () => (await trpcQuery(owner.client, 'attribution.report', input)).body.result.data.current.total;
    const rest = async () => (await owner.client.get('/api/attribution?from=2026-10-25&to=2026-10-26&model=last_click&window=30')).body.total;
    const credit = (day: string, revenueMinor: number) => sqlRunner(testApp.orm.em.fork()).run(
      `insert into attribution_daily (store_id, window_days, model, day, channel, campaign, currency, orders, revenue_minor, own_source_orders, own_source_revenue_minor)
       values ($1, 30, 'last_click', $2::date, 'metaads', 'late', 'GBP', 1, $3, 0, 0)`,
      [storeId, day, revenueMinor],
    );
    expect(await report()).toMatchObject({ orders: 0, revenueMinor: 0 });
    expect(await rest()).toEqual({ orders: 0, revenue: 0 });
    // Asked again (now from the cache), then a credit lands: the next answers have it.
    expect(await report()).toMatchObject({ orders: 0, revenueMinor: 0 });
    expect(await rest()).toEqual({ orders: 0, revenue: 0 });
    await credit('2026-10-25', 4_200);
    expect(await report()).toMatchObject({ orders: 1, revenueMinor: 4_200 });
    expect(await rest()).toEqual({ orders: 1, revenue: 42 });
    await credit('2026-10-26', 800);
    expect(await report()).toMatchObject({ orders: 2, revenueMinor: 5_000 });
    expect(await rest()).toEqual({ orders: 2, revenue: 50 });
  });

  it('top paths and distributions from the answer cache: a newly credited order is in the next answers', async () => {
    const storeId = owner.store.id;
    const input = { from: '2026-10-27', to: '2026-10-27' };
    const paths = async () => (await trpcQuery(owner.client, 'attribution.topPaths', input)).body.result.data.paths.map((p: { label: string; orders: number }) => [p.label, p.orders]);
    const counts = async () => (await trpcQuery(owner.client, 'attribution.distributions', input)).body.result.data.touchpointsPerOrder.find((b: { bucket: string }) => b.bucket === '0').orders;
    expect(await paths()).toEqual([]);
    expect(await counts()).toBe(0);
    expect(await paths()).toEqual([]);
    expect(await counts()).toBe(0);
    await ingestOrders(testApp.orm.em.fork(), storeId, [testOrder({ externalId: 'R-3', placedAt: new Date('2026-10-27T12:00:00Z'), grossMinor: 3_000, landingSite: '/?utm_source=klaviyo&utm_medium=email&utm_campaign=welcome' })]);
    await runAttribution(testApp.orm.em.fork(), storeId);
    expect(await paths()).toEqual([["Klaviyo (order's own source)", 1]]);
    expect(await counts()).toBe(1);
    // A stored journey changed alone (no credit row moves): the next answers have it.
    await sqlRunner(testApp.orm.em.fork()).run(
      `update attribution_orders set touchpoints = $2::jsonb, touchpoint_count = 1 where store_id = $1 and placed_day = '2026-10-27'`,
      [storeId, JSON.stringify([{ at: Date.UTC(2026, 9, 26, 12), channel: 'metaads', campaign: 'late' }])],
    );
    expect(await paths()).toEqual([['Meta Ads', 1]]);
    expect(await counts()).toBe(0);
  });

  it('models side by side, top paths, distributions and one order’s journey', async () => {
    const side = (await trpcQuery(owner.client, 'attribution.modelsSideBySide', { from: D, to: D })).body.result.data;
    const meta = side.channels.find((row: { channel: string }) => row.channel === 'metaads');
    expect(meta.models).toMatchObject({ first_click: { orders: 1, revenueMinor: 20_000 }, last_click: { orders: 0, revenueMinor: 0 }, linear: { orders: 0.5, revenueMinor: 10_000 }, position_based: { orders: 0.5, revenueMinor: 10_000 } });
    const paths = (await trpcQuery(owner.client, 'attribution.topPaths', { from: D, to: D })).body.result.data;
    expect(paths.paths.map((p: { label: string; orders: number; revenueMinor: number }) => [p.label, p.orders, p.revenueMinor])).toEqual([
      ['Meta Ads → Google Ads', 1, 20_000],
      ["Klaviyo (order's own source)", 1, 5_000],
    ]);
    const spread = (await trpcQuery(owner.client, 'attribution.distributions', { from: D, to: D })).body.result.data;
    expect(spread.timeToConversion.find((b: { bucket: string }) => b.bucket === '2-3').orders).toBe(1);
    expect(spread.touchpointsPerOrder.filter((b: { orders: number }) => b.orders > 0)).toEqual([{ bucket: '0', orders: 1 }, { bucket: '2', orders: 1 }]);
    const trip = (await trpcQuery(owner.client, 'attribution.journey', { orderId: orderWithVisits })).body.result.data;
    expect(trip.visits.map((v: { channel: string; campaign: string; inWindow: boolean }) => [v.channel, v.campaign, v.inWindow])).toEqual([['metaads', 'spring', true], ['googleads', 'brand', true]]);
    expect(trip.credits.time_decay.map((c: { channel: string }) => c.channel)).toEqual(['metaads', 'googleads']);
  });

  it('changing the window recomputes in the background; its progress is readable', async () => {
    const changed = await trpcMutation(owner.client, 'attribution.updateSettings', { attributionWindowDays: 1 });
    expect(changed.status).toBe(200);
    // The store's three orders (R-3 from the top paths test).
    expect(changed.body.result.data).toEqual({ windowDays: 30, recomputing: { windowDays: 1, done: 0, total: 3 } });
    await runAttribution(testApp.orm.em.fork(), owner.store.id);
    expect((await trpcQuery(owner.client, 'attribution.status')).body.result.data).toEqual({ windowDays: 1, recomputing: null });
    const answer = await owner.client.get(`/api/attribution?from=${D}&to=${D}&model=first_click`);
    expect(answer.body.channels[0]).toMatchObject({ channel: 'googleads', orders: 1, revenue: 200 });
  });

  it('is tenant-scoped: another store’s user reads only their own store, and no order of another store', async () => {
    const theirs = await stranger.client.get(`/api/attribution?from=${D}&to=${D}&model=linear&window=30`);
    expect(theirs.status).toBe(200);
    expect(theirs.body).toEqual({ currency: 'GBP', total: { orders: 0, revenue: 0 }, channels: [] });
    expect((await stranger.client.post('/api/stores/active', { storeId: owner.store.id })).status).toBe(404);
    expect((await trpcQuery(stranger.client, 'attribution.journey', { orderId: orderWithVisits })).status).toBe(404);
    const report = (await trpcQuery(stranger.client, 'attribution.report', { from: D, to: D, model: 'linear' })).body.result.data;
    expect(report.current.channels).toEqual([]);
  });
});
