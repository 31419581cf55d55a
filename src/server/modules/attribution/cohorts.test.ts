import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cohortsCsv } from '../../../shared/cohorts.ts';
import { signedInStoreOwner, testOrder, type StoreOwner } from '../../../../test/commerce-fixtures.ts';
import { trpcQuery, useTestApp } from '../../../../test/harness.ts';
import { ingestAdMetrics, ingestOrders, ingestRefunds } from '../commerce/ingest.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { campaignOf, type EventRow } from '../tracking/event-schema.ts';
import { EventWriter } from '../tracking/event-writer.ts';
import { buildSessions } from '../tracking/sessions.ts';
import { acquisitionCohorts, horizonReached } from './cohorts.service.ts';
import { runAttribution } from './credits.ts';

// Acquisition cohorts on a real PostgreSQL, figures computed by hand. Store in GBP, no product costs
// (payback on revenue); "today" is 2026-10-20 for the service calls, so the June cohort has reached
// 30 and 90 days (its last customer's 90th day is 28 September) but not 180, and August only 30.
//   A: first order 10 June £100 after visits Meta "spring" (8 June) then Google "brand" (9 June):
//      first touch Meta; then £50 on 1 July (day 21) and £30 on 20 September (day 102).
//   B: a cancelled order in May (does not count), first counted order 15 June £80 after a Google
//      "brand" visit, £20 of it refunded on 20 June.
//   C: first order 20 June £40 without any visit, landed from Klaviyo "welcome"; £40 again on 1 August (day 42).
//   D: first order 5 August £120 after a Meta "summer" visit.
//   E: first order in May (before the range), another in June: not in any June cohort.
// Spend: Meta £60 in June (campaign Spring) and £50 in August (Summer), Google £30 in June (Brand).

const testApp = useTestApp();
let owner: StoreOwner;
let stranger: StoreOwner;
let costed: StoreOwner;
let pool: pg.Pool;
let writer: EventWriter;
const TODAY = '2026-10-20';
const at = (day: string, hour = 12) => new Date(`${day}T${String(hour).padStart(2, '0')}:00:00Z`);

function event(storeId: number, visitor: string, when: Date, url: string, overrides: Partial<Omit<EventRow, 'url'>> = {}): EventRow {
  return {
    storeId, occurredAt: when, eventId: `c_${randomBytes(6).toString('hex')}`, name: 'page_view', source: 'pixel', consent: true,
    anonymousId: visitor, visitorHash: null, url, referrer: null, title: null, ...campaignOf(url), screen: null, language: null, country: null,
    emailHash: null, customerId: null, checkoutToken: null, orderId: null, valueMinor: null, currency: null, props: null, ...overrides,
  };
}
const purchase = (storeId: number, visitor: string, when: Date, orderId: string) =>
  event(storeId, visitor, new Date(when.getTime() + 60_000), 'https://shop.example/thanks', { name: 'purchase', orderId, eventId: orderId, valueMinor: 1, currency: 'GBP' });
const customer = (id: string) => ({ customer: { externalId: id } });

