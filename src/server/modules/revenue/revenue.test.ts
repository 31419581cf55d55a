import { beforeAll, describe, expect, it } from 'vitest';
import { createCommerceStore, setFlatFxRates, signedInStoreOwner, testOrder } from '../../../../test/commerce-fixtures.ts';
import { trpcQuery, useTestApp, type ApiClient } from '../../../../test/harness.ts';
import { TOP_PRODUCTS } from '../../../shared/revenue.ts';
import { ingestOrders, ingestRefunds, upsertProducts } from '../commerce/ingest.ts';
import { revenueBreakdown } from './revenue.service.ts';

const testApp = useTestApp();

// USD 1.00 = GBP 0.68 and GBP 1.00 = EUR 1.1765 every day of the fixture.
beforeAll(() => setFlatFxRates(testApp.orm.em.fork(), '2026-05-20', '2026-06-09'));

/**
 * GBP store, 1-7 June 2026 compared with 25-31 May:
 *   A 1 Jun GBP 100.00 - 10.00, Google click, c1 (new): Tent x2 @ 40.00 (cost 15.00), Mug x1 @ 20.00 - 10.00 (no cost)
 *   B 2 Jun GBP  50.00, Klaviyo, c2 (new): Tent x1 @ 40.00, Gift wrap x1 @ 10.00 (no product)
 *   C 3 Jun GBP  30.00, direct, c1 (returning): Mug x3 @ 10.00
 *   D 4 Jun USD 100.00 = GBP 68.00, Meta click, guest (new): Stove x1 @ USD 100.00 (cost USD 50.00 = GBP 34.00)
 *   E 5 Jun cancelled GBP 70.00 (Tent x5), F 5 Jun test order GBP 20.00: count nowhere, nor do their refunds
 *   refunds: A 20.00 on 6 Jun "Damaged", C 3.00 on 7 Jun (no reason), B 5.00 on 8 Jun (outside), E 10.00 on 6 Jun (cancelled)
 *   previous period: P 28 May GBP 40.00 - 4.00, direct, c3 (new)
 */
async function seedFixture(storeId: number) {
  const em = testApp.orm.em.fork();
  await upsertProducts(em, storeId, [
    { platform: 'shopify', externalId: 'p1', title: 'Tent', sku: 'TENT-1', priceMinor: 4_000, currency: 'GBP', unitCostMinor: 1_500 },
    { platform: 'shopify', externalId: 'p2', title: 'Mug', sku: 'MUG-1', priceMinor: 1_000, currency: 'GBP' },
    { platform: 'shopify', externalId: 'p3', title: 'Stove', sku: 'STOVE-1', priceMinor: 10_000, currency: 'USD', unitCostMinor: 5_000 },
  ]);
  await ingestOrders(em, storeId, [
    testOrder({
      externalId: 'A',
      placedAt: '2026-06-01T10:00:00Z',
      grossMinor: 10_000,
      discountsMinor: 1_000,
      gclid: 'g',
      customer: { externalId: 'c1' },
      lines: [
        { productExternalId: 'p1', title: 'Tent', quantity: 2, unitPriceMinor: 4_000 },
        { productExternalId: 'p2', title: 'Mug', quantity: 1, unitPriceMinor: 2_000, discountMinor: 1_000 },
      ],
    }),
    testOrder({
      externalId: 'B',
      placedAt: '2026-06-02T10:00:00Z',
      grossMinor: 5_000,
      utmSource: 'klaviyo',
      utmMedium: 'email',
      customer: { externalId: 'c2' },
      lines: [
        { productExternalId: 'p1', title: 'Tent', quantity: 1, unitPriceMinor: 4_000 },
        { title: 'Gift wrap', quantity: 1, unitPriceMinor: 1_000 },
      ],
    }),
    testOrder({ externalId: 'C', placedAt: '2026-06-03T10:00:00Z', grossMinor: 3_000, customer: { externalId: 'c1' }, lines: [{ productExternalId: 'p2', title: 'Mug', quantity: 3, unitPriceMinor: 1_000 }] }),
    testOrder({ externalId: 'D', placedAt: '2026-06-04T10:00:00Z', grossMinor: 10_000, currency: 'USD', fbclid: 'f', lines: [{ productExternalId: 'p3', title: 'Stove', quantity: 1, unitPriceMinor: 10_000 }] }),
    testOrder({ externalId: 'E', placedAt: '2026-06-05T10:00:00Z', grossMinor: 7_000, status: 'cancelled', lines: [{ productExternalId: 'p1', title: 'Tent', quantity: 5, unitPriceMinor: 1_400 }] }),
    testOrder({ externalId: 'F', placedAt: '2026-06-05T11:00:00Z', grossMinor: 2_000, isTest: true, lines: [{ productExternalId: 'p1', title: 'Tent', quantity: 1, unitPriceMinor: 2_000 }] }),
    testOrder({ externalId: 'P', placedAt: '2026-05-28T10:00:00Z', grossMinor: 4_000, discountsMinor: 400, customer: { externalId: 'c3' } }),
  ]);
  await ingestRefunds(em, storeId, [
    { platform: 'shopify', externalId: 'r-A', orderExternalId: 'A', refundedAt: '2026-06-06T09:00:00Z', amountMinor: 2_000, currency: 'GBP', reason: 'Damaged' },
    { platform: 'shopify', externalId: 'r-C', orderExternalId: 'C', refundedAt: '2026-06-07T09:00:00Z', amountMinor: 300, currency: 'GBP' },
    { platform: 'shopify', externalId: 'r-B', orderExternalId: 'B', refundedAt: '2026-06-08T09:00:00Z', amountMinor: 500, currency: 'GBP', reason: 'Late' },
    { platform: 'shopify', externalId: 'r-E', orderExternalId: 'E', refundedAt: '2026-06-06T10:00:00Z', amountMinor: 1_000, currency: 'GBP', reason: 'Cancelled' },
  ]);
}

