import { beforeAll, describe, expect, it } from 'vitest';
import { readRollups, setFlatFxRates, signedInStoreOwner, testOrder, type StoreOwner } from '../../../../test/commerce-fixtures.ts';
import { trpcMutation, trpcQuery, useTestApp } from '../../../../test/harness.ts';
import { addDays } from '../../../shared/date-ranges.ts';
import { ingestAdMetrics, ingestEmailMetrics, ingestOrders, ingestRefunds, upsertProducts } from '../commerce/ingest.ts';
import { rebuildRollups } from '../commerce/rollups.ts';

const testApp = useTestApp();

beforeAll(async () => {
  // USD -> GBP = 0.85 / 1.25 = 0.68, EUR -> GBP = 0.85 over the whole fixture.
  await setFlatFxRates(testApp.orm.em.fork(), '2026-04-20', '2026-07-05');
});

/**
 * The hand-computed fixture (store in GBP), May and June 2026:
 *   products: P1 GBP 20.00 costing 8.00; P2 GBP 10.00 without a cost
 *   A  10 May GBP: 2 x P1 + 1 x P2 = 50.00, shipping 5.00, taxes 10.00, Google click
 *   B  20 May USD 100.00 without lines = GBP 68.00
 *   C   5 Jun GBP: 1 x P1 = 20.00; refund of A 10.00 on 10 Jun (lowers June)
 *   D   6 Jun GBP: 5 x P1, cancelled (counts nowhere)
 *   spend: Google 10 May GBP 30.00; Meta 5 Jun USD 10.00 = GBP 6.80; Klaviyo 5 Jun GBP 2.00
 *   settings: 2.9 % + 0.30 per order, shipping 4.00 per order, default COGS 50 %
 *   expenses: Software GBP 50.00 monthly from 15 May; Photoshoot EUR 100.00 one-off 20 Jun = GBP 85.00
 *             (and two outside the range: monthly ended in April, one-off in July)
 */
async function seedFixture(owner: StoreOwner) {
  const em = testApp.orm.em.fork();
  const store = owner.store;
  await upsertProducts(em, store, [
    { platform: 'shopify', externalId: 'P1', title: 'Linen shirt', sku: 'LIN-1', priceMinor: 2_000, currency: 'GBP', unitCostMinor: 800 },
    { platform: 'shopify', externalId: 'P2', title: 'Cotton socks', sku: 'SOCK-2', priceMinor: 1_000, currency: 'GBP', unitCostMinor: null },
  ]);
  const p1 = (quantity: number) => ({ externalId: `p1-${quantity}`, productExternalId: 'P1', title: 'Linen shirt', quantity, unitPriceMinor: 2_000 });
  await ingestOrders(em, store, [
    testOrder({ externalId: 'A', placedAt: '2026-05-10T10:00:00Z', grossMinor: 5_000, shippingMinor: 500, taxesMinor: 1_000, gclid: 'g', lines: [p1(2), { externalId: 'p2', productExternalId: 'P2', title: 'Cotton socks', quantity: 1, unitPriceMinor: 1_000 }] }),
    testOrder({ externalId: 'B', placedAt: '2026-05-20T10:00:00Z', grossMinor: 10_000, currency: 'USD' }),
    testOrder({ externalId: 'C', placedAt: '2026-06-05T10:00:00Z', grossMinor: 2_000, lines: [p1(1)] }),
    testOrder({ externalId: 'D', placedAt: '2026-06-06T10:00:00Z', grossMinor: 10_000, status: 'cancelled', lines: [p1(5)] }),
  ]);
  await ingestRefunds(em, store, [{ platform: 'shopify', externalId: 'r-A', orderExternalId: 'A', refundedAt: '2026-06-10T09:00:00Z', amountMinor: 1_000, currency: 'GBP' }]);
  await ingestAdMetrics(em, store, [
    { platform: 'googleads', accountId: 'g', campaignId: 'c', day: '2026-05-10', campaignName: 'Brand', currency: 'GBP', spendMinor: 3_000, impressions: 100, clicks: 10 },
    { platform: 'metaads', accountId: 'm', campaignId: 'c', day: '2026-06-05', campaignName: 'Pros', currency: 'USD', spendMinor: 1_000, impressions: 100, clicks: 10 },
  ]);
  await ingestEmailMetrics(em, store, [{ platform: 'klaviyo', campaignId: 'e', day: '2026-06-05', campaignName: 'June', currency: 'GBP', sends: 10, clicks: 1, spendMinor: 200 }]);
  const settings = await trpcMutation(owner.client, 'finance.costSettings.update', { paymentFeePercentBasisPoints: 290, paymentFeeFixedMinor: 30, shippingCostPerOrderMinor: 400, defaultCogsPercent: 50 });
  expect(settings.status).toBe(200);
  for (const expense of [
    { name: 'Software', category: 'Tools', amountMinor: 5_000, currency: 'GBP', recurrence: 'monthly', startsOn: '2026-05-15', endsOn: null },
    { name: 'Photoshoot', category: 'Content', amountMinor: 10_000, currency: 'EUR', recurrence: 'one_off', startsOn: '2026-06-20' },
    { name: 'Old office', category: 'Rent', amountMinor: 99_900, currency: 'GBP', recurrence: 'monthly', startsOn: '2026-01-01', endsOn: '2026-04-30' },
    { name: 'July fair', category: 'Events', amountMinor: 77_700, currency: 'GBP', recurrence: 'one_off', startsOn: '2026-07-01' },
  ]) {
    expect((await trpcMutation(owner.client, 'finance.expenses.create', expense)).status).toBe(200);
  }
}

