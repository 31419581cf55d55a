import { expect, type APIRequestContext, type Browser, type BrowserContext, type Locator, type Page } from '@playwright/test';
import path from 'node:path';
import { ShopifyFake } from '../test/fakes/shopify.ts';
import { createStore, register, startTrial, test, uniqueName } from './account-helpers.ts';
import { FAKE_SHOPIFY_APP, INTEGRATION_FAKE_PORTS } from './integration-fakes-env.ts';
import { applyTheme } from './shell-helpers.ts';
import { hideAutomation, pixelLoaded, storefrontPage, useStorefront, VISITOR_AGENT, VISITOR_LAUNCH_OPTIONS } from './storefront.ts';
import { screenSettled, UNTIL_DONE } from './waits.ts';

// A shopper's journey from a storefront to /touchpoints, end to end in real Chromium. A storefront on
// another origin (e2e/storefront.ts, as in tracking-pixel.spec.ts) loads /p.js with the
// store's key. Visit 1 lands from Google Ads (UTM and a gclid) and browses a second page; visit 2,
// "later", comes from Meta (UTM, fbclid and a facebook.com referrer), identifies and buys. The order
// itself reaches StorePulse the way a shop's does: Shopify (its fake) is connected through its consent
// page and the sync reads it. The sessions and attribution jobs then credit it, and /touchpoints
// shows it: 100 % Google Ads under first click, 100 % Meta Ads under last click, half each under
// linear, to the cent of the order's net sales, and the journey drawer lists both visits in order.
//
// "Later" without waiting 30 minutes: the collector dates a pixel event by the browser's own clock
// relative to the batch's send time (event.ts against batch.now, trusted up to 24 hours back: a tab
// left open; collector.routes.ts), so the shopper's browser runs on Playwright's clock, paused: visit
// 1's two page views stay queued (the pixel's 3 s timer never fires), the clock is moved 40 minutes on,
// and leaving the page for visit 2 flushes them on `pagehide`, 40 minutes old. Visit 2's events are
// sent at once, so 40 minutes of inactivity separate the visits as the server stores them. Nothing in
// the product is there for the test.
//
// Consent off (no cookie, no id) is proven by tracking-pixel.spec.ts on the same storefront and is not
// repeated here. Every wait is on state: the stored events, the integration's status, the credits.

const shop = useStorefront();
test.use({ launchOptions: VISITOR_LAUNCH_OPTIONS });

const MINUTE = 60_000;
/** Seed of the fake shop's one order: a paid GBP order without a visit of Shopify's own, two lines. */
const ORDER_SEED = 12;

/** The shopper: a browser of their own (not the merchant's), on Playwright's clock, paused from the start. */
async function shopperBrowser(browser: Browser, start: number): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ userAgent: VISITOR_AGENT, locale: 'en-GB' });
  await context.addInitScript(hideAutomation);
  const page = await context.newPage();
  await page.clock.install({ time: start });
  await page.clock.pauseAt(start + 1000);
  return { context, page };
}

async function openShop(page: Page, url: string, referer?: string): Promise<void> {
  await page.goto(url, referer ? { referer } : {});
  await pixelLoaded(page);
}

interface RecentEvent {
  name: string;
  occurredAt: string;
  url: string | null;
  anonymousId: string | null;
  orderId: string | null;
}

async function recentEvents(request: APIRequestContext, anonymousId: string): Promise<[string, string | null, string | null][]> {
  const answer = await request.get('/api/tracking/recent-events');
  expect(answer.status()).toBe(200);
  const events = ((await answer.json()) as RecentEvent[])
    .filter((event) => event.anonymousId === anonymousId)
    .map((event): [string, string | null, string | null] => [event.name, event.url, event.orderId]);
  return sorted(events);
}

