import { beforeAll, describe, expect, it } from 'vitest';
import type { OrdersListInput } from '../../../shared/orders.ts';
import { createCommerceStore, setFlatFxRates, signedInStoreOwner, testOrder } from '../../../../test/commerce-fixtures.ts';
import { newGuestOf } from '../../../../test/guests.ts';
import { ApiClient, trpcQuery, useTestApp } from '../../../../test/harness.ts';
import { ordersListInput } from '../../../shared/orders.ts';
import { ingestOrders, ingestRefunds, type IngestOrder } from '../commerce/ingest.ts';
import { SESSION_COOKIE_NAME } from '../sessions/session-control.ts';
import { ORDERS_CSV_HEADER } from './orders.export.ts';
import { listOrders, orderDetail, searchPlanOf, type SearchPlan } from './orders.service.ts';

const testApp = useTestApp();

// USD 100.00 is GBP 68.00 and EUR 80.00 in June.
beforeAll(() => setFlatFxRates(testApp.orm.em.fork(), '2026-06-01', '2026-06-12'));

/**
 * The hand-made store (GBP, Europe/London), June 2026:
 *   #1001 A  1 Jun  shopify      GBP 100.00 - 10.00, Google click, ada@example.com (new), Tent x2 @ 40.00 + Mug x1 @ 20.00;
 *                                refund 20.00 on 6 Jun ("Damaged, "box"")                                net 70.00
 *   #1002 B  2 Jun  shopify      GBP  50.00, Klaviyo e-mail, c2 (new), Stove x1                          net 50.00
 *   #1003 C  3 Jun  shopify      GBP  30.00, direct, ada again (returning)                               net 30.00
 *   #1004 D  4 Jun  woocommerce  USD 100.00, Meta click, guest checkout (new)                             net USD 100.00 = GBP 68.00
 *   #1005 E  5 Jun  shopify      GBP  70.00, direct, cancelled                                            (counts nowhere)
 *   #1006 F  5 Jun  shopify      GBP  20.00, direct, test order                                           (counts nowhere)
 *   =2+3  G  7 Jun  shopify      GBP  12.34, referral, external id "@evil", order number a formula
 */
const FIXTURE: IngestOrder[] = [
  testOrder({
    externalId: 'A',
    orderNumber: '#1001',
    placedAt: '2026-06-01T10:00:00Z',
    grossMinor: 10_000,
    discountsMinor: 1_000,
    shippingMinor: 500,
    taxesMinor: 1_800,
    gclid: 'g-1',
    customer: { externalId: 'c1', email: 'ada@example.com' },
    lines: [
      { title: 'Tent', sku: 'TENT-1', quantity: 2, unitPriceMinor: 4_000, unitCostMinor: 1_500 },
      { title: 'Mug', sku: 'MUG-1', quantity: 1, unitPriceMinor: 2_000, discountMinor: 1_000 },
    ],
  }),
  testOrder({
    externalId: 'B',
    orderNumber: '#1002',
    placedAt: '2026-06-02T10:00:00Z',
    grossMinor: 5_000,
    utmSource: 'klaviyo',
    utmMedium: 'email',
    customer: { externalId: 'c2' },
    lines: [{ title: 'Camping Stove', sku: 'STOVE-9', quantity: 1, unitPriceMinor: 5_000 }],
  }),
  testOrder({ externalId: 'C', orderNumber: '#1003', placedAt: '2026-06-03T10:00:00Z', grossMinor: 3_000, customer: { externalId: 'c1', email: 'ada@example.com' } }),
  testOrder({ externalId: 'D', orderNumber: '#1004', platform: 'woocommerce', placedAt: '2026-06-04T10:00:00Z', grossMinor: 10_000, currency: 'USD', fbclid: 'f-1' }),
  testOrder({ externalId: 'E', orderNumber: '#1005', placedAt: '2026-06-05T10:00:00Z', grossMinor: 7_000, status: 'cancelled' }),
  testOrder({ externalId: 'F', orderNumber: '#1006', placedAt: '2026-06-05T11:00:00Z', grossMinor: 2_000, isTest: true }),
  testOrder({ externalId: '@evil', orderNumber: '=2+3', placedAt: '2026-06-07T10:00:00Z', grossMinor: 1_234, referrer: 'https://blog.example.org/post' }),
];

