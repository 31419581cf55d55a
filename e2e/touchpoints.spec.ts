import { expect, type Locator, type Page } from '@playwright/test';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createStore, register, startTrial, test, uniqueName } from './account-helpers.ts';
import { applyTheme } from './shell-helpers.ts';
import { drawnChart, loadDemoData, screenSettled, UNTIL_DONE } from './waits.ts';

// /touchpoints in Chromium: a store without tracked events explains and leads to /tracking-setup;
// with the demo store's orders and journeys, switching the model changes the credits (first and last
// click give whole orders, linear shares), the table's revenue total equals the tiles', the channel
// filter narrows both, the CSV downloads with the same totals, and an order's journey drawer shows
// its visits. Every wait is on the screen's state.

async function signUpWithStore(page: Page): Promise<void> {
  await register(page.request, 'touchpoints');
  await startTrial(page.request, 'business');
  await createStore(page.request, uniqueName('Touchpoints shop'));
}

/** The report once it shows `model` and is no longer the previous answer kept on screen. */
async function reportFor(page: Page, model: string): Promise<Locator> {
  const report = page.locator(`[data-testid="touchpoints-report"][data-model="${model}"][aria-busy="false"]`);
  await expect(report).toBeVisible();
  return report;
}

async function chooseModel(page: Page, name: string, model: string): Promise<Locator> {
  await page.getByTestId('model-picker').getByRole('button', { name, exact: true }).click();
  return reportFor(page, model);
}

/** Credited orders and revenue (minor units) per channel row of the table. */
async function channelCredits(report: Locator): Promise<Record<string, { orders: number; revenue: number }>> {
  const rows = report.getByTestId('credits-row');
  const entries: [string, { orders: number; revenue: number }][] = [];
  for (const row of await rows.all()) {
    entries.push([(await row.getAttribute('data-channel'))!, { orders: Number(await row.getAttribute('data-orders')), revenue: Number(await row.getAttribute('data-revenue')) }]);
  }
  return Object.fromEntries(entries);
}

const whole = (value: number) => Math.abs(value - Math.round(value)) < 1e-6;

/** With SCREENSHOTS_DIR: `shoot` in light and dark, at 1280 and 390 px (what it shoots is named by theme and width). */
async function inThemesAndWidths(page: Page, shoot: (directory: string, suffix: string) => Promise<unknown>): Promise<void> {
  const directory = process.env.SCREENSHOTS_DIR;
  if (!directory) return;
  for (const theme of ['light', 'dark'] as const) {
    await applyTheme(page, theme);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await screenSettled(page);
      await shoot(directory, `${theme}-${width}`);
    }
  }
}