beforeAll(async () => {
  owner = await signedInStoreOwner(testApp, 'cohorts');
  stranger = await signedInStoreOwner(testApp, 'cohorts-stranger');
  costed = await signedInStoreOwner(testApp, 'cohorts-costed');
  const storeId = owner.store.id;
  pool = new pg.Pool({ connectionString: testApp.databaseUrl, max: 2 });
  writer = new EventWriter(pool);
  const em = () => testApp.orm.em.fork();
  await ingestOrders(em(), storeId, [
    testOrder({ externalId: 'A-1', placedAt: at('2026-06-10'), grossMinor: 10_000, ...customer('A') }),
    testOrder({ externalId: 'A-2', placedAt: at('2026-07-01'), grossMinor: 5_000, ...customer('A') }),
    testOrder({ externalId: 'A-3', placedAt: at('2026-09-20'), grossMinor: 3_000, ...customer('A') }),
    testOrder({ externalId: 'B-0', placedAt: at('2026-05-02'), grossMinor: 9_999, status: 'cancelled', ...customer('B') }),
    testOrder({ externalId: 'B-1', placedAt: at('2026-06-15'), grossMinor: 8_000, ...customer('B') }),
    testOrder({ externalId: 'C-1', placedAt: at('2026-06-20'), grossMinor: 4_000, landingSite: '/?utm_source=klaviyo&utm_medium=email&utm_campaign=welcome', ...customer('C') }),
    testOrder({ externalId: 'C-2', placedAt: at('2026-08-01'), grossMinor: 4_000, ...customer('C') }),
    testOrder({ externalId: 'D-1', placedAt: at('2026-08-05'), grossMinor: 12_000, ...customer('D') }),
    testOrder({ externalId: 'E-1', placedAt: at('2026-05-01'), grossMinor: 7_000, ...customer('E') }),
    testOrder({ externalId: 'E-2', placedAt: at('2026-06-12'), grossMinor: 7_000, ...customer('E') }),
  ]);
  await ingestRefunds(em(), storeId, [{ platform: 'shopify', externalId: 'RF-1', orderExternalId: 'B-1', refundedAt: at('2026-06-20'), amountMinor: 2_000, currency: 'GBP' }]);
  await ingestAdMetrics(em(), storeId, [
    { platform: 'metaads', accountId: 'a', campaignId: '111', day: '2026-06-08', campaignName: 'Spring', currency: 'GBP', spendMinor: 4_000, conversions: 1, conversionValueMinor: 0 },
    { platform: 'metaads', accountId: 'a', campaignId: '111', day: '2026-06-09', campaignName: 'Spring', currency: 'GBP', spendMinor: 2_000, conversions: 0, conversionValueMinor: 0 },
    { platform: 'metaads', accountId: 'a', campaignId: '112', day: '2026-08-04', campaignName: 'Summer', currency: 'GBP', spendMinor: 5_000, conversions: 1, conversionValueMinor: 0 },
    { platform: 'googleads', accountId: 'g', campaignId: '222', day: '2026-06-14', campaignName: 'Brand', currency: 'GBP', spendMinor: 3_000, conversions: 1, conversionValueMinor: 0 },
  ]);
  await writer.write([
    event(storeId, 'va', at('2026-06-08'), 'https://shop.example/?fbclid=F&utm_campaign=spring'),
    event(storeId, 'va', at('2026-06-09'), 'https://shop.example/?gclid=G&utm_campaign=brand'),
    purchase(storeId, 'va', at('2026-06-10'), 'A-1'),
    event(storeId, 'vb', at('2026-06-14'), 'https://shop.example/?gclid=G2&utm_campaign=brand'),
    purchase(storeId, 'vb', at('2026-06-15'), 'B-1'),
    event(storeId, 'vd', at('2026-08-04'), 'https://shop.example/?fbclid=F2&utm_campaign=summer'),
    purchase(storeId, 'vd', at('2026-08-05'), 'D-1'),
  ], []);
  await buildSessions(em(), storeId, { settleMs: 0 });
  await sqlRunner(em()).run(`update tracking_purchases set created_at = created_at - interval '1 minute' where store_id = $1`, [storeId]);
  await runAttribution(em(), storeId);

  // A store with product costs: one Meta customer, £100 with £70 of cost on 10 June 2025, again on
  // 9 August 2025 (day 60); Meta spent £50 that June. Gross profit per customer: £30 at 30 days, £60 at 90.
  const line = (cost: number) => ({ lines: [{ title: 'Lamp', quantity: 1, unitPriceMinor: 10_000, unitCostMinor: cost }] });
  await ingestOrders(em(), costed.store.id, [
    testOrder({ externalId: 'K-1', placedAt: at('2025-06-10'), grossMinor: 10_000, landingSite: '/?fbclid=K', ...customer('K'), ...line(7_000) }),
    testOrder({ externalId: 'K-2', placedAt: at('2025-08-09'), grossMinor: 10_000, ...customer('K'), ...line(7_000) }),
  ]);
  await ingestAdMetrics(em(), costed.store.id, [
    { platform: 'metaads', accountId: 'k', campaignId: '9', day: '2025-06-01', campaignName: 'Lamps', currency: 'GBP', spendMinor: 5_000, conversions: 1, conversionValueMinor: 0 },
  ]);
  await runAttribution(em(), costed.store.id);
});
afterAll(async () => {
  await writer.close();
  await pool.end();
});