const JUNE = { from: '2026-06-01', to: '2026-06-07' };

describe('revenue.breakdown, hand-computed', () => {
  it('totals with deltas, daily components, channels, products, new vs returning and refunds', async () => {
    const store = await createCommerceStore(testApp.orm);
    await seedFixture(store.id);
    const result = await revenueBreakdown(testApp.orm.em.fork(), store, { ...JUNE, compare: 'previous_period' });

    expect(result.previousRange).toEqual({ from: '2026-05-25', to: '2026-05-31' });
    // gross 100 + 50 + 30 + 68; refunds made in the range 20 + 3; net 248 - 10 - 23.
    expect(result.kpis.gross).toEqual({ current: 24_800, previous: 4_000, delta: { absolute: 20_800, percent: 520 } });
    expect(result.kpis.discounts).toEqual({ current: 1_000, previous: 400, delta: { absolute: 600, percent: 150 } });
    expect(result.kpis.refunds).toEqual({ current: 2_300, previous: 0, delta: { absolute: 2_300, percent: null } });
    expect(result.kpis.netSales.current).toBe(21_500);
    expect(result.kpis.netSales.previous).toBe(3_600);
    expect(result.kpis.netSales.delta.percent).toBeCloseTo((17_900 / 3_600) * 100, 9);
    expect(result.kpis.orders).toMatchObject({ current: 4, previous: 1 });

    expect(result.series).toHaveLength(7);
    expect(result.series[0]).toEqual({ day: '2026-06-01', gross: 10_000, discounts: 1_000, refunds: 0, netSales: 9_000 });
    expect(result.series[3]).toEqual({ day: '2026-06-04', gross: 6_800, discounts: 0, refunds: 0, netSales: 6_800 });
    expect(result.series[4]).toEqual({ day: '2026-06-05', gross: 0, discounts: 0, refunds: 0, netSales: 0 });
    expect(result.series[5]).toEqual({ day: '2026-06-06', gross: 0, discounts: 0, refunds: 2_000, netSales: -2_000 });
    expect(result.series[6]).toEqual({ day: '2026-06-07', gross: 0, discounts: 0, refunds: 300, netSales: -300 });

    // A refund lowers its order's channel on the refund day: Google 90 - 20, direct 30 - 3.
    expect(result.channels).toEqual([
      { channel: 'googleads', netSales: 7_000, orders: 1, share: expect.closeTo(7_000 / 21_500, 12) },
      { channel: 'metaads', netSales: 6_800, orders: 1, share: expect.closeTo(6_800 / 21_500, 12) },
      { channel: 'klaviyo', netSales: 5_000, orders: 1, share: expect.closeTo(5_000 / 21_500, 12) },
      { channel: 'direct', netSales: 2_700, orders: 1, share: expect.closeTo(2_700 / 21_500, 12) },
    ]);

    expect(result.products.top).toEqual([
      { productId: expect.any(Number), title: 'Tent', sku: 'TENT-1', units: 3, netSales: 12_000, cogs: 4_500, margin: 0.625 },
      { productId: expect.any(Number), title: 'Stove', sku: 'STOVE-1', units: 1, netSales: 6_800, cogs: 3_400, margin: 0.5 },
      { productId: expect.any(Number), title: 'Mug', sku: 'MUG-1', units: 4, netSales: 4_000, cogs: null, margin: null },
      { productId: null, title: 'Gift wrap', sku: null, units: 1, netSales: 1_000, cogs: null, margin: null },
    ]);
    expect(result.products.others).toBeNull();

    // Orders placed in the range after all their refunds, even one made later (B's on 8 Jun):
    // new = A 70 + B 45 + D 68 over 3 orders; returning = C 27.
    expect(result.customers).toEqual({
      new: { orders: 3, netSales: 18_300, aov: 6_100 },
      returning: { orders: 1, netSales: 2_700, aov: 2_700 },
    });

    expect(result.refunds).toEqual({
      count: 2,
      amount: 2_300,
      rate: 2_300 / 24_800,
      reasons: [
        { reason: 'Damaged', count: 1, amount: 2_000 },
        { reason: null, count: 1, amount: 300 },
      ],
    });
  });

  it('converts every day at its rate into the display currency, and has no values for an empty range', async () => {
    const store = await createCommerceStore(testApp.orm);
    await seedFixture(store.id);
    const inDollars = await revenueBreakdown(testApp.orm.em.fork(), store, { ...JUNE, compare: 'none', currency: 'USD' });
    // GBP 100.00 = USD 147.06; USD stays USD.
    expect(inDollars.series[0]!.gross).toBe(14_706);
    expect(inDollars.series[3]!.gross).toBe(10_000);
    expect(inDollars.kpis.netSales.previous).toBeNull();
    expect(inDollars.products.top[1]).toMatchObject({ title: 'Stove', netSales: 10_000, cogs: 5_000 });

    const empty = await revenueBreakdown(testApp.orm.em.fork(), store, { from: '2026-05-01', to: '2026-05-02', compare: 'previous_year' });
    expect(empty.kpis.netSales).toEqual({ current: 0, previous: 0, delta: { absolute: 0, percent: null } });
    expect(empty.channels).toEqual([]);
    expect(empty.products).toEqual({ top: [], others: null });
    expect(empty.customers.new).toEqual({ orders: 0, netSales: 0, aov: null });
    expect(empty.refunds).toEqual({ count: 0, amount: 0, rate: null, reasons: [] });
  });

  it(`lists the top ${TOP_PRODUCTS} products and sums the rest into "others"`, async () => {
    const store = await createCommerceStore(testApp.orm);
    await ingestOrders(testApp.orm.em.fork(), store, [
      testOrder({
        placedAt: '2026-06-02T10:00:00Z',
        grossMinor: 137_800,
        lines: Array.from({ length: 52 }, (_, index) => ({ title: `Item ${index + 1}`, quantity: 1, unitPriceMinor: (index + 1) * 100 })),
      }),
    ]);
    const result = await revenueBreakdown(testApp.orm.em.fork(), store, { ...JUNE, compare: 'none' });
    expect(result.products.top).toHaveLength(TOP_PRODUCTS);
    expect(result.products.top[0]).toMatchObject({ title: 'Item 52', netSales: 5_200 });
    expect(result.products.top.at(-1)).toMatchObject({ title: 'Item 3', netSales: 300 });
    expect(result.products.others).toEqual({ products: 2, units: 2, netSales: 300, cogs: null, margin: null });
  });
});

