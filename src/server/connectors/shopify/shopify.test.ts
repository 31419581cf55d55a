import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startShopifyFake, type ShopifyFake } from '../../../../test/fakes/shopify.ts';
import { ConnectorAuthError, MalformedResponseError, type ConnectorContext, type OAuthSettings, type SyncBatch, type SyncWindow } from '../connector.ts';
import { PlatformHttp } from '../http.ts';
import { shopifyOrderNode } from './client.ts';
import { createShopifyConnector, shopifyConnector } from './index.ts';
import { mapShopifyOrder, mapShopifyRestOrder } from './map.ts';
import { verifyShopifyCallback } from './oauth.ts';
import { storeDaysOf } from '../store-common.ts';
import { mapShopifyWebhook, shopifyWebhookDelivery, verifyShopifyWebhook } from './webhooks.ts';

let fake: ShopifyFake;
/** The fake's clock: a retry's wait (recorded, not slept) lets its cost bucket refill. */
let clock = Date.now();
// The paginated path (bulk operations are tested in shopify-audit.test.ts): no backfill here uses one.
const connector = createShopifyConnector({ ordersPageSize: 100, bulkThreshold: Number.POSITIVE_INFINITY });
const fullYear: SyncWindow = { since: new Date('2024-12-01T00:00:00Z'), until: new Date('2026-02-01T00:00:00Z') };

beforeAll(async () => {
  fake = await startShopifyFake({ seed: 7, orders: 650, products: 30, now: () => clock });
});
afterAll(() => fake.close());

function context(waits: number[] = [], credentials: Record<string, string> = {}): ConnectorContext {
  return {
    baseUrl: fake.url,
    credentials: { shop: fake.shop, accessToken: fake.initialToken!, ...credentials },
    http: new PlatformHttp({
      platform: 'shopify',
      sleep: async (ms) => {
        waits.push(ms);
        clock += ms;
      },
      now: () => clock,
      maxAttempts: 4,
    }),
    store: { timezone: 'America/New_York', currency: 'USD' },
  };
}

async function readWindow(ctx: ConnectorContext, window: SyncWindow): Promise<SyncBatch[]> {
  const batches: SyncBatch[] = [];
  let cursor: string | null = null;
  do {
    const batch = await connector.fetchBatch(ctx, window, cursor);
    batches.push(batch);
    cursor = batch.nextCursor;
  } while (cursor && batches.length < 100);
  return batches;
}

const settings: OAuthSettings = {
  clientId: 'fake-shopify-client-id',
  clientSecret: 'fake-shopify-client-secret',
  redirectUri: 'http://127.0.0.1:9/integrations/shopify/callback',
  authorizeBaseUrl: '',
};

