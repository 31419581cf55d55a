import { expect, type Cookie, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { createStore, register, startTrial, test } from './account-helpers.ts';
import { drawnChart, loadDemoData, screenSettled } from './waits.ts';

// The marketing and analytics screens on a demo store: ad platform campaigns, analytics trends and
// the funnel's empty state, performance distribution. With SCREENSHOTS_DIR set, the last test also
// saves every screen at 1280 and 390 px in light and dark.

// Loading the demo takes a while on a busy machine: one subscriber and one demo store serve every
// test of this file (they run in order in one worker), signed in through the saved session cookie.
let demoCookies: Cookie[] = [];

test.beforeAll(async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await register(page.request, 'mktdemo');
  await startTrial(page.request, 'professional');
  await createStore(page.request, 'Marketing Demo');
  // The store is empty: the screen offers the demo data, through its own button.
  await page.goto('/google-ads');
  await expect(page.getByRole('heading', { name: 'No data in this store yet' })).toBeVisible();
  await loadDemoData(page);
  demoCookies = await context.cookies();
  await context.close();
});

async function signInToDemo(page: Page): Promise<void> {
  await page.context().addCookies(demoCookies);
}

test('each ad platform screen lists its campaigns with totals and draws its trend', async ({ page }) => {
  await signInToDemo(page);
  await page.goto('/google-ads');

  await expect(page.getByRole('heading', { level: 1, name: 'Google Ads' })).toBeVisible();
  await expect(page.getByTestId('campaign-row').first()).toBeVisible();
  expect(await page.getByTestId('campaign-row').count()).toBeGreaterThan(1);
  await expect(page.getByTestId('campaigns-totals')).toContainText('Total');
  await expect(drawnChart(page, 'ads-trend-chart')).toBeVisible();
  await expect(page.getByTestId('roas-platform')).toHaveText(/^\d+\.\d{2}×$/);
  await expect(page.getByTestId('roas-ours')).toHaveText(/^\d+\.\d{2}×$/);
  // The demo tags its orders with the campaign's name: our figures per campaign.
  await expect(page.getByTestId('attribution-note')).toHaveAttribute('data-attribution', 'campaign');

  // Sorting by clicks puts the most-clicked campaign first and lands in the URL.
  await page.getByRole('columnheader', { name: 'Clicks' }).getByRole('button').click();
  await expect(page).toHaveURL(/sort=clicks/);
  const clicks = await page.getByTestId('campaign-row').evaluateAll((rows) => rows.map((row) => Number(row.querySelectorAll('td')[2]!.textContent!.replace(/[^\d]/g, ''))));
  expect(clicks).toEqual([...clicks].sort((a, b) => b - a));

  // Search narrows the rows; nonsense finds none.
  const firstName = (await page.getByTestId('campaign-row').first().locator('th span').first().textContent())!;
  await page.getByRole('searchbox', { name: 'Search campaigns' }).fill(firstName);
  await expect(page.getByTestId('campaign-row')).toHaveCount(1);
  await page.getByRole('searchbox', { name: 'Search campaigns' }).fill('no such campaign');
  await expect(page.getByTestId('campaigns-table').getByText('No campaign matches this search.')).toBeVisible();

  // The ROAS view of the chart.
  await page.getByRole('button', { name: 'ROAS', exact: true }).click();
  await expect(page).toHaveURL(/chart=roas/);
  await expect(drawnChart(page, 'ads-trend-chart')).toBeVisible();

  for (const [route, name] of [
    ['/meta-ads', 'Meta Ads'],
    ['/bing-ads', 'Bing Ads'],
  ] as const) {
    await page.goto(route);
    await expect(page.getByRole('heading', { level: 1, name })).toBeVisible();
    await expect(page.getByTestId('campaign-row').first()).toBeVisible();
    await expect(drawnChart(page, 'ads-trend-chart')).toBeVisible();
    await expect(page.getByTestId('campaign-row').first().locator('th')).not.toContainText(/Google/);
  }
});

