import { afterEach, describe, expect, it } from 'vitest';
import { startShopifyFake, type ShopifyFake, type ShopifyFakeOptions } from '../../../../test/fakes/shopify.ts';
import type { ConnectorContext, SyncBatch, SyncWindow } from '../connector.ts';
import { PlatformHttp, platformResponse } from '../http.ts';
import { storeDaysOf } from '../store-common.ts';
import { ORDERS_QUERY, classifyShopify, shopifyOrderNode, shopifyQuerySizes } from './client.ts';
import { SHOPIFY_MAX_QUERY_COST, requestedQueryCost } from './cost.ts';
import { createShopifyConnector, type ShopifyConnectorOptions } from './index.ts';
import { mapShopifyOrder, mapShopifyRestOrder, mapShopifyRestRefund } from './map.ts';
import { mapShopifyWebhook } from './webhooks.ts';

// Issue 14, points 1-7: figures that match Shopify's, each against hand-computed amounts or the fake.

const fakes: ShopifyFake[] = [];
let clock = Date.parse('2026-03-01T12:00:00Z');
afterEach(async () => {
  await Promise.all(fakes.splice(0).map((fake) => fake.close()));
});

async function shop(options: ShopifyFakeOptions = {}): Promise<ShopifyFake> {
  const fake = await startShopifyFake({ seed: 11, orders: 60, products: 8, now: () => clock, ...options });
  fakes.push(fake);
  return fake;
}

function context(fake: ShopifyFake, waits: number[] = []): ConnectorContext {
  return {
    baseUrl: fake.url,
    credentials: { shop: fake.shop, accessToken: fake.initialToken! },
    http: new PlatformHttp({
      platform: 'shopify',
      sleep: async (ms) => {
        waits.push(ms);
        clock += ms;
      },
      now: () => clock,
      maxAttempts: 4,
    }),
    store: { timezone: fake.timezone, currency: fake.currency },
  };
}

async function readWindow(fake: ShopifyFake, window: SyncWindow, options: ShopifyConnectorOptions = {}, waits: number[] = []): Promise<SyncBatch[]> {
  const connector = createShopifyConnector(options);
  const batches: SyncBatch[] = [];
  let cursor: string | null = null;
  do {
    const batch = await connector.fetchBatch(context(fake, waits), window, cursor);
    batches.push(batch);
    cursor = batch.nextCursor;
  } while (cursor && batches.length < 500);
  return batches;
}

const backfill: SyncWindow = { since: new Date('2024-12-01T00:00:00Z'), until: new Date('2026-02-01T00:00:00Z') };
const money = (amount: string, currencyCode = 'GBP') => ({ shopMoney: { amount, currencyCode } });