const store = () => ({ id: owner.store.id, currency: 'GBP', timezone: 'Europe/London' });
const report = (group: 'channel' | 'campaign' = 'channel', extra: { channel?: string; window?: number } = {}) =>
  acquisitionCohorts(testApp.orm.em.fork(), store(), { from: '2026-06', to: '2026-08', group, ...extra }, { today: TODAY });

describe('acquisition cohorts', () => {
  it('horizons are reached only when the month’s last customer has had them', () => {
    expect(horizonReached('2026-06', 90, '2026-09-28')).toBe(true);
    expect(horizonReached('2026-06', 90, '2026-09-27')).toBe(false);
    expect(horizonReached('2026-08', 30, '2026-09-30')).toBe(true);
  });

  it('groups customers by the first touch of their first counted order, with the order’s own source when it had no visit', async () => {
    const answer = await report();
    expect(answer.paybackBasis).toBe('revenue');
    expect(answer.attributionComplete).toBe(true);
    expect(answer.sources.map((s) => [s.channel, s.customers])).toEqual([['metaads', 2], ['googleads', 1], ['klaviyo', 1]]);
    const meta = answer.sources[0]!;
    expect(meta.months.map((m) => m.month)).toEqual(['2026-06', '2026-08']);
    expect(meta.months[0]).toEqual({
      month: '2026-06', customers: 1, firstOrderRevenueMinor: 10_000,
      ltvMinor: { 30: 15_000, 90: 15_000, 180: null, 365: null }, grossProfitMinor: { 30: null, 90: null, 180: null, 365: null },
      repeatRate: { 90: 1, 365: null }, spendMinor: 6_000, cacMinor: 6_000, paybackDays: 30, paybackBeyondYear: false,
    });
    // August is younger than 90 days: its LTV at 90 days is unknown, not low.
    expect(meta.months[1]).toMatchObject({ month: '2026-08', customers: 1, ltvMinor: { 30: 12_000, 90: null, 180: null, 365: null }, repeatRate: { 90: null, 365: null }, spendMinor: 5_000, cacMinor: 5_000 });
    // The source: 30 days over both months, 90 days over June only; CAC = £110 / 2.
    expect(meta).toMatchObject({ customers: 2, firstOrderRevenueMinor: 22_000, ltvMinor: { 30: 13_500, 90: 15_000, 180: null, 365: null }, repeatRate: { 90: 1, 365: null }, spendMinor: 11_000, cacMinor: 5_500, paybackDays: 30 });
    // Google: B's first counted order (the cancelled one does not count), net of its £20 refund.
    expect(answer.sources[1]).toMatchObject({ channel: 'googleads', customers: 1, firstOrderRevenueMinor: 6_000, ltvMinor: { 30: 6_000, 90: 6_000 }, repeatRate: { 90: 0 }, spendMinor: 3_000, cacMinor: 3_000, paybackDays: 30 });
    // Klaviyo: no visit, its own landing source; no spend data, so no CAC or payback.
    expect(answer.sources[2]).toMatchObject({ channel: 'klaviyo', customers: 1, firstOrderRevenueMinor: 4_000, ltvMinor: { 30: 4_000, 90: 8_000 }, repeatRate: { 90: 1 }, spendMinor: null, cacMinor: null, paybackDays: null });
    expect(answer.total).toMatchObject({ customers: 4, firstOrderRevenueMinor: 32_000, spendMinor: 14_000, cacMinor: 3_500, ltvMinor: { 30: 9_250, 90: Math.round(29_000 / 3) } });
  });

  it('groups by campaign with the matching platform campaign’s spend, and filters by channel', async () => {
    const answer = await report('campaign');
    expect(answer.sources.map((s) => [s.channel, s.campaign, s.customers, s.spendMinor])).toEqual([
      ['googleads', 'brand', 1, 3_000], ['klaviyo', 'welcome', 1, null], ['metaads', 'spring', 1, 6_000], ['metaads', 'summer', 1, 5_000],
    ]);
    const metaOnly = await report('channel', { channel: 'metaads' });
    expect(metaOnly.sources.map((s) => s.channel)).toEqual(['metaads']);
    expect(metaOnly.total).toMatchObject({ customers: 2, spendMinor: 11_000 });
  });

  it('refuses a window the attribution job does not keep', async () => {
    await expect(report('channel', { window: 7 })).rejects.toThrow(/store's attribution window \(30 days\)/);
  });

  it('pays back on gross profit when the store has product costs', async () => {
    const answer = await acquisitionCohorts(testApp.orm.em.fork(), { id: costed.store.id, currency: 'GBP', timezone: 'Europe/London' }, { from: '2025-06', to: '2025-06', group: 'channel' }, { today: TODAY });
    expect(answer.paybackBasis).toBe('gross_profit');
    expect(answer.sources[0]).toMatchObject({
      channel: 'metaads', customers: 1, cacMinor: 5_000, ltvMinor: { 30: 10_000, 90: 20_000, 180: 20_000, 365: 20_000 },
      grossProfitMinor: { 30: 3_000, 90: 6_000, 180: 6_000, 365: 6_000 }, paybackDays: 90,
    });
  });

  it('exports a CSV with one line per source and month and the source’s totals', async () => {
    const csv = cohortsCsv(await report());
    const lines = csv.trim().split('\n');
    expect(lines[0]).toBe('channel,campaign,month,customers,first_order_revenue,spend,cac,ltv_30,ltv_90,ltv_180,ltv_365,repeat_rate_90,repeat_rate_365,payback_days');
    expect(lines).toContain('metaads,,2026-06,1,100.00,60.00,60.00,150.00,150.00,,,1.0000,,30');
    expect(lines).toContain('metaads,,all,2,220.00,110.00,55.00,135.00,150.00,,,1.0000,,30');
    expect(lines).toContain('klaviyo,,all,1,40.00,,,40.00,80.00,,,1.0000,,');
  });

  it('never exports a campaign name that a spreadsheet would run as a formula', async () => {
    const answer = await report();
    const hostile = { ...answer, sources: [{ ...answer.sources[0]!, campaign: '=HYPERLINK("http://evil.example","x")' }] };
    const line = cohortsCsv(hostile).split('\n').find((text) => text.includes('HYPERLINK'));
    expect(line).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
  });
});

describe('attribution.acquisitionCohorts and GET /api/attribution/cohorts', () => {
  it('answers over tRPC and REST (decimals), and is described in /api/openapi.json', async () => {
    const trpc = await trpcQuery(owner.client, 'attribution.acquisitionCohorts', { from: '2026-06', to: '2026-08', group: 'channel' });
    expect(trpc.status).toBe(200);
    expect(trpc.body.result.data.sources.map((s: { channel: string; customers: number }) => [s.channel, s.customers])).toEqual([['metaads', 2], ['googleads', 1], ['klaviyo', 1]]);
    const rest = await owner.client.get('/api/attribution/cohorts?from=2026-06&to=2026-08&group=campaign');
    expect(rest.status).toBe(200);
    expect(rest.body.currency).toBe('GBP');
    expect(rest.body.sources.find((s: { campaign: string }) => s.campaign === 'spring')).toMatchObject({
      channel: 'metaads', customers: 1, firstOrderRevenue: 100, spend: 60, cac: 60, repeatRate90: 1,
      ltv: { '30': 150, '90': 150 }, months: [{ month: '2026-06', customers: 1, ltv: { '30': 150 } }],
    });
    const bad = await owner.client.get('/api/attribution/cohorts?from=2026-09&to=2026-06');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/"from" must not be after "to"/);
    expect((await owner.client.get('/api/attribution/cohorts?from=2026-6&to=2026-08')).body.message).toMatch(/Use a month like 2026-01/);
    const document = (await owner.client.get('/api/openapi.json')).body;
    expect(document.paths['/attribution/cohorts'].get).toBeDefined();
  });

  it('is tenant-scoped: another user cannot make the store active and reads only their own (empty) cohorts', async () => {
    expect((await stranger.client.post('/api/stores/active', { storeId: owner.store.id })).status).toBe(404);
    const theirs = await stranger.client.get('/api/attribution/cohorts?from=2026-06&to=2026-08');
    expect(theirs.status).toBe(200);
    expect(theirs.body.sources).toEqual([]);
    const trpc = await trpcQuery(stranger.client, 'attribution.acquisitionCohorts', { from: '2026-06', to: '2026-08', storeId: owner.store.id });
    expect(trpc.body.result.data.total.customers).toBe(0);
  });
});
