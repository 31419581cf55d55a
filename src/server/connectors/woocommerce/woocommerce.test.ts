import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCommerceStore } from '../../../../test/commerce-fixtures.ts';
import { createTestDatabase } from '../../../../test/harness.ts';
import { startWooCommerceFake, type CreateOrderSpec, type WooCommerceFake, type WooCommerceFakeOptions } from '../../../../test/fakes/woocommerce.ts';
import { PLATFORM_KEYS, type PlatformKey } from '../../../shared/platforms.ts';
import type { PlatformSettings } from '../../config.ts';
import { dayInZone } from '../../modules/commerce/days.ts';
import { sqlRunner } from '../../modules/commerce/raw-sql.ts';
import { PlatformConnection } from '../../modules/connections/platform-connection.entity.ts';
import { ReconciliationResult, SyncRun } from '../../modules/integrations/integration.entities.ts';
import { integrationsSettingsFrom } from '../../modules/integrations/integrations-runtime.ts';
import { runSync, sealCredentials } from '../../modules/integrations/sync-runner.ts';
import { ConnectorAuthError, MalformedResponseError, type ConnectorContext, type SyncBatch, type SyncWindow } from '../connector.ts';
import { PlatformHttp } from '../http.ts';
import { siteTimezone, wooOrder } from './client.ts';
import { createWooCommerceConnector, fetchWooCommerceOrder, woocommerceConnector } from './index.ts';
import { mapWooOrder, wooStatus } from './map.ts';
import { isWooCommercePing, mapWooCommerceWebhook, verifyWooCommerceWebhook, wooCommerceDeliveryKey, wooCommerceWebhookDelivery } from './webhooks.ts';

// The WooCommerce connector against its fake (test/fakes/woocommerce.ts), with figures computed by
// hand from what WooCommerce stores (docs/platform-notes.md "WooCommerce" names each rule's source).

const DAY_MS = 86_400_000;
const connector = createWooCommerceConnector({ pageSize: 50 });

/** A shop with generated orders: New York site, prices without 19 % tax, fees, refunds, variations. */
let shop: WooCommerceFake;
/** A UK VAT shop: prices include 20 % VAT; only hand-computed orders. */
let uk: WooCommerceFake;
/** A US shop: 8.25 % sales tax added at checkout; only hand-computed orders. */
let us: WooCommerceFake;
const fullYear: SyncWindow = { since: new Date('2024-12-01T00:00:00Z'), until: new Date('2026-02-01T00:00:00Z') };

beforeAll(async () => {
  shop = await startWooCommerceFake({ seed: 3, orders: 420, products: 25, currency: 'USD' });
  uk = await startWooCommerceFake({ seed: 5, orders: 0, products: 3, currency: 'GBP', pricesIncludeTax: true, taxRateBp: 2000, timezone: { timezoneString: 'Europe/London' } });
  us = await startWooCommerceFake({ seed: 6, orders: 0, products: 3, currency: 'USD', taxRateBp: 825, timezone: { timezoneString: 'America/Los_Angeles' } });
});
afterAll(async () => {
  await Promise.all([shop.close(), uk.close(), us.close()]);
});

function context(fake: WooCommerceFake, options: { waits?: number[]; credentials?: Record<string, string>; timezone?: string } = {}): ConnectorContext {
  return {
    baseUrl: fake.url,
    credentials: { storeUrl: fake.url, consumerKey: fake.consumerKey, consumerSecret: fake.consumerSecret, ...options.credentials },
    http: new PlatformHttp({ platform: 'woocommerce', sleep: async (ms) => void options.waits?.push(ms), maxAttempts: 4 }),
    store: { timezone: options.timezone ?? 'America/New_York', currency: fake.currency },
  };
}

async function readWindow(ctx: ConnectorContext, window: SyncWindow, afterEachBatch?: (batch: SyncBatch, index: number) => void, using = connector): Promise<SyncBatch[]> {
  const batches: SyncBatch[] = [];
  let cursor: string | null = null;
  do {
    const batch = await using.fetchBatch(ctx, window, cursor);
    batches.push(batch);
    afterEachBatch?.(batch, batches.length - 1);
    cursor = batch.nextCursor;
  } while (cursor && batches.length < 200);
  return batches;
}

/** The first completed order without refunds from `index` on (of the generated shop). */
function completedOrder(index: number): string {
  for (let candidate = index; ; candidate++) {
    const order = shop.order(candidate);
    if (order.status === 'completed' && order.refunds.length === 0) return shop.orderId(candidate);
  }
}

/** The UK order: 2 x £12.00 incl. VAT with 10 % off, £5.00 + VAT shipping, a £2.00 + VAT gift-wrap fee. */
function ukOrder(createdAt: Date): CreateOrderSpec {
  // Lines: 2 x 12.00 = 24.00 incl. -> 20.00 + 4.00 VAT; 10 % off: 21.60 incl. -> 18.00 + 3.60 VAT.
  // total = 18.00 + 3.60 + 5.00 + 1.00 + 2.00 + 0.40 = 30.00; total_tax = 3.60 + 1.00 + 0.40 = 5.00.
  return { createdAt, status: 'processing', lines: [{ quantity: 2, subtotal: 2000, subtotalTax: 400, total: 1800, totalTax: 360 }], shipping: { total: 500, tax: 100 }, fees: [{ name: 'Gift wrapping', total: 200, tax: 40 }] };
}

