import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWooCommerceFake, type WooCommerceFake } from '../../../../test/fakes/woocommerce.ts';
import { ConnectorAuthError, MalformedResponseError, type ConnectorContext, type SyncBatch, type SyncWindow } from '../connector.ts';
import { PlatformHttp } from '../http.ts';
import { storeDaysOf } from '../store-common.ts';
import { wooOrder, wooRefund } from './client.ts';
import { createWooCommerceConnector, fetchWooCommerceOrder, woocommerceConnector } from './index.ts';
import { WOO_COUNTED_STATUSES, mapWooOrder, mapWooRefund, wooStatus } from './map.ts';
import { isWooCommercePing, mapWooCommerceWebhook, verifyWooCommerceWebhook, wooCommerceWebhookDelivery } from './webhooks.ts';

let fake: WooCommerceFake;
const connector = createWooCommerceConnector({ pageSize: 50 });
const fullYear: SyncWindow = { since: new Date('2024-12-01T00:00:00Z'), until: new Date('2026-02-01T00:00:00Z') };

beforeAll(async () => {
  fake = await startWooCommerceFake({ seed: 3, orders: 420, products: 25 });
});
afterAll(() => fake.close());

function context(waits: number[] = [], credentials: Record<string, string> = {}): ConnectorContext {
  return {
    baseUrl: fake.url,
    credentials: { storeUrl: fake.url, consumerKey: fake.consumerKey, consumerSecret: fake.consumerSecret, ...credentials },
    http: new PlatformHttp({ platform: 'woocommerce', sleep: async (ms) => void waits.push(ms), maxAttempts: 4 }),
    store: { timezone: 'Europe/Berlin', currency: 'EUR' },
  };
}

async function readWindow(ctx: ConnectorContext, window: SyncWindow, afterEachBatch?: (batch: SyncBatch, index: number) => void): Promise<SyncBatch[]> {
  const batches: SyncBatch[] = [];
  let cursor: string | null = null;
  do {
    const batch = await connector.fetchBatch(ctx, window, cursor);
    batches.push(batch);
    afterEachBatch?.(batch, batches.length - 1);
    cursor = batch.nextCursor;
  } while (cursor && batches.length < 100);
  return batches;
}