async function seedFixture(storeId: number) {
  const em = testApp.orm.em.fork();
  await ingestOrders(em, storeId, FIXTURE);
  await ingestRefunds(em, storeId, [
    { platform: 'shopify', externalId: 'refund-A', orderExternalId: 'A', refundedAt: '2026-06-06T09:00:00Z', amountMinor: 2_000, currency: 'GBP', reason: 'Damaged, "box"' },
  ]);
}

let fixtureStore: { id: number; currency: string };

async function fixture() {
  if (!fixtureStore) {
    const store = await createCommerceStore(testApp.orm);
    await seedFixture(store.id);
    fixtureStore = store;
  }
  return fixtureStore;
}

async function list(input: OrdersListInput = {}) {
  return listOrders(testApp.orm.em.fork(), await fixture(), ordersListInput.parse(input));
}

/** listOrders with the search plan forced (the planner picks 'walk' only on stores with tens of thousands of matching lines). */
function listOrdersWithPlan(store: { id: number; currency: string }, plan: SearchPlan, input: OrdersListInput) {
  return listOrders(testApp.orm.em.fork(), store, ordersListInput.parse(input), plan);
}

async function numbers(input: OrdersListInput = {}) {
  return (await list(input)).rows.map((row) => row.orderNumber);
}

describe('orders.list: filters, search, sort', () => {
  it('lists every order newest first, cancelled and test ones marked as not counting', async () => {
    const result = await list();
    expect(result.rows.map((row) => row.orderNumber)).toEqual(['=2+3', '#1006', '#1005', '#1004', '#1003', '#1002', '#1001']);
    expect(result).toMatchObject({ total: 7, totalIsExact: true, page: 1, pageSize: 25, currency: 'GBP' });
    const byNumber = Object.fromEntries(result.rows.map((row) => [row.orderNumber, row]));
    expect(byNumber['#1005']).toMatchObject({ status: 'cancelled', counts: false, isTest: false });
    expect(byNumber['#1006']).toMatchObject({ status: 'paid', counts: false, isTest: true });
    expect(byNumber['#1001']).toMatchObject({
      placedDay: '2026-06-01',
      placedAt: '2026-06-01T10:00:00.000Z',
      channel: 'googleads',
      status: 'partially_refunded',
      counts: true,
      isNewCustomer: true,
      items: 3,
      currency: 'GBP',
      // Total paid = 100.00 gross - 10.00 discounts + 5.00 shipping + 18.00 taxes = 113.00.
      amounts: { total: 11_300, gross: 10_000, discounts: 1_000, shipping: 500, taxes: 1_800, refunds: 2_000, netSales: 7_000 },
      displayAmounts: { total: 11_300, gross: 10_000, discounts: 1_000, shipping: 500, taxes: 1_800, refunds: 2_000, netSales: 7_000 },
      // c1 placed A and C: two counting orders.
      customer: { externalId: 'c1', ordersCount: 2 },
    });
    expect(byNumber['#1003']).toMatchObject({ isNewCustomer: false, items: 0, customer: { externalId: 'c1', ordersCount: 2 } });
    expect(byNumber['#1002']).toMatchObject({ customer: { externalId: 'c2', ordersCount: 1 }, amounts: { total: 5_000 } });
    // A guest checkout has no customer; USD 100.00 is GBP 68.00 at the day's rate.
    expect(byNumber['#1004']).toMatchObject({ customer: null, amounts: { total: 10_000 }, displayAmounts: { total: 6_800 } });
  });

  it("converts into the display currency at the order's day", async () => {
    const [usd] = (await list({ platforms: ['woocommerce'] })).rows;
    expect(usd).toMatchObject({ currency: 'USD', amounts: { gross: 10_000, netSales: 10_000 }, displayAmounts: { gross: 6_800, netSales: 6_800 } });
    const inEuros = await list({ platforms: ['woocommerce'], currency: 'EUR' });
    expect(inEuros.currency).toBe('EUR');
    expect(inEuros.rows[0]!.displayAmounts.netSales).toBe(8_000);
  });

  it('filters by store days, status, channel, customer type and platform, and combines them', async () => {
    expect(await numbers({ from: '2026-06-02', to: '2026-06-03' })).toEqual(['#1003', '#1002']);
    expect(await numbers({ from: '2026-06-05' })).toEqual(['=2+3', '#1006', '#1005']);
    expect(await numbers({ statuses: ['cancelled'] })).toEqual(['#1005']);
    expect(await numbers({ statuses: ['partially_refunded', 'cancelled'] })).toEqual(['#1005', '#1001']);
    expect(await numbers({ channels: ['googleads', 'metaads'] })).toEqual(['#1004', '#1001']);
    expect(await numbers({ customerType: 'returning' })).toEqual(['#1003']);
    // Guest checkouts are new customers; cancelled and test orders are neither.
    expect(await numbers({ customerType: 'new' })).toEqual(['=2+3', '#1004', '#1002', '#1001']);
    expect(await numbers({ platforms: ['woocommerce'] })).toEqual(['#1004']);
    const combined = await list({ channels: ['direct'], statuses: ['paid'], from: '2026-06-03' });
    expect(combined.rows.map((row) => row.orderNumber)).toEqual(['#1006', '#1003']);
    expect(combined.total).toBe(2);
  });

  it('searches order numbers (with or without #, by prefix from 3 characters), external ids, customer ids, exact e-mails, and product titles or SKUs', async () => {
    expect(await numbers({ search: '1003' })).toEqual(['#1003']);
    expect(await numbers({ search: '#1003' })).toEqual(['#1003']);
    // A prefix of 3 characters or more: every #100x, newest first (F 5 Jun 11:00 before E 5 Jun 10:00).
    expect(await numbers({ search: '100' })).toEqual(['#1006', '#1005', '#1004', '#1003', '#1002', '#1001']);
    expect(await numbers({ search: '#100' })).toEqual(['#1006', '#1005', '#1004', '#1003', '#1002', '#1001']);
    // Shorter ones match exactly: "10" is no order's number.
    expect(await numbers({ search: '10' })).toEqual([]);
    expect(await numbers({ search: '=2+' })).toEqual(['=2+3']);
    // The customer's platform id: exactly (short), or as a prefix.
    expect(await numbers({ search: 'c1' })).toEqual(['#1003', '#1001']);
    expect(await numbers({ search: 'c2' })).toEqual(['#1002']);
    expect(await numbers({ search: 'c9' })).toEqual([]);
    expect(await numbers({ search: 'B' })).toEqual(['#1002']);
    expect(await numbers({ search: '  ADA@example.COM ' })).toEqual(['#1003', '#1001']);
    expect(await numbers({ search: 'ada@example' })).toEqual([]);
    expect(await numbers({ search: 'tent' })).toEqual(['#1001']);
    expect(await numbers({ search: 'stove-9' })).toEqual(['#1002']);
    expect(await numbers({ search: 'camping' })).toEqual(['#1002']);
    // LIKE wildcards are plain characters.
    expect(await numbers({ search: '%' })).toEqual([]);
    expect(await numbers({ search: 'tent', statuses: ['paid'] })).toEqual([]);
  });

  it('a common product word walks the orders newest first and counts up to 1,000; a rare one counts them all', async () => {
    const store = await createCommerceStore(testApp.orm);
    // 1,050 orders with a "Wool Blanket" line and 1 (W7) with a "Lantern".
    await ingestOrders(
      testApp.orm.em.fork(),
      store,
      Array.from({ length: 1_051 }, (_, index) =>
        testOrder({
          externalId: `w-${index}`,
          orderNumber: `W${index}`,
          placedAt: new Date(Date.UTC(2026, 5, 1, 0, index)).toISOString(),
          lines: [{ title: index === 7 ? 'Lantern' : 'Wool Blanket', sku: `SKU-${index}`, quantity: 1, unitPriceMinor: 1_000 }],
        }),
      ),
    );
    const em = testApp.orm.em.fork();
    await em.getConnection().execute('analyze order_lines');
    const page = (input: OrdersListInput) => listOrders(testApp.orm.em.fork(), store, ordersListInput.parse(input));
    // The planner's estimate is compared with COMMON_LINE_MATCHES; a small store's words are never common.
    expect(await searchPlanOf(em, store.id, 'blanket')).toBe('set');
    expect(await searchPlanOf(em, store.id, 'lantern')).toBe('set');
    const blankets = await page({ search: 'blanket' });
    expect(blankets).toMatchObject({ total: 1_050, totalIsExact: true });
    expect(blankets.rows[0]!.orderNumber).toBe('W1050');
    // Both plans find the same orders in the same order; the walk's count stops at 1,000.
    const walked = await listOrdersWithPlan(store, 'walk', { search: 'blanket' });
    expect(walked.rows.map((row) => row.orderNumber)).toEqual(blankets.rows.map((row) => row.orderNumber));
    expect(walked).toMatchObject({ total: 1_000, totalIsExact: false });
    expect((await page({ search: 'lantern' })).rows.map((row) => row.orderNumber)).toEqual(['W7']);
    // An order whose number is the search comes alone: W105, not W1050 too; W10x's prefix "W10" is an order too.
    expect((await page({ search: 'W105' })).rows.map((row) => row.orderNumber)).toEqual(['W105']);
    expect((await page({ search: 'W10' })).rows.map((row) => row.orderNumber)).toEqual(['W10']);
    expect((await listOrdersWithPlan(store, 'walk', { search: 'lantern' })).rows.map((row) => row.orderNumber)).toEqual(['W7']);
    // Deeper pages and other sorts: the set (counted and paged in one statement) gives the walk's pages.
    const orderNumbers = (result: { rows: { orderNumber: string | null }[] }) => result.rows.map((row) => row.orderNumber);
    for (const input of [
      { search: 'blanket', page: 3, pageSize: 50, sort: 'orderNumber', direction: 'asc' },
      { search: 'blanket', page: 2, sort: 'placedAt', direction: 'asc' },
      { search: 'blanket', page: 5, pageSize: 100, sort: 'gross', direction: 'desc' },
    ] as const) {
      const set = await listOrdersWithPlan(store, 'set', input);
      expect(set).toMatchObject({ total: 1_050, totalIsExact: true, page: input.page });
      expect(set.rows).toHaveLength(input.page === 5 ? 100 : input.page === 3 ? 50 : 25);
      expect(orderNumbers(set)).toEqual(orderNumbers(await listOrdersWithPlan(store, 'walk', input)));
    }
    // Order numbers sort as text (W0, W1, W10, W100, W1000, ..., W1009, W101, ...; W7 is the lantern): the 101st and 102nd.
    expect(orderNumbers(await listOrdersWithPlan(store, 'set', { search: 'blanket', page: 3, pageSize: 50, sort: 'orderNumber', direction: 'asc' })).slice(0, 2)).toEqual(['W142', 'W143']);
    expect(await listOrdersWithPlan(store, 'set', { search: 'blanket', page: 12, pageSize: 100 })).toMatchObject({ total: 1_050, rows: [] });
  });

  it("keeps the store's distinct line texts as orders come in, change and lose lines; searches stay within the store and the date range", async () => {
    const store = await createCommerceStore(testApp.orm);
    const other = await createCommerceStore(testApp.orm);
    const page = async (input: OrdersListInput, inStore = store) =>
      (await listOrders(testApp.orm.em.fork(), inStore, ordersListInput.parse(input))).rows.map((row) => row.orderNumber);
    const texts = async (storeId: number) =>
      (
        await testApp.orm.em
          .fork()
          .getConnection()
          .execute<{ kind: string; text: string }[]>('select kind, text from order_line_texts where store_id = ? order by kind, text', [storeId])
      ).map((row) => `${row.kind}:${row.text}`);
    const lantern = (externalId: string, orderNumber: string, day: string, title = 'Storm Lantern', sku = 'LAN-0042', updatedAt?: string) =>
      testOrder({ externalId, orderNumber, placedAt: `2026-06-${day}T10:00:00Z`, updatedAt, lines: [{ externalId: `${externalId}-1`, title, sku, quantity: 1, unitPriceMinor: 1_000 }] });
    await ingestOrders(testApp.orm.em.fork(), store, [lantern('L1', 'L1', '01'), lantern('L2', 'L2', '10'), testOrder({ externalId: 'L3', orderNumber: 'L3', placedAt: '2026-06-11T10:00:00Z' })]);
    // The same SKU in another store: never found from this one.
    await ingestOrders(testApp.orm.em.fork(), other, [lantern('X1', 'X1', '05')]);
    expect(await texts(store.id)).toEqual(['sku:LAN-0042', 'title:Storm Lantern']);
    expect(await page({ search: 'lan-004' })).toEqual(['L2', 'L1']);
    expect(await page({ search: 'STORM' })).toEqual(['L2', 'L1']);
    expect(await page({ search: 'lan-0042', from: '2026-06-05' })).toEqual(['L2']);
    expect(await page({ search: 'lan-0042', to: '2026-06-05' })).toEqual(['L1']);
    expect(await page({ search: 'lan-0042' }, other)).toEqual(['X1']);

    // L1's line renamed and given a new SKU: found by the new texts, no longer by the old ones; L2 keeps them.
    await ingestOrders(testApp.orm.em.fork(), store, [lantern('L1', 'L1', '01', 'Camp Lamp', 'LAMP-7', '2026-06-20T10:00:00Z')]);
    expect(await texts(store.id)).toEqual(['sku:LAMP-7', 'sku:LAN-0042', 'title:Camp Lamp', 'title:Storm Lantern']);
    expect(await page({ search: 'lamp' })).toEqual(['L1']);
    expect(await page({ search: 'lamp-7' })).toEqual(['L1']);
    expect(await page({ search: 'lantern' })).toEqual(['L2']);
    // L2's lantern line replaced by another: the order is no longer found by it (the text stays, matching no line).
    await ingestOrders(testApp.orm.em.fork(), store, [
      testOrder({ externalId: 'L2', orderNumber: 'L2', placedAt: '2026-06-10T10:00:00Z', updatedAt: '2026-06-20T10:00:00Z', lines: [{ externalId: 'L2-2', title: 'Wick', quantity: 1, unitPriceMinor: 100 }] }),
    ]);
    expect(await page({ search: 'lantern' })).toEqual([]);
    expect(await page({ search: 'wick' })).toEqual(['L2']);
    expect(await page({ search: 'lantern' }, other)).toEqual(['X1']);
    // Both plans agree.
    expect((await listOrdersWithPlan(store, 'walk', { search: 'lamp' })).rows.map((row) => row.orderNumber)).toEqual(['L1']);
  });

  it('sorts by net sales, gross, order number and date, both ways', async () => {
    // Net sales in the order's own currency: D 10000 (USD), E 7000, A 7000 (ties: the later id first), B, C, F, G.
    expect(await numbers({ sort: 'netSales', direction: 'desc' })).toEqual(['#1004', '#1005', '#1001', '#1002', '#1003', '#1006', '=2+3']);
    expect(await numbers({ sort: 'gross', direction: 'asc' })).toEqual(['=2+3', '#1006', '#1003', '#1002', '#1005', '#1001', '#1004']);
    // Total paid (own currency): A 100.00 - 10.00 + 5.00 + 18.00 = 113.00, D 100.00, E 70.00, B 50.00, C 30.00, F 20.00, G 12.34.
    expect(await numbers({ sort: 'total', direction: 'desc' })).toEqual(['#1001', '#1004', '#1005', '#1002', '#1003', '#1006', '=2+3']);
    expect(await numbers({ sort: 'orderNumber', direction: 'asc' })).toEqual(['#1001', '#1002', '#1003', '#1004', '#1005', '#1006', '=2+3']);
    expect(await numbers({ sort: 'placedAt', direction: 'asc' })).toEqual(['#1001', '#1002', '#1003', '#1004', '#1005', '#1006', '=2+3']);
  });

  it('pages through the set with the count of the whole filtered set, and refuses pages past the cap', async () => {
    const store = await createCommerceStore(testApp.orm);
    await ingestOrders(
      testApp.orm.em.fork(),
      store,
      Array.from({ length: 60 }, (_, index) =>
        testOrder({ externalId: `p-${index}`, orderNumber: `P${String(index).padStart(3, '0')}`, placedAt: new Date(Date.UTC(2026, 5, 1, 0, index)).toISOString() }),
      ),
    );
    const page = (input: OrdersListInput) => listOrders(testApp.orm.em.fork(), store, ordersListInput.parse(input));
    const third = await page({ page: 3, pageSize: 25 });
    expect(third.total).toBe(60);
    expect(third.rows.map((row) => row.orderNumber)).toEqual(Array.from({ length: 10 }, (_, index) => `P${String(9 - index).padStart(3, '0')}`));
    const second = await page({ page: 2, pageSize: 50, sort: 'orderNumber', direction: 'asc' });
    expect(second.rows.map((row) => row.orderNumber)).toEqual(Array.from({ length: 10 }, (_, index) => `P0${50 + index}`));
    expect((await page({ page: 9 })).rows).toEqual([]);

    expect(() => ordersListInput.parse({ page: 401, pageSize: 25 })).toThrow('Only the first 10,000 orders can be paged through: narrow the filters or export CSV');
    expect(ordersListInput.parse({ page: 400, pageSize: 25 }).page).toBe(400);
    expect(() => ordersListInput.parse({ pageSize: 30 })).toThrow('Page size must be one of 25, 50, 100');
    expect(() => ordersListInput.parse({ from: '2026-06-05', to: '2026-06-01' })).toThrow('The start date must not be after the end date');
    expect(() => ordersListInput.parse({ statuses: ['lost'] })).toThrow('Status must be one of');
  });
});