describe('Shopify mapping', () => {
  // platform-apis.md 1.3's node, completed with the original (before returns) amounts we read.
  const documented = {
    id: 'gid://shopify/Order/5610000000001',
    legacyResourceId: '5610000000001',
    name: '#1042',
    createdAt: '2026-01-15T10:20:30Z',
    updatedAt: '2026-01-16T08:00:00Z',
    processedAt: '2026-01-15T10:20:29Z',
    cancelledAt: null,
    test: false,
    currencyCode: 'USD',
    presentmentCurrencyCode: 'EUR',
    sourceName: 'web',
    displayFinancialStatus: 'PARTIALLY_REFUNDED',
    email: 'ada@example.com',
    customer: { id: 'gid://shopify/Customer/7001', firstName: 'Ada', lastName: 'Lovelace', defaultEmailAddress: { emailAddress: 'ada@example.com' } },
    // platform-apis.md's example did not add up (one line of 2 x 50.0 = 100.0 but a subtotal of
    // 105.0): the subtotal here is the line after its 5.0 discount, and shipping is Order.shippingLine.
    subtotalPriceSet: { shopMoney: { amount: '95.0', currencyCode: 'USD' } },
    totalDiscountsSet: { shopMoney: { amount: '5.0', currencyCode: 'USD' } },
    shippingLine: { discountedPriceSet: { shopMoney: { amount: '5.0', currencyCode: 'USD' } }, taxLines: [] },
    totalTaxSet: { shopMoney: { amount: '21.0', currencyCode: 'USD' } },
    totalRefundedSet: { shopMoney: { amount: '10.0', currencyCode: 'USD' } },
    customerJourneySummary: {
      ready: true,
      firstVisit: {
        occurredAt: '2026-01-14T18:01:00Z',
        landingPage: 'https://shop.example/?utm_source=google&gclid=Cj0KCQ',
        referrerUrl: 'https://www.google.com/',
        source: 'Google',
        sourceType: 'SEARCH',
        utmParameters: { source: 'google', medium: 'cpc', campaign: 'brand', content: null, term: null },
      },
      lastVisit: null,
    },
    lineItems: {
      nodes: [
        {
          id: 'gid://shopify/LineItem/900001',
          sku: 'TSHIRT-M',
          quantity: 2,
          currentQuantity: 2,
          product: { id: 'gid://shopify/Product/801' },
          variant: { id: 'gid://shopify/ProductVariant/802' },
          originalUnitPriceSet: { shopMoney: { amount: '50.0', currencyCode: 'USD' } },
          discountedTotalSet: { shopMoney: { amount: '95.0', currencyCode: 'USD' } },
        },
      ],
    },
    refunds: [{ id: 'gid://shopify/Refund/3001', createdAt: '2026-01-16T08:00:00Z', totalRefundedSet: { shopMoney: { amount: '10.0', currencyCode: 'USD' } } }],
  };

  it('maps the documented GraphQL order in shop money, with its refund on its own date', () => {
    const { order, refunds } = mapShopifyOrder(shopifyOrderNode.parse(documented));
    expect(order).toMatchObject({
      platform: 'shopify',
      externalId: '5610000000001',
      orderNumber: '#1042',
      placedAt: '2026-01-15T10:20:29Z',
      updatedAt: '2026-01-16T08:00:00Z',
      currency: 'USD',
      // Tax-exclusive shop: gross = the line before discounts (2 x 50.00), discounts = 100.00 - 95.00.
      grossMinor: 10000,
      discountsMinor: 500,
      shippingMinor: 500,
      taxesMinor: 2100,
      status: 'paid',
      isTest: false,
      customer: { externalId: '7001', email: 'ada@example.com', name: 'Ada Lovelace' },
      landingSite: 'https://shop.example/?utm_source=google&gclid=Cj0KCQ',
      referrer: 'https://www.google.com/',
      utmSource: 'google',
      utmMedium: 'cpc',
      utmCampaign: 'brand',
    });
    expect(order.lines).toEqual([
      { externalId: '900001', productExternalId: '801', title: 'TSHIRT-M', sku: 'TSHIRT-M', quantity: 2, unitPriceMinor: 5000, discountMinor: 500 },
    ]);
    // A refund listing no lines, shipping or adjustments is money returned, not merchandise: it no
    // longer lowers net sales (before: amountMinor 1000).
    expect(refunds).toEqual([
      {
        platform: 'shopify',
        externalId: '3001',
        orderExternalId: '5610000000001',
        refundedAt: '2026-01-16T08:00:00Z',
        amountMinor: 0,
        shippingMinor: 0,
        taxesMinor: 0,
        adjustmentsMinor: 1000,
        currency: 'USD',
        reason: null,
      },
    ]);
  });

  it('flags test orders, cancels cancelled ones, and keeps pending payments pending', () => {
    const base = shopifyOrderNode.parse(documented);
    expect(mapShopifyOrder({ ...base, test: true }).order.isTest).toBe(true);
    expect(mapShopifyOrder({ ...base, cancelledAt: '2026-01-15T12:00:00Z' }).order.status).toBe('cancelled');
    expect(mapShopifyOrder({ ...base, displayFinancialStatus: 'PENDING' }).order.status).toBe('pending');
    expect(mapShopifyOrder({ ...base, displayFinancialStatus: 'VOIDED' }).order.status).toBe('cancelled');
  });

  it('maps the documented REST order (webhook body), reading UTM and click ids from landing_site', () => {
    const { order, refunds } = mapShopifyRestOrder({
      id: 450789469,
      name: '#1001',
      email: 'bob@example.com',
      created_at: '2026-01-15T05:20:30-05:00',
      updated_at: '2026-01-16T03:00:00-05:00',
      processed_at: '2026-01-15T05:20:29-05:00',
      cancelled_at: null,
      test: false,
      currency: 'USD',
      financial_status: 'partially_refunded',
      total_line_items_price: '115.00',
      subtotal_price: '105.00',
      total_tax: '21.00',
      total_discounts: '10.00',
      total_shipping_price_set: { shop_money: { amount: '5.00', currency_code: 'USD' } },
      landing_site: '/?utm_source=facebook&utm_medium=paid&fbclid=IwAR2x',
      referring_site: 'https://l.facebook.com/',
      customer: { id: 207119551, email: 'bob@example.com', first_name: 'Bob', last_name: null },
      line_items: [{ id: 466157049, product_id: 632910392, sku: 'IPOD-342-N', title: 'IPod Nano', quantity: 1, price: '115.00', total_discount: '0.00' }],
      refunds: [
        {
          id: 509562969,
          created_at: '2026-01-16T03:00:00-05:00',
          refund_line_items: [{ subtotal_set: { shop_money: { amount: '10.00', currency_code: 'USD' } }, total_tax_set: { shop_money: { amount: '0.00', currency_code: 'USD' } } }],
          transactions: [{ kind: 'refund', amount: '10.00', status: 'success' }],
        },
      ],
    });
    expect(order).toMatchObject({ externalId: '450789469', grossMinor: 11500, discountsMinor: 1000, shippingMinor: 500, taxesMinor: 2100, status: 'paid' });
    expect(order.customer).toEqual({ externalId: '207119551', email: 'bob@example.com', name: 'Bob' });
    expect(order.landingSite).toBe('/?utm_source=facebook&utm_medium=paid&fbclid=IwAR2x');
    expect(order.lines).toEqual([{ externalId: '466157049', productExternalId: '632910392', title: 'IPod Nano', sku: 'IPOD-342-N', quantity: 1, unitPriceMinor: 11500, discountMinor: 0 }]);
    expect(refunds).toEqual([
      { platform: 'shopify', externalId: '509562969', orderExternalId: '450789469', refundedAt: '2026-01-16T03:00:00-05:00', amountMinor: 1000, shippingMinor: 0, taxesMinor: 0, adjustmentsMinor: 0, currency: 'USD', reason: null },
    ]);
  });
});