describe('WooCommerce mapping', () => {
  // platform-apis.md 2.2's order.
  const documented = {
    id: 727,
    parent_id: 0,
    number: '727',
    order_key: 'wc_order_58d2d042d1d',
    created_via: 'checkout',
    status: 'processing',
    currency: 'USD',
    date_created: '2026-01-22T16:28:02',
    date_created_gmt: '2026-01-22T19:28:02',
    date_modified: '2026-01-22T16:28:08',
    date_modified_gmt: '2026-01-22T19:28:08',
    date_paid_gmt: '2026-01-22T19:28:08',
    date_completed_gmt: null,
    discount_total: '0.00',
    discount_tax: '0.00',
    shipping_total: '10.00',
    shipping_tax: '0.00',
    cart_tax: '1.35',
    total: '29.35',
    total_tax: '1.35',
    prices_include_tax: false,
    customer_id: 0,
    customer_ip_address: '',
    customer_user_agent: '',
    billing: { first_name: 'John', last_name: 'Doe', email: 'john.doe@example.com', phone: '(555) 555-5555', country: 'US' },
    payment_method: 'bacs',
    transaction_id: '',
    meta_data: [
      { id: 13106, key: '_wc_order_attribution_source_type', value: 'utm' },
      { id: 13107, key: '_wc_order_attribution_utm_source', value: 'google' },
      { id: 13108, key: '_wc_order_attribution_utm_medium', value: 'cpc' },
      { id: 13109, key: '_wc_order_attribution_utm_campaign', value: 'brand' },
      { id: 13110, key: '_wc_order_attribution_referrer', value: 'https://www.google.com/' },
      { id: 13111, key: '_wc_order_attribution_session_entry', value: 'https://store.example/?utm_source=google&gclid=Cj0KCQ' },
    ],
    line_items: [
      {
        id: 315,
        name: 'Woo Single #1',
        product_id: 93,
        variation_id: 0,
        quantity: 2,
        tax_class: '',
        subtotal: '6.00',
        subtotal_tax: '0.45',
        total: '6.00',
        total_tax: '0.45',
        taxes: [{ id: 75, total: '0.45', subtotal: '0.45' }],
        meta_data: [],
        sku: '',
        price: 3,
      },
    ],
    tax_lines: [{ id: 318, rate_code: 'US-CA-STATE TAX', rate_id: 75, label: 'State Tax', compound: false, tax_total: '1.35', shipping_tax_total: '0.00' }],
    shipping_lines: [{ id: 317, method_title: 'Flat Rate', method_id: 'flat_rate', total: '10.00', total_tax: '0.00', taxes: [] }],
    fee_lines: [],
    coupon_lines: [],
    refunds: [{ id: 726, reason: '', total: '-10.00' }],
  };

  it('maps the documented order: GMT dates, exact money, attribution meta, guest checkout', () => {
    const order = mapWooOrder(wooOrder.parse(documented));
    expect(order).toEqual({
      platform: 'woocommerce',
      externalId: '727',
      orderNumber: '727',
      placedAt: '2026-01-22T19:28:02Z',
      updatedAt: '2026-01-22T19:28:08Z',
      currency: 'USD',
      grossMinor: 600,
      discountsMinor: 0,
      shippingMinor: 1000,
      taxesMinor: 135,
      status: 'paid',
      isTest: false,
      customer: null,
      utmSource: 'google',
      utmMedium: 'cpc',
      utmCampaign: 'brand',
      referrer: 'https://www.google.com/',
      landingSite: 'https://store.example/?utm_source=google&gclid=Cj0KCQ',
      lines: [{ externalId: '315', productExternalId: '93', title: 'Woo Single #1', sku: null, quantity: 2, unitPriceMinor: 300, discountMinor: 0 }],
    });
  });

  it('maps a documented refund with its own date, and the statuses', () => {
    const refund = wooRefund.parse({ id: 726, date_created: '2026-01-23T10:00:00', date_created_gmt: '2026-01-23T13:00:00', amount: '10.00', reason: '', refunded_by: 1, refunded_payment: false, line_items: [] });
    expect(mapWooRefund(refund, 727, 'USD')).toEqual({ platform: 'woocommerce', externalId: '726', orderExternalId: '727', refundedAt: '2026-01-23T13:00:00Z', amountMinor: 1000, currency: 'USD', reason: null });
    expect(['processing', 'completed', 'refunded', 'on-hold', 'pending', 'cancelled', 'failed', 'trash'].map(wooStatus)).toEqual(['paid', 'paid', 'paid', 'pending', 'pending', 'cancelled', 'cancelled', 'cancelled']);
  });
});