describe('orders.detail', () => {
  it('has the lines, refunds, attribution and customer summary, and no e-mail', async () => {
    const store = await fixture();
    const [a] = (await list({ search: '#1001' })).rows;
    const detail = await orderDetail(testApp.orm.em.fork(), store, { orderId: a!.id });
    expect(detail.order).toMatchObject({ orderNumber: '#1001', externalId: 'A', items: 3 });
    expect(detail.lines).toEqual([
      { id: expect.any(Number), title: 'Tent', sku: 'TENT-1', quantity: 2, unitPrice: 4_000, discount: 0, unitCost: 1_500, total: 8_000 },
      { id: expect.any(Number), title: 'Mug', sku: 'MUG-1', quantity: 1, unitPrice: 2_000, discount: 1_000, unitCost: null, total: 1_000 },
    ]);
    expect(detail.refunds).toEqual([
      { id: expect.any(Number), refundedAt: '2026-06-06T09:00:00.000Z', refundedDay: '2026-06-06', amount: 2_000, currency: 'GBP', reason: 'Damaged, "box"' },
    ]);
    expect(detail.attribution).toMatchObject({ channel: 'googleads', gclid: 'g-1', fbclid: null, utmSource: null });
    // Ada: A (100.00 - 10.00 - 20.00 refunded) + C 30.00.
    expect(detail.customer).toMatchObject({ externalId: 'c1', firstOrderAt: '2026-06-01T10:00:00.000Z', ordersCount: 2, totalSpent: 10_000, totalSpentCurrency: 'GBP' });
    expect(JSON.stringify(detail)).not.toContain('ada@');

    const [d] = (await list({ search: '#1004' })).rows;
    const guest = await orderDetail(testApp.orm.em.fork(), store, { orderId: d!.id, currency: 'EUR' });
    expect(guest.customer).toBeNull();
    expect(guest.order.displayAmounts.netSales).toBe(8_000);
    expect(guest.attribution.fbclid).toBe('f-1');
  });
});

