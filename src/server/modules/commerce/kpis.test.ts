import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatMultiple, formatRatio } from '../../../shared/metrics.ts';
import { createCommerceStore, setFxRates, signedInStoreOwner, testOrder } from '../../../../test/commerce-fixtures.ts';
import { grantTestPlan, signedInClient, trpcQuery, useTestApp, type ApiClient } from '../../../../test/harness.ts';
import { ingestAdMetrics, ingestEmailMetrics, ingestOrders, ingestRefunds } from './ingest.ts';
import { comparisonRange } from '../../../shared/date-ranges.ts';
import { kpis, ltvCohorts } from './kpis.service.ts';

const testApp = useTestApp();
let orm: MikroORM;
let app: FastifyInstance;

beforeAll(async () => {
  ({ orm, app } = testApp);
  // Weekday rates (units per EUR) for the fixture; the weekend of 6-7 June uses Friday's.
  const rates = [];
  for (const day of ['2026-05-25', '2026-05-26', '2026-05-27', '2026-05-28', '2026-05-29', '2026-06-01', '2026-06-02', '2026-06-04', '2026-06-05']) {
    rates.push({ day, currency: 'GBP', rate: 0.85 }, { day, currency: 'USD', rate: 1.25 });
  }
  rates.push({ day: '2026-06-03', currency: 'GBP', rate: 0.88 }, { day: '2026-06-03', currency: 'USD', rate: 1.1 });
  await setFxRates(orm.em.fork(), rates);
});

/**
 * The hand-computed fixture (store in GBP, Europe/London), 1-7 June 2026 (Monday to Sunday):
 *   1 Jun  A  GBP 100.00 - 10.00 discount, Google Ads click, customer c1 (new)     net  90.00
 *             (+ shipping 5.00 and taxes 18.00: revenue for MER, not sales)
 *   2 Jun  B  GBP  50.00, Klaviyo e-mail, customer c2 (new)                          net  50.00
 *   3 Jun  C  GBP  30.00, direct, customer c1 (returning)                            net  30.00
 *   3 Jun  F  USD  50.00, direct, guest; USD->GBP on 3 Jun = 0.88 / 1.10 = 0.8        net  40.00
 *   5 Jun  refund of A, GBP 20.00 (lowers the 5th, not the 1st)                      net -20.00
 *   6 Jun  D  USD 100.00, Meta click, guest; Saturday: Friday's 0.85 / 1.25 = 0.68   net  68.00
 *             (+ shipping USD 10.00 = GBP 6.80)
 *   spend: Google 1 Jun GBP 30.00 (100 clicks, 2 conversions worth 120.00),
 *          Meta 6 Jun USD 50.00 = GBP 34.00 (50 clicks, 1 conversion worth USD 100.00 = GBP 68.00),
 *          Klaviyo 2 Jun GBP 5.00 (20 clicks, 1 order worth 60.00)
 * Previous period, 25-31 May: E GBP 40.00 on the 28th, Google click, customer c3 (new); Google spend 20.00, 80 clicks.
 */