describe('Shopify connector against the fake', () => {
  it('verifies the token and names the shop', async () => {
    // The shop's own zone (shop { ianaTimezone }), for the store's days.
    await expect(connector.verify(context())).resolves.toEqual({ accountId: fake.shop, accountName: 'StorePulse Demo', currency: 'USD', timezone: 'America/New_York' });
  });

  it('backfills every order of the window page by page, products first', async () => {
    const batches = await readWindow(context(), fullYear);
    const orders = batches.flatMap((batch) => batch.orders ?? []);
    const products = batches.flatMap((batch) => batch.products ?? []);
    expect(products).toHaveLength(30);
    expect(products[0]).toMatchObject({ platform: 'shopify', sku: 'SKU-0', currency: 'USD' });
    expect(products[0]!.unitCostMinor).toBeGreaterThan(0);
    expect(orders).toHaveLength(fake.ordersUpdatedBetween(fullYear.since, fullYear.until));
    expect(new Set(orders.map((order) => order.externalId)).size).toBe(orders.length);
    expect(batches.filter((batch) => batch.orders).length).toBeGreaterThanOrEqual(7);
    expect(batches.at(-1)!.estimatedTotal).toBe(orders.length);
    expect(orders.some((order) => order.isTest)).toBe(true);
    expect(orders.some((order) => order.status === 'cancelled')).toBe(true);
    const refunds = batches.flatMap((batch) => batch.refunds ?? []);
    expect(refunds.length).toBeGreaterThan(0);
    for (const refund of refunds) expect(orders.find((order) => order.externalId === refund.orderExternalId)).toBeTruthy();
  });

  it('returns only orders changed in an incremental window', async () => {
    const at = new Date('2026-03-01T10:00:00Z');
    const changed = [fake.orderId(3), fake.orderId(300), fake.orderId(600)];
    fake.updateOrder(changed[0]!, { cancel: true, at });
    fake.updateOrder(changed[1]!, { at: new Date(at.getTime() + 60_000) });
    const refundId = fake.addRefund(changed[2]!, { amountMinor: 1234, at: new Date(at.getTime() + 120_000) });
    const batches = await readWindow(context(), { since: at, until: new Date(at.getTime() + 3_600_000) });
    const orders = batches.flatMap((batch) => batch.orders ?? []);
    expect(orders.map((order) => order.externalId)).toEqual(changed);
    expect(orders[0]!.status).toBe('cancelled');
    const refund = batches.flatMap((batch) => batch.refunds ?? []).find((row) => row.externalId === refundId);
    expect(refund).toMatchObject({ orderExternalId: changed[2], amountMinor: 1234, refundedAt: '2026-03-01T10:02:00Z' });
  });

  it('returns the same page when a cursor is replayed', async () => {
    const first = await connector.fetchBatch(context(), fullYear, null);
    const ordersCursor = first.nextCursor!;
    const page = await connector.fetchBatch(context(), fullYear, ordersCursor);
    const again = await connector.fetchBatch(context(), fullYear, ordersCursor);
    expect(again).toEqual(page);
    const second = await connector.fetchBatch(context(), fullYear, page.nextCursor);
    expect(second.orders![0]!.externalId).not.toBe(page.orders![0]!.externalId);
  });

  it('waits for the cost bucket to refill when THROTTLED, and retries server errors', async () => {
    clock += 60_000;
    const products = await connector.fetchBatch(context(), fullYear, null);
    const firstOrders = await connector.fetchBatch(context(), fullYear, products.nextCursor);
    const waits: number[] = [];
    fake.injectFault('rate_limit', { pathIncludes: '/graphql.json' });
    fake.injectFault('server_error', { pathIncludes: '/graphql.json' });
    const batch = await connector.fetchBatch(context(waits), fullYear, firstOrders.nextCursor);
    // Ten orders a page: the most whose requested cost (2 + 10 x 82 = 822 points) stays under the budget.
    expect(batch.orders).toHaveLength(10);
    // The bucket was emptied by another client: (822 - 0) / 100 points/s = 8.22 s, then a server error's backoff.
    expect(waits[0]).toBe(8220);
    expect(waits.length).toBeGreaterThanOrEqual(2);
  });

  it('raises MalformedResponseError for a page that is not the documented shape', async () => {
    fake.injectFault('malformed', { pathIncludes: '/graphql.json' });
    await expect(connector.verify(context())).rejects.toThrow(MalformedResponseError);
  });

  it('raises ConnectorAuthError with a reason a user understands when the token is revoked', async () => {
    fake.injectFault('revoked', { pathIncludes: '/graphql.json' });
    const error = await connector.fetchBatch(context(), fullYear, null).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectorAuthError);
    expect((error as ConnectorAuthError).reason).toMatch(/uninstalled|revoked/);
    expect((error as ConnectorAuthError).reason).toMatch(/Reconnect/);
  });

  it('reports per-day order counts for reconciliation from ordersCount', async () => {
    const window = { since: new Date('2025-03-01T05:00:00Z'), until: new Date('2025-03-08T05:00:00Z') };
    const totals = await connector.sourceTotals!(context(), window);
    const expected = fake.expectedDayCounts(storeDaysOf(window, 'America/New_York'));
    expect(totals.map(({ day, orders }) => ({ day, orders }))).toEqual(expected);
    expect(totals).toHaveLength(7);
    expect(totals.every((total) => total.currency === 'USD')).toBe(true);
    expect(totals.reduce((sum, total) => sum + total.orders!, 0)).toBeGreaterThan(0);
  });
});

