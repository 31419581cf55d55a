import { describe, expect, it } from 'vitest';
import { createCommerceStore, setFxRates, signedInStoreOwner, testOrder } from '../../../../test/commerce-fixtures.ts';
import { trpcQuery, useTestApp, type ApiClient } from '../../../../test/harness.ts';
import { ingestAdMetrics, ingestEmailMetrics, ingestOrders, upsertProducts } from '../commerce/ingest.ts';
import { distribution, paretoOf, roasHistogram } from './distribution.service.ts';
import { bucketsOf, trend } from './trend.service.ts';

const testApp = useTestApp();

/**
 * Store in GBP (no conversion), June 2026 starts on a Monday:
 *   20 May  P  60.00 direct                     (the previous period of 1-14 June)
 *    1 Jun  A 100.00 Google Ads click          Google Ads spend 30.00, 10 clicks
 *    3 Jun  B  50.00 direct
 *    8 Jun  C  80.00 Klaviyo e-mail            Google Ads spend 20.00, 5 clicks; Klaviyo spend 5.00, 3 clicks
 *   30 Jun  D  20.00 direct
 *    2 Jul  E  40.00 Google Ads click
 */
async function seedTrendFixture(storeId: number) {
  const em = testApp.orm.em.fork();
  await ingestOrders(em, storeId, [
    testOrder({ externalId: 'P', placedAt: '2026-05-20T10:00:00Z', grossMinor: 6_000 }),
    testOrder({ externalId: 'A', placedAt: '2026-06-01T10:00:00Z', grossMinor: 10_000, gclid: 'a' }),
    testOrder({ externalId: 'B', placedAt: '2026-06-03T10:00:00Z', grossMinor: 5_000 }),
    testOrder({ externalId: 'C', placedAt: '2026-06-08T10:00:00Z', grossMinor: 8_000, utmSource: 'klaviyo', utmMedium: 'email' }),
    testOrder({ externalId: 'D', placedAt: '2026-06-30T10:00:00Z', grossMinor: 2_000 }),
    testOrder({ externalId: 'E', placedAt: '2026-07-02T10:00:00Z', grossMinor: 4_000, gclid: 'e' }),
  ]);
  await ingestAdMetrics(em, storeId, [
    { platform: 'googleads', accountId: 'g', campaignId: 'c', day: '2026-06-01', campaignName: 'C', currency: 'GBP', spendMinor: 3_000, clicks: 10 },
    { platform: 'googleads', accountId: 'g', campaignId: 'c', day: '2026-06-08', campaignName: 'C', currency: 'GBP', spendMinor: 2_000, clicks: 5 },
  ]);
  await ingestEmailMetrics(em, storeId, [{ platform: 'klaviyo', campaignId: 'k', day: '2026-06-08', campaignName: 'K', currency: 'GBP', clicks: 3, spendMinor: 500 }]);
}

const TWO_WEEKS = { from: '2026-06-01', to: '2026-06-14' };

describe('trend buckets', () => {
  it('cuts a range into days, Monday-to-Sunday weeks or calendar months, clipped at both ends', () => {
    expect(bucketsOf({ from: '2026-06-03', to: '2026-06-05' }, 'day')).toEqual([
      { from: '2026-06-03', to: '2026-06-03' },
      { from: '2026-06-04', to: '2026-06-04' },
      { from: '2026-06-05', to: '2026-06-05' },
    ]);
    // 3 June 2026 is a Wednesday, 7 June a Sunday.
    expect(bucketsOf({ from: '2026-06-03', to: '2026-06-16' }, 'week')).toEqual([
      { from: '2026-06-03', to: '2026-06-07' },
      { from: '2026-06-08', to: '2026-06-14' },
      { from: '2026-06-15', to: '2026-06-16' },
    ]);
    expect(bucketsOf({ from: '2026-01-15', to: '2026-03-02' }, 'month')).toEqual([
      { from: '2026-01-15', to: '2026-01-31' },
      { from: '2026-02-01', to: '2026-02-28' },
      { from: '2026-03-01', to: '2026-03-02' },
    ]);
  });
});

