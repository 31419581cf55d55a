import { expect, type Page } from '@playwright/test';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createStore, register, startTrial, test } from './account-helpers.ts';
import { seriousViolations } from './admin-helpers.ts';
import { drawnChart, loadDemoData, screenSettled } from './waits.ts';

// The orders and revenue screens on a demo store: filters, search, the detail drawer and the CSV of
// the filtered set; the revenue charts. With SCREENSHOTS_DIR set, the last tests also save both
// screens (and the drawer) at 1280 and 390 px in light and dark.

async function demoStore(page: Page, prefix: string, firstPath: string): Promise<void> {
  await register(page.request, prefix);
  await startTrial(page.request, 'professional');
  await createStore(page.request, 'Orders Demo');
  await page.goto(firstPath);
  await loadDemoData(page);
}

/** The number of orders matching the current filters, once the list has them. */
async function shownTotal(page: Page): Promise<number> {
  const count = page.getByTestId('orders-count');
  await expect(count).toHaveAttribute('data-state', 'ready');
  return Number(await count.getAttribute('data-total'));
}

/** Ticks one value in a filter's panel, then closes the panel. */
async function tick(page: Page, filter: string, option: string): Promise<void> {
  await page.getByTestId(filter).getByRole('button').first().click();
  await page.getByTestId(filter).getByRole('checkbox', { name: option, exact: true }).check();
  await page.keyboard.press('Escape');
}

test('orders: filters narrow the list, search finds an order, the drawer shows it, the CSV holds the filtered set; revenue draws its charts', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await demoStore(page, 'ordersdemo', '/orders');

  await expect(page.getByRole('heading', { level: 1, name: 'Orders' })).toBeVisible();
  await expect(page.getByTestId('order-row').first()).toBeVisible();
  const everything = await shownTotal(page);
  expect(everything).toBeGreaterThan(25);
  await expect(page.getByTestId('order-row')).toHaveCount(25);

  // The list reads well with every status badge (no serious axe finding, contrast included) in both
  // themes: a year of orders of each status in turn.
  const today = new Date().toISOString().slice(0, 10);
  const yearAgo = new Date(Date.now() - 365 * 86_400_000).toISOString().slice(0, 10);
  for (const theme of ['dark', 'light'] as const) {
    await page.evaluate((value) => localStorage.setItem('theme', value), theme);
    for (const status of ['paid', 'pending', 'partially_refunded', 'refunded', 'cancelled']) {
      await page.goto(`/orders?status=${status}&from=${yearAgo}&to=${today}`);
      await expect(page.getByTestId('order-row').first().getByTestId('status-badge')).toHaveAttribute('data-status', status);
      expect(await seriousViolations(page, 'main'), `orders page, ${status}, ${theme}`).toEqual([]);
    }
  }
  await page.goto('/orders');
  await expect(page.getByTestId('order-row')).toHaveCount(25);

  // Status "Paid" and channel "Google Ads": fewer orders, each with both badges.
  await tick(page, 'filter-status', 'Paid');
  await expect(page).toHaveURL(/status=paid/);
  await tick(page, 'filter-channel', 'Google Ads');
  await expect(page).toHaveURL(/channel=googleads/);
  await expect.poll(() => shownTotal(page)).toBeLessThan(everything);
  const filtered = await shownTotal(page);
  expect(filtered).toBeGreaterThan(0);
  await expect(page.getByTestId('orders-count')).toContainText(`of ${filtered.toLocaleString('en')} order`);
  const statuses = await page.getByTestId('order-row').getByTestId('status-badge').evaluateAll((badges) => badges.map((badge) => badge.getAttribute('data-status')));
  expect(statuses.length).toBeGreaterThan(0);
  expect(new Set(statuses)).toEqual(new Set(['paid']));
  const channels = await page.getByTestId('order-row').getByTestId('channel-badge').evaluateAll((badges) => badges.map((badge) => badge.getAttribute('data-channel')));
  expect(new Set(channels)).toEqual(new Set(['googleads']));

  // A reload keeps the filters and the page.
  await page.reload();
  await expect.poll(() => shownTotal(page)).toBe(filtered);

  // The CSV of the filtered set: a header and one row per order.
  const downloadPromise = page.waitForEvent('download');
  await page.getByTestId('export-csv').click();
  const download = await downloadPromise;
  expect(download.suggestedFilename()).toMatch(/^orders-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = readFileSync((await download.path())!, 'utf8');
  const lines = csv.split('\r\n').filter((line) => line !== '');
  expect(lines[0]).toMatch(/^Order number,External ID,/);
  expect(lines).toHaveLength(filtered + 1);
  expect(lines.slice(1).every((line) => line.includes(',paid,') && line.includes(',googleads,'))).toBe(true);

  // Search by an order's number finds it.
  const orderNumber = (await page.getByTestId('order-row').nth(2).locator('td').first().textContent())!.trim();
  await page.getByRole('searchbox', { name: 'Search orders' }).fill(orderNumber);
  await expect(page).toHaveURL(/[?&]q=/);
  await expect(page.getByTestId('order-row')).toHaveCount(1);
  await expect(page.getByTestId('order-row')).toContainText(orderNumber);

  // The drawer: lines, attribution, customer.
  await page.getByTestId('order-row').click();
  const drawer = page.getByTestId('order-drawer');
  await expect(drawer.getByRole('heading', { name: `Order ${orderNumber}` })).toBeVisible();
  await expect(drawer.getByTestId('drawer-lines')).toBeVisible();
  await expect(drawer.getByTestId('drawer-attribution')).toContainText('Google Ads');
  await expect(drawer.getByTestId('drawer-amounts')).toContainText('Net sales');
  await page.keyboard.press('Escape');
  await expect(drawer.getByRole('heading', { name: `Order ${orderNumber}` })).toBeHidden();
  await expect(page).not.toHaveURL(/order=/);

  // Nonsense finds nothing.
  await page.getByRole('searchbox', { name: 'Search orders' }).fill('no-such-order-anywhere');
  await expect(page.getByTestId('orders-empty')).toBeVisible();
  await page.getByTestId('clear-filters').first().click();
  await expect.poll(() => shownTotal(page)).toBe(everything);

  await page.goto('/revenue');
  await expect(page.getByRole('heading', { level: 1, name: 'Revenue' })).toBeVisible();
  await expect(page.locator('[data-testid^="revenue-kpi-"]')).toHaveCount(4);
  await expect(drawnChart(page, 'revenue-components-chart')).toBeVisible();
  await expect(drawnChart(page, 'revenue-channels-chart')).toBeVisible();
  expect(await page.getByTestId('revenue-channel-row').count()).toBeGreaterThan(1);
  expect(await page.getByTestId('revenue-product-row').count()).toBeGreaterThan(1);
  await expect(page.getByTestId('customers-new')).toBeVisible();
  await expect(page.getByTestId('revenue-refunds')).toContainText('Refund rate');
});