/** When the collector dated the visitor's latest stored event (ms). */
async function latestEventAt(request: APIRequestContext, anonymousId: string): Promise<number> {
  const events = (await (await request.get('/api/tracking/recent-events')).json()) as RecentEvent[];
  return Math.max(...events.filter((event) => event.anonymousId === anonymousId).map((event) => Date.parse(event.occurredAt)));
}

/** Events as [name, url, order id], in one fixed order (the collector's own order is not the point). */
function sorted(events: [string, string | null, string | null][]): [string, string | null, string | null][] {
  return events.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

interface AttributionSummary {
  total: { orders: number; revenue: number };
  channels: { channel: string; orders: number; revenue: number }[];
}

async function attribution(request: APIRequestContext, day: string, model: string): Promise<AttributionSummary> {
  const answer = await request.get(`/api/attribution?from=${day}&to=${day}&model=${model}`);
  expect(answer.status(), await answer.text()).toBe(200);
  return (await answer.json()) as AttributionSummary;
}

interface OrderRow {
  id: number;
  externalId: string;
  orderNumber: string | null;
  placedDay: string;
  currency: string;
  amounts: { netSales: number };
}

async function storedOrders(request: APIRequestContext): Promise<OrderRow[]> {
  const answer = await request.get(`/trpc/orders.list?input=${encodeURIComponent(JSON.stringify({}))}`);
  expect(answer.status(), await answer.text()).toBe(200);
  return ((await answer.json()) as { result: { data: { rows: OrderRow[] } } }).result.data.rows;
}

/** Credited orders and revenue (minor units) per channel row of the credits table. */
async function channelCredits(report: Locator): Promise<Record<string, { orders: number; revenue: number }>> {
  const entries: [string, { orders: number; revenue: number }][] = [];
  for (const row of await report.getByTestId('credits-row').all()) {
    entries.push([(await row.getAttribute('data-channel'))!, { orders: Number(await row.getAttribute('data-orders')), revenue: Number(await row.getAttribute('data-revenue')) }]);
  }
  return Object.fromEntries(entries);
}

async function chooseModel(page: Page, name: string, model: string): Promise<Locator> {
  await page.getByTestId('model-picker').getByRole('button', { name, exact: true }).click();
  const report = page.locator(`[data-testid="touchpoints-report"][data-model="${model}"][aria-busy="false"]`);
  await expect(report).toBeVisible();
  return report;
}

test('a shopper lands from Google Ads, comes back later from Meta and buys: /touchpoints credits the Shopify order by model and shows the journey', async ({ page, browser, baseURL }) => {
  const appOrigin = new URL(baseURL!).origin;

  // The merchant: a fresh account and store, the pixel allowed on the storefront's domain.
  await register(page.request, 'journey');
  await startTrial(page.request, 'business');
  await createStore(page.request, uniqueName('Journey shop'));
  const setup = (await (await page.request.get('/api/tracking/setup')).json()) as { storeKey: string };
  expect((await page.request.patch('/api/tracking/settings', { data: { allowedDomains: ['shop.localhost'] } })).status()).toBe(200);
  shop.serve(storefrontPage(appOrigin, setup.storeKey));

  // The shop's one order, placed at the end of visit 2; its id is what the thank-you page's purchase names.
  const shopDomain = `${uniqueName('journey').replace(/_/g, '-').toLowerCase()}.myshopify.com`;
  const orderId = new ShopifyFake({ orders: 1, seed: ORDER_SEED }).orderId(0);
  const campaign = uniqueName('spring');

  // Visit 1, from Google Ads: the landing page, then a second page (a history-API navigation). The
  // shopper's clock is paused, so both page views stay queued.
  const start = Date.now();
  const shopper = await shopperBrowser(browser, start);
  const landing = `${shop.origin}/?utm_source=google&utm_medium=cpc&utm_campaign=${campaign}&gclid=Cj0KCQ-e2e-${campaign}`;
  await openShop(shopper.page, landing);
  const anonymousId = (await shopper.context.cookies(shop.origin)).find((cookie) => cookie.name === '_sp_id')?.value;
  expect(anonymousId).toBeTruthy();
  await shopper.page.getByRole('button', { name: 'See the mug' }).click();
  await shopper.page.clock.runFor(10); // the pixel reads the new address on its next tick
  expect(await recentEvents(page.request, anonymousId!)).toEqual([]);

  // 40 minutes later (no timer fires: the clock is set, not run) the shopper comes back from Meta.
  // Leaving the product page flushes visit 1 on pagehide, its events 40 minutes old.
  await shopper.page.clock.setSystemTime(start + 41 * MINUTE);
  const fromMeta = `${shop.origin}/?utm_source=facebook&utm_medium=paid_social&utm_campaign=${campaign}-retarget&fbclid=IwAR-e2e-${campaign}`;
  await openShop(shopper.page, fromMeta, 'https://l.facebook.com/');
  await expect
    .poll(() => recentEvents(page.request, anonymousId!))
    .toEqual(sorted([
      ['page_view', `${shop.origin}/products/mug`, null],
      ['page_view', landing, null],
    ]));
  // Visit 2: identified at checkout, then the purchase; leaving the thank-you page sends them.
  await shopper.page.evaluate(() => (window as unknown as { sp: (...args: unknown[]) => void }).sp('identify', { email: 'Shopper@Example.com ' }));
  await expect.poll(() => shopper.page.evaluate(() => crypto.subtle !== undefined)).toBe(true);
  await shopper.page.evaluate((order) => (window as unknown as { sp: (...args: unknown[]) => void }).sp('event', 'purchase', { order_id: order, value: 1, currency: 'GBP' }), orderId);
  await shopper.page.goto('about:blank');
  await expect
    .poll(() => recentEvents(page.request, anonymousId!))
    .toEqual(
      sorted([
        ['identify', fromMeta, null],
        ['page_view', `${shop.origin}/products/mug`, null],
        ['page_view', fromMeta, null],
        ['page_view', landing, null],
        ['purchase', fromMeta, orderId],
      ]),
    );
  await shopper.context.close();

  // The order, placed now in the shop, reaches StorePulse through Shopify: consent page, then the sync.
  // Its date is Shopify's processed_at, which the fake puts a second before created_at (the payment
  // before the order's creation): "now" must be clearly after visit 2's last event, or visit 2 would
  // come after the order and rightly not count. The wait is on the clock passing that point.
  const lastEventAt = await latestEventAt(page.request, anonymousId!);
  await expect.poll(() => Date.now(), { intervals: [250] }).toBeGreaterThan(lastEventAt + 2_000);
  const placedAt = Date.now();
  const shopify = await new ShopifyFake({
    orders: 1,
    seed: ORDER_SEED,
    shop: shopDomain,
    currency: 'GBP',
    timezone: 'Europe/London',
    taxesIncluded: true,
    from: new Date(placedAt),
    to: new Date(placedAt + 1),
    accessToken: null,
    ...FAKE_SHOPIFY_APP,
  }).start(INTEGRATION_FAKE_PORTS.shopify);
  try {
    await page.goto('/integrations');
    const shopifyCard = page.locator('[data-testid="integration-card"][data-platform="shopify"]');
    await shopifyCard.getByRole('button', { name: 'Connect' }).click();
    await page.getByTestId('shopify-dialog').getByLabel('Store address').fill(shopDomain);
    await page.getByTestId('shopify-dialog').getByRole('button', { name: 'Continue to Shopify' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await expect(page).toHaveURL(/\/integrations$/);
    await expect(shopifyCard).toHaveAttribute('data-status', 'connected', UNTIL_DONE);
    await expect(shopifyCard.getByTestId('sync-progress')).toHaveCount(0, UNTIL_DONE);
    await expect(shopifyCard.getByTestId('integration-rows')).toHaveText('1', UNTIL_DONE);
  } finally {
    await shopify.close();
  }
  const [order] = await storedOrders(page.request);
  expect(order).toMatchObject({ externalId: orderId, currency: 'GBP' });
  const netSales = order!.amounts.netSales;
  expect(netSales).toBeGreaterThan(0);
  const day = order!.placedDay;

  // The sessions and attribution jobs (every minute) credit the order. Each may first see only part of
  // the journey (an order with no touchpoint yet is direct; the visits' sessions may be built in two
  // runs) and credit it again as the rest arrives: the wait, through GET /api/attribution, is for the
  // linear credits that only the whole journey gives.
  const linearShares = async () => Object.fromEntries((await attribution(page.request, day, 'linear')).channels.map((row) => [row.channel, row.orders]));
  await expect.poll(linearShares, UNTIL_DONE).toEqual({ googleads: 0.5, metaads: 0.5 });

  // /touchpoints for the order's day.
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`/touchpoints?from=${day}&to=${day}`);
  await expect(page.getByTestId('recomputing')).toHaveCount(0, UNTIL_DONE);
  let report = await chooseModel(page, 'First click', 'first_click');
  expect(await channelCredits(report)).toEqual({ googleads: { orders: 1, revenue: netSales } });
  report = await chooseModel(page, 'Last click', 'last_click');
  expect(await channelCredits(report)).toEqual({ metaads: { orders: 1, revenue: netSales } });
  report = await chooseModel(page, 'Linear', 'linear');
  // Half each, in whole pence: an odd net sales gives its last penny to one of the two (this order's is odd).
  const linear = await channelCredits(report);
  expect(Object.keys(linear).sort()).toEqual(['googleads', 'metaads']);
  expect([linear.googleads!.orders, linear.metaads!.orders]).toEqual([0.5, 0.5]);
  expect([linear.googleads!.revenue, linear.metaads!.revenue].sort((a, b) => a - b)).toEqual([Math.floor(netSales / 2), Math.ceil(netSales / 2)]);
  await expect(report.getByTestId('credits-totals')).toHaveAttribute('data-revenue', String(netSales));

  // The journey drawer: the two visits in order, then the order; the credits of each model.
  await page.getByTestId('journey-order').filter({ hasText: order!.orderNumber ?? orderId }).click();
  const drawer = page.getByTestId('journey-drawer');
  await expect(drawer.getByTestId('journey-order-placed')).toBeVisible();
  await expect(drawer.getByTestId('journey-visit')).toHaveCount(2);
  expect(await drawer.getByTestId('journey-visit').evaluateAll((visits) => visits.map((visit) => visit.getAttribute('data-channel')))).toEqual(['googleads', 'metaads']);
  await expect(drawer.getByTestId('journey-visit').nth(0)).toContainText('Google Ads');
  await expect(drawer.getByTestId('journey-visit').nth(1)).toContainText('Meta Ads');
  // Stored as the shopper's clock had them: visit 1 at least 40 minutes before the order, visit 2 within minutes of it.
  const minutesBefore = async (index: number) => Number(/(\d+) minutes? before the order/.exec((await drawer.getByTestId('journey-visit').nth(index).textContent()) ?? '')?.[1]);
  expect(await minutesBefore(0)).toBeGreaterThanOrEqual(40);
  expect(await minutesBefore(1)).toBeLessThan(30);
  const credits = (model: string) => drawer.locator(`[data-model="${model}"]`).getByTestId('journey-credit');
  await expect(credits('first_click')).toHaveCount(1);
  await expect(credits('first_click')).toHaveAttribute('data-channel', 'googleads');
  await expect(credits('last_click')).toHaveCount(1);
  await expect(credits('last_click')).toHaveAttribute('data-channel', 'metaads');

  const directory = process.env.SCREENSHOTS_DIR;
  if (directory) {
    for (const theme of ['light', 'dark'] as const) {
      await applyTheme(page, theme);
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        await screenSettled(page);
        await page.screenshot({ path: path.join(directory, `storefront-journey-drawer-${theme}-${width}.png`) });
      }
    }
  }
});