async function seedFixture(storeId: number) {
  const em = orm.em.fork();
  await ingestOrders(em, storeId, [
    testOrder({ externalId: 'A', placedAt: '2026-06-01T10:00:00Z', grossMinor: 10_000, discountsMinor: 1_000, shippingMinor: 500, taxesMinor: 1_800, gclid: 'g1', customer: { externalId: 'c1' } }),
    testOrder({ externalId: 'B', placedAt: '2026-06-02T10:00:00Z', grossMinor: 5_000, utmSource: 'klaviyo', utmMedium: 'email', customer: { externalId: 'c2' } }),
    testOrder({ externalId: 'C', placedAt: '2026-06-03T10:00:00Z', grossMinor: 3_000, customer: { externalId: 'c1' } }),
    testOrder({ externalId: 'F', placedAt: '2026-06-03T11:00:00Z', grossMinor: 5_000, currency: 'USD' }),
    testOrder({ externalId: 'D', placedAt: '2026-06-06T10:00:00Z', grossMinor: 10_000, shippingMinor: 1_000, currency: 'USD', fbclid: 'f1' }),
    testOrder({ externalId: 'E', placedAt: '2026-05-28T10:00:00Z', grossMinor: 4_000, gclid: 'g2', customer: { externalId: 'c3' } }),
  ]);
  await ingestRefunds(em, storeId, [{ platform: 'shopify', externalId: 'refund-A', orderExternalId: 'A', refundedAt: '2026-06-05T09:00:00Z', amountMinor: 2_000, currency: 'GBP' }]);
  await ingestAdMetrics(em, storeId, [
    { platform: 'googleads', accountId: 'g', campaignId: 'brand', day: '2026-06-01', campaignName: 'Brand', currency: 'GBP', spendMinor: 3_000, impressions: 1_000, clicks: 100, conversions: 2, conversionValueMinor: 12_000 },
    { platform: 'metaads', accountId: 'm', campaignId: 'pros', day: '2026-06-06', campaignName: 'Prospecting', currency: 'USD', spendMinor: 5_000, impressions: 4_000, clicks: 50, conversions: 1, conversionValueMinor: 10_000 },
    { platform: 'googleads', accountId: 'g', campaignId: 'brand', day: '2026-05-28', campaignName: 'Brand', currency: 'GBP', spendMinor: 2_000, impressions: 900, clicks: 80, conversions: 1, conversionValueMinor: 4_000 },
  ]);
  await ingestEmailMetrics(em, storeId, [
    { platform: 'klaviyo', campaignId: 'june', day: '2026-06-02', campaignName: 'June', currency: 'GBP', sends: 2_000, opens: 800, clicks: 20, attributedOrders: 1, attributedRevenueMinor: 6_000, spendMinor: 500 },
  ]);
}

const JUNE = { from: '2026-06-01', to: '2026-06-07' };

describe('comparison ranges', () => {
  it('previous period: the same number of days just before; previous year: the same dates (29 Feb -> 28 Feb)', () => {
    expect(comparisonRange(JUNE, 'previous_period')).toEqual({ from: '2026-05-25', to: '2026-05-31' });
    expect(comparisonRange({ from: '2026-03-01', to: '2026-03-31' }, 'previous_period')).toEqual({ from: '2026-01-29', to: '2026-02-28' });
    expect(comparisonRange(JUNE, 'previous_year')).toEqual({ from: '2025-06-01', to: '2025-06-07' });
    expect(comparisonRange({ from: '2028-02-29', to: '2028-02-29' }, 'previous_year')).toEqual({ from: '2027-02-28', to: '2027-02-28' });
    expect(comparisonRange(JUNE, 'none')).toBeNull();
  });
});

