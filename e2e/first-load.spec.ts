import { existsSync, statSync } from 'node:fs';
import { expect, test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { actAsDistinctClient, createStore, registerInPage, startTrial } from './shell-helpers.ts';
import { drawnChart, loadDemoData } from './waits.ts';

/**
 * The first load of /dashboard for a signed-in user with a fresh browser cache: what it downloads, in
 * which order, and (with FIRST_LOAD_BENCH=1) how long until the largest paint and until the KPI tiles
 * show real numbers, on loopback and on a throttled link. The figures go to BENCHMARKS.md.
 */
const BENCH = process.env.FIRST_LOAD_BENCH === '1';
const BENCH_RUNS = Number(process.env.FIRST_LOAD_RUNS ?? 3);
/** A slow mobile link (Chrome DevTools' "Slow 4G"-like): 150 ms round trip, 1.6 Mbit/s down, 750 kbit/s up. */
const THROTTLED = { offline: false, latency: 150, downloadThroughput: 1_600_000 / 8, uploadThroughput: 750_000 / 8 };

interface Resource {
  name: string;
  startTime: number;
  responseEnd: number;
  encodedBodySize: number;
}
interface FirstLoad {
  /** When the first KPI tile showed a number (ms since navigation start). */
  tilesAt: number;
  /** The largest contentful paint so far (ms since navigation start). */
  lcp: number | null;
  resources: Resource[];
}

declare global {
  interface Window {
    __firstLoad?: { tilesAt: number | null; lcp: number | null };
  }
}

/** Runs in the page before its own scripts: notes the LCP and the moment a KPI tile shows a digit. */
function observeFirstLoad(): void {
  const state: { tilesAt: number | null; lcp: number | null } = { tilesAt: null, lcp: null };
  window.__firstLoad = state;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) state.lcp = entry.startTime;
  }).observe({ type: 'largest-contentful-paint', buffered: true });
  const check = () => {
    if (state.tilesAt !== null) return;
    const value = document.querySelector('[data-testid="kpi-card"] [data-testid="kpi-value"]');
    if (value && /\d/.test(value.textContent ?? '')) state.tilesAt = performance.now();
  };
  document.addEventListener('DOMContentLoaded', () => {
    new MutationObserver(check).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}

let storageState: Awaited<ReturnType<BrowserContext['storageState']>>;

test.beforeAll(async ({ browser }) => {
  // A trial user whose store has a year of demo orders.
  const context = await browser.newContext();
  const page = await context.newPage();
  await actAsDistinctClient(page);
  await registerInPage(page, 'first');
  await startTrial(page.request, 'business');
  await createStore(page.request, 'First Load Goods');
  await page.goto('/dashboard');
  await loadDemoData(page);
  storageState = await context.storageState();
  await context.close();
});

/** /dashboard opened in a new context (empty cache) with the session cookie; resolves once the tiles show numbers. */
async function openDashboard(browser: Browser, throttle: boolean): Promise<{ context: BrowserContext; page: Page; load: FirstLoad; encodings: Map<string, string | undefined> }> {
  const context = await browser.newContext({ storageState });
  const page = await context.newPage();
  await actAsDistinctClient(page);
  if (throttle) {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', THROTTLED);
  }
  const encodings = new Map<string, string | undefined>();
  page.on('response', (response) => {
    if (response.url().endsWith('.js')) encodings.set(new URL(response.url()).pathname, response.headers()['content-encoding']);
  });
  await page.addInitScript(observeFirstLoad);
  await page.goto('/dashboard');
  await page.waitForFunction(() => window.__firstLoad?.tilesAt != null, undefined, { timeout: 0 });
  const load = await page.evaluate(() => ({
    tilesAt: window.__firstLoad!.tilesAt!,
    lcp: window.__firstLoad!.lcp,
    resources: (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map(({ name, startTime, responseEnd, encodedBodySize }) => ({ name, startTime, responseEnd, encodedBodySize })),
  }));
  return { context, page, load, encodings };
}

const path = (resource: Resource) => new URL(resource.name).pathname;
const isScript = (resource: Resource) => path(resource).endsWith('.js');
const isApi = (resource: Resource) => path(resource).startsWith('/trpc/');
const kilobytes = (bytes: number) => Math.round(bytes / 102.4) / 10;
const isChartLibrary = (resource: Resource) => /\/apexcharts-build-[\w-]+\.js$/.test(path(resource));
/** A built script's gzipped size: its .gz twin, written at build time (the target is in gzipped bytes). */
function gzippedSize(resource: Resource): number {
  const file = new URL(`../dist/client${path(resource)}`, import.meta.url);
  // Files too small to be worth compressing have no twin and travel as they are.
  return existsSync(new URL(`${file.href}.gz`)) ? statSync(new URL(`${file.href}.gz`)).size : statSync(file).size;
}

/** How many answers the last of these requests waited for, one after another (itself included). */
function roundTrips(requests: readonly Resource[]): number {
  const depth = new Map<Resource, number>();
  for (const request of [...requests].sort((a, b) => a.startTime - b.startTime)) {
    const before = requests.filter((other) => other.responseEnd <= request.startTime).map((other) => depth.get(other) ?? 1);
    depth.set(request, 1 + Math.max(0, ...before));
  }
  return Math.max(0, ...depth.values());
}

test('the first load fetches only English, compressed scripts, the chart library beside the data, and few API calls', async ({ browser }) => {
  const { context, page, load, encodings } = await openDashboard(browser, false);
  const scripts = load.resources.filter(isScript).map(path);

  // Only the language in use (en-GB counts as English); the help and legal texts not at all.
  expect(scripts.filter((name) => /\/texts-en-[\w-]+\.js$/.test(name))).toHaveLength(1);
  expect(scripts.filter((name) => /\/texts-(es|fr|de)-/.test(name))).toEqual([]);
  expect(scripts.filter((name) => /\/(help|legal)-[\w-]+\.js$/.test(name))).toEqual([]);
  // The sign-in page is a chunk of its own, not part of the dashboard's load.
  expect(scripts.filter((name) => /\/auth-page-/.test(name))).toEqual([]);

  // Every script arrives compressed (the build's .br files).
  for (const [name, encoding] of encodings) expect(encoding, name).toBe('br');

  // What the figures need stays under the 200 KB of gzipped JavaScript (the chart library,
  // checked below, loads beside the data and the tiles do not wait for it). zod, the other
  // languages and the form screens are what used to push it over.
  const tilesNeed = load.resources.filter((resource) => isScript(resource) && resource.startTime <= load.tilesAt && !isChartLibrary(resource));
  expect(tilesNeed.reduce((sum, resource) => sum + gzippedSize(resource), 0) / 1024, tilesNeed.map(path).join('\n')).toBeLessThan(200);
  expect(scripts.filter((name) => /\/schemas-[\w-]+\.js$/.test(name)), 'zod').toEqual([]);

  // The chart library is requested before the KPI answer arrives: in parallel with the data, not after it.
  const kpis = load.resources.find((resource) => isApi(resource) && resource.name.includes('commerce.kpis'));
  const charts = load.resources.find(isChartLibrary);
  expect(kpis, 'the KPI request').toBeDefined();
  expect(charts, 'the chart library request').toBeDefined();
  expect(charts!.startTime).toBeLessThan(kpis!.responseEnd);
  expect(charts!.startTime).toBeLessThan(load.tilesAt);

  // The shell's session, subscription and stores in one request, then the figures: at most two round
  // trips before the tiles (requests made side by side are one round trip; one made after another
  // answer arrived is the next).
  const apiBeforeTiles = load.resources.filter((resource) => isApi(resource) && resource.startTime < load.tilesAt);
  expect(apiBeforeTiles.filter((resource) => path(resource) === '/trpc/shell.bootstrap')).toHaveLength(1);
  expect(roundTrips(apiBeforeTiles), apiBeforeTiles.map(path).join('\n')).toBeLessThanOrEqual(2);

  // The charts still draw.
  await expect(drawnChart(page, 'net-sales-trend')).toBeVisible();

  // Switching to Spanish fetches the Spanish texts and the screen speaks Spanish.
  const spanish = page.waitForResponse((response) => /\/texts-es-[\w-]+\.js$/.test(response.url()));
  await page.getByRole('button', { name: 'Account menu' }).click();
  await page.getByTestId('language-select').selectOption('es');
  expect((await spanish).ok()).toBe(true);
  await expect(page.getByRole('region', { name: 'Cifras clave' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Cifras clave' }).getByRole('article', { name: 'Ventas netas', exact: true })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'es');
  await context.close();
});

test('first-load figures (FIRST_LOAD_BENCH=1)', async ({ browser }) => {
  test.skip(!BENCH, 'measurement only with FIRST_LOAD_BENCH=1');
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  for (const throttle of [false, true]) {
    const runs: { lcp: number; tiles: number; jsBeforeTiles: number; jsRequestedBeforeTiles: number; jsAll: number; apiBeforeTiles: number; roundTrips: number; tilesNeedGzip: number; chartsGzip: number }[] = [];
    for (let run = 0; run < BENCH_RUNS; run++) {
      const { context, page, load } = await openDashboard(browser, throttle);
      await expect(drawnChart(page, 'net-sales-trend')).toBeVisible();
      const all = (await page.evaluate(() => (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map(({ name, startTime, responseEnd, encodedBodySize }) => ({ name, startTime, responseEnd, encodedBodySize })))) as Resource[];
      const lcp = (await page.evaluate(() => window.__firstLoad!.lcp)) ?? load.lcp ?? NaN;
      const scripts = load.resources.filter(isScript);
      runs.push({
        lcp,
        tiles: load.tilesAt,
        // Bytes on the wire (compressed bodies) of the scripts that had fully arrived when the tiles showed numbers.
        jsBeforeTiles: scripts.filter((resource) => resource.responseEnd <= load.tilesAt).reduce((sum, resource) => sum + resource.encodedBodySize, 0),
        jsRequestedBeforeTiles: scripts.filter((resource) => resource.startTime <= load.tilesAt).reduce((sum, resource) => sum + resource.encodedBodySize, 0),
        jsAll: all.filter(isScript).reduce((sum, resource) => sum + resource.encodedBodySize, 0),
        apiBeforeTiles: load.resources.filter((resource) => isApi(resource) && resource.startTime < load.tilesAt).length,
        roundTrips: roundTrips(load.resources.filter((resource) => isApi(resource) && resource.startTime < load.tilesAt)),
        // Gzipped bytes of what the tiles need: every script requested before they showed but the chart library, which loads beside the data.
        tilesNeedGzip: scripts.filter((resource) => resource.startTime <= load.tilesAt && !isChartLibrary(resource)).reduce((sum, resource) => sum + gzippedSize(resource), 0),
        chartsGzip: scripts.filter(isChartLibrary).reduce((sum, resource) => sum + gzippedSize(resource), 0),
      });
      await context.close();
    }
    const summary = {
      link: throttle ? 'throttled 150 ms RTT, 1.6 Mbit/s' : 'loopback',
      runs: runs.length,
      lcpMs: Math.round(median(runs.map((run) => run.lcp))),
      tilesMs: Math.round(median(runs.map((run) => run.tiles))),
      jsBeforeTilesKB: kilobytes(median(runs.map((run) => run.jsBeforeTiles))),
      jsRequestedBeforeTilesKB: kilobytes(median(runs.map((run) => run.jsRequestedBeforeTiles))),
      jsAllKB: kilobytes(median(runs.map((run) => run.jsAll))),
      apiRequestsBeforeTiles: median(runs.map((run) => run.apiBeforeTiles)),
      apiRoundTripsBeforeTiles: median(runs.map((run) => run.roundTrips)),
      jsTilesNeedGzipKB: kilobytes(median(runs.map((run) => run.tilesNeedGzip))),
      chartLibraryGzipKB: kilobytes(median(runs.map((run) => run.chartsGzip))),
      each: runs.map((run) => ({ lcp: Math.round(run.lcp), tiles: Math.round(run.tiles), jsBeforeTilesKB: kilobytes(run.jsBeforeTiles) })),
    };
    console.log(`FIRST_LOAD ${JSON.stringify(summary)}`);
    test.info().annotations.push({ type: 'first-load', description: JSON.stringify(summary) });
  }
});
