import type { EntityManager } from '@mikro-orm/postgresql';
import { describe, expect, it } from 'vitest';
import { channelRollups, createCommerceStore, dailyRollup, readRollups, setFxRates, testOrder } from '../../../../test/commerce-fixtures.ts';
import { useTestDatabase } from '../../../../test/harness.ts';
import { dayInZone } from '../../../shared/date-ranges.ts';
import { hashEmail, ingestAdMetrics, ingestEmailMetrics, ingestOrders, ingestRefunds, upsertProducts } from './ingest.ts';
import { OrderLine } from './order-line.entity.ts';
import { Order } from './order.entity.ts';
import { sqlRunner } from './raw-sql.ts';
import { Refund } from './refund.entity.ts';
import { DailyRollup } from './rollup.entity.ts';

const database = useTestDatabase();

function fork(): EntityManager {
  return database.orm.em.fork();
}

async function orderRow(em: EntityManager, storeId: number, externalId: string) {
  const [row] = await sqlRunner(em).rows<Record<string, unknown>>(
    `select to_char(placed_day, 'YYYY-MM-DD') as placed_day, status, refunds_minor::int as refunds, net_sales_minor::int as net,
            is_new_customer, channel, customer_id::text as customer_id
       from orders where store_id = $1 and external_id = $2`,
    [storeId, externalId],
  );
  return row;
}

async function customerRow(em: EntityManager, storeId: number, externalId: string) {
  const [row] = await sqlRunner(em).rows<Record<string, unknown>>(
    `select first_order_at, orders_count, total_spent_minor::int as total_spent, email_hash
       from customers where store_id = $1 and external_id = $2`,
    [storeId, externalId],
  );
  return row;
}

async function wholeStore(em: EntityManager, storeId: number) {
  const q = sqlRunner(em);
  const dump = async (table: string, order: string) =>
    (await q.rows<{ row: unknown }>(`select to_jsonb(t) as row from ${table} t where store_id = $1 order by ${order}`, [storeId])).map((r) => r.row);
  return {
    products: await dump('products', 'id'),
    customers: await dump('customers', 'id'),
    orders: await dump('orders', 'id'),
    lines: await dump('order_lines', 'id'),
    refunds: await dump('refunds', 'id'),
    ads: await dump('ad_metrics_daily', 'platform, account_id, campaign_id, day'),
    emails: await dump('email_metrics_daily', 'platform, campaign_id, day'),
    rollups: await readRollups(em, storeId),
  };
}

describe("days in the store's time zone", () => {
  it('Europe/London: 23:30 UTC in summer is the next day, in winter the same day, across both DST changes', async () => {
    const store = await createCommerceStore(database.orm, { timezone: 'Europe/London' });
    const em = fork();
    const cases = [
      ['2026-07-01T23:30:00Z', '2026-07-02'],
      ['2026-01-15T23:30:00Z', '2026-01-15'],
      ['2026-03-28T23:30:00Z', '2026-03-28'], // the last GMT evening
      ['2026-03-29T23:30:00Z', '2026-03-30'], // BST from 01:00 UTC on the 29th
      ['2026-10-24T23:30:00Z', '2026-10-25'], // still BST
      ['2026-10-25T23:30:00Z', '2026-10-25'], // GMT again
    ] as const;
    await ingestOrders(em, store, cases.map(([placedAt], index) => testOrder({ externalId: `tz-${index}`, placedAt })));
    for (const [index, [placedAt, day]] of cases.entries()) {
      expect((await orderRow(em, store.id, `tz-${index}`))!.placed_day).toBe(day);
      expect(dayInZone(placedAt, 'Europe/London')).toBe(day);
    }
    expect((await dailyRollup(em, store.id, '2026-07-02'))!.orders_count).toBe(1);
    expect(await dailyRollup(em, store.id, '2026-07-01')).toBeNull();
    expect((await dailyRollup(em, store.id, '2026-10-25'))!.orders_count).toBe(2);
  });

  it('America/New_York: evening orders stay on their local day, across the March DST change; refunds too', async () => {
    const store = await createCommerceStore(database.orm, { timezone: 'America/New_York', currency: 'USD' });
    const em = fork();
    const cases = [
      ['2026-03-08T04:30:00Z', '2026-03-07'], // 23:30 EST
      ['2026-03-08T07:30:00Z', '2026-03-08'], // 03:30 EDT, just after the change
      ['2026-03-09T03:30:00Z', '2026-03-08'], // 23:30 EDT
      ['2026-03-09T04:30:00Z', '2026-03-09'], // 00:30 EDT
      ['2026-07-01T23:30:00Z', '2026-07-01'], // 19:30 EDT
    ] as const;
    await ingestOrders(em, store, cases.map(([placedAt], index) => testOrder({ externalId: `ny-${index}`, placedAt, currency: 'USD' })));
    for (const [index, [placedAt, day]] of cases.entries()) {
      expect((await orderRow(em, store.id, `ny-${index}`))!.placed_day).toBe(day);
      expect(dayInZone(placedAt, 'America/New_York')).toBe(day);
    }
    expect((await dailyRollup(em, store.id, '2026-03-08', 'USD'))!.orders_count).toBe(2);
    await ingestRefunds(em, store, [
      { platform: 'shopify', externalId: 'ny-refund', orderExternalId: 'ny-4', refundedAt: '2026-07-03T02:00:00Z', amountMinor: 1_000, currency: 'USD' },
    ]);
    expect((await dailyRollup(em, store.id, '2026-07-02', 'USD'))!.refunds_minor).toBe(1_000);
  });
});