describe('revenue.breakdown through the router', () => {
  function breakdown(client: ApiClient, input: Record<string, unknown>) {
    return trpcQuery(client, 'revenue.breakdown', input);
  }

  it("reads the active store; another user's store is 404; bad ranges are 400", async () => {
    const owner = await signedInStoreOwner(testApp, 'revowner');
    const other = await signedInStoreOwner(testApp, 'revother');
    await seedFixture(owner.store.id);

    const own = await breakdown(owner.client, { ...JUNE, compare: 'none' });
    expect(own.status).toBe(200);
    expect(own.body.result.data.kpis.netSales.current).toBe(21_500);

    const theirs = await breakdown(other.client, { ...JUNE, compare: 'none' });
    expect(theirs.body.result.data.kpis.netSales.current).toBe(0);

    const intrusion = await breakdown(other.client, { ...JUNE, compare: 'none', storeId: owner.store.id });
    expect(intrusion.status).toBe(404);
    expect(intrusion.body.error.message).toBe('Store not found');
    expect(JSON.stringify(intrusion.body)).not.toContain('Tent');

    const reversed = await breakdown(owner.client, { from: '2026-06-07', to: '2026-06-01' });
    expect(reversed.status).toBe(400);
    expect(reversed.body.error.message).toBe('The start date must not be after the end date');
  });
});