const MAY = {
  netSales: 11_800, // 50.00 + 68.00
  cogs: 2_100, // 2 x 8.00 + 50 % x 10.00
  grossProfit: 9_700,
  shippingCosts: 800, // 2 orders x 4.00
  paymentFees: 446, // 2.9 % x (118.00 + 5.00 + 10.00) = 3.857 + 2 x 0.30
  adSpend: { googleads: 3_000, metaads: 0 },
  emailSpend: 0,
  contributionMargin: 5_454,
  customExpenses: 5_000,
  netProfit: 454,
};
const JUNE = {
  netSales: 1_000, // 20.00 - 10.00 refund
  cogs: 800,
  grossProfit: 200,
  shippingCosts: 400,
  paymentFees: 59, // 2.9 % x 10.00 + 0.30
  adSpend: { googleads: 0, metaads: 680 },
  emailSpend: 200,
  contributionMargin: -1_139,
  customExpenses: 13_500, // 50.00 + EUR 100.00 at 1 June's rate
  netProfit: -14_639,
};

describe('finance.statement, hand-computed', () => {
  let owner: StoreOwner;
  beforeAll(async () => {
    owner = await signedInStoreOwner(testApp, 'pnl');
    await seedFixture(owner);
  });

  it('one column per month, every line, and a totals column', async () => {
    const answer = await trpcQuery(owner.client, 'finance.statement', { from: '2026-05', to: '2026-06' });
    expect(answer.status).toBe(200);
    const statement = answer.body.result.data;
    expect(statement.currency).toBe('GBP');
    expect(statement.adPlatforms).toEqual(['googleads', 'metaads']);
    expect(statement.months.map((m: { month: string }) => m.month)).toEqual(['2026-05', '2026-06']);
    expect(statement.months[0].column).toEqual({ ...MAY, marginPercent: (454 / 11_800) * 100 });
    expect(statement.months[1].column).toEqual({ ...JUNE, marginPercent: (-14_639 / 1_000) * 100 });
    expect(statement.total).toEqual({
      netSales: 12_800,
      cogs: 2_900,
      grossProfit: 9_900,
      shippingCosts: 1_200,
      paymentFees: 505,
      adSpend: { googleads: 3_000, metaads: 680 },
      emailSpend: 200,
      contributionMargin: 4_315,
      customExpenses: 18_500,
      netProfit: -14_185,
      marginPercent: (-14_185 / 12_800) * 100,
    });
  });

  it('a month without sales has no margin %, and a display currency converts every line', async () => {
    const empty = (await trpcQuery(owner.client, 'finance.statement', { from: '2026-03', to: '2026-03' })).body.result.data;
    expect(empty.months[0].column).toMatchObject({ netSales: 0, customExpenses: 99_900, netProfit: -99_900, marginPercent: null });
    const inEuro = (await trpcQuery(owner.client, 'finance.statement', { from: '2026-05', to: '2026-05', currency: 'EUR' })).body.result.data;
    expect(inEuro.currency).toBe('EUR');
    expect(inEuro.months[0].column.netSales).toBe(13_882); // 118.00 GBP / 0.85
    expect(inEuro.months[0].column.customExpenses).toBe(5_882);
  });

  it('refuses a range that is backwards or longer than 24 months, with a clear message', async () => {
    const backwards = await trpcQuery(owner.client, 'finance.statement', { from: '2026-06', to: '2026-05' });
    expect(backwards.status).toBe(400);
    expect(backwards.body.error.message).toBe('The first month must not be after the last month');
    const long = await trpcQuery(owner.client, 'finance.statement', { from: '2024-01', to: '2026-01' });
    expect(long.body.error.message).toBe('A statement can cover at most 24 months');
    const malformed = await trpcQuery(owner.client, 'finance.statement', { from: '2026-13', to: '2026-05' });
    expect(malformed.body.error.message).toBe('Use a month like 2026-01');
  });

  it('exports the statement as CSV through GET /api/profit-and-loss.csv', async () => {
    const answer = await owner.client.get('/api/profit-and-loss.csv?from=2026-05&to=2026-06');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toContain('text/csv');
    expect(answer.headers['content-disposition']).toBe('attachment; filename="profit-and-loss-2026-05-to-2026-06.csv"');
    const lines = String(answer.body).trimEnd().split('\r\n');
    expect(lines[0]).toBe('Line (GBP),2026-05,2026-06,Total');
    expect(lines).toContain('Net sales,118.00,10.00,128.00');
    expect(lines).toContain('Ad spend: Meta Ads,0.00,6.80,6.80');
    expect(lines).toContain('Net profit,4.54,-146.39,-141.85');
    expect(lines.at(-1)).toBe('Margin %,3.8,-1463.9,-110.8');
    const bad = await owner.client.get('/api/profit-and-loss.csv?from=2026-06&to=2026-05');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ message: 'The first month must not be after the last month' });
  });
});

