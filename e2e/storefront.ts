import { expect, type Page } from '@playwright/test';
import { createServer, type Server } from 'node:http';
import { test } from './account-helpers.ts';
import { CHROMIUM_ARGS, CHROMIUM_EXECUTABLE } from '../src/server/modules/page-fetcher/chromium.ts';

// A tiny storefront on another origin for the pixel's journeys (tracking-pixel.spec.ts,
// storefront-journey.spec.ts): a loopback HTTP server of the test's own at http://shop.localhost:<port>.
// Chromium resolves *.localhost to loopback and treats it as a secure context, as a shop's https page
// is; a page answered by page.route would count as a public address, from which Chromium's Local
// Network Access refuses to load the app's loopback script.

export interface Storefront {
  /** The storefront's origin, once the spec's beforeAll has run. */
  readonly origin: string;
  /** The page every path of the storefront answers with. */
  serve(html: string): void;
}

/** Starts the storefront before the spec's tests and stops it after them. */
export function useStorefront(): Storefront {
  let server: Server;
  let origin = '';
  let html = '';
  test.beforeAll(async () => {
    server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      response.end(html);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://shop.localhost:${(server.address() as { port: number }).port}`;
  });
  test.afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });
  return {
    get origin() {
      return origin;
    },
    serve(page: string) {
      html = page;
    },
  };
}

// The collector drops automated browsers (navigator.webdriver, "HeadlessChrome"): the shopper's browser
// has an ordinary user agent and no automation flag. The user agent is set on the browser itself too:
// a beacon sent while the page unloads goes out with the browser's own one, not the context's (seen:
// the pagehide batch arrived as "HeadlessChrome" and was dropped as a bot).
export const VISITOR_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** playwright.config.ts's Chromium options, with the visitor's user agent (for `test.use`). */
export const VISITOR_LAUNCH_OPTIONS = {
  executablePath: CHROMIUM_EXECUTABLE,
  args: [...CHROMIUM_ARGS, `--user-agent=${VISITOR_AGENT}`],
};

/** Hides the automation flag in every page of a context (as an init script). */
export function hideAutomation(): void {
  Object.defineProperty(Navigator.prototype, 'webdriver', { get: () => false });
}

/**
 * The storefront's page: the pixel's stub and tag with the store's key, a "See the mug" button (a
 * history-API navigation) and a "Buy" button (a purchase of the order id in body[data-order]).
 */
export function storefrontPage(appOrigin: string, storeKey: string, options: { consentOff?: boolean } = {}): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>Mug shop</title>
<script>window.sp = window.sp || function () { (sp.q = sp.q || []).push(arguments) };${options.consentOff ? "sp('consent', false);" : ''}</script>
<script async src="${appOrigin}/p.js" data-store="${storeKey}"></script></head>
<body><h1>Mug shop</h1>
<button id="go" onclick="history.pushState({}, '', '/products/mug'); document.title = 'The mug'">See the mug</button>
<button id="buy" onclick="sp('event', 'purchase', { order_id: document.body.dataset.order, value: 25.5, currency: 'GBP', items: [{ id: 'mug', quantity: 1, price: 25.5 }] })">Buy</button>
</body></html>`;
}

/**
 * Waits until the pixel has replaced the stub (`sp` without a queue of its own), polled from the
 * test's side: the page's own timers may be under Playwright's clock.
 */
export async function pixelLoaded(page: Page): Promise<void> {
  await expect
    .poll(() => page.evaluate(() => { const sp = (window as unknown as { sp?: ((...args: unknown[]) => void) & { q?: unknown } }).sp; return typeof sp === 'function' && !sp.q; }))
    .toBe(true);
}