describe('Shopify OAuth against the fake', () => {
  it('builds the consent URL with client_id, scope, redirect_uri and state', () => {
    const url = new URL(shopifyConnector.oauth!.authorizeUrl({ ...settings, authorizeBaseUrl: 'https://{shop}' }, 'state-123', { shop: 'my-store' }));
    expect(url.origin + url.pathname).toBe('https://my-store.myshopify.com/admin/oauth/authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: settings.clientId,
      scope: 'read_orders,read_all_orders,read_products,read_customers,read_inventory,read_reports',
      redirect_uri: settings.redirectUri,
      state: 'state-123',
    });
  });

  it('goes through the consent page, exchanges the code and refreshes the expiring token', async () => {
    const authorize = shopifyConnector.oauth!.authorizeUrl({ ...settings, authorizeBaseUrl: fake.url }, 'state-abc', { shop: fake.shop });
    const page = await (await fetch(authorize)).text();
    expect(page).toContain('StorePulse');
    expect(page).toContain('read_all_orders');
    const allow = /href="([^"]+)"[^>]*>Allow</.exec(page)![1]!.replaceAll('&amp;', '&');
    const callback = Object.fromEntries(new URL(allow).searchParams);
    expect(callback).toMatchObject({ state: 'state-abc', shop: fake.shop });

    const ctx = context([], { accessToken: '' });
    const credentials = await shopifyConnector.oauth!.exchangeCode(ctx, settings, callback.code!, callback);
    expect(credentials).toMatchObject({ shop: fake.shop });
    expect(credentials.accessToken).toMatch(/^shpat_/);
    expect(Date.parse(credentials.expiresAt!)).toBeGreaterThan(Date.now() + 3_000_000);
    await expect(shopifyConnector.verify({ ...ctx, credentials })).resolves.toMatchObject({ accountId: fake.shop });

    // A code works once.
    await expect(shopifyConnector.oauth!.exchangeCode(ctx, settings, callback.code!, callback)).rejects.toThrow(ConnectorAuthError);

    fake.expireTokens();
    await expect(shopifyConnector.verify({ ...ctx, credentials })).rejects.toThrow(ConnectorAuthError);
    const refreshed = await shopifyConnector.oauth!.refresh!({ ...ctx, credentials }, settings);
    expect(refreshed.accessToken).not.toBe(credentials.accessToken);
    expect(refreshed.refreshToken).not.toBe(credentials.refreshToken);
    await expect(shopifyConnector.verify({ ...ctx, credentials: refreshed })).resolves.toMatchObject({ accountId: fake.shop });
    // The old refresh token was rotated away.
    await expect(shopifyConnector.oauth!.refresh!({ ...ctx, credentials }, settings)).rejects.toThrow(ConnectorAuthError);
  });

  it('refuses a forged callback and an expired code', async () => {
    const callback = fake.issueAuthorizationCode('s1');
    expect(verifyShopifyCallback(callback, settings.clientSecret)).toBe(fake.shop);
    const ctx = context([], { accessToken: '' });
    await expect(shopifyConnector.oauth!.exchangeCode(ctx, settings, callback.code!, { ...callback, shop: 'evil.myshopify.com' })).rejects.toThrow(/not signed correctly/);
    fake.expireCodes();
    await expect(shopifyConnector.oauth!.exchangeCode(ctx, settings, callback.code!, callback)).rejects.toThrow(/expired/);
  });
});