describe('point 1: query cost', () => {
  it('computes requested costs by Shopify’s rules and sizes every query under 1,000 points', () => {
    // orders(first:10) of nodes { id, lineItems(first:5) { nodes { id } } }:
    // 2 + 10 x (1 [the order] + 2 + 5 x 1 [each line]) = 2 + 10 x 8 = 82.
    expect(requestedQueryCost('query{orders(first:10){nodes{id lineItems(first:5){nodes{id}}}}}')).toBe(82);
    // An object costs 1, a MoneyBag's shopMoney 1 more: 2 per amount; scalars nothing.
    expect(requestedQueryCost('query{shop{name currencyCode}}')).toBe(1);
    expect(requestedQueryCost('query{order(id:"x"){totalTaxSet{shopMoney{amount}}}}')).toBe(3);
    // The old query (100 orders x 50 lines x refunds with 50 lines each) was far over the ceiling.
    const old = 'query{orders(first:100){nodes{id lineItems(first:50){nodes{id originalUnitPriceSet{shopMoney{amount}}}} refunds{id refundLineItems(first:50){nodes{subtotalSet{shopMoney{amount}}}}}}}}';
    // 2 + 100 x (1 + (2 + 50 x 3) + 1 x (1 + 2 + 50 x 3)) = 2 + 100 x 306 = 30,602.
    expect(requestedQueryCost(old)).toBe(30_602);
    const sizes = shopifyQuerySizes();
    expect(sizes.ordersPerPage).toBe(10);
    expect(requestedQueryCost(ORDERS_QUERY, { first: sizes.ordersPerPage, lines: 5, refunds: 10 })).toBe(822);
    expect(requestedQueryCost(ORDERS_QUERY, { first: sizes.ordersPerPage + 1, lines: 5, refunds: 10 })).toBeGreaterThan(900);
  });

  it('every query a backfill sends is accepted, and the fake refuses one over 1,000 points', async () => {
    // Order 5 has 60 lines and a refund: its lines and refunds come by follow-up queries.
    const fake = await shop({ lineCounts: { 5: 60 } });
    fake.addRefund(fake.orderId(5), { amountMinor: 1000, at: new Date('2025-12-30T00:00:00Z') });
    const batches = await readWindow(fake, backfill, { bulkThreshold: 10_000 });
    const orders = batches.flatMap((batch) => batch.orders ?? []);
    expect(orders).toHaveLength(fake.ordersUpdatedBetween(backfill.since, backfill.until));
    expect(fake.refusedQueries).toEqual([]);
    const names = new Set(fake.answeredQueries.map((query) => query.name));
    expect([...names].sort()).toEqual(expect.arrayContaining(['OrderLines', 'Orders', 'Products', 'Refunds', 'Shop']));
    expect(Math.max(...fake.answeredQueries.map((query) => query.requested))).toBeLessThanOrEqual(900);
    // The 60-line order arrives whole: 5 lines with its page, 55 by one follow-up (at most 89 a query).
    const big = orders.find((order) => order.externalId === fake.orderId(5))!;
    expect(big.lines).toHaveLength(60);

    // The old 100-orders page, sent as it was: refused before it runs.
    const answer = await fetch(`${fake.url}/admin/api/2026-01/graphql.json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-shopify-access-token': fake.initialToken! },
      body: JSON.stringify({ query: ORDERS_QUERY, variables: { first: 100, lines: 50, refunds: 10, q: '' } }),
    });
    const body = (await answer.json()) as { errors: { message: string; extensions: { code: string; cost: number; maxCost: number } }[] };
    expect(body.errors[0]!.extensions).toMatchObject({ code: 'MAX_COST_EXCEEDED', maxCost: SHOPIFY_MAX_QUERY_COST });
    expect(body.errors[0]!.message).toMatch(/^Query cost is \d+, which exceeds the single query max cost limit \(1000\)/);
    expect(fake.refusedQueries).toHaveLength(1);
  });

  it('waits for the bucket before a request whose cost is not available, so that Shopify never answers THROTTLED', async () => {
    // A small bucket: 1,000 points, 50 a second. Each orders page asks 822 points.
    const fake = await shop({ orders: 120, maximumAvailable: 1000, restoreRate: 50 });
    const waits: number[] = [];
    const batches = await readWindow(fake, backfill, { bulkThreshold: 10_000 }, waits);
    expect(batches.flatMap((batch) => batch.orders ?? [])).toHaveLength(fake.ordersUpdatedBetween(backfill.since, backfill.until));
    expect(fake.throttledAnswers).toBe(0);
    expect(waits.length).toBeGreaterThan(0);
    // Every answered query found its requested cost in the bucket.
    for (const query of fake.answeredQueries) expect(query.availableBefore).toBeGreaterThanOrEqual(query.requested - 1);
  });
});

describe('points 2 and 3: tax and refund parts', () => {
  // A UK VAT shop (GBP, 20 % included in every price). Line A: 2 x £24.00 with 20 % off = £38.40
  // (VAT 38.40 / 6 = £6.40); line B: 1 x £12.00 (VAT £2.00); shipping £4.80 (VAT £0.80).
  const ukOrder = {
    id: 'gid://shopify/Order/9001',
    legacyResourceId: '9001',
    name: '#9001',
    createdAt: '2026-02-10T10:00:00Z',
    updatedAt: '2026-02-12T10:00:00Z',
    processedAt: '2026-02-10T10:00:00Z',
    test: false,
    currencyCode: 'GBP',
    taxesIncluded: true,
    displayFinancialStatus: 'PARTIALLY_REFUNDED',
    subtotalPriceSet: money('50.40'),
    totalDiscountsSet: money('9.60'),
    totalTaxSet: money('9.20'),
    shippingLine: { discountedPriceSet: money('4.80'), taxLines: [{ priceSet: money('0.80') }] },
    lineItems: {
      nodes: [
        { id: 'gid://shopify/LineItem/1', title: 'Tee', quantity: 2, originalUnitPriceSet: money('24.00'), discountedTotalSet: money('38.40'), taxLines: [{ priceSet: money('6.40') }] },
        { id: 'gid://shopify/LineItem/2', title: 'Mug', quantity: 1, originalUnitPriceSet: money('12.00'), discountedTotalSet: money('12.00'), taxLines: [{ priceSet: money('2.00') }] },
      ],
    },
    refunds: [
      // The mug returned with its VAT.
      { id: 'gid://shopify/Refund/1', createdAt: '2026-02-11T09:00:00Z', refundLineItems: { nodes: [{ quantity: 1, subtotalSet: money('12.00'), totalTaxSet: money('2.00') }] } },
      // Shipping only: £4.80 with £0.80 VAT.
      { id: 'gid://shopify/Refund/2', createdAt: '2026-02-11T10:00:00Z', refundShippingLines: { nodes: [{ subtotalAmountSet: money('4.80'), taxAmountSet: money('0.80') }] } },
      // A £5.00 goodwill amount: an order adjustment in the customer's favour (negative).
      { id: 'gid://shopify/Refund/3', createdAt: '2026-02-12T10:00:00Z', orderAdjustments: { nodes: [{ amountSet: money('-5.00'), taxAmountSet: money('0.00') }] } },
    ],
  };

  it('UK VAT shop: sales, discounts, shipping and refunds net of VAT, VAT counted once', () => {
    const { order, refunds } = mapShopifyOrder(shopifyOrderNode.parse(ukOrder));
    // Merchandise net of VAT = 50.40 - (9.20 - 0.80) = £42.00; gross = 60.00 x 42.00 / 50.40 = £50.00
    // (40.00 + 10.00 before the discount); discounts = 50.00 - 42.00 = £8.00 (9.60 / 1.2);
    // shipping = 4.80 - 0.80 = £4.00; VAT = £9.20. Total paid 55.20 = 42.00 + 4.00 + 9.20.
    // Before: gross 60.00, discounts 9.60, shipping 4.80: net sales £50.40, 20 % too high.
    expect(order).toMatchObject({ currency: 'GBP', grossMinor: 5000, discountsMinor: 800, shippingMinor: 400, taxesMinor: 920 });
    // Lines net of VAT: the tee 2 x £20.00 less £8.00 (32.00 = 38.40 - 6.40); the mug £10.00.
    expect(order.lines!.map(({ unitPriceMinor, discountMinor, quantity }) => ({ unitPriceMinor, discountMinor, quantity }))).toEqual([
      { unitPriceMinor: 2000, discountMinor: 800, quantity: 2 },
      { unitPriceMinor: 1000, discountMinor: 0, quantity: 1 },
    ]);
    expect(refunds.map(({ amountMinor, shippingMinor, taxesMinor, adjustmentsMinor }) => ({ amountMinor, shippingMinor, taxesMinor, adjustmentsMinor }))).toEqual([
      // The mug: £12.00 - £2.00 VAT = £10.00 of merchandise, £2.00 of VAT.
      { amountMinor: 1000, shippingMinor: 0, taxesMinor: 200, adjustmentsMinor: 0 },
      // Shipping only: £4.00 of shipping, £0.80 of VAT, no merchandise (before: £4.80 of net sales).
      { amountMinor: 0, shippingMinor: 400, taxesMinor: 80, adjustmentsMinor: 0 },
      // Goodwill £5.00: an adjustment, not merchandise (before: net sales lowered by £5.00).
      { amountMinor: 0, shippingMinor: 0, taxesMinor: 0, adjustmentsMinor: 500 },
    ]);
  });

  it('US shop: sales tax on top stays out of sales, discounts and refunds', () => {
    // 2 x $50.00 less $10.00 = $90.00, 8 % tax $7.20; shipping $5.00 with $0.40 tax.
    const us = {
      ...ukOrder,
      currencyCode: 'USD',
      taxesIncluded: false,
      subtotalPriceSet: money('90.00', 'USD'),
      totalDiscountsSet: money('10.00', 'USD'),
      totalTaxSet: money('7.60', 'USD'),
      shippingLine: { discountedPriceSet: money('5.00', 'USD'), taxLines: [{ priceSet: money('0.40', 'USD') }] },
      lineItems: { nodes: [{ id: 'gid://shopify/LineItem/3', title: 'Boots', quantity: 2, originalUnitPriceSet: money('50.00', 'USD'), discountedTotalSet: money('90.00', 'USD'), taxLines: [{ priceSet: money('7.20', 'USD') }] }] },
      // One pair returned: $45.00 and its $3.60 tax.
      refunds: [{ id: 'gid://shopify/Refund/4', createdAt: '2026-02-11T09:00:00Z', refundLineItems: { nodes: [{ quantity: 1, subtotalSet: money('45.00', 'USD'), totalTaxSet: money('3.60', 'USD') }] } }],
    };
    const { order, refunds } = mapShopifyOrder(shopifyOrderNode.parse(us));
    expect(order).toMatchObject({ grossMinor: 10000, discountsMinor: 1000, shippingMinor: 500, taxesMinor: 760 });
    expect(order.lines![0]).toMatchObject({ unitPriceMinor: 5000, discountMinor: 1000 });
    expect(refunds[0]).toMatchObject({ amountMinor: 4500, shippingMinor: 0, taxesMinor: 360, adjustmentsMinor: 0 });
  });

  it('the REST webhook bodies give the same figures as GraphQL for a UK VAT shop', async () => {
    const fake = await shop({ currency: 'GBP', taxesIncluded: true, timezone: 'Europe/London' });
    const index = 3;
    fake.addRefund(fake.orderId(index), { lines: 0, shippingMinor: 480, at: new Date('2026-02-20T00:00:00Z') });
    const viaGraphql = mapShopifyOrder(shopifyOrderNode.parse(fake.graphqlOrder(index)));
    const viaRest = mapShopifyRestOrder(JSON.parse(JSON.stringify(fake.restOrder(index))));
    const { grossMinor, discountsMinor, shippingMinor, taxesMinor } = viaGraphql.order;
    expect(viaRest.order).toMatchObject({ grossMinor, discountsMinor, shippingMinor, taxesMinor });
    expect(viaRest.order.lines).toEqual(viaGraphql.order.lines);
    // The shipping refund: £4.80 with £0.80 VAT inside -> £4.00 shipping, £0.80 tax.
    expect(viaRest.refunds.at(-1)).toMatchObject({ amountMinor: 0, shippingMinor: 400, taxesMinor: 80, adjustmentsMinor: 0 });
    expect(viaGraphql.refunds.at(-1)).toMatchObject({ amountMinor: 0, shippingMinor: 400, taxesMinor: 80, adjustmentsMinor: 0 });
    // Net sales of the whole UK shop: what Shopify's analytics say (subtotals less their VAT).
    const batches = await readWindow(fake, backfill, { bulkThreshold: 10_000 });
    const orders = batches.flatMap((batch) => batch.orders ?? []);
    for (const order of orders) {
      const source = fake.order(fake.indexOfOrder(order.externalId));
      const totals = fake.totalsOf(source);
      expect(order.grossMinor - (order.discountsMinor ?? 0)).toBe(totals.subtotalMinor - (totals.taxMinor - totals.shippingTaxMinor));
    }
  });
});

describe('point 4: the shop’s time zone', () => {
  it('verify returns the shop’s ianaTimezone and currency', async () => {
    const fake = await shop({ currency: 'GBP', timezone: 'Europe/London', taxesIncluded: true });
    await expect(createShopifyConnector().verify(context(fake))).resolves.toMatchObject({ currency: 'GBP', timezone: 'Europe/London' });
    const other = await shop({ timezone: 'Australia/Sydney' });
    await expect(createShopifyConnector().verify(context(other))).resolves.toMatchObject({ timezone: 'Australia/Sydney' });
  });
});

describe('point 5: products and their costs', () => {
  it('a backfill reads the whole catalogue, also products last edited before its window; an incremental sync only the changed ones', async () => {
    const fake = await shop({ products: 8, productsUpdatedAt: new Date('2023-06-01T00:00:00Z') });
    const products = (await readWindow(fake, backfill, { bulkThreshold: 10_000 })).flatMap((batch) => batch.products ?? []);
    expect(products).toHaveLength(8);
    // Unit cost 40 % of the price, in shop money.
    expect(products[0]).toMatchObject({ externalId: '800000', unitCostMinor: fake.unitCostMinor(0), currency: 'USD' });
    const incremental = { since: new Date('2026-01-31T00:00:00Z'), until: new Date('2026-02-01T00:00:00Z') };
    expect((await readWindow(fake, incremental)).flatMap((batch) => batch.products ?? [])).toHaveLength(0);
  });

  it('products/update webhooks upsert the product from its REST body', () => {
    const effect = mapShopifyWebhook('products/update', JSON.parse(JSON.stringify({ id: 800003, title: 'Tee (new)', status: 'active', variants: [{ id: 1, sku: 'SKU-3', price: '42.00' }] })), { shopCurrency: 'USD' });
    expect(effect).toEqual({
      kind: 'ingest',
      orders: [],
      refunds: [],
      products: [{ platform: 'shopify', externalId: '800003', title: 'Tee (new)', sku: 'SKU-3', priceMinor: 4200, currency: 'USD', imageUrl: null, active: true }],
    });
  });
});

describe('point 6: refused token vs a denied field', () => {
  it('401 is an auth failure; ACCESS_DENIED on one field with data returned is not', () => {
    expect(classifyShopify(platformResponse('shopify', 401, new Headers(), Buffer.from('{"errors":"[API] Invalid API key or access token"}')))).toMatchObject({ kind: 'auth' });
    const partial = { data: { products: { nodes: [] } }, errors: [{ message: 'Access denied for unitCost field.', extensions: { code: 'ACCESS_DENIED' } }] };
    expect(classifyShopify(platformResponse('shopify', 200, new Headers(), Buffer.from(JSON.stringify(partial))))).toBeUndefined();
  });

  it('without read_inventory the products come without costs and a warning says why; the orders still arrive', async () => {
    const fake = await shop({ scopes: ['read_orders', 'read_all_orders', 'read_products', 'read_customers'] });
    const batches = await readWindow(fake, backfill, { bulkThreshold: 10_000 });
    const products = batches.flatMap((batch) => batch.products ?? []);
    expect(products).toHaveLength(8);
    expect(products.every((product) => product.unitCostMinor === null)).toBe(true);
    expect(batches[0]!.warnings).toEqual([expect.stringMatching(/read_inventory permission is missing.*COGS, profit and the P&L/)]);
    expect(batches.flatMap((batch) => batch.orders ?? [])).toHaveLength(fake.ordersUpdatedBetween(backfill.since, backfill.until));
  });
});

describe('point 7: refunds in shop money', () => {
  it('a refunds/create body without refunded lines is never read in the presentment currency', async () => {
    const fake = await shop();
    // An order paid in EUR by the buyer (presentment), USD shop.
    let index = 0;
    while (fake.order(index).presentmentCurrency === 'USD') index++;
    fake.addRefund(fake.orderId(index), { lines: 0, adjustmentMinor: 1000, at: new Date('2026-02-02T00:00:00Z') });
    const body = JSON.parse(fake.webhookDelivery('refunds/create', fake.orderId(index)).body) as { transactions: { amount: string; currency: string }[] };
    // The transaction says EUR 9.20 (the presentment money of USD 10.00).
    expect(body.transactions[0]).toMatchObject({ amount: '9.20', currency: 'EUR' });
    const effect = mapShopifyWebhook('refunds/create', body, { shopCurrency: 'USD' });
    expect(effect).toMatchObject({ kind: 'ingest', readOrders: [fake.orderId(index)] });
    // From the body's shop money: the USD 10.00 adjustment, not 9.20 of merchandise.
    expect(effect.kind === 'ingest' && effect.refunds).toEqual([expect.objectContaining({ amountMinor: 0, adjustmentsMinor: 1000, currency: 'USD' })]);
    // A body with no shop-money part at all keeps no amount (the order is read from GraphQL).
    const bare = { ...body, order_adjustments: [] };
    expect(mapShopifyWebhook('refunds/create', bare, { shopCurrency: 'USD' })).toMatchObject({ refunds: [], readOrders: [fake.orderId(index)] });
    expect(mapShopifyRestRefund({ id: 1, created_at: '2026-02-02T00:00:00Z', transactions: [{ kind: 'refund', status: 'success', amount: '9.20', currency: 'EUR' }] }, '1', 'USD', false)).toMatchObject({ amountMinor: 0, adjustmentsMinor: 0 });
  });
});

describe('bulk operations for big backfills', () => {
  const options = { bulkThreshold: 20, bulkBatchOrders: 7 };

  it('streams the JSONL file in batches, the same orders and figures as page by page, and resumes mid-file', async () => {
    const fake = await shop({ orders: 40, bulkPollsBeforeComplete: 3, lineCounts: { 2: 12 } });
    fake.addRefund(fake.orderId(2), { amountMinor: 900, shippingMinor: 500, adjustmentMinor: 200, at: new Date('2026-01-20T00:00:00Z') });
    const connector = createShopifyConnector(options);
    const ctx = context(fake);
    const batches: SyncBatch[] = [];
    const cursors: (string | null)[] = [];
    let cursor: string | null = null;
    do {
      const batch = await connector.fetchBatch(ctx, backfill, cursor);
      batches.push(batch);
      cursors.push(cursor);
      cursor = batch.nextCursor;
    } while (cursor && batches.length < 50);
    expect(fake.bulkOperations).toHaveLength(1);
    expect(fake.bulkOperations[0]!.status).toBe('COMPLETED');
    const orders = batches.flatMap((batch) => batch.orders ?? []);
    const expected = fake.ordersUpdatedBetween(backfill.since, backfill.until);
    expect(orders).toHaveLength(expected);
    // Batches of at most 7 orders.
    expect(Math.max(...batches.map((batch) => batch.orders?.length ?? 0))).toBe(7);
    // The same rows as the paginated path.
    const paged = (await readWindow(fake, backfill, { bulkThreshold: 10_000 })).flatMap((batch) => [...(batch.orders ?? []), ...(batch.refunds ?? [])]);
    const bulkRows = [...orders, ...batches.flatMap((batch) => batch.refunds ?? [])];
    const byKey = (rows: { externalId: string }[]) => new Map(rows.map((row) => [`${'orderExternalId' in row ? 'r' : 'o'}${row.externalId}`, row]));
    expect(byKey(bulkRows as { externalId: string }[])).toEqual(byKey(paged as { externalId: string }[]));
    const big = orders.find((order) => order.externalId === fake.orderId(2))!;
    expect(big.lines).toHaveLength(12);

    // A crash after the third orders batch: the run resumes with the cursor stored then, from another
    // process (the open stream is not reused when its position differs): the same orders follow.
    const third = cursors.findIndex((entry) => entry !== null && JSON.parse(entry).bulk?.linesDone > 0);
    const resumedFrom = cursors[third + 1]!;
    const again = await connector.fetchBatch(ctx, backfill, resumedFrom);
    const original = batches[third + 1]!;
    expect(again.orders!.map((order) => order.externalId)).toEqual(original.orders!.map((order) => order.externalId));
  });

  it('polls a running operation for at most ~20 s per batch, returning empty batches that keep polling', async () => {
    const fake = await shop({ orders: 40, bulkPollsBeforeComplete: 30 });
    const connector = createShopifyConnector(options);
    const products = await connector.fetchBatch(context(fake), backfill, null);
    const started = clock;
    const waiting = await connector.fetchBatch(context(fake), backfill, products.nextCursor);
    expect(waiting.orders ?? []).toEqual([]);
    expect(clock - started).toBeLessThanOrEqual(20_000);
    expect(JSON.parse(waiting.nextCursor!)).toMatchObject({ phase: 'bulk', bulk: { operationId: fake.bulkOperations[0]!.id, linesDone: 0 } });
  });

  it('a FAILED operation falls back to pages with a warning; an expired file starts a new operation', async () => {
    const fake = await shop({ orders: 40 });
    fake.failNextBulkOperation('INTERNAL_SERVER_ERROR');
    const batches = await readWindow(fake, backfill, options);
    expect(batches.flatMap((batch) => batch.orders ?? [])).toHaveLength(fake.ordersUpdatedBetween(backfill.since, backfill.until));
    expect(batches.flatMap((batch) => batch.warnings ?? [])).toContainEqual(expect.stringContaining('INTERNAL_SERVER_ERROR'));

    const second = await shop({ orders: 40 });
    const connector = createShopifyConnector(options);
    const ctx = context(second);
    let cursor = (await connector.fetchBatch(ctx, backfill, null)).nextCursor;
    const first = await connector.fetchBatch(ctx, backfill, cursor);
    expect(first.orders!.length).toBeGreaterThan(0);
    cursor = first.nextCursor;
    second.expireBulkFiles();
    const afterExpiry = await connector.fetchBatch(ctx, backfill, cursor);
    expect(afterExpiry.orders ?? []).toEqual([]);
    expect(JSON.parse(afterExpiry.nextCursor!)).toMatchObject({ phase: 'bulk', bulk: { operationId: null, linesDone: 0 } });
    const rest: SyncBatch[] = [];
    cursor = afterExpiry.nextCursor;
    while (cursor && rest.length < 50) {
      const batch = await connector.fetchBatch(ctx, backfill, cursor);
      rest.push(batch);
      cursor = batch.nextCursor;
    }
    expect(second.bulkOperations).toHaveLength(2);
    expect(rest.flatMap((batch) => batch.orders ?? [])).toHaveLength(second.ordersUpdatedBetween(backfill.since, backfill.until));
  });
});

describe('net sales for reconciliation', () => {
  it('sourceTotals gives Shopify’s own net sales per whole day (ShopifyQL) besides the order counts; counts only without read_reports', async () => {
    const fake = await shop({ orders: 200, from: new Date('2025-03-01T00:00:00Z'), to: new Date('2025-03-11T00:00:00Z') });
    const window = { since: new Date('2025-03-02T05:00:00Z'), until: new Date('2025-03-06T05:00:00Z') };
    const totals = await createShopifyConnector({ netSalesFromShopifyQL: true }).sourceTotals!(context(fake), window);
    const rows = new Map(fake.netSalesRows('2025-03-02', '2025-03-05').map((row) => [row.day, Math.round(Number(row.net_sales) * 100)]));
    expect(totals.map((total) => total.day)).toEqual(storeDaysOf(window, 'America/New_York').map((day) => day.day));
    for (const total of totals) expect(total.netSalesMinor).toBe(rows.get(total.day) ?? 0);
    expect(totals.reduce((sum, total) => sum + (total.netSalesMinor ?? 0), 0)).toBeGreaterThan(0);

    fake.scopes = fake.scopes.filter((scope) => scope !== 'read_reports');
    const countsOnly = await createShopifyConnector({ netSalesFromShopifyQL: true }).sourceTotals!(context(fake), window);
    expect(countsOnly.every((total) => total.netSalesMinor === undefined && total.orders !== undefined)).toBe(true);
  });
});