test('orders: customer and total columns; page 9,999 says at once to narrow the filters; a refused request is not retried', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await demoStore(page, 'ordersdeep', '/orders');
  const table = page.getByTestId('orders-table');
  await expect(table.getByRole('columnheader', { name: 'Customer' })).toBeVisible();
  await expect(table.getByRole('columnheader', { name: 'Total' })).toBeVisible();
  // Each row names its buyer (the platform's customer id and their orders) or says "Guest".
  const customers = await page.getByTestId('order-customer').allTextContents();
  expect(customers).toHaveLength(25);
  expect(customers.every((text) => /^(demo-customer-\d+.*\d+ orders?|Guest.*)/.test(text)), customers.join(' | ')).toBe(true);
  // Sorting by total, highest first (in each order's own currency, as the other amount columns sort):
  // the totals of the orders in the store's currency come down the page.
  await page.getByTestId('sort-total').click();
  await expect(page).toHaveURL(/sort=total/);
  await expect(page.getByTestId('orders-count')).toHaveAttribute('data-state', 'ready');
  await expect(page.getByTestId('sort-total').locator('..')).toHaveAttribute('aria-sort', 'descending');
  const totals = await page.getByTestId('order-row').evaluateAll((rows) =>
    rows
      .map((row) => row.querySelectorAll('td')[6]!.querySelector('span')!)
      .filter((amount) => amount.querySelector('span') === null) // no own-currency line: in the store's currency
      .map((amount) => Number(amount.textContent!.replace(/[^0-9.]/g, ''))),
  );
  expect(totals.length).toBeGreaterThan(10);
  expect(totals).toEqual([...totals].sort((a, b) => b - a));

  // Every orders.list call this page makes, by its page and search.
  const calls: { page: number; search?: string }[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (!url.pathname.startsWith('/trpc/') || !url.pathname.includes('orders.list')) return;
    const input = JSON.parse(url.searchParams.get('input') ?? '{}');
    const list = input['0']?.json ?? input['0'] ?? input.json ?? input;
    calls.push({ page: list.page, search: list.search });
  });

  // Page 9,999: the message at once, no request, no skeletons.
  await page.goto('/orders?page=9999');
  const deep = page.getByTestId('orders-too-deep');
  await expect(deep).toBeVisible();
  await expect(deep).toContainText('Page 9,999 is too far back');
  await expect(deep).toContainText('Narrow the filters or the date range to see older orders.');
  await expect(page.getByRole('status', { name: 'Loading orders…' })).toHaveCount(0);
  expect(calls.filter((call) => call.page === 9_999)).toEqual([]);
  await deep.getByRole('button', { name: 'Back to page 1' }).click();
  await expect(page.getByTestId('order-row')).toHaveCount(25);
  // The same message in every language of the app.
  for (const [language, text] of [
    ['es', 'Acota los filtros o el intervalo de fechas para ver pedidos más antiguos.'],
    ['fr', 'Affinez les filtres ou la période pour voir des commandes plus anciennes.'],
    ['de', 'Grenzen Sie die Filter oder den Zeitraum ein, um ältere Bestellungen zu sehen.'],
  ] as const) {
    await page.evaluate((value) => localStorage.setItem('i18nextLng', value), language);
    await page.goto('/orders?page=9999');
    await expect(page.getByTestId('orders-too-deep')).toContainText(text);
  }
  await page.evaluate(() => localStorage.setItem('i18nextLng', 'en'));
  expect(calls.filter((call) => call.page === 9_999)).toEqual([]);

  // A request the server refuses (a search over 200 characters): the error once, no retries.
  const tooLong = 'x'.repeat(201);
  await page.goto(`/orders?q=${tooLong}`);
  await expect(page.getByTestId('data-error')).toContainText('Search text must be at most 200 characters');
  await expect(page.getByTestId('data-error')).toBeVisible();
  expect(calls.filter((call) => call.search === tooLong)).toHaveLength(1);
});