describe('order money, net of tax whatever prices_include_tax says (hand-computed)', () => {
  it('UK VAT shop (prices include 20 % VAT): gross, discounts and shipping without VAT, the fee in gross, VAT counted once', async () => {
    const id = uk.createOrder(ukOrder(new Date('2026-02-09T12:00:00Z')));
    const fetched = (await fetchWooCommerceOrder(context(uk), id))!;
    expect(fetched.order).toMatchObject({
      // Gross 20.00 (line subtotal without VAT) + 2.00 (fee) = 22.00; discounts 2.00 (discount_total; its
      // 0.40 discount_tax is tax); shipping 5.00; taxes 3.60 + 1.00 + 0.40 = 5.00.
      grossMinor: 2200,
      discountsMinor: 200,
      shippingMinor: 500,
      taxesMinor: 500,
      currency: 'GBP',
      status: 'paid',
      lines: [{ quantity: 2, unitPriceMinor: 1000, discountMinor: 200 }],
    });
    // Net sales 22.00 - 2.00 = 20.00 = WooCommerce Analytics' net: total - tax - shipping = 30.00 - 5.00 - 5.00.
    expect(fetched.order.grossMinor - fetched.order.discountsMinor!).toBe(2000);
    expect(uk.analyticsDay('2026-02-09').netMinor).toBe(2000);
  });

  it('US sales-tax shop (tax added at checkout): a negative fee is a discount', async () => {
    // Lines: 2 x $25.00 = 50.00, $5.00 coupon -> 45.00 + 8.25 % = 3.71 tax; shipping 10.00 untaxed;
    // "Loyalty discount" fee -3.00 with -0.25 tax. total = 45.00 + 3.71 + 10.00 - 3.00 - 0.25 = 55.46.
    const id = us.createOrder({
      createdAt: new Date('2026-02-11T20:00:00Z'),
      status: 'completed',
      lines: [{ quantity: 2, subtotal: 5000, subtotalTax: 413, total: 4500, totalTax: 371 }],
      shipping: { total: 1000, tax: 0 },
      fees: [{ name: 'Loyalty discount', total: -300, tax: -25 }],
    });
    const fetched = (await fetchWooCommerceOrder(context(us), id))!;
    // Gross 50.00; discounts 5.00 coupon + 3.00 fee = 8.00; taxes 3.71 - 0.25 = 3.46; net 42.00.
    expect(fetched.order).toMatchObject({ grossMinor: 5000, discountsMinor: 800, shippingMinor: 1000, taxesMinor: 346, currency: 'USD' });
    // Analytics: 55.46 - 3.46 - 10.00 = 42.00 (12:00 in Los Angeles: its day).
    expect(us.analyticsDay('2026-02-11').netMinor).toBe(4200);
  });

  it("a cent of WooCommerce's per-line rounding goes to discounts: the order's own totals win", () => {
    // Three £10.00 lines incl. 20 % VAT: 8.3333 + 1.6667 each, sent as "8.33"/"1.67"; the order's total
    // is 30.00 with 5.00 VAT (tax rounded at subtotal), so its net is 25.00, a cent more than 3 x 8.33.
    const line = (id: number) => ({ id, name: 'Tea towel', product_id: 7, variation_id: 0, quantity: 1, subtotal: '8.33', subtotal_tax: '1.67', total: '8.33', total_tax: '1.67', sku: 'TT' });
    const order = wooOrder.parse({
      id: 1, status: 'completed', currency: 'GBP', date_created_gmt: '2026-02-01T10:00:00', date_modified_gmt: '2026-02-01T10:00:00', prices_include_tax: true,
      discount_total: '0.00', discount_tax: '0.00', shipping_total: '0.00', shipping_tax: '0.00', total: '30.00', total_tax: '5.00', customer_id: 0,
      line_items: [line(1), line(2), line(3)], fee_lines: [], refunds: [],
    });
    // 3 x 8.33 = 24.99 < 25.00: gross is raised to the order's net, no discount.
    expect(mapWooOrder(order)).toMatchObject({ grossMinor: 2500, discountsMinor: 0, taxesMinor: 500 });
    // With a 20 % coupon (net 20.00, lines after discount 3 x 6.67 = 20.01): gross 24.99, discounts 4.99.
    const couponed = wooOrder.parse({ ...order, total: '24.00', total_tax: '4.00', discount_total: '5.00', discount_tax: '1.00', line_items: [1, 2, 3].map((id) => ({ ...line(id), total: '6.67', total_tax: '1.33' })) });
    expect(mapWooOrder(couponed)).toMatchObject({ grossMinor: 2499, discountsMinor: 499 });
    // A registered customer's name and e-mail come from the billing address.
    const registered = wooOrder.parse({ ...order, customer_id: 42, billing: { first_name: ' Léa ', last_name: 'Dubois', email: 'lea@example.com' } });
    expect(mapWooOrder(registered).customer).toEqual({ externalId: '42', email: 'lea@example.com', name: 'Léa Dubois' });
  });
});