test('analytics switches KPI and granularity, keeps them in the URL and shows the funnel empty state', async ({ page }) => {
  await signInToDemo(page);
  await page.goto('/analytics');

  await expect(page.getByTestId('trend-card')).toHaveAttribute('data-kpi', 'netSales');
  await expect(drawnChart(page, 'trend-chart')).toBeVisible();
  await expect(drawnChart(page, 'breakdown-chart')).toBeVisible();

  await page.getByTestId('kpi-chips').getByRole('button', { name: 'Total orders' }).click();
  await expect(page).toHaveURL(/kpi=orders/);
  await expect(page.getByTestId('trend-card')).toHaveAttribute('data-kpi', 'orders');
  await expect(page.getByRole('heading', { name: 'Total orders over time' })).toBeVisible();

  await page.getByTestId('granularity').getByRole('button', { name: 'Week' }).click();
  await expect(page).toHaveURL(/granularity=week/);
  await expect(page.getByTestId('trend-card')).toHaveAttribute('data-granularity', 'week');
  await expect(drawnChart(page, 'trend-chart')).toBeVisible();

  // A reload keeps the choice.
  await page.reload();
  await expect(page.getByTestId('trend-card')).toHaveAttribute('data-kpi', 'orders');
  await expect(page.getByTestId('granularity').getByRole('button', { name: 'Week' })).toHaveAttribute('aria-pressed', 'true');

  // A ratio does not split into channels.
  await page.getByTestId('kpi-chips').getByRole('button', { name: 'ROAS' }).click();
  await expect(page.getByTestId('breakdown-not-applicable')).toBeVisible();

  const funnel = page.getByTestId('funnel-empty-state');
  await expect(funnel).toContainText('Marketing funnel');
  await expect(funnel).toContainText('tracking snippet');
  await expect(funnel.getByRole('link', { name: 'Set up tracking' })).toHaveAttribute('href', '/tracking-setup');
});

test('performance distribution shows the Pareto chart, the top 10 % and the ROAS histogram', async ({ page }) => {
  await signInToDemo(page);
  await page.goto('/performance-distribution');

  await expect(drawnChart(page, 'pareto-chart')).toBeVisible();
  await expect(drawnChart(page, 'roas-histogram')).toBeVisible();
  await expect(page.getByTestId('top10-revenue')).toContainText(/\d+%/);

  await page.getByRole('button', { name: 'Spend', exact: true }).click();
  await expect(page).toHaveURL(/measure=spend/);
  await expect(page.getByRole('heading', { name: 'Spend by campaign' })).toBeVisible();

  await page.getByRole('tab', { name: 'Products' }).click();
  await expect(page).toHaveURL(/view=products/);
  await expect(drawnChart(page, 'pareto-chart')).toBeVisible();
  await expect(page.getByTestId('top10-products')).toContainText(/\d+%/);
  await expect(page.getByTestId('top-products').getByRole('listitem')).toHaveCount(10);
});

const directory = process.env.SCREENSHOTS_DIR;
const VIEWPORTS = { desktop: { width: 1280, height: 860 }, mobile: { width: 390, height: 844 } } as const;

for (const theme of ['light', 'dark'] as const) {
  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    test(`marketing screenshots, ${theme}, ${size}`, async ({ page }) => {
      test.skip(!directory, 'Set SCREENSHOTS_DIR to take the marketing screenshots');
      mkdirSync(directory!, { recursive: true });
      await page.setViewportSize(viewport);
      // Charts drawn at once, not caught mid-animation.
      await page.emulateMedia({ reducedMotion: 'reduce' });
      await page.addInitScript((value) => localStorage.setItem('theme', value), theme);
      await signInToDemo(page);

      const shoot = async (name: string, ready: string[]) => {
        for (const testId of ready) await expect(drawnChart(page, testId)).toBeVisible();
        await screenSettled(page);
        await page.screenshot({ path: path.join(directory!, `${name}-${size}-${theme}.png`), fullPage: true });
      };
      for (const route of ['/google-ads', '/meta-ads', '/bing-ads']) {
        await page.goto(route);
        await expect(page.getByTestId('campaign-row').first()).toBeAttached();
        await shoot(route.slice(1), ['ads-trend-chart']);
      }
      await page.goto('/google-ads?chart=roas');
      await shoot('google-ads-roas', ['ads-trend-chart']);
      await page.goto('/analytics');
      await shoot('analytics', ['trend-chart', 'breakdown-chart']);
      await page.goto('/analytics?kpi=roas&granularity=week');
      await shoot('analytics-roas-week', ['trend-chart']);
      await page.goto('/performance-distribution');
      await shoot('performance-distribution', ['pareto-chart', 'roas-histogram']);
      await page.goto('/performance-distribution?view=products');
      await shoot('performance-distribution-products', ['pareto-chart']);
    });
  }
}