const directory = process.env.SCREENSHOTS_DIR;
const VIEWPORTS = { desktop: { width: 1280, height: 860 }, mobile: { width: 390, height: 844 } } as const;

for (const theme of ['light', 'dark'] as const) {
  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    test(`orders and revenue screenshots, ${theme}, ${size}`, async ({ page }) => {
      test.skip(!directory, 'Set SCREENSHOTS_DIR to take the orders and revenue screenshots');
      mkdirSync(directory!, { recursive: true });
      await page.setViewportSize(viewport);
      await page.addInitScript((value) => localStorage.setItem('theme', value), theme);
      await demoStore(page, 'ordshots', '/orders');
      await page.reload(); // without the "Demo data loaded" toast

      const shoot = async (name: string, fullPage = true) => {
        await screenSettled(page);
        await page.screenshot({ path: path.join(directory!, `${name}-${size}-${theme}.png`), fullPage });
      };
      await expect(page.getByTestId(size === 'mobile' ? 'order-card' : 'order-row').first()).toBeVisible();
      await shoot('orders');
      await page.getByTestId(size === 'mobile' ? 'order-card' : 'order-row').first().click();
      await expect(page.getByTestId('drawer-lines')).toBeVisible();
      await shoot('orders-drawer', false);
      await page.keyboard.press('Escape');

      await page.goto('/orders?page=9999');
      await expect(page.getByTestId('orders-too-deep')).toBeVisible();
      await shoot('orders-too-deep', false);

      await page.goto('/revenue');
      await expect(drawnChart(page, 'revenue-components-chart')).toBeVisible();
      await expect(drawnChart(page, 'revenue-channels-chart')).toBeVisible();
      await shoot('revenue');
    });
  }
}