describe('WooCommerce connector against the fake', () => {
  it('verifies the key and reads the shop currency', async () => {
    await expect(connector.verify(context())).resolves.toEqual({ accountId: new URL(fake.url).host, accountName: new URL(fake.url).host, currency: 'EUR' });
  });

  it('backfills every order of the window page by page, with refunds on their own dates', async () => {
    const batches = await readWindow(context(), fullYear);
    const products = batches.flatMap((batch) => batch.products ?? []);
    const orders = batches.flatMap((batch) => batch.orders ?? []);
    expect(products).toHaveLength(25);
    expect(products.find((product) => product.externalId === '100')?.active).toBe(false);
    expect(orders).toHaveLength(fake.ordersModifiedBetween(fullYear.since, fullYear.until));
    expect(new Set(orders.map((order) => order.externalId)).size).toBe(orders.length);
    expect(batches.at(-1)!.estimatedTotal).toBe(orders.length);
    expect(orders.some((order) => order.status === 'cancelled')).toBe(true);
    expect(orders.some((order) => order.utmSource === 'google')).toBe(true);
    const refunds = batches.flatMap((batch) => batch.refunds ?? []);
    expect(refunds.length).toBeGreaterThan(5);
    for (const refund of refunds) {
      const order = orders.find((candidate) => candidate.externalId === refund.orderExternalId)!;
      expect(Date.parse(refund.refundedAt as string)).toBeGreaterThan(Date.parse(order.placedAt as string));
      expect(refund.amountMinor).toBeLessThanOrEqual(order.grossMinor - (order.discountsMinor ?? 0));
    }
  });

  it('skips nothing when orders leave the window while it is being read', async () => {
    const window = { since: new Date('2025-01-01T00:00:00Z'), until: new Date('2025-07-01T00:00:00Z') };
    const expected = fake.ordersModifiedBetween(window.since, window.until);
    let moved = 0;
    const batches = await readWindow(context(), window, (batch) => {
      // Orders already handed out are modified now (after `until`): the rows after them shift back.
      for (const order of (batch.orders ?? []).slice(0, 8)) {
        fake.updateOrder(order.externalId, { at: new Date('2026-03-01T00:00:00Z') });
        moved++;
      }
    });
    const ids = batches.flatMap((batch) => batch.orders ?? []).map((order) => order.externalId);
    expect(moved).toBeGreaterThan(20);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(expected);
  });

  it('returns only orders changed in an incremental window', async () => {
    const at = new Date('2026-04-01T10:00:00Z');
    fake.updateOrder(fake.orderId(5), { status: 'cancelled', at });
    const refundId = fake.addRefund(fake.orderId(9), { amountMinor: 250, at: new Date(at.getTime() + 60_000), reason: 'Damaged' });
    const batches = await readWindow(context(), { since: at, until: new Date(at.getTime() + 3_600_000) });
    const orders = batches.flatMap((batch) => batch.orders ?? []);
    expect(orders.map((order) => [order.externalId, order.status])).toEqual([
      [fake.orderId(5), 'cancelled'],
      [fake.orderId(9), expect.any(String)],
    ]);
    expect(batches.flatMap((batch) => batch.refunds ?? []).find((refund) => refund.externalId === refundId)).toEqual({
      platform: 'woocommerce',
      externalId: refundId,
      orderExternalId: fake.orderId(9),
      refundedAt: '2026-04-01T10:01:00Z',
      amountMinor: 250,
      currency: 'EUR',
      reason: 'Damaged',
    });
  });

  it('returns the same page when a cursor is replayed', async () => {
    const products = await connector.fetchBatch(context(), fullYear, null);
    const page = await connector.fetchBatch(context(), fullYear, products.nextCursor);
    const next = await connector.fetchBatch(context(), fullYear, page.nextCursor);
    expect(await connector.fetchBatch(context(), fullYear, page.nextCursor)).toEqual(next);
    expect(next.orders![0]!.externalId).not.toBe(page.orders![0]!.externalId);
  });

  it('retries 429 after Retry-After and 5xx with backoff', async () => {
    const waits: number[] = [];
    fake.injectFault('rate_limit', { pathIncludes: '/orders' });
    fake.injectFault('server_error', { pathIncludes: '/orders' });
    const products = await connector.fetchBatch(context(waits), fullYear, null);
    const batch = await connector.fetchBatch(context(waits), fullYear, products.nextCursor);
    expect(batch.orders).toHaveLength(50);
    expect(waits[0]).toBe(3000);
    expect(waits).toHaveLength(2);
  });

  it('raises MalformedResponseError for an HTML page instead of JSON', async () => {
    fake.injectFault('malformed', { pathIncludes: '/products' });
    await expect(connector.fetchBatch(context(), fullYear, null)).rejects.toThrow(MalformedResponseError);
  });

  it('raises ConnectorAuthError with a reason a user understands for a revoked key, and refuses plain HTTP', async () => {
    fake.injectFault('revoked');
    const error = await connector.verify(context()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectorAuthError);
    expect((error as ConnectorAuthError).reason).toMatch(/deleted or revoked/);
    const wrongSecret = await connector.verify(context([], { consumerSecret: 'cs_wrong' })).catch((caught: unknown) => caught);
    expect(wrongSecret).toBeInstanceOf(ConnectorAuthError);
    await expect(connector.verify({ ...context(), baseUrl: 'http://store.example' })).rejects.toThrow(/https/);
  });

  it('can send the key in the query string when the host drops Authorization', async () => {
    await expect(connector.verify(context([], { authMode: 'query' }))).resolves.toMatchObject({ currency: 'EUR' });
    expect(fake.requests.at(-1)!.headers.authorization).toBeUndefined();
    expect(fake.requests.at(-1)!.query).toContain('consumer_key=');
  });

  it('reports per-day order counts for reconciliation', async () => {
    const window = { since: new Date('2025-05-01T00:00:00+02:00'), until: new Date('2025-05-15T00:00:00+02:00') };
    const totals = await woocommerceConnector.sourceTotals!(context(), window);
    const days = storeDaysOf(window, 'Europe/Berlin');
    expect(totals.map(({ day, orders }) => ({ day, orders }))).toEqual(fake.expectedDayCounts(days, WOO_COUNTED_STATUSES));
    expect(totals).toHaveLength(14);
    expect(totals.reduce((sum, total) => sum + total.orders!, 0)).toBeGreaterThan(0);
  });
});