describe('refunds: merchandise, shipping, tax and adjustments apart, as WooCommerce Analytics counts them', () => {
  const placed = new Date('2026-02-10T12:00:00Z');
  const refundDay = '2026-02-20';
  const at = (time: string) => new Date(`${refundDay}T${time}Z`);
  // Oldest first (WooCommerce lists the newest first).
  const refundsOf = async (id: string) =>
    (await fetchWooCommerceOrder(context(uk), id))!.refunds.sort((a, b) => String(a.refundedAt).localeCompare(String(b.refundedAt))).map(({ amountMinor, shippingMinor, taxesMinor, adjustmentsMinor }) => ({ amountMinor, shippingMinor, taxesMinor, adjustmentsMinor }));
  let ids: Record<'lines' | 'shipping' | 'amount' | 'fee', string>;

  beforeAll(() => {
    ids = { lines: uk.createOrder(ukOrder(placed)), shipping: uk.createOrder(ukOrder(placed)), amount: uk.createOrder(ukOrder(placed)), fee: uk.createOrder(ukOrder(placed)) };
    uk.addRefund(ids.lines, { lines: [{ line: 0, quantity: 1 }], at: at('10:00:00'), reason: 'Returned' });
    uk.updateOrder(ids.lines, { status: 'refunded', at: at('11:00:00') });
    uk.addRefund(ids.shipping, { shipping: true, at: at('10:05:00') });
    uk.addRefund(ids.amount, { amountMinor: 700, at: at('10:10:00') });
    uk.addRefund(ids.fee, { fees: [0], at: at('10:15:00') });
  });

  it('a line refund: the line without VAT is merchandise, its VAT is tax; setting the order to Refunded then refunds the rest apart', async () => {
    expect(await refundsOf(ids.lines)).toEqual([
      // One of two units: 18.00 / 2 = 9.00 + 1.80 VAT = 10.80.
      { amountMinor: 900, shippingMinor: 0, taxesMinor: 180, adjustmentsMinor: 0 },
      // wc_order_fully_refunded: 30.00 - 10.80 = 19.20 without lines = what is left: net 20.00 - 9.00 = 11.00,
      // shipping 5.00, tax 5.00 - 1.80 = 3.20 (11.00 + 5.00 + 3.20 = 19.20). Net sales lose 11.00, not 19.20.
      { amountMinor: 1100, shippingMinor: 500, taxesMinor: 320, adjustmentsMinor: 0 },
    ]);
  });

  it('a shipping-only refund lowers no net sales; an amount-only refund is merchandise whole; a refunded fee is merchandise', async () => {
    expect(await refundsOf(ids.shipping)).toEqual([{ amountMinor: 0, shippingMinor: 500, taxesMinor: 100, adjustmentsMinor: 0 }]);
    expect(await refundsOf(ids.amount)).toEqual([{ amountMinor: 700, shippingMinor: 0, taxesMinor: 0, adjustmentsMinor: 0 }]);
    expect(await refundsOf(ids.fee)).toEqual([{ amountMinor: 200, shippingMinor: 0, taxesMinor: 40, adjustmentsMinor: 0 }]);
  });

  it("matches WooCommerce Analytics day by day: the orders' day and the refunds' day", async () => {
    const window = { since: new Date('2026-02-10T00:00:00Z'), until: new Date('2026-02-21T00:00:00Z') };
    const totals = await woocommerceConnector.sourceTotals!(context(uk, { timezone: 'Europe/London' }), window);
    // 4 orders x 20.00 on the 10th (the refunded one still counts: status refunded); on the 20th the
    // refunds' merchandise: -(9.00 + 11.00 + 0 + 7.00 + 2.00) = -29.00.
    expect(totals.find((day) => day.day === '2026-02-10')).toEqual({ day: '2026-02-10', orders: 4, netSalesMinor: 8000, currency: 'GBP' });
    expect(totals.find((day) => day.day === refundDay)).toEqual({ day: refundDay, orders: 0, netSalesMinor: -2900, currency: 'GBP' });
    expect(totals).toHaveLength(11);
  });

  it('reads every refund of an order, not only the first page of 100', async () => {
    const id = uk.createOrder(ukOrder(new Date('2026-02-12T09:00:00Z')));
    for (let n = 0; n < 120; n++) uk.addRefund(id, { amountMinor: 10, at: new Date(Date.parse('2026-02-13T00:00:00Z') + n * 60_000) });
    const before = uk.requests.length;
    const refunds = (await fetchWooCommerceOrder(context(uk), id))!.refunds;
    // 120 amount-only refunds of 0.10: 12.00 of merchandise in all.
    expect(refunds).toHaveLength(120);
    expect(refunds.reduce((sum, refund) => sum + refund.amountMinor, 0)).toBe(1200);
    const pages = uk.requests.slice(before).filter((request) => request.path.endsWith('/refunds'));
    expect(pages.map((request) => new URLSearchParams(request.query).get('page'))).toEqual(['1', '2']);
  });
});

describe('statuses: the orders WooCommerce Analytics counts are the ones we count', () => {
  it('maps each status by what Analytics does with it', () => {
    const statuses = ['pending', 'failed', 'checkout-draft', 'cancelled', 'trash', 'on-hold', 'processing', 'completed', 'refunded', 'wc-custom'];
    expect(Object.fromEntries(statuses.map((status) => [status, wooStatus(status)]))).toEqual({
      pending: 'unpaid',
      failed: 'unpaid',
      'checkout-draft': 'unpaid',
      cancelled: 'cancelled',
      trash: 'cancelled',
      'on-hold': 'pending',
      processing: 'paid',
      completed: 'paid',
      refunded: 'paid',
      'wc-custom': 'paid',
    });
  });

  it('counts processing, on-hold, completed and refunded orders of a day, by creation date (an on-hold order has no paid date)', async () => {
    const fake = await startWooCommerceFake({ orders: 0, products: 2, currency: 'USD' });
    try {
      const created = new Date('2026-03-05T15:00:00Z');
      const ids: Record<string, string> = {};
      for (const status of ['pending', 'processing', 'on-hold', 'completed', 'cancelled', 'failed', 'checkout-draft', 'refunded', 'trash']) {
        ids[status] = fake.createOrder({ createdAt: created, status: status === 'refunded' || status === 'trash' ? 'processing' : status, lines: [{ quantity: 1, subtotal: 1000, subtotalTax: 0, total: 1000, totalTax: 0 }] });
      }
      fake.updateOrder(ids.refunded!, { status: 'refunded', at: new Date('2026-03-05T18:00:00Z') });
      fake.trashOrder(ids.trash!, new Date('2026-03-05T19:00:00Z'));
      const window = { since: new Date('2026-03-05T05:00:00Z'), until: new Date('2026-03-06T05:00:00Z') };
      const ctx = context(fake);
      // 4 counted orders x 10.00, minus the refunded order's 10.00 refunded the same day = 30.00.
      expect(await woocommerceConnector.sourceTotals!(ctx, window)).toEqual([{ day: '2026-03-05', orders: 4, netSalesMinor: 3000, currency: 'USD' }]);
      const listed = await woocommerceConnector.dayOrders(ctx, { start: window.since, end: window.until }, 250);
      expect(listed.complete).toBe(true);
      expect(listed.orders.map((order) => order.externalId).sort()).toEqual([ids.processing, ids['on-hold'], ids.completed, ids.refunded].sort());
      // And our side: exactly those four map to counting statuses.
      const batches = await readWindow(ctx, { since: new Date('2026-03-05T00:00:00Z'), until: new Date('2026-03-06T00:00:00Z') });
      const counting = batches.flatMap((batch) => batch.orders ?? []).filter((order) => !['cancelled', 'unpaid'].includes(order.status));
      expect(counting.map((order) => order.externalId).sort()).toEqual(listed.orders.map((order) => order.externalId).sort());
    } finally {
      await fake.close();
    }
  });
});

