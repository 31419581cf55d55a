import { describe, expect, it } from 'vitest';
import { createCommerceStore, setFlatFxRates, signedInStoreOwner, testOrder } from '../../../../test/commerce-fixtures.ts';
import { signedInClient, trpcQuery, useTestApp, type ApiClient } from '../../../../test/harness.ts';
import { ingestAdMetrics, ingestOrders, ingestRefunds } from '../commerce/ingest.ts';
import { campaigns } from './campaigns.service.ts';

const testApp = useTestApp();

const JUNE = { from: '2026-06-01', to: '2026-06-07' };

/**
 * The hand-computed fixture (store in GBP; 1 USD = 0.68 GBP on every day: 0.85 GBP and 1.25 USD per EUR):
 * Google Ads, account g1, 1-7 June 2026:
 *   brand  1 Jun  "Brand"         spend 30.00, 1,000 impressions, 100 clicks, 2 conversions worth 120.00
 *   brand  2 Jun  "Brand Search"  spend 10.00,   500 impressions,  20 clicks, 1 conversion  worth  30.00
 *   shop   3 Jun  "Shopping"      spend USD 50.00 = 34.00, 4,000 impressions, 50 clicks, no conversions
 *   pmax  28 May  (previous period only) spend 20.00, 800 impressions, 40 clicks
 * Orders whose channel is googleads (gclid):
 *   A  1 Jun  100.00, utm_campaign "brand" (the id)    refunded 20.00 on 5 Jun -> 80.00 after refunds
 *   B  2 Jun   50.00, utm_campaign "shopping" (name, other case)
 *   C  3 Jun   40.00, no utm_campaign                   -> not matched to a campaign
 *   X  4 Jun   30.00, "brand", cancelled                -> counts nowhere
 *   P 28 May   60.00 (previous period)
 * Noise that must not count: a Meta Ads campaign and a Meta order tagged "brand" on 1 Jun.
 */
async function seedGoogleFixture(storeId: number) {
  const em = testApp.orm.em.fork();
  await ingestAdMetrics(em, storeId, [
    { platform: 'googleads', accountId: 'g1', campaignId: 'brand', day: '2026-06-01', campaignName: 'Brand', currency: 'GBP', spendMinor: 3_000, impressions: 1_000, clicks: 100, conversions: 2, conversionValueMinor: 12_000 },
    { platform: 'googleads', accountId: 'g1', campaignId: 'brand', day: '2026-06-02', campaignName: 'Brand Search', currency: 'GBP', spendMinor: 1_000, impressions: 500, clicks: 20, conversions: 1, conversionValueMinor: 3_000 },
    { platform: 'googleads', accountId: 'g1', campaignId: 'shop', day: '2026-06-03', campaignName: 'Shopping', currency: 'USD', spendMinor: 5_000, impressions: 4_000, clicks: 50, conversions: 0, conversionValueMinor: 0 },
    { platform: 'googleads', accountId: 'g1', campaignId: 'pmax', day: '2026-05-28', campaignName: 'PMax', currency: 'GBP', spendMinor: 2_000, impressions: 800, clicks: 40 },
    { platform: 'metaads', accountId: 'm1', campaignId: 'brand', day: '2026-06-01', campaignName: 'Brand', currency: 'GBP', spendMinor: 9_900, impressions: 9_000, clicks: 900 },
  ]);
  await ingestOrders(em, storeId, [
    testOrder({ externalId: 'A', placedAt: '2026-06-01T10:00:00Z', grossMinor: 10_000, gclid: 'a', utmCampaign: 'brand' }),
    testOrder({ externalId: 'B', placedAt: '2026-06-02T10:00:00Z', grossMinor: 5_000, gclid: 'b', utmCampaign: 'shopping' }),
    testOrder({ externalId: 'C', placedAt: '2026-06-03T10:00:00Z', grossMinor: 4_000, gclid: 'c' }),
    testOrder({ externalId: 'X', placedAt: '2026-06-04T10:00:00Z', grossMinor: 3_000, gclid: 'x', utmCampaign: 'brand', status: 'cancelled' }),
    testOrder({ externalId: 'P', placedAt: '2026-05-28T10:00:00Z', grossMinor: 6_000, gclid: 'p' }),
    testOrder({ externalId: 'M', placedAt: '2026-06-01T11:00:00Z', grossMinor: 7_700, fbclid: 'm', utmCampaign: 'brand' }),
  ]);
  await ingestRefunds(em, storeId, [{ platform: 'shopify', externalId: 'refund-A', orderExternalId: 'A', refundedAt: '2026-06-05T09:00:00Z', amountMinor: 2_000, currency: 'GBP' }]);
}