describe('analytics.trend, hand-computed', () => {
  it('weekly net sales beside the previous period, aligned by position, with the total and its delta', async () => {
    const store = await createCommerceStore(testApp.orm);
    await seedTrendFixture(store.id);
    const result = await trend(testApp.orm.em.fork(), { id: store.id, currency: 'GBP' }, { kpi: 'netSales', granularity: 'week', ...TWO_WEEKS, compare: 'previous_period' });
    expect(result.previousRange).toEqual({ from: '2026-05-18', to: '2026-05-31' });
    expect(result.points).toEqual([
      { from: '2026-06-01', to: '2026-06-07', value: 15_000, previousFrom: '2026-05-18', previousTo: '2026-05-24', previousValue: 6_000 },
      { from: '2026-06-08', to: '2026-06-14', value: 8_000, previousFrom: '2026-05-25', previousTo: '2026-05-31', previousValue: 0 },
    ]);
    expect(result.total.current).toBe(23_000);
    expect(result.total.previous).toBe(6_000);
    expect(result.total.delta.absolute).toBe(17_000);
    expect(result.total.delta.percent).toBeCloseTo((17_000 / 6_000) * 100, 10);
  });

  it('breaks net sales down by channel per bucket, largest channel first', async () => {
    const store = await createCommerceStore(testApp.orm);
    await seedTrendFixture(store.id);
    const result = await trend(testApp.orm.em.fork(), { id: store.id, currency: 'GBP' }, { kpi: 'netSales', granularity: 'week', ...TWO_WEEKS, compare: 'none' });
    expect(result.breakdown).toEqual([
      { channel: 'googleads', total: 10_000, values: [10_000, 0] },
      { channel: 'klaviyo', total: 8_000, values: [0, 8_000] },
      { channel: 'direct', total: 5_000, values: [5_000, 0] },
    ]);
    const spend = await trend(testApp.orm.em.fork(), { id: store.id, currency: 'GBP' }, { kpi: 'spend', granularity: 'week', ...TWO_WEEKS, compare: 'none' });
    expect(spend.points.map((point) => point.value)).toEqual([3_000, 2_500]);
    expect(spend.breakdown).toEqual([
      { channel: 'googleads', total: 5_000, values: [3_000, 2_000] },
      { channel: 'klaviyo', total: 500, values: [0, 500] },
    ]);
  });

  it('ratios are computed per bucket from its totals (blended ROAS = net sales / ad spend), without a channel breakdown', async () => {
    const store = await createCommerceStore(testApp.orm);
    await seedTrendFixture(store.id);
    const result = await trend(testApp.orm.em.fork(), { id: store.id, currency: 'GBP' }, { kpi: 'roas', granularity: 'week', from: '2026-06-01', to: '2026-06-21', compare: 'none' });
    expect(result.points.map((point) => point.value)).toEqual([5, 4, null]); // 150 / 30, 80 / 20, no spend
    expect(result.total.current).toBe(23_000 / 5_000);
    expect(result.breakdown).toBeNull();
  });

  it('by calendar month; without comparison there are no previous values', async () => {
    const store = await createCommerceStore(testApp.orm);
    await seedTrendFixture(store.id);
    const result = await trend(testApp.orm.em.fork(), { id: store.id, currency: 'GBP' }, { kpi: 'orders', granularity: 'month', from: '2026-05-20', to: '2026-07-05', compare: 'none' });
    expect(result.previousRange).toBeNull();
    expect(result.points).toEqual([
      { from: '2026-05-20', to: '2026-05-31', value: 1, previousFrom: null, previousTo: null, previousValue: null },
      { from: '2026-06-01', to: '2026-06-30', value: 4, previousFrom: null, previousTo: null, previousValue: null },
      { from: '2026-07-01', to: '2026-07-05', value: 1, previousFrom: null, previousTo: null, previousValue: null },
    ]);
    expect(result.total).toEqual({ current: 6, previous: null, delta: { absolute: null, percent: null } });
  });
});