describe('Shopify webhooks', () => {
  it('accepts the fake signed delivery and refuses a forged or altered one', () => {
    const delivery = fake.webhookDelivery('orders/updated', fake.orderId(10));
    expect(verifyShopifyWebhook(delivery.body, delivery.headers['x-shopify-hmac-sha256'], settings.clientSecret)).toBe(true);
    expect(verifyShopifyWebhook(delivery.body.replace('"test":false', '"test":true '), delivery.headers['x-shopify-hmac-sha256'], settings.clientSecret)).toBe(false);
    const forged = fake.webhookDelivery('orders/updated', fake.orderId(10), { secret: 'not-the-secret' });
    expect(verifyShopifyWebhook(forged.body, forged.headers['x-shopify-hmac-sha256'], settings.clientSecret)).toBe(false);
    expect(verifyShopifyWebhook(delivery.body, undefined, settings.clientSecret)).toBe(false);
    expect(verifyShopifyWebhook(delivery.body, 'short', settings.clientSecret)).toBe(false);
  });

  it('maps order, refund and uninstall topics, with the webhook id for idempotency', async () => {
    const delivery = fake.webhookDelivery('orders/create', fake.orderId(20), { webhookId: 'wh-1' });
    expect(shopifyWebhookDelivery(delivery.headers)).toMatchObject({ topic: 'orders/create', webhookId: 'wh-1', shopDomain: fake.shop });
    const created = mapShopifyWebhook('orders/create', JSON.parse(delivery.body), { shopCurrency: 'USD' });
    // The webhook and the GraphQL sync write the same row.
    const viaSync = mapShopifyOrder(shopifyOrderNode.parse(fake.graphqlOrder(20))).order;
    const { landingSite, referrer, utmSource, utmMedium, utmCampaign, utmContent, utmTerm, ...sameFields } = viaSync;
    expect(created.kind === 'ingest' && created.orders[0]).toMatchObject(sameFields);
    expect(landingSite ? new URL(landingSite).search : null).toBe(created.kind === 'ingest' && created.orders[0]!.landingSite ? new URL(created.orders[0]!.landingSite, 'https://x.invalid').search : null);

    fake.addRefund(fake.orderId(21), { amountMinor: 700, at: new Date('2026-02-02T00:00:00Z') });
    const refund = fake.webhookDelivery('refunds/create', fake.orderId(21));
    const refunded = mapShopifyWebhook('refunds/create', JSON.parse(refund.body), { shopCurrency: 'USD' });
    expect(refunded).toMatchObject({ kind: 'ingest', orders: [], refunds: [{ orderExternalId: fake.orderId(21), amountMinor: 700, refundedAt: '2026-02-02T00:00:00Z' }] });

    expect(mapShopifyWebhook('app/uninstalled', JSON.parse(fake.webhookDelivery('app/uninstalled', null).body), { shopCurrency: 'USD' })).toEqual({ kind: 'uninstalled' });
    // A compliance topic is a request to act on (integrations/compliance.ts), never ignored; a body naming no shop is refused.
    const redact = { shop_id: 954889, shop_domain: 'Shop.myshopify.com', customer: { id: 191167, email: 'john@example.com', phone: '555-625-1199' }, orders_to_redact: [299938, '280263'] };
    expect(mapShopifyWebhook('customers/redact', redact, { shopCurrency: 'USD' })).toEqual({
      kind: 'compliance',
      request: { topic: 'customers/redact', shopDomain: 'shop.myshopify.com', shopId: '954889', customer: { id: '191167', email: 'john@example.com', phone: '555-625-1199' }, orderIds: ['299938', '280263'], dataRequestId: null },
    });
    expect(() => mapShopifyWebhook('customers/redact', {}, { shopCurrency: 'USD' })).toThrow(MalformedResponseError);
    expect(() => mapShopifyWebhook('orders/updated', [], { shopCurrency: 'USD' })).toThrow(MalformedResponseError);
  });
});