describe('a day of orders, hand-computed', () => {
  it('fills every column of the daily and channel rollups, the orders and the customers', async () => {
    const store = await createCommerceStore(database.orm);
    const em = fork();
    await upsertProducts(em, store, [
      { platform: 'shopify', externalId: 'p1', title: 'Tent', priceMinor: 1_500, currency: 'GBP', unitCostMinor: 400 },
      { platform: 'shopify', externalId: 'p2', title: 'Mug', priceMinor: 2_000, currency: 'GBP' },
      { platform: 'shopify', externalId: 'p3', title: 'Stove', priceMinor: 3_000, currency: 'USD', unitCostMinor: 500 },
    ]);
    await ingestOrders(em, store, [
      testOrder({
        externalId: 'o1',
        placedAt: '2026-06-10T09:00:00Z',
        customer: { externalId: 'c1', email: ' Ada@Example.com ' },
        grossMinor: 5_000,
        discountsMinor: 500,
        shippingMinor: 495,
        taxesMinor: 1_000,
        gclid: 'Cj0abc',
        lines: [
          { externalId: 'l1', productExternalId: 'p1', title: 'Tent', quantity: 2, unitPriceMinor: 1_500 },
          { externalId: 'l2', productExternalId: 'p2', title: 'Mug', quantity: 1, unitPriceMinor: 2_000, discountMinor: 500 },
        ],
      }),
      testOrder({
        externalId: 'o2',
        placedAt: '2026-06-10T11:00:00Z',
        customer: { externalId: 'c2' },
        grossMinor: 3_000,
        landingSite: '/?utm_source=klaviyo&utm_medium=email&utm_campaign=june',
        lines: [{ externalId: 'l1', productExternalId: 'p3', title: 'Stove', quantity: 1, unitPriceMinor: 3_000, unitCostMinor: 1_200 }],
      }),
      testOrder({ externalId: 'o3', placedAt: '2026-06-10T12:00:00Z', grossMinor: 2_000, referrer: 'https://www.google.com/' }),
      testOrder({ externalId: 'o4', placedAt: '2026-06-10T13:00:00Z', customer: { externalId: 'c1' }, grossMinor: 1_000, discountsMinor: 100 }),
      testOrder({ externalId: 'o5', placedAt: '2026-06-10T14:00:00Z', customer: { externalId: 'c3' }, grossMinor: 9_999, status: 'cancelled' }),
      testOrder({ externalId: 'o6', placedAt: '2026-06-10T15:00:00Z', grossMinor: 7_777, isTest: true }),
    ]);

    expect(await dailyRollup(em, store.id, '2026-06-10')).toEqual({
      orders_count: 4,
      gross_minor: 11_000,
      discounts_minor: 600,
      refunds_minor: 0,
      shipping_minor: 495,
      taxes_minor: 1_000,
      net_sales_minor: 10_400,
      new_customer_orders: 3, // o1 (c1's first), o2 (c2's first), o3 (a guest)
      returning_customer_orders: 1, // o4
      new_customer_net_minor: 9_500, // o1 4500 + o2 3000 + o3 2000
      returning_customer_net_minor: 900, // o4 1000 - 100
      new_customers: 2, // c1, c2
      units: 4,
      cogs_minor: 2_000, // 2 x 400 + 1 x 1200
      uncosted_sales_minor: 1_500, // the mug: 2000 - 500
      ltv_net_30_minor: 8_400, // c1: 4500 + 900, c2: 3000
      ltv_net_60_minor: 8_400,
      ltv_net_90_minor: 8_400,
      ltv_net_180_minor: 8_400,
      ltv_net_365_minor: 8_400,
      spend_minor: 0,
      ad_spend_minor: 0,
      clicks: 0,
    });
    // Per product: the lines of the counting orders (o1, o2); the mug has no cost.
    const product = (key: string, values: Record<string, number>) => ({ day: '2026-06-10', currency: 'GBP', product_key: key, ...values });
    expect((await readRollups(em, store.id)).product).toEqual([
      product('product:shopify:p1', { orders_count: 1, units: 2, net_sales_minor: 3_000, cogs_minor: 800, costed_net_minor: 3_000, costed_lines: 1 }),
      product('product:shopify:p2', { orders_count: 1, units: 1, net_sales_minor: 1_500, cogs_minor: 0, costed_net_minor: 0, costed_lines: 0 }),
      product('product:shopify:p3', { orders_count: 1, units: 1, net_sales_minor: 3_000, cogs_minor: 1_200, costed_net_minor: 3_000, costed_lines: 1 }),
    ]);
    const zero = { spend_minor: 0, impressions: 0, clicks: 0, platform_conversions: 0, platform_conversion_value_minor: 0 };
    expect(await channelRollups(em, store.id, '2026-06-10')).toEqual({
      googleads: { orders_count: 1, net_sales_minor: 4_500, new_customers: 1, ...zero },
      klaviyo: { orders_count: 1, net_sales_minor: 3_000, new_customers: 1, ...zero },
      organic_search: { orders_count: 1, net_sales_minor: 2_000, new_customers: 0, ...zero },
      direct: { orders_count: 1, net_sales_minor: 900, new_customers: 0, ...zero },
    });

    expect(await orderRow(em, store.id, 'o1')).toMatchObject({ is_new_customer: true, channel: 'googleads', net: 4_500, status: 'paid' });
    expect(await orderRow(em, store.id, 'o3')).toMatchObject({ is_new_customer: true, customer_id: null, channel: 'organic_search' });
    expect(await orderRow(em, store.id, 'o4')).toMatchObject({ is_new_customer: false, channel: 'direct' });
    expect(await orderRow(em, store.id, 'o5')).toMatchObject({ is_new_customer: false, status: 'cancelled' });
    expect(await orderRow(em, store.id, 'o6')).toMatchObject({ is_new_customer: false });

    const c1 = await customerRow(em, store.id, 'c1');
    expect(c1).toMatchObject({ orders_count: 2, total_spent: 5_400, email_hash: hashEmail('ada@example.com') });
    expect(new Date(c1!.first_order_at as string).toISOString()).toBe('2026-06-10T09:00:00.000Z');
    expect(await customerRow(em, store.id, 'c2')).toMatchObject({ orders_count: 1, total_spent: 3_000, email_hash: null });
    expect(await customerRow(em, store.id, 'c3')).toMatchObject({ orders_count: 0, total_spent: 0, first_order_at: null });

    const lines = await sqlRunner(em).rows<{ external_id: string; unit_cost: number | null; product: string | null }>(
      `select l.external_id, l.unit_cost_minor::int as unit_cost, p.external_id as product
         from order_lines l join orders o on o.store_id = l.store_id and o.id = l.order_id
         left join products p on p.store_id = l.store_id and p.id = l.product_id
        where l.store_id = $1 order by o.external_id, l.external_id`,
      [store.id],
    );
    expect(lines).toEqual([
      { external_id: 'l1', unit_cost: 400, product: 'p1' }, // snapshot of the product's cost
      { external_id: 'l2', unit_cost: null, product: 'p2' },
      { external_id: 'l1', unit_cost: 1_200, product: 'p3' }, // the order's own cost wins
    ]);
  });

  it('reads back through the entities (composite keys that start with the store)', async () => {
    const store = await createCommerceStore(database.orm);
    const em = fork();
    await upsertProducts(em, store, [{ platform: 'shopify', externalId: 'p1', title: 'Tent', priceMinor: 1_500, currency: 'GBP', unitCostMinor: 400 }]);
    await ingestOrders(em, store, [
      testOrder({ externalId: 'entity-1', placedAt: '2026-06-10T23:30:00Z', customer: { externalId: 'ent' }, lines: [{ productExternalId: 'p1', title: 'Tent', quantity: 1, unitPriceMinor: 1_500 }] }),
    ]);
    await ingestRefunds(em, store, [{ platform: 'shopify', externalId: 'entity-r', orderExternalId: 'entity-1', refundedAt: '2026-06-12T10:00:00Z', amountMinor: 100, currency: 'GBP' }]);
    const read = fork();
    const [order] = await read.find(Order, { store: store.id }, { populate: ['customer'] });
    expect(order).toMatchObject({ externalId: 'entity-1', placedDay: '2026-06-11', grossMinor: 10_000, refundsMinor: 100, netSalesMinor: 9_900, status: 'partially_refunded', isNewCustomer: true });
    expect(order!.customer!.externalId).toBe('ent');
    const [line] = await read.find(OrderLine, { store: store.id }, { populate: ['product', 'order'] });
    expect(line!.product!.unitCostMinor).toBe(400);
    expect(line!.order.externalId).toBe('entity-1');
    const [refund] = await read.find(Refund, { store: store.id, order: { externalId: 'entity-1' } });
    expect(refund).toMatchObject({ refundedDay: '2026-06-12', amountMinor: 100 });
    const [rollup] = await read.find(DailyRollup, { store: store.id, day: '2026-06-11' });
    expect(rollup).toMatchObject({ currency: 'GBP', ordersCount: 1, netSalesMinor: 10_000, cogsMinor: 400 });
  });
});