function setFlatRates() {
  return setFlatFxRates(testApp.orm.em.fork(), '2026-05-20', '2026-06-10');
}

describe('campaigns of one advertising platform, hand-computed', () => {
  it('one row per campaign with the platform figures, its ratios and our orders matched on utm_campaign', async () => {
    await setFlatRates();
    const store = await createCommerceStore(testApp.orm);
    await seedGoogleFixture(store.id);
    const result = await campaigns(testApp.orm.em.fork(), { id: store.id, currency: 'GBP' }, { platform: 'googleads', ...JUNE, compare: 'previous_period' });

    expect(result.campaigns).toEqual([
      {
        accountId: 'g1', campaignId: 'brand', name: 'Brand Search', // the latest name
        spend: 4_000, impressions: 1_500, clicks: 120, ctr: 0.08, cpc: 33, cpm: 2_667, conversions: 3, conversionValue: 15_000, platformRoas: 3.75,
        orders: 1, netSales: 8_000, roas: 2, // A after its refund
      },
      {
        accountId: 'g1', campaignId: 'shop', name: 'Shopping',
        spend: 3_400, impressions: 4_000, clicks: 50, ctr: 0.0125, cpc: 68, cpm: 850, conversions: 0, conversionValue: 0, platformRoas: 0,
        orders: 1, netSales: 5_000, roas: 5_000 / 3_400,
      },
    ]);
    expect(result.attribution).toBe('campaign');
    expect(result.unmatched).toEqual({ orders: 1, netSales: 4_000 }); // C
  });

  it('totals for the platform as a whole (every order of its channel), with deltas against the previous period', async () => {
    await setFlatRates();
    const store = await createCommerceStore(testApp.orm);
    await seedGoogleFixture(store.id);
    const result = await campaigns(testApp.orm.em.fork(), { id: store.id, currency: 'GBP' }, { platform: 'googleads', ...JUNE, compare: 'previous_period' });

    expect(result.previousRange).toEqual({ from: '2026-05-25', to: '2026-05-31' });
    expect(result.totals).toEqual({
      spend: 7_400, impressions: 5_500, clicks: 170, ctr: 170 / 5_500, cpc: 44, cpm: 1_345, conversions: 3, conversionValue: 15_000, platformRoas: 15_000 / 7_400,
      // A, B, C; the refund lowers 5 June: 100 + 50 + 40 - 20
      orders: 3, netSales: 17_000, roas: 17_000 / 7_400,
    });
    expect(result.previousTotals).toMatchObject({ spend: 2_000, impressions: 800, clicks: 40, orders: 1, netSales: 6_000, roas: 3, platformRoas: 0 });
    expect(result.deltas.spend).toEqual({ absolute: 5_400, percent: 270 });
    expect(result.deltas.orders).toEqual({ absolute: 2, percent: 200 });
    expect(result.deltas.ctr!.absolute).toBeCloseTo(170 / 5_500 - 0.05, 12);
  });

  it('a daily series of spend, clicks, conversions and both ROAS, the refund on its own day', async () => {
    await setFlatRates();
    const store = await createCommerceStore(testApp.orm);
    await seedGoogleFixture(store.id);
    const { series } = await campaigns(testApp.orm.em.fork(), { id: store.id, currency: 'GBP' }, { platform: 'googleads', ...JUNE, compare: 'none' });
    expect(series).toHaveLength(7);
    expect(series[0]).toEqual({ day: '2026-06-01', spend: 3_000, clicks: 100, conversions: 2, netSales: 10_000, platformRoas: 4, roas: 10_000 / 3_000 });
    expect(series[2]).toMatchObject({ day: '2026-06-03', spend: 3_400, clicks: 50, conversions: 0, netSales: 4_000, platformRoas: 0 });
    expect(series[2]!.roas).toBeCloseTo(4_000 / 3_400, 12); // USD spend converted at 0.68
    expect(series[4]).toEqual({ day: '2026-06-05', spend: 0, clicks: 0, conversions: 0, netSales: -2_000, platformRoas: null, roas: null });
  });

  it('converts into another display currency at each day\'s rate', async () => {
    await setFlatRates();
    const store = await createCommerceStore(testApp.orm);
    await seedGoogleFixture(store.id);
    const result = await campaigns(testApp.orm.em.fork(), { id: store.id, currency: 'GBP' }, { platform: 'googleads', ...JUNE, compare: 'none', currency: 'USD' });
    expect(result.currency).toBe('USD');
    expect(result.campaigns.find((row) => row.campaignId === 'shop')!.spend).toBe(5_000);
    expect(result.totals.spend).toBe(Math.round(4_000 / 0.68 + 5_000)); // 10 882
  });

  it('says when no order names a campaign: our figures exist for the platform only', async () => {
    await setFlatRates();
    const store = await createCommerceStore(testApp.orm);
    const em = testApp.orm.em.fork();
    await ingestAdMetrics(em, store.id, [{ platform: 'bingads', accountId: 'b', campaignId: '42', day: '2026-06-02', campaignName: '', currency: 'GBP', spendMinor: 1_000, impressions: 100, clicks: 10 }]);
    await ingestOrders(em, store.id, [testOrder({ externalId: 'bing-1', placedAt: '2026-06-02T10:00:00Z', grossMinor: 2_500, msclkid: 'z' })]);
    const result = await campaigns(testApp.orm.em.fork(), { id: store.id, currency: 'GBP' }, { platform: 'bingads', ...JUNE, compare: 'none' });
    expect(result.attribution).toBe('platform');
    expect(result.campaigns).toMatchObject([{ campaignId: '42', name: '42', orders: 0, netSales: 0, roas: 0 }]);
    expect(result.unmatched).toEqual({ orders: 1, netSales: 2_500 });
    expect(result.totals).toMatchObject({ spend: 1_000, orders: 1, netSales: 2_500, roas: 2.5 });
  });

  it('a platform without data has no rows and no ratios ("—"), never Infinity or NaN', async () => {
    const store = await createCommerceStore(testApp.orm);
    const result = await campaigns(testApp.orm.em.fork(), { id: store.id, currency: 'GBP' }, { platform: 'tiktokads', ...JUNE, compare: 'previous_year' });
    expect(result.campaigns).toEqual([]);
    expect(result.totals).toEqual({ spend: 0, impressions: 0, clicks: 0, ctr: null, cpc: null, cpm: null, conversions: 0, conversionValue: 0, platformRoas: null, orders: 0, netSales: 0, roas: null });
    expect(result.deltas.roas).toEqual({ absolute: null, percent: null });
    expect(JSON.stringify(result)).not.toMatch(/Infinity|NaN/);
  });
});