describe('products COGS', () => {
  it('an edit applied to past orders re-costs their lines and the rollups (equal to a rebuild), moving gross profit by units x difference', async () => {
    const owner = await signedInStoreOwner(testApp, 'cogs');
    await seedFixture(owner);
    const list = await trpcQuery(owner.client, 'finance.products.list', { page: 1, pageSize: 10, search: 'lin' });
    expect(list.body.result.data).toMatchObject({ total: 1, items: [{ title: 'Linen shirt', sku: 'LIN-1', unitCostMinor: 800 }] });
    const productId = list.body.result.data.items[0].id;
    const before = (await trpcQuery(owner.client, 'finance.statement', { from: '2026-05', to: '2026-06' })).body.result.data;

    const answer = await trpcMutation(owner.client, 'finance.products.updateCost', { productId, unitCostMinor: 1_000 });
    expect(answer.status).toBe(200);
    // A (2 units) and C (1); the cancelled D's line is re-costed too but counts nowhere.
    expect(answer.body.result.data).toMatchObject({ product: { id: productId, unitCostMinor: 1_000 }, updatedLines: 3, updatedUnits: 3 });

    const after = (await trpcQuery(owner.client, 'finance.statement', { from: '2026-05', to: '2026-06' })).body.result.data;
    expect(after.total.grossProfit - before.total.grossProfit).toBe(-3 * 200);
    expect(after.months[0].column.cogs).toBe(2_500);
    expect(after.total.netProfit - before.total.netProfit).toBe(-600);

    const em = testApp.orm.em.fork();
    const incremental = await readRollups(em, owner.store.id);
    await rebuildRollups(em, owner.store.id);
    expect(incremental).toEqual(await readRollups(em, owner.store.id));
  });

  it('without applyToPastOrders only the product changes; removing a cost makes its lines use the default COGS %', async () => {
    const owner = await signedInStoreOwner(testApp, 'cogs2');
    await seedFixture(owner);
    const productId = (await trpcQuery(owner.client, 'finance.products.list', { search: 'LIN-1' })).body.result.data.items[0].id;
    const before = (await trpcQuery(owner.client, 'finance.statement', { from: '2026-05', to: '2026-06' })).body.result.data;
    const kept = await trpcMutation(owner.client, 'finance.products.updateCost', { productId, unitCostMinor: 5_000, applyToPastOrders: false });
    expect(kept.body.result.data).toMatchObject({ updatedLines: 0, product: { unitCostMinor: 5_000 } });
    expect((await trpcQuery(owner.client, 'finance.statement', { from: '2026-05', to: '2026-06' })).body.result.data.total).toEqual(before.total);

    await trpcMutation(owner.client, 'finance.products.updateCost', { productId, unitCostMinor: null });
    const uncosted = (await trpcQuery(owner.client, 'finance.statement', { from: '2026-05', to: '2026-06' })).body.result.data;
    // May: P1's 40.00 and P2's 10.00 now both at 50 %.
    expect(uncosted.months[0].column.cogs).toBe(2_500);
    const em = testApp.orm.em.fork();
    const incremental = await readRollups(em, owner.store.id);
    await rebuildRollups(em, owner.store.id);
    expect(incremental).toEqual(await readRollups(em, owner.store.id));
  });

  it('lists best sellers of the last 30 days first with their units and net sales; validates the cost', async () => {
    const owner = await signedInStoreOwner(testApp, 'cogs3');
    const today = new Date().toISOString().slice(0, 10);
    const em = testApp.orm.em.fork();
    await upsertProducts(em, owner.store, [
      { platform: 'shopify', externalId: 'slow', title: 'A slow seller', priceMinor: 1_000, currency: 'GBP' },
      { platform: 'shopify', externalId: 'fast', title: 'Z fast seller', priceMinor: 1_500, currency: 'GBP' },
    ]);
    await ingestOrders(em, owner.store, [
      testOrder({ externalId: 'recent', placedAt: `${today}T00:30:00Z`, grossMinor: 4_500, lines: [{ externalId: 'l', productExternalId: 'fast', title: 'Z', quantity: 3, unitPriceMinor: 1_500 }] }),
      testOrder({ externalId: 'old', placedAt: `${addDays(today, -40)}T10:00:00Z`, grossMinor: 9_000, lines: [{ externalId: 'l', productExternalId: 'slow', title: 'A', quantity: 9, unitPriceMinor: 1_000 }] }),
    ]);
    const list = (await trpcQuery(owner.client, 'finance.products.list', { page: 1, pageSize: 1 })).body.result.data;
    expect(list).toMatchObject({ total: 2, page: 1, pageSize: 1, currency: 'GBP', items: [{ title: 'Z fast seller', unitsSold30d: 3, netSales30d: 4_500, unitCostMinor: null }] });
    const second = (await trpcQuery(owner.client, 'finance.products.list', { page: 2, pageSize: 1 })).body.result.data;
    expect(second.items).toMatchObject([{ title: 'A slow seller', unitsSold30d: 0, netSales30d: 0 }]);

    const negative = await trpcMutation(owner.client, 'finance.products.updateCost', { productId: list.items[0].id, unitCostMinor: -5 });
    expect(negative.status).toBe(400);
    expect(negative.body.error.message).toBe('Unit cost must not be negative');
    const fractional = await trpcMutation(owner.client, 'finance.products.updateCost', { productId: list.items[0].id, unitCostMinor: 1.5 });
    expect(fractional.body.error.message).toBe('Unit cost must be in whole minor units (cents)');
  });
});