describe('KPIs from the rollups, hand-computed', () => {
  it('every KPI with the previous period and its delta', async () => {
    const store = await createCommerceStore(orm);
    await seedFixture(store.id);
    const result = await kpis(orm.em.fork(), { id: store.id, currency: 'GBP' }, { ...JUNE, compare: 'previous_period' });
    expect(result.currency).toBe('GBP');
    expect(result.previousRange).toEqual({ from: '2026-05-25', to: '2026-05-31' });

    const current = Object.fromEntries(Object.entries(result.kpis).map(([key, value]) => [key, value.current]));
    expect(current).toEqual({
      netSales: 9_000 + 5_000 + 3_000 + 4_000 - 2_000 + 6_800, // 25 800
      spend: 3_000 + 3_400 + 500, // 6 900
      clicks: 170,
      orders: 5,
      roas: 25_800 / 6_400, // every order's net sales / ad spend (Google 30.00 + Meta 34.00; Klaviyo's 5.00 is not ad spend)
      cac: 3_450, // 6 900 / 2 new customers (guests are not customers)
      mer: (25_800 + 500 + 680 + 1_800) / 6_900, // net sales + shipping + taxes / ads + e-mail
      aov: 5_160,
      ltv: 7_500, // c1: 70.00 + 30.00, c2: 50.00 -> 150.00 / 2
    });
    const previous = Object.fromEntries(Object.entries(result.kpis).map(([key, value]) => [key, value.previous]));
    expect(previous).toEqual({ netSales: 4_000, spend: 2_000, clicks: 80, orders: 1, roas: 2, cac: 2_000, mer: 2, aov: 4_000, ltv: 4_000 });
    expect(result.kpis.netSales.delta).toEqual({ absolute: 21_800, percent: 545 });
    expect(result.kpis.orders.delta).toEqual({ absolute: 4, percent: 400 });
    expect(result.kpis.cac.delta).toEqual({ absolute: 1_450, percent: 72.5 });
    expect(result.kpis.ltv.delta).toEqual({ absolute: 3_500, percent: 87.5 });
    expect(result.kpis.roas.delta.absolute).toBeCloseTo(25_800 / 6_400 - 2, 10);
    expect(result.kpis.roas.current).toBe(4.03125);
  });

  it('a daily series for sparklines, with a refund lowering its own day and "—" where a ratio is undefined', async () => {
    const store = await createCommerceStore(orm);
    await seedFixture(store.id);
    const { series } = await kpis(orm.em.fork(), { id: store.id, currency: 'GBP' }, { ...JUNE, compare: 'none' });
    expect(series.map((day) => day.day)).toEqual(['2026-06-01', '2026-06-02', '2026-06-03', '2026-06-04', '2026-06-05', '2026-06-06', '2026-06-07']);
    expect(series[0]).toEqual({ day: '2026-06-01', netSales: 9_000, spend: 3_000, clicks: 100, orders: 1, newCustomers: 1, roas: 3, cac: 3_000, mer: 11_300 / 3_000, aov: 9_000 });
    // Only e-mail spend that day: no ad spend, so no ROAS; MER counts e-mail spend.
    expect(series[1]).toMatchObject({ netSales: 5_000, spend: 500, roas: null, mer: 10 });
    expect(series[2]).toMatchObject({ netSales: 7_000, orders: 2, spend: 0, roas: null, mer: null, aov: 3_500 });
    expect(series[3]).toEqual({ day: '2026-06-04', netSales: 0, spend: 0, clicks: 0, orders: 0, newCustomers: 0, roas: null, cac: null, mer: null, aov: null });
    expect(series[4]).toMatchObject({ netSales: -2_000, orders: 0, aov: null });
    expect(series[5]).toMatchObject({ netSales: 6_800, spend: 3_400, roas: 2, mer: 2.2, cac: null });
    expect(formatRatio(series[3]!.roas)).toBe('—');
  });

  it("per channel: the attributed ROAS beside the platform's own", async () => {
    const store = await createCommerceStore(orm);
    await seedFixture(store.id);
    const { channels } = await kpis(orm.em.fork(), { id: store.id, currency: 'GBP' }, { ...JUNE, compare: 'none' });
    expect(channels).toEqual([
      { channel: 'metaads', spend: 3_400, netSales: 6_800, orders: 1, newCustomers: 0, impressions: 4_000, clicks: 50, platformConversions: 1, platformConversionValue: 6_800, roas: 2, platformRoas: 2, cac: null },
      { channel: 'googleads', spend: 3_000, netSales: 7_000, orders: 1, newCustomers: 1, impressions: 1_000, clicks: 100, platformConversions: 2, platformConversionValue: 12_000, roas: 7_000 / 3_000, platformRoas: 4, cac: 3_000 },
      { channel: 'klaviyo', spend: 500, netSales: 5_000, orders: 1, newCustomers: 1, impressions: 0, clicks: 20, platformConversions: 1, platformConversionValue: 6_000, roas: 10, platformRoas: 12, cac: 500 },
      { channel: 'direct', spend: 0, netSales: 7_000, orders: 2, newCustomers: 0, impressions: 0, clicks: 0, platformConversions: 0, platformConversionValue: 0, roas: null, platformRoas: null, cac: null },
    ]);
  });

  it("converts every day's rows at that day's rate into the display currency", async () => {
    const store = await createCommerceStore(orm);
    await seedFixture(store.id);
    const result = await kpis(orm.em.fork(), { id: store.id, currency: 'GBP' }, { ...JUNE, compare: 'none', currency: 'EUR' });
    expect(result.currency).toBe('EUR');
    // GBP rows / rate(GBP) and USD rows / rate(USD), each on its own day (the 6th uses Friday the 5th).
    const expected = 9_000 / 0.85 + 5_000 / 0.85 + 3_000 / 0.88 + 5_000 / 1.1 - 2_000 / 0.85 + 10_000 / 1.25;
    expect(result.kpis.netSales.current).toBe(Math.round(expected)); // 30 072
    expect(result.kpis.spend.current).toBe(Math.round(3_000 / 0.85 + 500 / 0.85 + 5_000 / 1.25));
    const usd = await kpis(orm.em.fork(), { id: store.id, currency: 'GBP' }, { from: '2026-06-03', to: '2026-06-03', compare: 'none', currency: 'USD' });
    expect(usd.kpis.netSales.current).toBe(Math.round((3_000 * 1.1) / 0.88 + 5_000)); // 3750 + 5000
  });

  it('names the currency and day when a row cannot be converted for lack of a rate', async () => {
    // A store in a currency without any rate: its own currency needs none, any other display currency does.
    const store = await createCommerceStore(orm, { currency: 'JPY' });
    await ingestOrders(orm.em.fork(), store.id, [testOrder({ placedAt: '2026-06-02T10:00:00Z', currency: 'JPY', grossMinor: 12_000 })]);
    const own = await kpis(orm.em.fork(), { id: store.id, currency: 'JPY' }, { ...JUNE, compare: 'none' });
    expect(own.kpis.netSales.current).toBe(12_000);
    await expect(kpis(orm.em.fork(), { id: store.id, currency: 'JPY' }, { ...JUNE, compare: 'none', currency: 'GBP' })).rejects.toThrow(
      'No exchange rate for JPY on or before 2026-06-02',
    );
  });

  it('compares with the same dates a year earlier; no data there means no previous value and no percent', async () => {
    const store = await createCommerceStore(orm);
    await seedFixture(store.id);
    const result = await kpis(orm.em.fork(), { id: store.id, currency: 'GBP' }, { ...JUNE, compare: 'previous_year' });
    expect(result.previousRange).toEqual({ from: '2025-06-01', to: '2025-06-07' });
    expect(result.kpis.netSales).toEqual({ current: 25_800, previous: 0, delta: { absolute: 25_800, percent: null } });
    expect(result.kpis.roas.previous).toBeNull();
    expect(result.kpis.roas.delta).toEqual({ absolute: null, percent: null });
  });

  it('a store without spend has no ROAS, CAC or MER: shown as "—", never Infinity or NaN', async () => {
    const store = await createCommerceStore(orm);
    await ingestOrders(orm.em.fork(), store.id, [testOrder({ externalId: 'only', placedAt: '2026-06-02T10:00:00Z', grossMinor: 2_500, gclid: 'x', customer: { externalId: 'solo' } })]);
    const result = await kpis(orm.em.fork(), { id: store.id, currency: 'GBP' }, { ...JUNE, compare: 'previous_period' });
    expect(result.kpis.spend.current).toBe(0);
    expect(result.kpis.roas.current).toBeNull();
    expect(result.kpis.cac.current).toBeNull();
    expect(result.kpis.mer.current).toBeNull();
    expect(result.kpis.aov.current).toBe(2_500);
    expect(formatMultiple(result.kpis.roas.current)).toBe('—');
    expect(formatRatio(result.kpis.mer.current)).toBe('—');
    expect(JSON.stringify(result)).not.toMatch(/Infinity|NaN/);
    const empty = await kpis(orm.em.fork(), { id: store.id, currency: 'GBP' }, { from: '2020-01-01', to: '2020-01-31', compare: 'previous_year' });
    expect(empty.kpis.aov.current).toBeNull();
    expect(empty.kpis.ltv.current).toBeNull();
    expect(empty.series).toHaveLength(31);
  });

  it("never includes another store's rows", async () => {
    const a = await createCommerceStore(orm);
    const b = await createCommerceStore(orm);
    await seedFixture(a.id);
    await ingestOrders(orm.em.fork(), b.id, [testOrder({ externalId: 'A', placedAt: '2026-06-01T10:00:00Z', grossMinor: 99_900 })]);
    await ingestAdMetrics(orm.em.fork(), b.id, [{ platform: 'googleads', accountId: 'g', campaignId: 'brand', day: '2026-06-01', campaignName: 'B', currency: 'GBP', spendMinor: 77_700 }]);
    const resultA = await kpis(orm.em.fork(), { id: a.id, currency: 'GBP' }, { ...JUNE, compare: 'none' });
    const resultB = await kpis(orm.em.fork(), { id: b.id, currency: 'GBP' }, { ...JUNE, compare: 'none' });
    expect(resultA.kpis.netSales.current).toBe(25_800);
    expect(resultA.kpis.spend.current).toBe(6_900);
    expect(resultB.kpis.netSales.current).toBe(99_900);
    expect(resultB.kpis.spend.current).toBe(77_700);
  });
});