describe('marketing.campaigns through the router', () => {
  function getCampaigns(client: ApiClient, input: Record<string, unknown>) {
    return trpcQuery(client, 'marketing.campaigns', input);
  }

  it("reads the active store; another user's store answers 404 and shows nothing of it", async () => {
    await setFlatRates();
    const owner = await signedInStoreOwner(testApp, 'adsowner');
    const other = await signedInStoreOwner(testApp, 'adsother');
    await seedGoogleFixture(owner.store.id);

    const own = await getCampaigns(owner.client, { platform: 'googleads', ...JUNE, compare: 'none' });
    expect(own.status).toBe(200);
    expect(own.body.result.data.totals.spend).toBe(7_400);
    expect(own.body.result.data.campaigns).toHaveLength(2);

    const theirs = await getCampaigns(other.client, { platform: 'googleads', ...JUNE, compare: 'none' });
    expect(theirs.body.result.data.campaigns).toEqual([]);

    const intrusion = await getCampaigns(other.client, { platform: 'googleads', ...JUNE, compare: 'none', storeId: owner.store.id });
    expect(intrusion.status).toBe(404);
    expect(intrusion.body.error.message).toBe('Store not found');
    expect(JSON.stringify(intrusion.body)).not.toContain('Brand');
  });

  it('explains bad input', async () => {
    const owner = await signedInStoreOwner(testApp, 'adsval');
    const unknown = await getCampaigns(owner.client, { platform: 'myspace', ...JUNE });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toBe('Unknown advertising platform');
    const reversed = await getCampaigns(owner.client, { platform: 'metaads', from: '2026-06-07', to: '2026-06-01' });
    expect(reversed.status).toBe(400);
    expect(reversed.body.error.message).toBe('The start date must not be after the end date');
    const unsubscribed = await signedInClient(testApp.app, 'adsnosub');
    expect((await getCampaigns(unsubscribed.client, { platform: 'metaads', ...JUNE })).status).toBe(403);
  });
});