describe('distribution maths', () => {
  it('a Pareto curve: positive items largest first, shares and cumulative shares, the top 10 %', () => {
    const result = paretoOf([
      { key: 'a', label: 'A', value: 6_000 },
      { key: 'b', label: 'B', value: 1_000 },
      { key: 'c', label: 'C', value: 3_000 },
      { key: 'z', label: 'Z', value: 0 },
    ]);
    expect(result.count).toBe(3);
    expect(result.total).toBe(10_000);
    expect(result.points.map((point) => [point.key, point.share, point.cumulativeShare])).toEqual([
      ['a', 0.6, 0.6],
      ['c', 0.3, 0.9],
      ['b', 0.1, 1],
    ]);
    expect(result.top10).toEqual({ count: 1, share: 0.6 });
    expect(paretoOf([])).toEqual({ count: 0, total: 0, points: [], top10: { count: 0, share: null } });
  });

  it('beyond 50 points the smallest items become one "others" point; the top 10 % counts every item', () => {
    const items = Array.from({ length: 60 }, (_, index) => ({ key: `k${index}`, label: `L${index}`, value: 60 - index })); // 60 .. 1
    const result = paretoOf(items);
    expect(result.points).toHaveLength(50);
    expect(result.points.at(-1)).toMatchObject({ key: '__others__', items: 11, value: 66, cumulativeShare: 1 }); // 11 + 10 + ... + 1
    expect(result.total).toBe(1_830);
    expect(result.top10).toEqual({ count: 6, share: (60 + 59 + 58 + 57 + 56 + 55) / 1_830 });
  });

  it('a histogram of platform ROAS in fixed buckets, [from, to), and campaigns without spend apart', () => {
    const histogram = roasHistogram([
      { spend: 4_000, revenue: 1_000 }, // 0.25
      { spend: 1_000, revenue: 500 }, // 0.5 -> 0.5-1
      { spend: 1_000, revenue: 1_000 }, // 1 -> 1-2
      { spend: 2_000, revenue: 3_000 }, // 1.5
      { spend: 1_000, revenue: 4_999 }, // 4.999 -> 3-5
      { spend: 1_000, revenue: 5_000 }, // 5 -> 5+
      { spend: 0, revenue: 700 },
    ]);
    expect(histogram).toEqual([
      { bucket: '0-0.5', campaigns: 1, spend: 4_000 },
      { bucket: '0.5-1', campaigns: 1, spend: 1_000 },
      { bucket: '1-2', campaigns: 2, spend: 3_000 },
      { bucket: '2-3', campaigns: 0, spend: 0 },
      { bucket: '3-5', campaigns: 1, spend: 1_000 },
      { bucket: '5+', campaigns: 1, spend: 1_000 },
      { bucket: 'no_spend', campaigns: 1, spend: 0 },
    ]);
  });
});