function csvLines(body: string): string[] {
  expect(body.endsWith('\r\n')).toBe(true);
  return body.slice(0, -2).split('\r\n');
}

describe('CSV export (GET /api/orders/export.csv)', () => {
  it('writes the filtered set with a header, major units, RFC 4180 quoting and defused formulas', async () => {
    const owner = await signedInStoreOwner(testApp, 'csvowner');
    await seedFixture(owner.store.id);
    const all = await owner.client.get('/api/orders/export.csv');
    expect(all.status).toBe(200);
    expect(all.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(all.headers['content-disposition']).toMatch(/^attachment; filename="orders-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = csvLines(all.body);
    expect(lines[0]).toBe(ORDERS_CSV_HEADER.join(','));
    expect(lines).toHaveLength(8);
    expect(lines[1]).toBe(`"'=2+3","'@evil",2026-06-07T10:00:00.000Z,2026-06-07,shopify,paid,no,yes,referral,new,GBP,12.34,0.00,0.00,0.00,0.00,12.34,0,GBP,12.34`);
    expect(lines).toContain('#1001,A,2026-06-01T10:00:00.000Z,2026-06-01,shopify,partially_refunded,no,yes,googleads,new,GBP,100.00,10.00,5.00,18.00,20.00,70.00,3,GBP,70.00');

    const filtered = await owner.client.get('/api/orders/export.csv?channels=metaads,direct&statuses=paid&statuses=cancelled&sort=gross&direction=asc&currency=EUR');
    expect(csvLines(filtered.body).slice(1)).toEqual([
      '#1006,F,2026-06-05T11:00:00.000Z,2026-06-05,shopify,paid,yes,no,direct,,GBP,20.00,0.00,0.00,0.00,0.00,20.00,0,EUR,23.53',
      '#1003,C,2026-06-03T10:00:00.000Z,2026-06-03,shopify,paid,no,yes,direct,returning,GBP,30.00,0.00,0.00,0.00,0.00,30.00,0,EUR,35.29',
      '#1005,E,2026-06-05T10:00:00.000Z,2026-06-05,shopify,cancelled,no,no,direct,,GBP,70.00,0.00,0.00,0.00,0.00,70.00,0,EUR,82.35',
      '#1004,D,2026-06-04T10:00:00.000Z,2026-06-04,woocommerce,paid,no,yes,metaads,new,USD,100.00,0.00,0.00,0.00,0.00,100.00,0,EUR,80.00',
    ]);
    const searched = await owner.client.get(`/api/orders/export.csv?search=${encodeURIComponent('ada@example.com')}`);
    expect(csvLines(searched.body)).toHaveLength(3);

    const invalid = await owner.client.get('/api/orders/export.csv?statuses=lost');
    expect(invalid.status).toBe(400);
    expect(invalid.body.message).toContain('Status must be one of');
  });

  it('streams 20,000 orders in chunks, every order once, in the requested order', async () => {
    const owner = await signedInStoreOwner(testApp, 'csvbig');
    const orders = Array.from({ length: 20_000 }, (_, index) =>
      testOrder({ externalId: `big-${index}`, orderNumber: `B${index}`, placedAt: new Date(Date.UTC(2026, 0, 1) + index * 60_000).toISOString(), grossMinor: 1_000 + (index % 97) }),
    );
    await ingestOrders(testApp.orm.em.fork(), owner.store.id, orders);

    const address = await testApp.app.listen({ port: 0, host: '127.0.0.1' });
    const response = await fetch(`${address}/api/orders/export.csv?sort=gross&direction=desc`, {
      headers: { cookie: `${SESSION_COOKIE_NAME}=${owner.client.sessionCookie}` },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBeNull();
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let chunks = 0;
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks += 1;
      text += decoder.decode(value, { stream: true });
    }
    expect(chunks).toBeGreaterThan(5);
    const lines = csvLines(text);
    expect(lines).toHaveLength(20_001);
    const rows = lines.slice(1).map((line) => line.split(','));
    expect(new Set(rows.map((cells) => cells[1])).size).toBe(20_000);
    const gross = rows.map((cells) => Number(cells[11]));
    expect(gross[0]).toBe(10.96);
    expect(gross.at(-1)).toBe(10);
    expect(gross.every((value, index) => index === 0 || value <= gross[index - 1]!)).toBe(true);
  });
});

describe('tenant scope', () => {
  it("another user's store answers 404 for the list, the detail and the CSV; a store guest may read", async () => {
    const owner = await signedInStoreOwner(testApp, 'ordowner');
    const other = await signedInStoreOwner(testApp, 'ordother');
    await seedFixture(owner.store.id);
    await ingestOrders(testApp.orm.em.fork(), other.store.id, [testOrder({ externalId: 'theirs', orderNumber: '#9', placedAt: '2026-06-02T10:00:00Z' })]);

    const own = await trpcQuery(owner.client, 'orders.list', {});
    expect(own.status).toBe(200);
    expect(own.body.result.data.total).toBe(7);
    const ownOrderId = own.body.result.data.rows[0].id as number;

    const theirs = await trpcQuery(other.client, 'orders.list', {});
    expect(theirs.body.result.data.rows.map((row: { orderNumber: string }) => row.orderNumber)).toEqual(['#9']);

    const listIntrusion = await trpcQuery(other.client, 'orders.list', { storeId: owner.store.id });
    expect(listIntrusion.status).toBe(404);
    expect(listIntrusion.body.error.message).toBe('Store not found');

    const detailIntrusion = await trpcQuery(other.client, 'orders.detail', { orderId: ownOrderId, storeId: owner.store.id });
    expect(detailIntrusion.status).toBe(404);
    // The id of another store's order in the caller's own store: no such order there.
    const crossStore = await trpcQuery(other.client, 'orders.detail', { orderId: ownOrderId });
    expect(crossStore.status).toBe(404);
    expect(crossStore.body.error.message).toBe('Order not found');
    expect(JSON.stringify(crossStore.body)).not.toContain('2+3');

    const csvIntrusion = await other.client.get(`/api/orders/export.csv?storeId=${owner.store.id}`);
    expect(csvIntrusion.status).toBe(404);
    expect(csvIntrusion.body).toEqual({ message: 'Store not found' });
    expect((await new ApiClient(testApp.app).get('/api/orders/export.csv')).status).toBe(401);

    const guest = await newGuestOf(testApp.app, testApp.orm, owner, owner.store.id);
    const guestCsv = await guest.client.get(`/api/orders/export.csv?storeId=${owner.store.id}`);
    expect(guestCsv.status).toBe(200);
    expect(csvLines(guestCsv.body)).toHaveLength(8);
    const guestDetail = await trpcQuery(guest.client, 'orders.detail', { orderId: ownOrderId, storeId: owner.store.id });
    expect(guestDetail.body.result.data.order.orderNumber).toBe('=2+3');
  });
});
