import { expect, type BrowserContext, type Page } from '@playwright/test';
import { createStore, register, startTrial, test, uniqueName } from './account-helpers.ts';
import { hideAutomation, pixelLoaded, storefrontPage, useStorefront, VISITOR_AGENT, VISITOR_LAUNCH_OPTIONS } from './storefront.ts';

// The pixel in real Chromium: a tiny storefront on another origin (e2e/storefront.ts) loads /p.js from the app with the store's tag. Page views (on load and on a history-API
// navigation) and a purchase arrive at the collector; a page hide flushes what is queued; consent off
// leaves no cookie and no id. Every wait is on state: the cookie jar, the stored events.

const shop = useStorefront();
test.use({ userAgent: VISITOR_AGENT, launchOptions: VISITOR_LAUNCH_OPTIONS });
test.beforeEach(async ({ context }) => {
  await context.addInitScript(hideAutomation);
});

async function openShop(page: Page, appOrigin: string, storeKey: string, path: string, options: { consentOff?: boolean } = {}) {
  shop.serve(storefrontPage(appOrigin, storeKey, options));
  await page.goto(`${shop.origin}${path}`);
  await pixelLoaded(page);
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
  await expect.poll(async () => (await context.cookies(shop.origin)).find((cookie) => cookie.name === '_sp_id')?.value ?? null).not.toBeNull();
  const anonymousId = (await context.cookies(shop.origin)).find((cookie) => cookie.name === '_sp_id')!.value;
  // The landing page view goes out on the pixel's 3 s timer, fired by jumping the clock and pausing it there.
  await page.clock.pauseAt(new Date(Date.now() + 60_000));
  await expect.poll(async () => (await recentEvents(context, appOrigin)).filter((event) => event.anonymousId === anonymousId).map((event) => event.url)).toEqual([
    `${shop.origin}/?utm_source=newsletter&utm_medium=email`,
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
        ['page_view', `${shop.origin}/?utm_source=newsletter&utm_medium=email`, null, null, null],
        ['page_view', `${shop.origin}/products/mug`, null, null, null],
        ['purchase', `${shop.origin}/products/mug`, orderId, 2550, 'GBP'],
      ].sort(),
    );

  // Consent off (the shop's consent tool says no before the pixel loads): no cookie, no id, counted anyway.
  await context.clearCookies({ domain: 'shop.localhost' });
  await page.clock.resume();
  const refusing = await context.newPage();
  await openShop(refusing, appOrigin, setup.storeKey, '/?consent=off', { consentOff: true });
  await refusing.goto('about:blank');
  await expect
    .poll(async () => (await recentEvents(context, appOrigin)).filter((event) => event.url === `${shop.origin}/?consent=off`).map((event) => [event.consent, event.anonymousId]))
    .toEqual([[false, null]]);
  expect((await context.cookies(shop.origin)).filter((cookie) => cookie.name === '_sp_id')).toEqual([]);
});