describe("the site's time zone and the *_gmt dates", () => {
  it('names the IANA zone of timezone_string, or of a bare gmt_offset (Etc/GMT signs reversed; fractions to the zone with that standard offset)', () => {
    expect(siteTimezone({ timezone_string: 'Europe/Berlin', gmt_offset: '1' })).toBe('Europe/Berlin');
    expect(siteTimezone({ timezone_string: '', gmt_offset: '-5' })).toBe('Etc/GMT+5');
    expect(siteTimezone({ timezone_string: '', gmt_offset: 3 })).toBe('Etc/GMT-3');
    expect(siteTimezone({ timezone_string: '', gmt_offset: '0' })).toBe('UTC');
    expect(siteTimezone({ timezone_string: '', gmt_offset: '5.5' })).toBe('Asia/Kolkata');
    expect(siteTimezone({ timezone_string: '', gmt_offset: '5.75' })).toBe('Asia/Kathmandu');
    expect(siteTimezone({ timezone_string: '', gmt_offset: '-4.5' })).toBeUndefined();
    expect(siteTimezone({ timezone_string: 'Not/AZone', gmt_offset: '2' })).toBe('Etc/GMT-2');
  });

  it("verify returns the site's zone and the currency of the shop's settings", async () => {
    await expect(connector.verify(context(shop))).resolves.toEqual({ accountId: new URL(shop.url).host, accountName: 'Fake Woo Store', currency: 'USD', timezone: 'America/New_York' });
    const offsetSite = await startWooCommerceFake({ orders: 0, products: 1, currency: 'INR', timezone: { gmtOffset: 5.5 } });
    const wholeHours = await startWooCommerceFake({ orders: 0, products: 1, currency: 'EUR', timezone: { gmtOffset: 2 } });
    try {
      await expect(connector.verify(context(offsetSite))).resolves.toMatchObject({ currency: 'INR', timezone: 'Asia/Kolkata' });
      await expect(connector.verify(context(wholeHours))).resolves.toMatchObject({ currency: 'EUR', timezone: 'Etc/GMT-2' });
    } finally {
      await Promise.all([offsetSite.close(), wholeHours.close()]);
    }
  });

  it("cuts days at the site's midnights (New York, across the DST change), placing orders by their GMT dates", async () => {
    const fake = await startWooCommerceFake({ orders: 0, products: 1, currency: 'USD' });
    try {
      const line = [{ quantity: 1, subtotal: 1000, subtotalTax: 0, total: 1000, totalTax: 0 }];
      // 04:30Z on 8 March is 23:30 EST on the 7th; 05:30Z is 00:30 on the 8th; clocks go forward at
      // 02:00 on the 8th, so 03:30Z on the 9th is 23:30 EDT on the 8th and 04:30Z 00:30 on the 9th.
      const ids = ['2026-03-08T04:30:00Z', '2026-03-08T05:30:00Z', '2026-03-09T03:30:00Z', '2026-03-09T04:30:00Z'].map((instant) => fake.createOrder({ createdAt: new Date(instant), lines: line }));
      const fetched = (await fetchWooCommerceOrder(context(fake), ids[0]!))!;
      expect(fetched.order.placedAt).toBe('2026-03-08T04:30:00Z');
      expect(dayInZone(fetched.order.placedAt as string, 'America/New_York')).toBe('2026-03-07');

      const window = { since: new Date('2026-03-07T05:00:00Z'), until: new Date('2026-03-10T04:00:00Z') };
      const byDay = (totals: { day: string; orders?: number }[]) => Object.fromEntries(totals.map((total) => [total.day, total.orders]));
      expect(byDay(await woocommerceConnector.sourceTotals!(context(fake), window))).toEqual({ '2026-03-07': 1, '2026-03-08': 2, '2026-03-09': 1 });
      // A store still on UTC asks day by day: the same orders fall on the 8th and the 9th.
      const utcWindow = { since: new Date('2026-03-07T00:00:00Z'), until: new Date('2026-03-10T00:00:00Z') };
      expect(byDay(await woocommerceConnector.sourceTotals!(context(fake, { timezone: 'UTC' }), utcWindow))).toEqual({ '2026-03-07': 0, '2026-03-08': 2, '2026-03-09': 2 });
    } finally {
      await fake.close();
    }
  });

  it('a site set to UTC+5:30 only (gmt_offset): the day starts at 18:30 GMT', async () => {
    const fake = await startWooCommerceFake({ orders: 0, products: 1, currency: 'INR', timezone: { gmtOffset: 5.5 } });
    try {
      fake.createOrder({ createdAt: new Date('2026-01-10T18:45:00Z'), lines: [{ quantity: 1, subtotal: 50000, subtotalTax: 0, total: 50000, totalTax: 0 }] });
      const window = { since: new Date('2026-01-09T18:30:00Z'), until: new Date('2026-01-11T18:30:00Z') };
      // 18:45 GMT on the 10th is 00:15 on the 11th in India.
      expect(await woocommerceConnector.sourceTotals!(context(fake, { timezone: 'Asia/Kolkata' }), window)).toEqual([
        { day: '2026-01-10', orders: 0, netSalesMinor: 0, currency: 'INR' },
        { day: '2026-01-11', orders: 1, netSalesMinor: 50000, currency: 'INR' },
      ]);
    } finally {
      await fake.close();
    }
  });
});