test('a store without tracked events is told what the screen needs and led to /tracking-setup', async ({ page }) => {
  await signUpWithStore(page);
  await page.goto('/touchpoints');
  await expect(page.getByRole('heading', { level: 1, name: 'Touchpoints' })).toBeVisible();
  const empty = page.getByTestId('empty-state');
  await expect(empty.getByRole('heading', { name: 'No tracked visits yet' })).toBeVisible();
  await expect(empty).toContainText('Install the StorePulse pixel on your store');
  // An empty store may also try the screen on the demo data.
  await expect(empty.getByRole('button', { name: 'Load demo data' })).toBeVisible();

  await inThemesAndWidths(page, (directory, suffix) => page.screenshot({ path: path.join(directory, `touchpoints-empty-${suffix}.png`) }));

  await empty.getByRole('link', { name: 'Set up tracking' }).click();
  await expect(page).toHaveURL(/\/tracking-setup$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Tracking Setup' })).toBeVisible();
});

test('on the demo store: models change the credits, totals agree, the filter narrows, CSV downloads, and the journey drawer shows visits', async ({ page }) => {
  await signUpWithStore(page);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto('/touchpoints');
  await loadDemoData(page);
  // The demo's orders are credited in the background (attribution.status, shown as progress): the test waits for the end.
  await expect(page.getByTestId('touchpoints-screen')).toBeVisible();
  await expect(page.getByTestId('recomputing')).toHaveCount(0, UNTIL_DONE);

  // Last click by default, with the store's 30-day window.
  let report = await reportFor(page, 'last_click');
  await expect(report).toHaveAttribute('data-window', '30');
  await expect(page.getByTestId('window-picker')).toHaveValue('30');
  await expect(page.getByTestId('channel-filter').locator('option:checked')).toHaveText('All Channels');

  // The table's revenue total is the tiles' credited revenue, to the cent and as written.
  const tileRevenue = page.getByTestId('tp-kpi-revenue');
  const totals = report.getByTestId('credits-totals');
  await expect(totals).toHaveAttribute('data-revenue', (await tileRevenue.getAttribute('data-value'))!);
  await expect(totals.locator('[data-key="revenue"]')).toHaveText((await tileRevenue.getByTestId('kpi-value').textContent())!);
  const netSales = Number(await tileRevenue.getAttribute('data-value'));
  expect(netSales).toBeGreaterThan(0);

  const lastClick = await channelCredits(report);
  expect(Object.keys(lastClick).length).toBeGreaterThan(3);
  for (const [channel, credit] of Object.entries(lastClick)) expect(whole(credit.orders), `last click, ${channel}: ${credit.orders}`).toBe(true);

  // First click: whole orders too, the same revenue in total, but shared out differently.
  report = await chooseModel(page, 'First click', 'first_click');
  const firstClick = await channelCredits(report);
  for (const [channel, credit] of Object.entries(firstClick)) expect(whole(credit.orders), `first click, ${channel}: ${credit.orders}`).toBe(true);
  expect(Number(await report.getByTestId('credits-totals').getAttribute('data-revenue'))).toBe(netSales);
  expect(Object.keys(firstClick).some((channel) => firstClick[channel]!.revenue !== lastClick[channel]?.revenue)).toBe(true);
  await expect(page).toHaveURL(/model=first_click/);

  // Linear: shares of orders.
  report = await chooseModel(page, 'Linear', 'linear');
  const linear = await channelCredits(report);
  expect(Object.values(linear).some((credit) => !whole(credit.orders))).toBe(true);
  expect(Number(await report.getByTestId('credits-totals').getAttribute('data-revenue'))).toBe(netSales);
  await expect(page.getByTestId('model-hint')).toHaveText('The credit is split equally between all touchpoints in the window.');

  // Time decay and position-based are offered too.
  await chooseModel(page, 'Time decay', 'time_decay');
  report = await chooseModel(page, 'Position-based', 'position_based');
  expect(Number(await report.getByTestId('credits-totals').getAttribute('data-revenue'))).toBe(netSales);

  // The CSV of the table: a line per channel and the same total.
  report = await chooseModel(page, 'Last click', 'last_click');
  const [download] = await Promise.all([page.waitForEvent('download'), report.getByTestId('credits-export').click()]);
  expect(download.suggestedFilename()).toMatch(/^touchpoints-last_click-30d-channel-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = (await readFile((await download.path())!, 'utf8')).replace(/^\ufeff/, '').trim().split('\r\n');
  expect(csv[0]).toMatch(/^Channel,Campaign,Spend \(\w{3}\),Credited orders,Credited revenue \(\w{3}\),ROAS,CAC \(\w{3}\),Platform conversions,Platform-reported revenue \(\w{3}\)$/);
  expect(csv.length).toBe(Object.keys(lastClick).length + 2);
  expect(csv.at(-1)!.split(',')[4]).toBe((netSales / 100).toFixed(2));

  // The channel filter: the tiles and the table show Google Ads alone.
  await page.getByTestId('channel-filter').selectOption({ label: 'Google Ads' });
  await expect(report.getByTestId('credits-row')).toHaveCount(1);
  await expect(report.getByTestId('credits-row')).toHaveAttribute('data-channel', 'googleads');
  await expect(tileRevenue).toHaveAttribute('data-value', String(lastClick.googleads!.revenue));
  await expect(report.getByTestId('credits-totals')).toHaveAttribute('data-revenue', String(lastClick.googleads!.revenue));
  await page.getByTestId('channel-filter').selectOption({ label: 'All Channels' });
  await expect(tileRevenue).toHaveAttribute('data-value', String(netSales));

  // Models side by side, top paths and the distributions are drawn.
  await expect(drawnChart(page, 'models-chart')).toBeVisible();
  await expect(page.getByTestId('path-row').first()).toContainText(/\d+ orders?/);
  await expect(drawnChart(page, 'time-chart')).toBeVisible();
  await expect(drawnChart(page, 'count-chart')).toBeVisible();

  // An order's journey: the newest order with at least two tracked visits, on a timeline.
  const drawer = page.getByTestId('journey-drawer');
  const orders = page.getByTestId('journey-order');
  let visits = 0;
  let label = '';
  for (let index = 0; index < 20 && visits < 2; index += 1) {
    label = (await orders.nth(index).getByTestId('journey-order-number').textContent())!;
    await orders.nth(index).click();
    await expect(drawer.getByTestId('journey-order-placed')).toBeVisible();
    visits = await drawer.getByTestId('journey-visit').count();
    if (visits < 2) {
      await drawer.getByRole('button', { name: 'Close' }).click();
      await expect(drawer).toBeHidden();
    }
  }
  expect(visits).toBeGreaterThanOrEqual(2);
  await expect(drawer.getByRole('heading', { name: `Journey of ${label.replace(/^Order/, 'order')}` })).toBeVisible();
  await expect(drawer.getByTestId('journey-visit').first()).toContainText(/before the order/);
  await expect(drawer.getByTestId('journey-order-placed')).toContainText(/Order placed · £/);
  // First click gives the whole order to the first visit in the window.
  const firstInWindow = drawer.locator('[data-testid="journey-visit"][data-in-window="true"]').first();
  const firstClickCredits = drawer.locator('[data-model="first_click"]').getByTestId('journey-credit');
  await expect(firstClickCredits).toHaveCount(1);
  await expect(firstClickCredits).toHaveAttribute('data-share', '1');
  await expect(firstClickCredits).toHaveAttribute('data-channel', (await firstInWindow.getAttribute('data-channel'))!);

  await inThemesAndWidths(page, (directory, suffix) => page.screenshot({ path: path.join(directory, `touchpoints-journey-${suffix}.png`) }));
  await drawer.getByRole('button', { name: 'Close' }).click();
  await expect(drawer).toBeHidden();
  await expect(drawnChart(page, 'models-chart')).toBeVisible();
  await inThemesAndWidths(page, async (directory, suffix) => {
    await page.screenshot({ path: path.join(directory, `touchpoints-${suffix}.png`), fullPage: true });
    // The sections one by one, readable at full size.
    for (const section of ['credits-card', 'models-card', 'paths-card', 'time-card', 'journeys-card']) {
      await page.getByTestId(section).screenshot({ path: path.join(directory, `touchpoints-${section}-${suffix}.png`) });
    }
  });
});