describe('refunds', () => {
  it("lower net sales on their own day, not the order's, and update the order and its customer", async () => {
    const store = await createCommerceStore(database.orm);
    const em = fork();
    await ingestOrders(em, store, [
      testOrder({ externalId: 'r-order', placedAt: '2026-06-01T10:00:00Z', grossMinor: 10_000, discountsMinor: 1_000, customer: { externalId: 'rc' }, fbclid: 'x' }),
    ]);
    const refund = { platform: 'shopify', orderExternalId: 'r-order', currency: 'GBP' } as const;
    await ingestRefunds(em, store, [{ ...refund, externalId: 'r1', refundedAt: '2026-06-05T10:00:00Z', amountMinor: 2_500, reason: 'Too small' }]);

    expect(await dailyRollup(em, store.id, '2026-06-01')).toMatchObject({ orders_count: 1, net_sales_minor: 9_000, refunds_minor: 0, ltv_net_30_minor: 6_500 });
    expect(await dailyRollup(em, store.id, '2026-06-05')).toMatchObject({ orders_count: 0, gross_minor: 0, refunds_minor: 2_500, net_sales_minor: -2_500 });
    expect((await channelRollups(em, store.id, '2026-06-05')).metaads).toMatchObject({ orders_count: 0, net_sales_minor: -2_500 });
    expect(await orderRow(em, store.id, 'r-order')).toMatchObject({ refunds: 2_500, net: 6_500, status: 'partially_refunded' });
    expect(await customerRow(em, store.id, 'rc')).toMatchObject({ total_spent: 6_500 });

    // The rest, late on the 6th UTC = the 7th in London (BST).
    await ingestRefunds(em, store, [{ ...refund, externalId: 'r2', refundedAt: '2026-06-06T23:30:00Z', amountMinor: 6_500 }]);
    expect(await dailyRollup(em, store.id, '2026-06-07')).toMatchObject({ refunds_minor: 6_500, net_sales_minor: -6_500 });
    expect(await orderRow(em, store.id, 'r-order')).toMatchObject({ refunds: 9_000, net: 0, status: 'refunded' });
    expect((await dailyRollup(em, store.id, '2026-06-01'))!.ltv_net_365_minor).toBe(0);

    // Replaying changes nothing; correcting a refund moves only its own day.
    const before = await wholeStore(em, store.id);
    await ingestRefunds(em, store, [
      { ...refund, externalId: 'r1', refundedAt: '2026-06-05T10:00:00Z', amountMinor: 2_500, reason: 'Too small' },
      { ...refund, externalId: 'r2', refundedAt: '2026-06-06T23:30:00Z', amountMinor: 6_500 },
    ]);
    expect(await wholeStore(em, store.id)).toEqual(before);
    await ingestRefunds(em, store, [{ ...refund, externalId: 'r1', refundedAt: '2026-06-05T10:00:00Z', amountMinor: 2_000 }]);
    expect(await dailyRollup(em, store.id, '2026-06-05')).toMatchObject({ refunds_minor: 2_000, net_sales_minor: -2_000 });
    expect(await orderRow(em, store.id, 'r-order')).toMatchObject({ refunds: 8_500, net: 500, status: 'partially_refunded' });

    // Re-ingesting the order (the platform still says "paid") keeps the refunds.
    await ingestOrders(em, store, [
      testOrder({ externalId: 'r-order', placedAt: '2026-06-01T10:00:00Z', grossMinor: 10_000, discountsMinor: 1_000, customer: { externalId: 'rc' }, fbclid: 'x' }),
    ]);
    expect(await orderRow(em, store.id, 'r-order')).toMatchObject({ refunds: 8_500, net: 500, status: 'partially_refunded' });
  });

  it('keep merchandise, shipping, tax and adjustments apart, each on the refund day', async () => {
    // A UK order: 100.00 of goods less 10.00 discount, 4.95 shipping, 18.99 VAT (all net of tax).
    const store = await createCommerceStore(database.orm);
    const em = fork();
    const order = { externalId: 'parts', placedAt: '2026-06-01T10:00:00Z', grossMinor: 10_000, discountsMinor: 1_000, shippingMinor: 495, taxesMinor: 1_899 };
    await ingestOrders(em, store, [testOrder(order)]);
    const refund = { platform: 'shopify', orderExternalId: 'parts', currency: 'GBP' } as const;
    // June 3rd: the shipping refunded alone (4.95 + 0.99 VAT): merchandise untouched.
    await ingestRefunds(em, store, [{ ...refund, externalId: 'ship', refundedAt: '2026-06-03T10:00:00Z', amountMinor: 0, shippingMinor: 495, taxesMinor: 99 }]);
    expect(await dailyRollup(em, store.id, '2026-06-03')).toMatchObject({ refunds_minor: 0, net_sales_minor: 0, shipping_minor: -495, taxes_minor: -99 });
    expect(await orderRow(em, store.id, 'parts')).toMatchObject({ refunds: 0, net: 9_000, status: 'partially_refunded' });
    // June 5th: 30.00 of goods (+ 6.00 VAT) and a 5.00 goodwill adjustment: only the 30.00 is net sales.
    await ingestRefunds(em, store, [
      { ...refund, externalId: 'goods', refundedAt: '2026-06-05T10:00:00Z', amountMinor: 3_000, taxesMinor: 600, adjustmentsMinor: 500 },
    ]);
    expect(await dailyRollup(em, store.id, '2026-06-05')).toMatchObject({ refunds_minor: 3_000, net_sales_minor: -3_000, shipping_minor: 0, taxes_minor: -600 });
    // The order's own day keeps what was charged.
    expect(await dailyRollup(em, store.id, '2026-06-01')).toMatchObject({ net_sales_minor: 9_000, shipping_minor: 495, taxes_minor: 1_899 });
    expect(await orderRow(em, store.id, 'parts')).toMatchObject({ refunds: 3_000, net: 6_000, status: 'partially_refunded' });
    const [stored] = await sqlRunner(em).rows<Record<string, number>>(
      `select shipping_minor::int as shipping, taxes_minor::int as taxes, adjustments_minor::int as adjustments from refunds where store_id = $1 and external_id = 'goods'`,
      [store.id],
    );
    expect(stored).toEqual({ shipping: 0, taxes: 600, adjustments: 500 });
    // Re-ingesting the order (the platform still says "paid") keeps it partially refunded.
    await ingestOrders(em, store, [testOrder({ ...order, updatedAt: '2026-06-06T10:00:00Z' })]);
    expect(await orderRow(em, store.id, 'parts')).toMatchObject({ status: 'partially_refunded' });
    await expect(
      ingestRefunds(em, store, [{ ...refund, externalId: 'bad', refundedAt: '2026-06-05T10:00:00Z', amountMinor: 0, shippingMinor: -1 }]),
    ).rejects.toThrow('Refund shopify/bad: shippingMinor must be at least 0');
  });

  it('refuses a refund of an unknown order, or in another currency, and writes nothing', async () => {
    const store = await createCommerceStore(database.orm);
    const em = fork();
    await ingestOrders(em, store, [testOrder({ externalId: 'known', placedAt: '2026-06-01T10:00:00Z' })]);
    await expect(
      ingestRefunds(em, store, [{ platform: 'shopify', externalId: 'x1', orderExternalId: 'missing', refundedAt: '2026-06-02T10:00:00Z', amountMinor: 100, currency: 'GBP' }]),
    ).rejects.toThrow('Refund shopify/x1: order shopify/missing has not been ingested');
    await expect(
      ingestRefunds(em, store, [{ platform: 'shopify', externalId: 'x2', orderExternalId: 'known', refundedAt: '2026-06-02T10:00:00Z', amountMinor: 100, currency: 'USD' }]),
    ).rejects.toThrow("Refund shopify/x2: currency USD differs from its order's GBP");
    expect((await wholeStore(em, store.id)).refunds).toEqual([]);
  });
});