describe('products: the whole catalogue on a backfill, the edited ones afterwards', () => {
  it('a backfill reads every product and variation, also those last edited before its window', async () => {
    const window = { since: new Date('2025-06-01T00:00:00Z'), until: new Date('2026-01-01T00:00:00Z') };
    const products = (await readWindow(context(shop), window)).flatMap((batch) => batch.products ?? []);
    // 25 products, every fourth variable (6) with 3 variations each: 25 + 18 = 43 rows.
    expect(products.map((product) => product.externalId).sort()).toEqual(shop.catalogueIds().sort());
    expect(products).toHaveLength(43);
    const editedBefore = Array.from({ length: 25 }, (_, index) => shop.product(index)).filter((product) => product.modifiedMs < window.since.getTime());
    expect(editedBefore.length).toBeGreaterThan(15);
    expect(products.find((product) => product.externalId === String(shop.product(7).variations[0]!.id))).toMatchObject({ title: 'Woo Product 7 - Small', sku: 'WOO-7-S' });
    expect(products.find((product) => product.externalId === shop.productId(10))?.active).toBe(false);
  });

  it('an incremental window reads only the products edited in it (with their variations)', async () => {
    const at = new Date('2026-04-01T10:00:00Z');
    shop.touchProduct(4, at);
    shop.touchProduct(7, new Date(at.getTime() + 60_000));
    const products = (await readWindow(context(shop), { since: at, until: new Date(at.getTime() + DAY_MS) })).flatMap((batch) => batch.products ?? []);
    expect(products.map((product) => product.externalId)).toEqual([shop.productId(4), shop.productId(7), ...shop.product(7).variations.map((variation) => String(variation.id))]);
  });

  it("takes the cost of goods from WooCommerce's COGS field when the feature is on, and names variations on order lines", async () => {
    const cogs = await startWooCommerceFake({ seed: 9, orders: 40, products: 4, cogs: true });
    try {
      const products = (await readWindow(context(cogs), fullYear)).flatMap((batch) => batch.products ?? []);
      const simple = products.find((product) => product.externalId === cogs.productId(0))!;
      // 40 % of the price, as the fake's costs are.
      expect(simple.unitCostMinor).toBe(Math.round(simple.priceMinor * 0.4));
      // A variable product's own cost is not entered: none is sent, a cost entered here stays.
      expect(products.find((product) => product.externalId === cogs.productId(3))).not.toHaveProperty('unitCostMinor');
      const variation = products.find((product) => product.externalId === String(cogs.product(3).variations[1]!.id))!;
      expect(variation.unitCostMinor).toBe(Math.round(variation.priceMinor * 0.4));
      const withoutCogs = (await readWindow(context(shop), fullYear)).flatMap((batch) => batch.products ?? []);
      expect(withoutCogs.every((product) => product.unitCostMinor === undefined)).toBe(true);
      const lines = (await readWindow(context(cogs), fullYear)).flatMap((batch) => batch.orders ?? []).flatMap((order) => order.lines ?? []);
      const variationIds = new Set(cogs.product(3).variations.map((entry) => String(entry.id)));
      expect(lines.some((line) => variationIds.has(line.productExternalId!))).toBe(true);
      expect(lines.some((line) => line.productExternalId === cogs.productId(3))).toBe(false);
    } finally {
      await cogs.close();
    }
  });
});

