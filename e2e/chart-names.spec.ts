import { expect, test } from '@playwright/test';
import { actAsDistinctClient, createStore, registerInPage, startTrial } from './shell-helpers.ts';
import { drawnChart, UNTIL_DONE } from './waits.ts';

/**
 * Store, product and campaign names come from users and platforms. ApexCharts writes its legend and
 * tooltips as HTML, so a name that is markup must reach them as text (src/client/components/chart-text.ts).
 */
const HOSTILE = '<img src=x onerror=window.__xss=1>';

test.beforeEach(async ({ page }) => actAsDistinctClient(page));

test('/dashboards shows a store named like markup as text, in the chart axis and tooltip; nothing runs', async ({ page }) => {
  await registerInPage(page, 'xss');
  await startTrial(page.request, 'business');
  await createStore(page.request, HOSTILE);
  // A year of demo orders, so the store's bar has a length to hover.
  const loaded = await page.request.post('/trpc/demo.load', { data: {}, ...UNTIL_DONE });
  expect(loaded.status(), await loaded.text()).toBe(200);

  await page.goto('/dashboards');
  const chart = drawnChart(page, 'stores-chart');
  await expect(chart).toBeVisible();
  // The axis label (SVG text) shows the name as typed.
  await expect(chart.locator('.apexcharts-yaxis-label').filter({ hasText: HOSTILE })).toHaveCount(1);

  await chart.locator('.apexcharts-bar-area').first().hover();
  const title = chart.locator('.apexcharts-tooltip-title');
  await expect(title).toBeVisible();
  await expect(title).toHaveText(HOSTILE);
  // No element was made from the name anywhere in the chart, and its handler never ran.
  await expect(chart.locator('img')).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
});
