import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page, type Route } from 'playwright';
import { outboundFetch, type OutboundPolicy } from '../../outbound/outbound-http.ts';
import { chromiumLaunchOptions } from './chromium.ts';
import { MAX_PAGE_BYTES, pageFetchErrorOf, type PageFetchReason } from './page-fetcher.ts';

// The browser route: a Playwright page on Debian's Chromium whose every request goes through the
// outbound module, so a reviewed page cannot make the server's browser reach 127.0.0.1, the private
// network or 169.254.169.254.
//
// - Every HTTP(S) request the page makes (documents, subresources, iframes, fetch/XHR) reaches
//   `context.route('**/*')`, and is *sent by the outbound module* (outboundFetch) and fulfilled with its
//   answer: the address is checked when connecting, redirects are followed by the module and each hop
//   checked, and the host name is resolved once (Chromium's own resolution is never used, so DNS
//   rebinding between a check and Chromium's connection is impossible). Refused ones are aborted and
//   recorded (url, reason).
// - Other schemes than http(s) reaching the route (ftp:, file:) are refused. data: and blob: URLs never
//   touch the network.
// - Service workers are blocked (`serviceWorkers: 'block'`): their requests bypass `route`.
// - WebSockets are not seen by `route`: `routeWebSocket` catches every one and closes it without
//   connecting to the server (recorded).
// - Anything that would still leave Chromium without passing through `route` (preconnects, a request
//   Playwright does not intercept) goes to a proxy address where nothing listens (`--proxy-server`,
//   with `<-loopback>` so loopback is not bypassed), and WebRTC may not use non-proxied UDP.

export interface RefusedRequest {
  url: string;
  reason: PageFetchReason | 'scheme' | 'websocket';
  message: string;
}

export interface GuardedPage {
  page: Page;
  context: BrowserContext;
  /** Requests that were refused, in order. */
  refused: RefusedRequest[];
  close(): Promise<void>;
}

export interface GuardedPageOptions {
  /** Another address policy than the app's (tests). */
  policy?: OutboundPolicy;
  /** Per request (default 20 s). */
  timeoutMs?: number;
  /** Per response body (default 5 MB). */
  maxBytes?: number;
  /** The emulated device (the page reviewer loads pages at a phone's viewport). */
  device?: Pick<BrowserContextOptions, 'viewport' | 'isMobile' | 'hasTouch' | 'deviceScaleFactor'>;
}

/** Nothing listens there: a request that escaped `route` fails instead of reaching anything. */
const DEAD_PROXY = 'http://127.0.0.1:9';

export const GUARDED_CHROMIUM_ARGS = [`--proxy-server=${DEAD_PROXY}`, '--proxy-bypass-list=<-loopback>', '--force-webrtc-ip-handling-policy=disable_non_proxied_udp', '--webrtc-ip-handling-policy=disable_non_proxied_udp'];

async function forward(route: Route, refused: RefusedRequest[], options: GuardedPageOptions): Promise<void> {
  const request = route.request();
  const url = request.url();
  if (!/^https?:/i.test(url)) {
    refused.push({ url, reason: 'scheme', message: 'Only http and https addresses are loaded.' });
    await route.abort('blockedbyclient');
    return;
  }
  const headers = { ...(await request.allHeaders()) };
  for (const name of Object.keys(headers)) if (name.startsWith(':') || name === 'host' || name === 'content-length') delete headers[name];
  let response: Response;
  try {
    response = await outboundFetch(
      url,
      { method: request.method(), headers, body: request.postDataBuffer() },
      { timeoutMs: options.timeoutMs ?? 20_000, maxBodyBytes: options.maxBytes ?? MAX_PAGE_BYTES, ...(options.policy ? { policy: options.policy } : {}) },
    );
  } catch (error) {
    const typed = pageFetchErrorOf(error, false);
    refused.push({ url, reason: typed.reason, message: typed.message });
    await route.abort(typed.reason === 'unsafe_address' ? 'blockedbyclient' : 'failed');
    return;
  }
  const responseHeaders: Record<string, string> = {};
  response.headers.forEach((value, name) => (responseHeaders[name] = value));
  await route.fulfill({ status: response.status, headers: responseHeaders, body: Buffer.from(await response.arrayBuffer()) });
}

/** Launches Chromium and opens a page whose every request goes through the outbound module. */
export async function openGuardedPage(options: GuardedPageOptions = {}): Promise<GuardedPage> {
  const browser: Browser = await chromium.launch({ ...chromiumLaunchOptions, args: [...chromiumLaunchOptions.args, ...GUARDED_CHROMIUM_ARGS] });
  try {
    const context = await browser.newContext({ ...options.device, serviceWorkers: 'block' });
    const refused: RefusedRequest[] = [];
    await context.route('**/*', (route) => forward(route, refused, options));
    await context.routeWebSocket(/.*/, async (ws) => {
      refused.push({ url: ws.url(), reason: 'websocket', message: 'WebSockets are not opened by the page reviewer.' });
      await ws.close({ code: 1008, reason: 'refused' });
    });
    const page = await context.newPage();
    return { page, context, refused, close: () => browser.close() };
  } catch (error) {
    await browser.close();
    throw error;
  }
}