describe('syncing orders from the fake', () => {
  it('backfills every order of the window page by page, with refunds on their own dates', async () => {
    const batches = await readWindow(context(shop), fullYear);
    const orders = batches.flatMap((batch) => batch.orders ?? []);
    expect(orders).toHaveLength(shop.ordersModifiedBetween(fullYear.since, fullYear.until));
    expect(new Set(orders.map((order) => order.externalId)).size).toBe(orders.length);
    expect(batches.find((batch) => batch.estimatedTotal !== undefined)?.estimatedTotal).toBe(orders.length);
    expect(new Set(orders.map((order) => order.status))).toEqual(new Set(['paid', 'pending', 'unpaid', 'cancelled']));
    expect(orders.some((order) => order.utmSource === 'google')).toBe(true);
    const refunds = batches.flatMap((batch) => batch.refunds ?? []);
    expect(refunds.length).toBeGreaterThan(10);
    for (const refund of refunds) {
      const order = orders.find((candidate) => candidate.externalId === refund.orderExternalId)!;
      expect(Date.parse(refund.refundedAt as string)).toBeGreaterThan(Date.parse(order.placedAt as string));
      expect(refund.amountMinor).toBeLessThanOrEqual(order.grossMinor - order.discountsMinor!);
      expect(refund.adjustmentsMinor).toBe(0);
    }
  });

  it('skips nothing when orders leave the window while it is being read', async () => {
    const window = { since: new Date('2025-01-01T00:00:00Z'), until: new Date('2025-07-01T00:00:00Z') };
    const expected = shop.ordersModifiedBetween(window.since, window.until);
    let moved = 0;
    const batches = await readWindow(context(shop), window, (batch) => {
      // Orders already handed out are modified now (after `until`): the rows after them shift back.
      for (const order of (batch.orders ?? []).slice(0, 8)) {
        shop.updateOrder(order.externalId, { at: new Date('2026-03-01T00:00:00Z') });
        moved++;
      }
    });
    const ids = batches.flatMap((batch) => batch.orders ?? []).map((order) => order.externalId);
    expect(moved).toBeGreaterThan(20);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(expected);
  });

  it('returns only orders changed in an incremental window, its dates read as GMT (the site is five hours behind)', async () => {
    const at = new Date('2026-04-02T10:00:00Z');
    const cancelled = completedOrder(5);
    const refunded = completedOrder(Number(cancelled) - 999);
    shop.updateOrder(cancelled, { status: 'cancelled', at });
    const refundId = shop.addRefund(refunded, { amountMinor: 250, at: new Date(at.getTime() + 60_000), reason: 'Damaged' });
    const batches = await readWindow(context(shop), { since: at, until: new Date(at.getTime() + 3_600_000) });
    expect(batches.flatMap((batch) => batch.orders ?? []).map((order) => [order.externalId, order.status])).toEqual([
      [cancelled, 'cancelled'],
      [refunded, expect.any(String)],
    ]);
    expect(batches.flatMap((batch) => batch.refunds ?? []).find((refund) => refund.externalId === refundId)).toEqual({
      platform: 'woocommerce',
      externalId: refundId,
      orderExternalId: refunded,
      refundedAt: '2026-04-02T10:01:00Z',
      amountMinor: 250,
      shippingMinor: 0,
      taxesMinor: 0,
      adjustmentsMinor: 0,
      currency: 'USD',
      reason: 'Damaged',
    });
  });

  it('learns of trashed orders (status=any never lists the trash) and of restored ones', async () => {
    const id = completedOrder(shop.orderCount - 30);
    const trashedAt = new Date('2026-04-03T08:00:00Z');
    shop.trashOrder(id, trashedAt);
    const window = { since: trashedAt, until: new Date(trashedAt.getTime() + 3_600_000) };
    const listed = await fetch(`${shop.url}/wp-json/wc/v3/orders?status=any&per_page=100&modified_after=2026-04-03T07:59:00&dates_are_gmt=true&consumer_key=${shop.consumerKey}&consumer_secret=${shop.consumerSecret}`);
    expect(await listed.json()).toEqual([]);
    const trashed = (await readWindow(context(shop), window)).flatMap((batch) => batch.orders ?? []);
    expect(trashed.map((order) => [order.externalId, order.status])).toEqual([[id, 'cancelled']]);

    const restoredAt = new Date('2026-04-03T12:00:00Z');
    shop.restoreOrder(id, restoredAt);
    const restored = (await readWindow(context(shop), { since: restoredAt, until: new Date(restoredAt.getTime() + 3_600_000) })).flatMap((batch) => batch.orders ?? []);
    expect(restored.map((order) => order.externalId)).toEqual([id]);
    expect(restored[0]!.status).not.toBe('cancelled');
  });

  it('returns the same page when a cursor is replayed', async () => {
    const products = await connector.fetchBatch(context(shop), fullYear, null);
    const page = await connector.fetchBatch(context(shop), fullYear, products.nextCursor);
    const next = await connector.fetchBatch(context(shop), fullYear, page.nextCursor);
    expect(await connector.fetchBatch(context(shop), fullYear, page.nextCursor)).toEqual(next);
  });

  it('never asks for more than 100 rows a page (WordPress refuses per_page above 100)', async () => {
    const refused = await fetch(`${shop.url}/wp-json/wc/v3/orders?per_page=101&consumer_key=${shop.consumerKey}&consumer_secret=${shop.consumerSecret}`);
    expect(refused.status).toBe(400);
    const big = createWooCommerceConnector({ pageSize: 500 });
    const before = shop.requests.length;
    const batches = await readWindow(context(shop), { since: new Date('2025-01-01T00:00:00Z'), until: new Date('2026-01-01T00:00:00Z') }, undefined, big);
    expect(batches.flatMap((batch) => batch.orders ?? []).length).toBeGreaterThan(100);
    const sizes = shop.requests.slice(before).map((request) => Number(new URLSearchParams(request.query).get('per_page') ?? 10));
    expect(Math.max(...sizes)).toBe(100);
  });

  it('retries 429 after Retry-After and 5xx with backoff', async () => {
    const waits: number[] = [];
    const first = await connector.fetchBatch(context(shop, { waits }), fullYear, null);
    const orders = JSON.stringify({ phase: 'orders', offset: 0, lastId: null, currency: 'USD' });
    shop.injectFault('rate_limit', { pathIncludes: '/orders' });
    shop.injectFault('server_error', { pathIncludes: '/orders' });
    const batch = await connector.fetchBatch(context(shop, { waits }), fullYear, orders);
    expect(first.products!.length).toBeGreaterThan(0);
    expect(batch.orders).toHaveLength(50);
    expect(waits[0]).toBe(3000);
    expect(waits).toHaveLength(2);
  });

  it('raises MalformedResponseError for an HTML page instead of JSON', async () => {
    shop.injectFault('malformed', { pathIncludes: '/products' });
    await expect(connector.fetchBatch(context(shop), fullYear, null)).rejects.toThrow(MalformedResponseError);
  });

  it('raises ConnectorAuthError with a reason a user understands for a revoked key, and refuses plain HTTP', async () => {
    shop.injectFault('revoked');
    const error = await connector.verify(context(shop)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectorAuthError);
    expect((error as ConnectorAuthError).reason).toMatch(/deleted or revoked/);
    const wrongSecret = await connector.verify(context(shop, { credentials: { consumerSecret: 'cs_wrong' } })).catch((caught: unknown) => caught);
    expect(wrongSecret).toBeInstanceOf(ConnectorAuthError);
    await expect(connector.verify({ ...context(shop), baseUrl: 'http://store.example' })).rejects.toThrow(/https/);
  });

  it('can send the key in the query string when the host drops Authorization', async () => {
    await expect(connector.verify(context(shop, { credentials: { authMode: 'query' } }))).resolves.toMatchObject({ currency: 'USD' });
    expect(shop.requests.at(-1)!.headers.authorization).toBeUndefined();
    expect(shop.requests.at(-1)!.query).toContain('consumer_key=');
  });

  it("lists a day's counted orders for reconciliation, at most `limit`, saying when there are more", async () => {
    const day = { start: new Date('2025-05-01T04:00:00Z'), end: new Date('2025-05-11T04:00:00Z') };
    const all = await woocommerceConnector.dayOrders(context(shop), day, 250);
    expect(all.complete).toBe(true);
    expect(all.orders.length).toBeGreaterThan(3);
    const limited = await woocommerceConnector.dayOrders(context(shop), day, 2);
    expect(limited).toEqual({ orders: all.orders.slice(0, 2), complete: false });
  });
});