describe('LTV by monthly cohort', () => {
  it('averages net sales per customer within each horizon of their first order, and says which horizons are complete', async () => {
    const store = await createCommerceStore(orm);
    await ingestOrders(orm.em.fork(), store.id, [
      testOrder({ externalId: 'j1', placedAt: '2026-01-10T10:00:00Z', grossMinor: 1_000, customer: { externalId: 'x' } }),
      testOrder({ externalId: 'j2', placedAt: '2026-02-20T10:00:00Z', grossMinor: 2_000, customer: { externalId: 'x' } }), // day 41
      testOrder({ externalId: 'j3', placedAt: '2026-01-31T10:00:00Z', grossMinor: 3_000, customer: { externalId: 'y' } }),
      testOrder({ externalId: 'f1', placedAt: '2026-02-01T10:00:00Z', grossMinor: 500, customer: { externalId: 'z' } }),
    ]);
    const result = await ltvCohorts(orm.em.fork(), { id: store.id, currency: 'GBP', timezone: 'Europe/London' }, { months: 3 }, new Date('2026-03-15T12:00:00Z'));
    expect(result.cohorts.map((cohort) => cohort.month)).toEqual(['2026-01', '2026-02', '2026-03']);
    expect(result.cohorts[0]).toEqual({
      month: '2026-01',
      customers: 2,
      ltv: { 30: 2_000, 60: 3_000, 90: 3_000, 180: 3_000, 365: 3_000 },
      complete: { 30: true, 60: false, 90: false, 180: false, 365: false },
    });
    expect(result.cohorts[1]).toMatchObject({ customers: 1, ltv: { 30: 500 } });
    expect(result.cohorts[2]).toMatchObject({ customers: 0, ltv: { 30: null, 365: null } });
  });
});