describe('edits, cancellations and replays', () => {
  it('an edited order moves its contribution; a cancelled or test order counts nowhere; an older version is ignored', async () => {
    const store = await createCommerceStore(database.orm);
    const em = fork();
    const base = { externalId: 'edit-me', customer: { externalId: 'ec' } };
    await ingestOrders(em, store, [testOrder({ ...base, placedAt: '2026-06-02T10:00:00Z', grossMinor: 5_000, updatedAt: '2026-06-02T10:00:00Z' })]);
    expect(await dailyRollup(em, store.id, '2026-06-02')).toMatchObject({ orders_count: 1, net_sales_minor: 5_000, new_customers: 1 });

    await ingestOrders(em, store, [testOrder({ ...base, placedAt: '2026-06-02T10:00:00Z', grossMinor: 5_000, discountsMinor: 1_000, updatedAt: '2026-06-02T12:00:00Z' })]);
    expect(await dailyRollup(em, store.id, '2026-06-02')).toMatchObject({ orders_count: 1, discounts_minor: 1_000, net_sales_minor: 4_000 });

    // A corrected date moves everything to the new day; the old day's row disappears.
    await ingestOrders(em, store, [testOrder({ ...base, placedAt: '2026-06-03T10:00:00Z', grossMinor: 5_000, discountsMinor: 1_000, updatedAt: '2026-06-03T09:00:00Z' })]);
    expect(await dailyRollup(em, store.id, '2026-06-02')).toBeNull();
    expect(await dailyRollup(em, store.id, '2026-06-03')).toMatchObject({ orders_count: 1, net_sales_minor: 4_000, new_customers: 1, ltv_net_90_minor: 4_000 });

    await ingestOrders(em, store, [testOrder({ ...base, placedAt: '2026-06-03T10:00:00Z', grossMinor: 5_000, discountsMinor: 1_000, status: 'cancelled', updatedAt: '2026-06-04T09:00:00Z' })]);
    expect(await dailyRollup(em, store.id, '2026-06-03')).toBeNull();
    expect(await channelRollups(em, store.id, '2026-06-03')).toEqual({});
    expect(await customerRow(em, store.id, 'ec')).toMatchObject({ orders_count: 0, total_spent: 0, first_order_at: null });

    const stale = await ingestOrders(em, store, [testOrder({ ...base, placedAt: '2026-06-03T10:00:00Z', grossMinor: 5_000, updatedAt: '2026-06-03T12:00:00Z' })]);
    expect(stale).toEqual({ inserted: 0, updated: 0, skipped: 1 });
    expect(await orderRow(em, store.id, 'edit-me')).toMatchObject({ status: 'cancelled' });
    expect(await dailyRollup(em, store.id, '2026-06-03')).toBeNull();

    await ingestOrders(em, store, [testOrder({ externalId: 'a-test', placedAt: '2026-06-03T10:00:00Z', isTest: true, customer: { externalId: 'tc' } })]);
    expect(await dailyRollup(em, store.id, '2026-06-03')).toBeNull();

    // An unpaid order (WooCommerce's pending payment, failed) counts nowhere either, until it is paid.
    const unpaid = { externalId: 'unpaid', placedAt: '2026-06-03T11:00:00Z', grossMinor: 7_000, customer: { externalId: 'uc' } };
    await ingestOrders(em, store, [testOrder({ ...unpaid, status: 'unpaid', updatedAt: '2026-06-03T11:00:00Z' })]);
    expect(await dailyRollup(em, store.id, '2026-06-03')).toBeNull();
    expect(await orderRow(em, store.id, 'unpaid')).toMatchObject({ status: 'unpaid', is_new_customer: false });
    expect(await customerRow(em, store.id, 'uc')).toMatchObject({ orders_count: 0, total_spent: 0 });
    await ingestOrders(em, store, [testOrder({ ...unpaid, status: 'paid', updatedAt: '2026-06-03T12:00:00Z' })]);
    expect(await dailyRollup(em, store.id, '2026-06-03')).toMatchObject({ orders_count: 1, net_sales_minor: 7_000, new_customers: 1 });
  });

  it('replaying a batch changes nothing at all', async () => {
    const store = await createCommerceStore(database.orm);
    const em = fork();
    await upsertProducts(em, store, [{ platform: 'shopify', externalId: 'sku-1', title: 'Thing', priceMinor: 1_000, currency: 'GBP', unitCostMinor: 300 }]);
    const batch = [
      testOrder({ externalId: 'rp1', placedAt: '2026-05-01T10:00:00Z', customer: { externalId: 'rpc', email: 'a@b.c' }, lines: [{ productExternalId: 'sku-1', title: 'Thing', quantity: 3, unitPriceMinor: 1_000 }], grossMinor: 3_000, utmSource: 'google', utmMedium: 'cpc' }),
      testOrder({ externalId: 'rp2', placedAt: '2026-05-03T10:00:00Z', customer: { externalId: 'rpc' }, grossMinor: 2_000, shippingMinor: 399 }),
      testOrder({ externalId: 'rp3', placedAt: '2026-05-03T11:00:00Z', grossMinor: 1_500, status: 'pending' }),
    ];
    const ads = [{ platform: 'googleads', accountId: 'a1', campaignId: 'c1', day: '2026-05-01', campaignName: 'Brand', currency: 'GBP', spendMinor: 1_234, clicks: 40, impressions: 900, conversions: 2.5, conversionValueMinor: 5_000 }];
    const emails = [{ platform: 'klaviyo', campaignId: 'e1', day: '2026-05-03', campaignName: 'May', currency: 'GBP', sends: 1_000, opens: 400, clicks: 30, attributedOrders: 2, attributedRevenueMinor: 4_000 }];
    expect(await ingestOrders(em, store, batch)).toEqual({ inserted: 3, updated: 0, skipped: 0 });
    await ingestRefunds(em, store, [{ platform: 'shopify', externalId: 'rpr', orderExternalId: 'rp1', refundedAt: '2026-05-04T10:00:00Z', amountMinor: 1_000, currency: 'GBP' }]);
    await ingestAdMetrics(em, store, ads);
    await ingestEmailMetrics(em, store, emails);
    const before = await wholeStore(em, store.id);

    expect(await ingestOrders(em, store, batch)).toEqual({ inserted: 0, updated: 3, skipped: 0 });
    await ingestRefunds(em, store, [{ platform: 'shopify', externalId: 'rpr', orderExternalId: 'rp1', refundedAt: '2026-05-04T10:00:00Z', amountMinor: 1_000, currency: 'GBP' }]);
    await ingestAdMetrics(em, store, ads);
    await ingestEmailMetrics(em, store, emails);
    expect(await wholeStore(em, store.id)).toEqual(before);
  });

  it('a bad row fails its batch with a clear message and writes nothing', async () => {
    const store = await createCommerceStore(database.orm);
    const em = fork();
    await expect(ingestOrders(em, store, [testOrder({ externalId: 'ok', placedAt: '2026-06-01T10:00:00Z' }), testOrder({ externalId: 'bad', placedAt: '2026-06-01T10:00:00Z', currency: 'pounds' })])).rejects.toThrow(
      'Order shopify/bad: currency must be a 3-letter ISO code',
    );
    await expect(ingestOrders(em, store, [testOrder({ externalId: 'neg', placedAt: '2026-06-01T10:00:00Z', grossMinor: -5 })])).rejects.toThrow('Order shopify/neg: grossMinor must be at least 0');
    await expect(ingestOrders(em, store, [testOrder({ externalId: 'when', placedAt: 'yesterday' })])).rejects.toThrow('Order shopify/when: placedAt must be a date and time');
    await expect(ingestOrders(em, store, [{ ...testOrder({ externalId: 'st', placedAt: '2026-06-01T10:00:00Z' }), status: 'shipped' as 'paid' }])).rejects.toThrow('Order shopify/st: status must be one of');
    expect((await wholeStore(em, store.id)).orders).toEqual([]);
  });
});