describe('webhook deliveries', () => {
  it('checks the signature against the raw body', () => {
    const delivery = shop.webhookDelivery('order.updated', shop.orderId(4));
    const signature = delivery.headers['x-wc-webhook-signature'];
    expect(verifyWooCommerceWebhook(delivery.body, signature, shop.webhookSecret)).toBe(true);
    expect(verifyWooCommerceWebhook(delivery.body + ' ', signature, shop.webhookSecret)).toBe(false);
    const forged = shop.webhookDelivery('order.updated', shop.orderId(4), { secret: 'guessed' });
    expect(verifyWooCommerceWebhook(forged.body, forged.headers['x-wc-webhook-signature'], shop.webhookSecret)).toBe(false);
    expect(verifyWooCommerceWebhook(delivery.body, null, shop.webhookSecret)).toBe(false);
  });

  it('maps order.created / updated / restored, names the refunds to fetch, and order.deleted by id', () => {
    const delivery = shop.webhookDelivery('order.created', shop.orderId(30), { deliveryId: '98765' });
    expect(wooCommerceWebhookDelivery(delivery.headers)).toEqual({ topic: 'order.created', deliveryId: '98765', webhookId: '12', source: 'https://store.example/' });
    expect(mapWooCommerceWebhook('order.created', JSON.parse(delivery.body))).toMatchObject({ kind: 'ingest', orders: [{ externalId: shop.orderId(30) }] });
    const refundedIndex = Array.from({ length: shop.orderCount }, (_, index) => index).find((index) => shop.order(index).refunds.length > 0)!;
    expect(mapWooCommerceWebhook('order.updated', JSON.parse(shop.webhookDelivery('order.updated', shop.orderId(refundedIndex)).body))).toMatchObject({ kind: 'ingest', refundsToFetch: shop.orderId(refundedIndex) });
    expect(mapWooCommerceWebhook('order.restored', JSON.parse(shop.webhookDelivery('order.restored', shop.orderId(31)).body))).toMatchObject({ kind: 'ingest' });
    expect(mapWooCommerceWebhook('order.deleted', JSON.parse(shop.webhookDelivery('order.deleted', shop.orderId(31)).body))).toEqual({ kind: 'deleted', orderId: shop.orderId(31) });
    expect(mapWooCommerceWebhook('product.updated', {})).toEqual({ kind: 'ignored', topic: 'product.updated' });
    expect(() => mapWooCommerceWebhook('order.updated', { id: 'x' })).toThrow(MalformedResponseError);
    expect(() => mapWooCommerceWebhook('order.deleted', {})).toThrow(MalformedResponseError);
    expect(isWooCommercePing('webhook_id=12', { 'content-type': 'application/x-www-form-urlencoded' })).toBe(true);
    expect(isWooCommercePing(delivery.body, delivery.headers)).toBe(false);
  });

  it('keys a delivery by what its body says: two orders cancelled in one second share a delivery id, not a key', () => {
    const second = new Date('2026-04-05T09:00:00.200Z');
    const first = shop.webhookDelivery('order.updated', shop.orderId(40), { at: second });
    const other = shop.webhookDelivery('order.updated', shop.orderId(41), { at: new Date(second.getTime() + 500) });
    expect(first.headers['x-wc-webhook-delivery-id']).toBe(other.headers['x-wc-webhook-delivery-id']);
    const key = (delivery: { headers: Record<string, string>; body: string }) => wooCommerceDeliveryKey(delivery.headers['x-wc-webhook-topic']!, delivery.body, delivery.headers['x-wc-webhook-delivery-id']!);
    expect(key(first)).not.toBe(key(other));
    // The same delivery again (a replay) is the same key.
    expect(key(shop.webhookDelivery('order.updated', shop.orderId(40), { at: second }))).toBe(key(first));
    // Trashed, restored and trashed again: {"id"} twice, sent in different seconds.
    const trashed = shop.webhookDelivery('order.deleted', shop.orderId(40), { at: second });
    const trashedAgain = shop.webhookDelivery('order.deleted', shop.orderId(40), { at: new Date(second.getTime() + 60_000) });
    expect(trashed.body).toBe(trashedAgain.body);
    expect(key(trashed)).not.toBe(key(trashedAgain));
    expect(key(first)).toMatch(new RegExp(`^order\\.updated:${shop.orderId(40)}:`));
  });
});