describe('analytics.distribution, hand-computed', () => {
  it('campaigns of every ad platform and products by net line sales, in the range only', async () => {
    const store = await createCommerceStore(testApp.orm);
    const em = testApp.orm.em.fork();
    await ingestAdMetrics(em, store.id, [
      { platform: 'googleads', accountId: 'g', campaignId: 'brand', day: '2026-06-02', campaignName: 'Brand', currency: 'GBP', spendMinor: 1_000, conversionValueMinor: 6_000 },
      { platform: 'googleads', accountId: 'g', campaignId: 'shop', day: '2026-06-02', campaignName: 'Shopping', currency: 'GBP', spendMinor: 2_000, conversionValueMinor: 3_000 },
      { platform: 'metaads', accountId: 'm', campaignId: 'pros', day: '2026-06-03', campaignName: 'Prospecting', currency: 'GBP', spendMinor: 4_000, conversionValueMinor: 1_000 },
      { platform: 'bingads', accountId: 'b', campaignId: 'idle', day: '2026-06-03', campaignName: 'Idle', currency: 'GBP', spendMinor: 0, impressions: 100 },
      { platform: 'googleads', accountId: 'g', campaignId: 'old', day: '2026-05-01', campaignName: 'Old', currency: 'GBP', spendMinor: 9_000, conversionValueMinor: 9_000 },
    ]);
    await upsertProducts(em, store.id, [
      { platform: 'shopify', externalId: 'mug', title: 'Mug', priceMinor: 1_500, currency: 'GBP' },
      { platform: 'shopify', externalId: 'tee', title: 'T-shirt', priceMinor: 3_000, currency: 'GBP' },
    ]);
    await ingestOrders(em, store.id, [
      testOrder({
        externalId: 'o1', placedAt: '2026-06-02T10:00:00Z', grossMinor: 6_000, discountsMinor: 500,
        lines: [
          { productExternalId: 'mug', title: 'Mug', quantity: 2, unitPriceMinor: 1_500, discountMinor: 500 },
          { productExternalId: 'tee', title: 'T-shirt', quantity: 1, unitPriceMinor: 3_000 },
        ],
      }),
      testOrder({
        externalId: 'o2', placedAt: '2026-06-04T10:00:00Z', grossMinor: 1_700,
        lines: [
          { productExternalId: 'mug', title: 'Mug', quantity: 1, unitPriceMinor: 1_500 },
          { title: 'Gift wrap', quantity: 1, unitPriceMinor: 200 },
        ],
      }),
      testOrder({ externalId: 'o3', placedAt: '2026-06-04T11:00:00Z', grossMinor: 30_000, status: 'cancelled', lines: [{ productExternalId: 'tee', title: 'T-shirt', quantity: 10, unitPriceMinor: 3_000 }] }),
      testOrder({ externalId: 'o4', placedAt: '2026-05-04T11:00:00Z', grossMinor: 15_000, lines: [{ productExternalId: 'mug', title: 'Mug', quantity: 10, unitPriceMinor: 1_500 }] }),
    ]);

    const result = await distribution(testApp.orm.em.fork(), { id: store.id, currency: 'GBP' }, { from: '2026-06-01', to: '2026-06-07' });
    expect(result.campaigns.count).toBe(4);
    expect(result.campaigns.totalSpend).toBe(7_000);
    expect(result.campaigns.totalRevenue).toBe(10_000);
    expect(result.campaigns.revenue.points.map((point) => [point.label, point.value, point.cumulativeShare])).toEqual([
      ['Brand', 6_000, 0.6],
      ['Shopping', 3_000, 0.9],
      ['Prospecting', 1_000, 1],
    ]);
    expect(result.campaigns.revenue.top10).toEqual({ count: 1, share: 0.6 });
    expect(result.campaigns.spend.points.map((point) => point.label)).toEqual(['Prospecting', 'Shopping', 'Brand']);
    expect(result.campaigns.spend.top10).toEqual({ count: 1, share: 4_000 / 7_000 });
    expect(result.campaigns.roasHistogram.map((bucket) => bucket.campaigns)).toEqual([1, 0, 1, 0, 0, 1, 1]); // 0.25, 1.5, 6, Idle without spend

    expect(result.products.revenue.points.map((point) => [point.label, point.value])).toEqual([
      ['Mug', 4_000], // 2 x 15.00 - 5.00 + 15.00
      ['T-shirt', 3_000],
      ['Gift wrap', 200],
    ]);
    expect(result.products.revenue.top10).toEqual({ count: 1, share: 4_000 / 7_200 });
  });

  it('a renamed campaign takes its latest name; rows in another currency convert at their own day', async () => {
    const store = await createCommerceStore(testApp.orm);
    const em = testApp.orm.em.fork();
    // USD 1.25 then 1.00 per EUR, GBP 0.85 throughout: USD 1.00 = GBP 0.68 on the 2nd, GBP 0.85 on the 3rd.
    await setFxRates(em, [
      { day: '2026-06-02', currency: 'USD', rate: 1.25 },
      { day: '2026-06-02', currency: 'GBP', rate: 0.85 },
      { day: '2026-06-03', currency: 'USD', rate: 1 },
      { day: '2026-06-03', currency: 'GBP', rate: 0.85 },
    ]);
    await ingestAdMetrics(em, store.id, [
      { platform: 'googleads', accountId: 'g', campaignId: 'sale', day: '2026-06-02', campaignName: 'Spring sale', currency: 'GBP', spendMinor: 1_000, conversionValueMinor: 2_000 },
      { platform: 'googleads', accountId: 'g', campaignId: 'sale', day: '2026-06-03', campaignName: 'Summer sale', currency: 'GBP', spendMinor: 1_000, conversionValueMinor: 2_000 },
      { platform: 'googleads', accountId: 'g', campaignId: 'sale', day: '2026-06-04', campaignName: ' ', currency: 'GBP', spendMinor: 500, conversionValueMinor: 0 },
      { platform: 'metaads', accountId: 'us', campaignId: 'usa', day: '2026-06-02', campaignName: 'USA', currency: 'USD', spendMinor: 10_000, conversionValueMinor: 0 },
      { platform: 'metaads', accountId: 'us', campaignId: 'usa', day: '2026-06-03', campaignName: 'USA', currency: 'USD', spendMinor: 10_000, conversionValueMinor: 0 },
    ]);
    await upsertProducts(em, store.id, [{ platform: 'shopify', externalId: 'mug', title: 'Mug', priceMinor: 1_500, currency: 'GBP' }]);
    await ingestOrders(em, store.id, [
      testOrder({ externalId: 'gbp', placedAt: '2026-06-02T10:00:00Z', grossMinor: 1_500, lines: [{ productExternalId: 'mug', title: 'Mug', quantity: 1, unitPriceMinor: 1_500 }] }),
      testOrder({ externalId: 'usd-1', placedAt: '2026-06-02T10:00:00Z', currency: 'USD', grossMinor: 1_000, lines: [{ productExternalId: 'mug', title: 'Mug', quantity: 1, unitPriceMinor: 1_000 }] }),
      testOrder({ externalId: 'usd-2', placedAt: '2026-06-03T10:00:00Z', currency: 'USD', grossMinor: 1_000, lines: [{ productExternalId: 'mug', title: 'Mug', quantity: 1, unitPriceMinor: 1_000 }] }),
    ]);

    const result = await distribution(testApp.orm.em.fork(), { id: store.id, currency: 'GBP' }, { from: '2026-06-01', to: '2026-06-07' });
    expect(result.campaigns.spend.points.map((point) => [point.label, point.value])).toEqual([
      ['USA', 15_300], // 100.00 x 0.68 + 100.00 x 0.85
      ['Summer sale', 2_500], // the 4th has no name: the 3rd's is the latest
    ]);
    expect(result.products.revenue.points.map((point) => [point.label, point.value])).toEqual([
      ['Mug', 3_030], // 15.00 + 10.00 x 0.68 + 10.00 x 0.85
    ]);
  });
});