describe('expenses and cost settings', () => {
  it('create, list, update, remove with clear validation messages', async () => {
    const owner = await signedInStoreOwner(testApp, 'exp');
    const defaults = await trpcQuery(owner.client, 'finance.costSettings.get');
    expect(defaults.body.result.data).toEqual({ paymentFeePercentBasisPoints: 290, paymentFeeFixedMinor: 30, shippingCostPerOrderMinor: 0, defaultCogsPercent: null, currency: 'GBP' });

    const created = await trpcMutation(owner.client, 'finance.expenses.create', { name: ' Rent ', category: 'Office', amountMinor: 120_000, currency: 'GBP', recurrence: 'monthly', startsOn: '2026-01-01' });
    expect(created.body.result.data).toEqual({ id: expect.any(Number), name: 'Rent', category: 'Office', amountMinor: 120_000, currency: 'GBP', recurrence: 'monthly', startsOn: '2026-01-01', endsOn: null });
    const id = created.body.result.data.id;
    const updated = await trpcMutation(owner.client, 'finance.expenses.update', { id, name: 'Rent', category: 'Office', amountMinor: 130_000, currency: 'EUR', recurrence: 'monthly', startsOn: '2026-01-01', endsOn: '2026-12-31' });
    expect(updated.body.result.data).toMatchObject({ amountMinor: 130_000, currency: 'EUR', endsOn: '2026-12-31' });
    expect((await trpcQuery(owner.client, 'finance.expenses.list')).body.result.data).toHaveLength(1);

    const invalid = [
      [{ name: '', category: 'x', amountMinor: 1, currency: 'GBP', recurrence: 'monthly', startsOn: '2026-01-01' }, 'Name is required'],
      [{ name: 'x', category: 'x', amountMinor: 0, currency: 'GBP', recurrence: 'monthly', startsOn: '2026-01-01' }, 'Amount must be more than 0'],
      [{ name: 'x', category: 'x', amountMinor: 1, currency: 'JPY', recurrence: 'monthly', startsOn: '2026-01-01' }, 'Currency must be one of USD, GBP, EUR, CAD, AUD'],
      [{ name: 'x', category: 'x', amountMinor: 1, currency: 'GBP', recurrence: 'weekly', startsOn: '2026-01-01' }, 'Recurrence must be monthly or one_off'],
      [{ name: 'x', category: 'x', amountMinor: 1, currency: 'GBP', recurrence: 'monthly', startsOn: '2026-02-30' }, 'Not a valid date'],
      [{ name: 'x', category: 'x', amountMinor: 1, currency: 'GBP', recurrence: 'monthly', startsOn: '2026-03-01', endsOn: '2026-02-01' }, 'The end date must not be before the start date'],
    ] as const;
    for (const [input, message] of invalid) {
      const answer = await trpcMutation(owner.client, 'finance.expenses.create', input);
      expect(answer.status).toBe(400);
      expect(answer.body.error.message).toBe(message);
    }
    const badSettings = await trpcMutation(owner.client, 'finance.costSettings.update', { paymentFeePercentBasisPoints: 20_000, paymentFeeFixedMinor: 0, shippingCostPerOrderMinor: 0, defaultCogsPercent: null });
    expect(badSettings.body.error.message).toBe('Payment fee % must be at most 100');

    expect((await trpcMutation(owner.client, 'finance.expenses.remove', { id })).body.result.data).toEqual({ id });
    expect((await trpcQuery(owner.client, 'finance.expenses.list')).body.result.data).toEqual([]);
    const gone = await trpcMutation(owner.client, 'finance.expenses.remove', { id });
    expect(gone.status).toBe(404);
    expect(gone.body.error.message).toBe('Expense not found');
  });
});