describe('new and returning customers', () => {
  it('an earlier order arriving later takes over "new"; a cancellation hands it back; LTV follows the first order', async () => {
    const store = await createCommerceStore(database.orm);
    const em = fork();
    const customer = { externalId: 'late' };
    await ingestOrders(em, store, [testOrder({ externalId: 'k2', placedAt: '2026-06-20T10:00:00Z', grossMinor: 2_000, customer })]);
    expect(await dailyRollup(em, store.id, '2026-06-20')).toMatchObject({ new_customer_orders: 1, returning_customer_orders: 0, new_customers: 1, ltv_net_30_minor: 2_000 });

    await ingestOrders(em, store, [testOrder({ externalId: 'k1', placedAt: '2026-06-05T10:00:00Z', grossMinor: 1_000, customer })]);
    expect(await dailyRollup(em, store.id, '2026-06-05')).toMatchObject({ new_customer_orders: 1, new_customers: 1, ltv_net_30_minor: 3_000 });
    expect(await dailyRollup(em, store.id, '2026-06-20')).toMatchObject({ new_customer_orders: 0, returning_customer_orders: 1, new_customers: 0, ltv_net_30_minor: 0 });
    expect(await orderRow(em, store.id, 'k1')).toMatchObject({ is_new_customer: true });
    expect(await orderRow(em, store.id, 'k2')).toMatchObject({ is_new_customer: false });
    const moved = await customerRow(em, store.id, 'late');
    expect(moved).toMatchObject({ orders_count: 2, total_spent: 3_000 });
    expect(new Date(moved!.first_order_at as string).toISOString()).toBe('2026-06-05T10:00:00.000Z');

    // 100 days after the 20th: inside the 180- and 365-day horizons only.
    await ingestOrders(em, store, [
      testOrder({ externalId: 'k1', placedAt: '2026-06-05T10:00:00Z', grossMinor: 1_000, customer, status: 'cancelled' }),
      testOrder({ externalId: 'k3', placedAt: '2026-09-28T10:00:00Z', grossMinor: 4_000, customer }),
    ]);
    expect(await dailyRollup(em, store.id, '2026-06-05')).toBeNull();
    expect(await dailyRollup(em, store.id, '2026-06-20')).toMatchObject({
      new_customer_orders: 1,
      returning_customer_orders: 0,
      new_customers: 1,
      ltv_net_30_minor: 2_000,
      ltv_net_60_minor: 2_000,
      ltv_net_90_minor: 2_000,
      ltv_net_180_minor: 6_000,
      ltv_net_365_minor: 6_000,
    });
    expect(await dailyRollup(em, store.id, '2026-09-28')).toMatchObject({ returning_customer_orders: 1, new_customers: 0 });
    expect(await orderRow(em, store.id, 'k2')).toMatchObject({ is_new_customer: true });
  });

  it('an order that changes customer moves "new" between both customers', async () => {
    const store = await createCommerceStore(database.orm);
    const em = fork();
    await ingestOrders(em, store, [
      testOrder({ externalId: 'm1', placedAt: '2026-06-01T10:00:00Z', customer: { externalId: 'first' } }),
      testOrder({ externalId: 'm2', placedAt: '2026-06-02T10:00:00Z', customer: { externalId: 'second' } }),
    ]);
    await ingestOrders(em, store, [testOrder({ externalId: 'm1', placedAt: '2026-06-01T10:00:00Z', customer: { externalId: 'second' } })]);
    expect(await dailyRollup(em, store.id, '2026-06-01')).toMatchObject({ new_customers: 1, new_customer_orders: 1 });
    expect(await dailyRollup(em, store.id, '2026-06-02')).toMatchObject({ new_customers: 0, new_customer_orders: 0, returning_customer_orders: 1 });
    expect(await customerRow(em, store.id, 'first')).toMatchObject({ orders_count: 0 });
    expect(await customerRow(em, store.id, 'second')).toMatchObject({ orders_count: 2 });
  });
});