describe('commerce.kpis through the router', () => {
  const storeOwner = (prefix: string) => signedInStoreOwner(testApp, prefix);
  const getKpis = (client: ApiClient, input: Record<string, unknown>) => trpcQuery(client, 'commerce.kpis', input);

  it("reads the active store only; another user's store id is 404", async () => {
    const owner = await storeOwner('kpiowner');
    const other = await storeOwner('kpiother');
    await seedFixture(owner.store.id);
    await ingestOrders(orm.em.fork(), other.store.id, [testOrder({ externalId: 'mine', placedAt: '2026-06-02T10:00:00Z', grossMinor: 1_234 })]);

    const own = await getKpis(owner.client, { ...JUNE, compare: 'previous_period' });
    expect(own.status).toBe(200);
    expect(own.body.result.data.kpis.netSales).toEqual({ current: 25_800, previous: 4_000, delta: { absolute: 21_800, percent: 545 } });
    expect(own.body.result.data.storeId).toBe(owner.store.id);

    const theirs = await getKpis(other.client, { ...JUNE, compare: 'none' });
    expect(theirs.body.result.data.kpis.netSales.current).toBe(1_234);
    expect(theirs.body.result.data.storeId).toBe(other.store.id);

    const intrusion = await getKpis(other.client, { ...JUNE, compare: 'none', storeId: owner.store.id });
    expect(intrusion.status).toBe(404);
    expect(intrusion.body.error.message).toBe('Store not found');
    expect(JSON.stringify(intrusion.body)).not.toContain('25800');

    const explicitOwn = await getKpis(owner.client, { ...JUNE, compare: 'none', storeId: owner.store.id, currency: 'EUR' });
    expect(explicitOwn.body.result.data.currency).toBe('EUR');
  });

  it('dataStatus: an empty store has no data; after ingest its orders, span and platforms; another user\'s store is 404', async () => {
    const owner = await storeOwner('statusowner');
    const other = await storeOwner('statusother');
    const status = (client: ApiClient, input?: Record<string, unknown>) =>
      client.get(`/trpc/commerce.dataStatus${input ? `?input=${encodeURIComponent(JSON.stringify(input))}` : ''}`);

    const empty = await status(owner.client);
    expect(empty.status).toBe(200);
    expect(empty.body.result.data).toEqual({ storeId: owner.store.id, hasData: false, orders: 0, firstDay: null, lastDay: null, adPlatforms: [], emailPlatforms: [] });

    await seedFixture(owner.store.id);
    const loaded = await status(owner.client, { storeId: owner.store.id });
    // A..F: six counting orders, from E on 28 May to D and Meta's spend on 6 June.
    expect(loaded.body.result.data).toEqual({
      storeId: owner.store.id,
      hasData: true,
      orders: 6,
      firstDay: '2026-05-28',
      lastDay: '2026-06-06',
      adPlatforms: ['googleads', 'metaads'],
      emailPlatforms: ['klaviyo'],
    });

    const intrusion = await status(other.client, { storeId: owner.store.id });
    expect(intrusion.status).toBe(404);
    expect((await status(other.client)).body.result.data.hasData).toBe(false);
  });

  it('validates the range and needs a subscription and a store', async () => {
    const owner = await storeOwner('kpival');
    const reversed = await getKpis(owner.client, { from: '2026-06-07', to: '2026-06-01', compare: 'none' });
    expect(reversed.status).toBe(400);
    expect(reversed.body.error.message).toBe('The start date must not be after the end date');
    expect((await getKpis(owner.client, { from: '2026-02-30', to: '2026-03-01' })).status).toBe(400);
    expect((await getKpis(owner.client, { from: '2024-01-01', to: '2026-06-01' })).body.error.message).toBe('A range can span at most 800 days');
    expect((await getKpis(owner.client, { ...JUNE, currency: 'JPY' })).status).toBe(400);

    const unsubscribed = await signedInClient(app, 'kpinosub');
    expect((await getKpis(unsubscribed.client, JUNE)).status).toBe(403);
    const storeless = await signedInClient(app, 'kpinostore');
    await grantTestPlan(orm, storeless.credentials.username, 'business');
    expect((await getKpis(storeless.client, JUNE)).body.error.message).toBe('No active store selected');
  });
});