describe('WooCommerce webhooks', () => {
  it('checks the signature against the raw body', () => {
    const delivery = fake.webhookDelivery('order.updated', fake.orderId(4));
    const signature = delivery.headers['x-wc-webhook-signature'];
    expect(verifyWooCommerceWebhook(delivery.body, signature, fake.webhookSecret)).toBe(true);
    expect(verifyWooCommerceWebhook(delivery.body + ' ', signature, fake.webhookSecret)).toBe(false);
    const forged = fake.webhookDelivery('order.updated', fake.orderId(4), { secret: 'guessed' });
    expect(verifyWooCommerceWebhook(forged.body, forged.headers['x-wc-webhook-signature'], fake.webhookSecret)).toBe(false);
    expect(verifyWooCommerceWebhook(delivery.body, null, fake.webhookSecret)).toBe(false);
  });

  it('maps order.created / order.updated and names the refunds to fetch', async () => {
    const delivery = fake.webhookDelivery('order.created', fake.orderId(30), { deliveryId: '98765' });
    expect(wooCommerceWebhookDelivery(delivery.headers)).toEqual({ topic: 'order.created', deliveryId: '98765', webhookId: '12', source: 'https://store.example/' });
    const effect = mapWooCommerceWebhook('order.created', JSON.parse(delivery.body));
    expect(effect).toMatchObject({ kind: 'ingest', orders: [{ externalId: fake.orderId(30) }] });

    fake.addRefund(fake.orderId(31), { amountMinor: 400, at: new Date('2026-05-01T00:00:00Z') });
    const refunded = mapWooCommerceWebhook('order.updated', JSON.parse(fake.webhookDelivery('order.updated', fake.orderId(31)).body));
    expect(refunded).toMatchObject({ kind: 'ingest', refundsToFetch: fake.orderId(31) });
    const fetched = await fetchWooCommerceOrder(context(), fake.orderId(31));
    expect(fetched.refunds.at(-1)).toMatchObject({ amountMinor: 400, refundedAt: '2026-05-01T00:00:00Z' });

    expect(mapWooCommerceWebhook('product.updated', {})).toEqual({ kind: 'ignored', topic: 'product.updated' });
    expect(() => mapWooCommerceWebhook('order.updated', { id: 'x' })).toThrow(MalformedResponseError);
    expect(isWooCommercePing('webhook_id=12', { 'content-type': 'application/x-www-form-urlencoded' })).toBe(true);
    expect(isWooCommercePing(delivery.body, delivery.headers)).toBe(false);
  });
});