describe('currencies', () => {
  it("keeps each order's money in its currency and converts the customer's total at the order's day", async () => {
    const store = await createCommerceStore(database.orm, { currency: 'GBP' });
    const em = fork();
    await setFxRates(em, [
      { day: '2026-06-10', currency: 'USD', rate: 1.1 },
      { day: '2026-06-10', currency: 'GBP', rate: 0.85 },
      { day: '2026-06-11', currency: 'USD', rate: 1.2 },
      { day: '2026-06-11', currency: 'GBP', rate: 0.8 },
    ]);
    await ingestOrders(em, store, [
      testOrder({ externalId: 'usd-1', placedAt: '2026-06-10T10:00:00Z', currency: 'USD', grossMinor: 10_000, customer: { externalId: 'fx' } }),
      testOrder({ externalId: 'usd-2', placedAt: '2026-06-11T10:00:00Z', currency: 'USD', grossMinor: 10_000, customer: { externalId: 'fx' } }),
      testOrder({ externalId: 'gbp-1', placedAt: '2026-06-11T11:00:00Z', currency: 'GBP', grossMinor: 1_000, customer: { externalId: 'fx' } }),
    ]);
    expect(await dailyRollup(em, store.id, '2026-06-10', 'USD')).toMatchObject({ orders_count: 1, net_sales_minor: 10_000 });
    expect(await dailyRollup(em, store.id, '2026-06-11', 'USD')).toMatchObject({ orders_count: 1, net_sales_minor: 10_000 });
    expect(await dailyRollup(em, store.id, '2026-06-11', 'GBP')).toMatchObject({ orders_count: 1, net_sales_minor: 1_000 });
    // 10000 x 0.85 / 1.1 = 7727.27 ; 10000 x 0.8 / 1.2 = 6666.67 ; + 1000
    expect(await customerRow(em, store.id, 'fx')).toMatchObject({ total_spent: 7_727 + 6_667 + 1_000 });
  });
});

