import type { OutboundPolicy } from '../../outbound/outbound-http.ts';
import { openGuardedPage } from '../page-fetcher/browser-route.ts';

// Loading the page in the guarded Chromium (page-fetcher/browser-route.ts: every request through the
// outbound module) at a phone's viewport, and measuring it with the page's own PerformanceObserver and
// Resource Timing. Lighthouse 12 is not used: it launches and drives its own Chrome, whose requests
// would not pass through our request guard (README, "Landing page reviewer").

/** Lighthouse's mobile device (Moto G Power): 412 x 823 CSS px. */
export const MOBILE_DEVICE = { viewport: { width: 412, height: 823 }, isMobile: true, hasTouch: true, deviceScaleFactor: 1 } as const;
/** The full-page screenshot stops here (a very long page would make a huge image). */
export const FULL_PAGE_MAX_HEIGHT = 6000;
/** After the load event, how long the network may stay busy before we measure anyway. */
const SETTLE_TIMEOUT_MS = 8000;

/** Text of a call to action: buy, add to cart, shop now... (en, es, fr, de). */
export const CTA_PATTERN = /\b(buy|add to (cart|bag|basket)|shop now|order now|checkout|get (it|started)|subscribe|book now|try (it )?free|comprar|añadir al carrito|acheter|ajouter au panier|commander|kaufen|in den warenkorb|jetzt bestellen)\b/i;

export interface PageLoadResult {
  finalUrl: string;
  fcpMs: number | null;
  lcpMs: number | null;
  tbtMs: number | null;
  cls: number | null;
  pageBytes: number;
  requests: number;
  /** The first call to action inside the first viewport, or the first one below it. */
  cta: { text: string; aboveFold: boolean; selector: string } | null;
  aboveFoldJpeg: Buffer;
  fullPageJpeg: Buffer;
}

// Runs in the page before its own scripts: observers buffered from navigation start.
const OBSERVE_SCRIPT = `(() => {
  const state = { lcp: null, cls: 0, fcp: null, longTasks: [] };
  window.__storepulseReview = state;
  const observe = (type, handle) => { try { new PerformanceObserver((list) => list.getEntries().forEach(handle)).observe({ type, buffered: true }); } catch {} };
  observe('largest-contentful-paint', (entry) => { state.lcp = entry.startTime; });
  observe('layout-shift', (entry) => { if (!entry.hadRecentInput) state.cls += entry.value; });
  observe('paint', (entry) => { if (entry.name === 'first-contentful-paint') state.fcp = entry.startTime; });
  observe('longtask', (entry) => { state.longTasks.push([entry.startTime, entry.duration]); });
})();`;

interface PageState {
  lcp: number | null;
  cls: number;
  fcp: number | null;
  longTasks: [number, number][];
  bytes: number;
  requests: number;
  cta: { text: string; aboveFold: boolean; selector: string } | null;
  height: number;
}

/** Total blocking time: for each long task after FCP, the part beyond 50 ms. */
export function totalBlockingTime(longTasks: readonly [number, number][], fcp: number | null): number {
  return longTasks.filter(([start]) => fcp === null || start >= fcp).reduce((sum, [, duration]) => sum + Math.max(0, duration - 50), 0);
}

export async function loadAndMeasure(url: string, options: { policy?: OutboundPolicy; timeoutMs?: number } = {}): Promise<PageLoadResult> {
  const guarded = await openGuardedPage({ device: MOBILE_DEVICE, timeoutMs: options.timeoutMs ?? 20_000, ...(options.policy ? { policy: options.policy } : {}) });
  try {
    const { page } = guarded;
    await page.addInitScript(OBSERVE_SCRIPT);
    await page.goto(url, { waitUntil: 'load', timeout: options.timeoutMs ?? 20_000 });
    // A measurement tool, not a test: give late requests (lazy images, tags) a bounded moment to finish.
    await page.waitForLoadState('networkidle', { timeout: SETTLE_TIMEOUT_MS }).catch(() => undefined);
    const state = await page.evaluate((ctaSource) => {
      const review = (window as unknown as { __storepulseReview: Omit<PageState, 'bytes' | 'requests' | 'cta' | 'height'> }).__storepulseReview;
      const navigation = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
      const resources = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
      const size = (entry: PerformanceResourceTiming) => entry.transferSize || entry.encodedBodySize || 0;
      const bytes = (navigation ? size(navigation) : 0) + resources.reduce((sum, entry) => sum + size(entry), 0);
      const pattern = new RegExp(ctaSource, 'i');
      const candidates = [...document.querySelectorAll<HTMLElement>('a, button, input[type="submit"], input[type="button"], [role="button"]')];
      const describe = (element: HTMLElement) => element.tagName.toLowerCase() + (element.id ? `#${element.id}` : '') + (element.classList.length ? `.${[...element.classList].slice(0, 2).join('.')}` : '');
      let first: PageState['cta'] = null;
      for (const element of candidates) {
        const text = ((element as HTMLInputElement).value || element.innerText || element.getAttribute('aria-label') || '').trim();
        if (!pattern.test(text)) continue;
        const box = element.getBoundingClientRect();
        const style = getComputedStyle(element);
        if (box.width === 0 || box.height === 0 || style.visibility === 'hidden' || style.display === 'none') continue;
        const aboveFold = box.top < window.innerHeight && box.bottom > 0;
        const found = { text: text.slice(0, 80), aboveFold, selector: describe(element) };
        if (aboveFold) return { ...review, bytes, requests: resources.length + 1, cta: found, height: document.documentElement.scrollHeight };
        first ??= found;
      }
      return { ...review, bytes, requests: resources.length + 1, cta: first, height: document.documentElement.scrollHeight };
    }, CTA_PATTERN.source);
    const aboveFoldJpeg = await page.screenshot({ type: 'jpeg', quality: 70 });
    const fullPageJpeg = await page.screenshot({
      type: 'jpeg',
      quality: 60,
      fullPage: true,
      clip: { x: 0, y: 0, width: MOBILE_DEVICE.viewport.width, height: Math.max(1, Math.min(state.height, FULL_PAGE_MAX_HEIGHT)) },
    });
    const round = (value: number | null) => (value === null ? null : Math.round(value));
    return {
      finalUrl: page.url(),
      fcpMs: round(state.fcp),
      lcpMs: round(state.lcp ?? state.fcp),
      tbtMs: round(totalBlockingTime(state.longTasks, state.fcp)),
      cls: Math.round(state.cls * 1000) / 1000,
      pageBytes: state.bytes,
      requests: state.requests,
      cta: state.cta,
      aboveFoldJpeg,
      fullPageJpeg,
    };
  } finally {
    await guarded.close();
  }
}