describe('analytics procedures through the router', () => {
  function query(client: ApiClient, path: string, input: Record<string, unknown>) {
    return trpcQuery(client, `analytics.${path}`, input);
  }

  it("reads the active store; another user's store answers 404", async () => {
    const owner = await signedInStoreOwner(testApp, 'anowner');
    const other = await signedInStoreOwner(testApp, 'another');
    await seedTrendFixture(owner.store.id);

    const own = await query(owner.client, 'trend', { kpi: 'netSales', granularity: 'week', ...TWO_WEEKS, compare: 'none' });
    expect(own.status).toBe(200);
    expect(own.body.result.data.total.current).toBe(23_000);
    const theirs = await query(other.client, 'trend', { kpi: 'netSales', granularity: 'week', ...TWO_WEEKS, compare: 'none' });
    expect(theirs.body.result.data.total.current).toBe(0);

    for (const path of ['trend', 'distribution']) {
      const intrusion = await query(other.client, path, { kpi: 'netSales', ...TWO_WEEKS, storeId: owner.store.id });
      expect(intrusion.status).toBe(404);
      expect(intrusion.body.error.message).toBe('Store not found');
    }
  });

  it('explains bad input', async () => {
    const owner = await signedInStoreOwner(testApp, 'anval');
    const kpi = await query(owner.client, 'trend', { kpi: 'happiness', ...TWO_WEEKS });
    expect(kpi.status).toBe(400);
    expect(kpi.body.error.message).toBe('Unknown KPI');
    const granularity = await query(owner.client, 'trend', { kpi: 'orders', granularity: 'hour', ...TWO_WEEKS });
    expect(granularity.body.error.message).toBe('Granularity must be day, week or month');
    const reversed = await query(owner.client, 'distribution', { from: '2026-06-07', to: '2026-06-01' });
    expect(reversed.status).toBe(400);
    expect(reversed.body.error.message).toBe('The start date must not be after the end date');
  });
});