describe('tenant isolation', () => {
  it("another user can neither read nor change a store's expenses, products or statement", async () => {
    const owner = await signedInStoreOwner(testApp, 'isoowner');
    const other = await signedInStoreOwner(testApp, 'isoother');
    await seedFixture(owner);
    const expenseId = (await trpcQuery(owner.client, 'finance.expenses.list')).body.result.data[0].id;
    const productId = (await trpcQuery(owner.client, 'finance.products.list', {})).body.result.data.items[0].id;

    // The other user's calls act on their own (empty) store: the owner's rows are not found.
    expect((await trpcQuery(other.client, 'finance.expenses.list')).body.result.data).toEqual([]);
    expect((await trpcQuery(other.client, 'finance.products.list', {})).body.result.data.items).toEqual([]);
    expect((await trpcQuery(other.client, 'finance.statement', { from: '2026-05', to: '2026-06' })).body.result.data.total.netSales).toBe(0);
    const update = await trpcMutation(other.client, 'finance.expenses.update', { id: expenseId, name: 'x', category: 'x', amountMinor: 1, currency: 'GBP', recurrence: 'monthly', startsOn: '2026-01-01' });
    expect(update.status).toBe(404);
    expect((await trpcMutation(other.client, 'finance.expenses.remove', { id: expenseId })).status).toBe(404);
    const cost = await trpcMutation(other.client, 'finance.products.updateCost', { productId, unitCostMinor: 1 });
    expect(cost.status).toBe(404);
    expect(cost.body.error.message).toBe('Product not found');
    expect((await trpcQuery(owner.client, 'finance.products.list', {})).body.result.data.items.find((p: { id: number }) => p.id === productId).unitCostMinor).not.toBe(1);
  });
});