describe('ad and e-mail metrics', () => {
  it("feed their platform's channel rows, replacing a row's old numbers, with exact fractional conversions", async () => {
    const store = await createCommerceStore(database.orm);
    const em = fork();
    const row = { platform: 'googleads', accountId: 'acc', day: '2026-06-10', currency: 'GBP' };
    await ingestAdMetrics(em, store, [
      { ...row, campaignId: 'c1', campaignName: 'Brand', spendMinor: 1_000, impressions: 500, clicks: 20, conversions: 0.1, conversionValueMinor: 3_000 },
      { ...row, campaignId: 'c2', campaignName: 'Generic', spendMinor: 2_000, impressions: 800, clicks: 30, conversions: 0.2, conversionValueMinor: 1_000 },
      { ...row, platform: 'metaads', campaignId: 'm1', campaignName: 'Prospecting', spendMinor: 1_500, impressions: 3_000, clicks: 45, conversions: 1, conversionValueMinor: 2_500 },
    ]);
    await ingestEmailMetrics(em, store, [
      { platform: 'klaviyo', campaignId: 'e1', day: '2026-06-10', campaignName: 'June', currency: 'GBP', sends: 5_000, opens: 2_000, clicks: 150, attributedOrders: 3, attributedRevenueMinor: 9_000, spendMinor: 250 },
    ]);
    const rows = await channelRollups(em, store.id, '2026-06-10');
    expect(rows.googleads).toEqual({ orders_count: 0, net_sales_minor: 0, new_customers: 0, spend_minor: 3_000, impressions: 1_300, clicks: 50, platform_conversions: 0.3, platform_conversion_value_minor: 4_000 });
    expect(rows.metaads).toMatchObject({ spend_minor: 1_500, clicks: 45, platform_conversions: 1 });
    expect(rows.klaviyo).toEqual({ orders_count: 0, net_sales_minor: 0, new_customers: 0, spend_minor: 250, impressions: 0, clicks: 150, platform_conversions: 3, platform_conversion_value_minor: 9_000 });
    // The day's row: all marketing spend (ads 4,500 + e-mail 250), the advertising part, every click.
    expect(await dailyRollup(em, store.id, '2026-06-10')).toMatchObject({ orders_count: 0, net_sales_minor: 0, spend_minor: 4_750, ad_spend_minor: 4_500, clicks: 245 });

    await ingestAdMetrics(em, store, [{ ...row, campaignId: 'c1', campaignName: 'Brand', spendMinor: 1_100, impressions: 520, clicks: 21, conversions: 0.7, conversionValueMinor: 3_100 }]);
    expect((await channelRollups(em, store.id, '2026-06-10')).googleads).toEqual({
      orders_count: 0, net_sales_minor: 0, new_customers: 0, spend_minor: 3_100, impressions: 1_320, clicks: 51, platform_conversions: 0.9, platform_conversion_value_minor: 4_100,
    });
    expect(await dailyRollup(em, store.id, '2026-06-10')).toMatchObject({ spend_minor: 4_850, ad_spend_minor: 4_600, clicks: 246 });

    // Spend on a platform that is not an advertising one counts as marketing spend only.
    await ingestAdMetrics(em, store, [{ ...row, platform: 'pinterest', campaignId: 'p1', campaignName: 'Pins', spendMinor: 400, impressions: 100, clicks: 4 }]);
    expect(await dailyRollup(em, store.id, '2026-06-10')).toMatchObject({ spend_minor: 5_250, ad_spend_minor: 4_600, clicks: 250 });
  });
});
