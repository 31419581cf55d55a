import { expect, type BrowserContext, type Page } from '@playwright/test';
import { createServer, type Server } from 'node:http';
import { createStore, register, startTrial, test, uniqueName } from './account-helpers.ts';

// The pixel in real Chromium: a tiny storefront on another origin (http://shop.localhost:<port>, a
// loopback HTTP server of the test's own: Chromium resolves *.localhost to loopback and treats it as
// a secure context, as a shop's https page is; a page answered by page.route would count as a public
// address, from which Chromium's Local Network Access refuses to load the app's loopback script)
// loads /p.js from the app with the store's tag. Page views (on load and on a history-API
// navigation) and a purchase arrive at the collector; a page hide flushes what is queued; consent off
// leaves no cookie and no id. Every wait is on state: the cookie jar, the stored events.

let SHOP = '';
let shopServer: Server;
let shopPage = '';

test.beforeAll(async () => {
  shopServer = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    response.end(shopPage);
  });
  await new Promise<void>((resolve) => shopServer.listen(0, '127.0.0.1', resolve));
  SHOP = `http://shop.localhost:${(shopServer.address() as { port: number }).port}`;
});
test.afterAll(async () => {
  await new Promise((resolve) => shopServer.close(resolve));
});

// The collector drops automated browsers (navigator.webdriver, "HeadlessChrome"): this browser plays
// a visitor's, with an ordinary user agent and no automation flag. The user agent is set on the
// browser itself too: a beacon sent while the page unloads goes out with the browser's own one, not
// the context's (seen: the pagehide batch arrived as "HeadlessChrome" and was dropped as a bot).
const VISITOR_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
test.use({
  userAgent: VISITOR_AGENT,
  // playwright.config.ts's Chromium options, with the visitor's user agent.
  launchOptions: {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--user-agent=${VISITOR_AGENT}`],
  },
});
test.beforeEach(async ({ context }) => {
  await context.addInitScript(() => Object.defineProperty(Navigator.prototype, 'webdriver', { get: () => false }));
});

function storefront(appOrigin: string, storeKey: string, options: { consentOff?: boolean } = {}) {
  return `<!doctype html><html><head><meta charset="utf-8"><title>Mug shop</title>
<script>window.sp = window.sp || function () { (sp.q = sp.q || []).push(arguments) };${options.consentOff ? "sp('consent', false);" : ''}</script>
<script async src="${appOrigin}/p.js" data-store="${storeKey}"></script></head>
<body><h1>Mug shop</h1>
<button id="go" onclick="history.pushState({}, '', '/products/mug'); document.title = 'The mug'">See the mug</button>
<button id="buy" onclick="sp('event', 'purchase', { order_id: document.body.dataset.order, value: 25.5, currency: 'GBP', items: [{ id: 'mug', quantity: 1, price: 25.5 }] })">Buy</button>
</body></html>`;
}

async function openShop(page: Page, appOrigin: string, storeKey: string, path: string, options: { consentOff?: boolean } = {}) {
  shopPage = storefront(appOrigin, storeKey, options);
  await page.goto(`${SHOP}${path}`);
  // The pixel has replaced the stub once `sp` has no queue of its own (polled from the test's side:
  // the page's own timers may be under the fake clock).
  await expect
    .poll(() => page.evaluate(() => { const sp = (window as unknown as { sp?: ((...args: unknown[]) => void) & { q?: unknown } }).sp; return typeof sp === 'function' && !sp.q; }))
    .toBe(true);
}

interface RecentEvent {
  name: string;
  url: string | null;
  consent: boolean;
  anonymousId: string | null;
  orderId: string | null;
  valueMinor: number | null;
  currency: string | null;
}

async function recentEvents(context: BrowserContext, appOrigin: string): Promise<RecentEvent[]> {
  const answer = await context.request.get(`${appOrigin}/api/tracking/recent-events`);
  expect(answer.status()).toBe(200);
  return (await answer.json()) as RecentEvent[];
}

test('the pixel sends page views, SPA navigations and a purchase, flushes on page hide, and keeps no id without consent', async ({ page, context, baseURL }) => {
  const appOrigin = new URL(baseURL!).origin;
  await register(page.request, 'pixel');
  await startTrial(page.request, 'business');
  await createStore(page.request, uniqueName('Pixel shop'));
  const setup = await (await page.request.get('/api/tracking/setup')).json();
  expect(setup.snippet).toContain(`data-store="${setup.storeKey}"`);
  expect((await page.request.patch('/api/tracking/settings', { data: { allowedDomains: ['shop.localhost'] } })).status()).toBe(200);
  const orderId = uniqueName('E2E-order');

  // A fake clock, so that nothing but the page hide can send what is queued after it is paused.
  await page.clock.install({ time: new Date(Date.now() - 60_000) });
  await openShop(page, appOrigin, setup.storeKey, '/?utm_source=newsletter&utm_medium=email');
  await page.evaluate((order) => (document.body.dataset.order = order), orderId);
  // Consent given (the default): the id cookie is on the shop's own site.
  await expect.poll(async () => (await context.cookies(SHOP)).find((cookie) => cookie.name === '_sp_id')?.value ?? null).not.toBeNull();
  const anonymousId = (await context.cookies(SHOP)).find((cookie) => cookie.name === '_sp_id')!.value;
  // The landing page view goes out on the pixel's 3 s timer, fired by jumping the clock and pausing it there.
  await page.clock.pauseAt(new Date(Date.now() + 60_000));
  await expect.poll(async () => (await recentEvents(context, appOrigin)).filter((event) => event.anonymousId === anonymousId).map((event) => event.url)).toEqual([
    `${SHOP}/?utm_source=newsletter&utm_medium=email`,
  ]);

  // A history-API navigation and a purchase, queued while the clock stands still...
  await page.getByRole('button', { name: 'See the mug' }).click();
  await page.clock.runFor(10); // the pixel reads the new address on its next tick
  await page.getByRole('button', { name: 'Buy' }).click();
  // ...go out when the page is hidden (left for another page).
  await page.goto('about:blank');
  await expect
    .poll(async () =>
      (await recentEvents(context, appOrigin))
        .filter((event) => event.anonymousId === anonymousId)
        .map((event) => [event.name, event.url, event.orderId, event.valueMinor, event.currency])
        .sort(),
    )
    .toEqual(
      [
        ['page_view', `${SHOP}/?utm_source=newsletter&utm_medium=email`, null, null, null],
        ['page_view', `${SHOP}/products/mug`, null, null, null],
        ['purchase', `${SHOP}/products/mug`, orderId, 2550, 'GBP'],
      ].sort(),
    );

  // Consent off (the shop's consent tool says no before the pixel loads): no cookie, no id, counted anyway.
  await context.clearCookies({ domain: 'shop.localhost' });
  await page.clock.resume();
  const refusing = await context.newPage();
  await openShop(refusing, appOrigin, setup.storeKey, '/?consent=off', { consentOff: true });
  await refusing.goto('about:blank');
  await expect
    .poll(async () => (await recentEvents(context, appOrigin)).filter((event) => event.url === `${SHOP}/?consent=off`).map((event) => [event.consent, event.anonymousId]))
    .toEqual([[false, null]]);
  expect((await context.cookies(SHOP)).filter((cookie) => cookie.name === '_sp_id')).toEqual([]);
});