describe('the fake enforces what WooCommerce does', () => {
  it('reads date parameters as site-local times unless dates_are_gmt', async () => {
    const fake = await startWooCommerceFake({ orders: 0, products: 1, currency: 'USD' } satisfies WooCommerceFakeOptions);
    try {
      const id = fake.createOrder({ createdAt: new Date('2026-01-15T15:00:00Z'), lines: [{ quantity: 1, subtotal: 100, subtotalTax: 0, total: 100, totalTax: 0 }] });
      const list = async (query: string) => ((await (await fetch(`${fake.url}/wp-json/wc/v3/orders?${query}&consumer_key=${fake.consumerKey}&consumer_secret=${fake.consumerSecret}`)).json()) as { id: number; date_created: string; date_created_gmt: string }[]);
      // 15:00 GMT is 10:00 in New York (EST).
      const [order] = await list('after=2026-01-15T14:59:00&dates_are_gmt=true');
      expect([String(order!.id), order!.date_created, order!.date_created_gmt]).toEqual([id, '2026-01-15T10:00:00', '2026-01-15T15:00:00']);
      expect(await list('after=2026-01-15T14:59:00')).toEqual([]);
      expect(await list('after=2026-01-15T09:59:00')).toHaveLength(1);
    } finally {
      await fake.close();
    }
  });

  it('Analytics counts by paid date unless told date_type=date_created', async () => {
    const fake = await startWooCommerceFake({ orders: 0, products: 1, currency: 'USD' });
    try {
      fake.createOrder({ createdAt: new Date('2026-01-15T15:00:00Z'), status: 'on-hold', lines: [{ quantity: 1, subtotal: 100, subtotalTax: 0, total: 100, totalTax: 0 }] });
      const stats = async (extra: string) => ((await (await fetch(`${fake.url}/wp-json/wc-analytics/reports/revenue/stats?interval=day&after=2026-01-15T00:00:00&before=2026-01-15T23:59:59${extra}&consumer_key=${fake.consumerKey}&consumer_secret=${fake.consumerSecret}`)).json()) as { totals: { orders_count: number } });
      expect((await stats('')).totals.orders_count).toBe(0);
      expect((await stats('&date_type=date_created')).totals.orders_count).toBe(1);
    } finally {
      await fake.close();
    }
  });
});

describe("a backfill stored in PostgreSQL: the dashboard's days are WooCommerce Analytics' days", () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database?.close());

  it('orders and net sales per New York day equal Analytics\' (tax-inclusive prices, fees, every kind of refund), and the reconciliation agrees', async () => {
    const fake = await startWooCommerceFake({ seed: 12, orders: 300, products: 8, currency: 'USD', pricesIncludeTax: true, taxRateBp: 2000 });
    try {
      // Besides the generated ones (line refunds, orders set to Refunded): a shipping-only, an amount-only and a fee refund.
      const orders = Array.from({ length: fake.orderCount }, (_, index) => fake.order(index));
      const paid = orders.filter((order) => order.status === 'completed' && order.refunds.length === 0);
      const withShipping = paid.find((order) => order.shipping)!;
      const withFee = paid.find((order) => order.fees.length && order.fees[0]!.total > 0 && order !== withShipping)!;
      const amountOnly = paid.find((order) => order !== withShipping && order !== withFee)!;
      fake.addRefund(withShipping.id, { shipping: true, at: new Date('2025-12-20T15:00:00Z') });
      fake.addRefund(withFee.id, { fees: [0], at: new Date('2025-12-20T16:00:00Z') });
      fake.addRefund(amountOnly.id, { amountMinor: 321, at: new Date('2025-12-21T03:30:00Z') });

      const platforms = Object.fromEntries(PLATFORM_KEYS.map((key) => [key, {} as PlatformSettings])) as Record<PlatformKey, PlatformSettings>;
      platforms.woocommerce = { baseUrl: fake.url };
      const settings = integrationsSettingsFrom({ encryptionKey: randomBytes(32).toString('hex'), dataDir: path.join(os.tmpdir(), 'storepulse-woo-test'), platforms });
      const store = await createCommerceStore(database.orm, { timezone: 'America/New_York', currency: 'USD' });
      const em = database.orm.em.fork();
      const connection = em.create(PlatformConnection, { store: store.id, platform: 'woocommerce', status: 'connected', connected: true, accountId: 'store.example' });
      await em.flush();
      sealCredentials(settings, connection, { storeUrl: fake.url, consumerKey: fake.consumerKey, consumerSecret: fake.consumerSecret });
      const run = em.create(SyncRun, { store: store.id, connection: connection.id, kind: 'backfill', windowSince: new Date('2024-12-01T05:00:00Z'), windowUntil: new Date('2026-01-10T05:00:00Z') });
      await em.flush();
      expect(await runSync(database.orm.em.fork(), run.id, { settings, http: { sleep: async () => {}, maxAttempts: 3 } })).toBe('succeeded');

      const rows = await sqlRunner(database.orm.em.fork()).rows<{ day: string; orders: number; net: string }>(
        `select to_char(day, 'YYYY-MM-DD') as day, orders_count as orders, net_sales_minor::text as net from daily_rollups where store_id = $1 and currency = 'USD' and (orders_count <> 0 or net_sales_minor <> 0) order by day`,
        [store.id],
      );
      const ours = Object.fromEntries(rows.map((row) => [row.day, { orders: row.orders, netMinor: Number(row.net) }]));
      const theirs: Record<string, { orders: number; netMinor: number }> = {};
      for (let day = '2024-12-01'; day < '2026-01-10'; day = new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10)) {
        const figures = fake.analyticsDay(day);
        if (figures.orders || figures.netMinor) theirs[day] = figures;
      }
      expect(Object.keys(theirs).length).toBeGreaterThan(200);
      expect(ours).toEqual(theirs);
      const result = await database.orm.em.fork().findOneOrFail(ReconciliationResult, { connection: connection.id });
      expect(result).toMatchObject({ matches: true, days: [], sourceNetSalesMinor: result.ourNetSalesMinor });
    } finally {
      await fake.close();
    }
  });
});
