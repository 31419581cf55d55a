import { expect, test, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { actAsDistinctClient, createStore, registerInPage, startTrial, useTheme } from './shell-helpers.ts';
import { drawnChart, loadDemoData, screenSettled, UNTIL_DONE } from './waits.ts';

/**
 * The dashboard journey: an empty store offers demo data; once loaded, the dashboard shows its nine
 * KPI cards and charts, the date range lives in the URL, and /dashboards puts the stores side by side.
 * With SCREENSHOTS_DIR set, screenshots of both screens at 1280 and 390 px in light and dark.
 */
const SCREENSHOT_DIR = process.env.SCREENSHOTS_DIR;
const VIEWPORTS = [
  { name: '1280', width: 1280, height: 900 },
  { name: '390', width: 390, height: 844 },
] as const;

test.beforeEach(async ({ page }) => actAsDistinctClient(page));

async function loadDemoThroughTheButton(page: Page) {
  await page.goto('/dashboard');
  await expect(page.getByTestId('empty-state')).toBeVisible();
  await loadDemoData(page);
  await expect(page.getByText('Demo data loaded')).toBeVisible();
}

async function netSalesText(page: Page): Promise<string> {
  return (await page.getByRole('region', { name: 'Key figures' }).getByRole('article', { name: 'Net sales', exact: true }).getByTestId('kpi-value').textContent()) ?? '';
}

test('an empty store loads demo data; the dashboard shows its KPIs and charts, the range in the URL; /dashboards adds a total', async ({ page }) => {
  await registerInPage(page, 'dash');
  await startTrial(page.request, 'business');
  const store = await createStore(page.request, 'Trail Supply Co');

  await loadDemoThroughTheButton(page);

  const cards = page.getByRole('region', { name: 'Key figures' }).getByTestId('kpi-card');
  await expect(cards).toHaveCount(9);
  const card = (label: string) => page.getByRole('region', { name: 'Key figures' }).getByRole('article', { name: label, exact: true });
  for (const label of ['Net sales', 'Total orders']) {
    const value = card(label).getByTestId('kpi-value');
    await expect(value).not.toHaveText('—');
    await expect(value).toHaveText(/\d/);
  }
  await expect(card('Net sales').getByTestId('kpi-value')).toHaveText(/£/);
  await expect(page.getByTestId('today-card')).toBeVisible();
  await expect(drawnChart(page, 'net-sales-trend')).toBeVisible();
  await expect(page.getByTestId('marketing-performance').getByTestId('channel-row').first()).toBeVisible();

  // A preset changes the URL and the figures; a reload keeps them.
  const last30 = await netSalesText(page);
  await page.getByTestId('range-preset').selectOption('last_7_days');
  await expect(page).toHaveURL(/from=\d{4}-\d{2}-\d{2}&to=\d{4}-\d{2}-\d{2}/);
  await expect.poll(() => netSalesText(page)).not.toBe(last30);
  const last7 = await netSalesText(page);
  await page.reload();
  await expect(page.getByTestId('range-preset')).toHaveValue('last_7_days');
  await expect.poll(() => netSalesText(page)).toBe(last7);

  // A custom range is checked before it is used.
  await page.getByTestId('range-preset').selectOption('custom');
  await page.getByTestId('custom-range').getByLabel('From').fill('2026-03-10');
  await page.getByTestId('custom-range').getByLabel('To').fill('2026-03-01');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'The start date must not be after the end date.' })).toBeVisible();

  // All stores: this one and the total row.
  await page.goto('/dashboards');
  const rows = page.getByTestId('store-row');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(store.name);
  await expect(page.getByTestId('total-row')).toContainText('Total');
  await expect(page.getByTestId('total-row')).toContainText('£');
  await expect(drawnChart(page, 'stores-chart')).toBeVisible();
  await page.getByTestId('display-currency').selectOption('USD');
  await expect(page).toHaveURL(/currency=USD/);
  await expect(page.getByTestId('total-row')).toContainText('$');
  await expect(page.getByTestId('total-row')).not.toContainText('£');
});

for (const theme of ['light', 'dark'] as const) {
  test(`dashboard screenshots (${theme})`, async ({ page }) => {
    test.skip(!SCREENSHOT_DIR, 'screenshots only with SCREENSHOTS_DIR');
    mkdirSync(SCREENSHOT_DIR!, { recursive: true });
    await useTheme(page, theme);
    await registerInPage(page, `dashshot${theme}`);
    await startTrial(page.request, 'business');
    await createStore(page.request, 'Trail Supply Co');
    await loadDemoThroughTheButton(page);
    const second = await createStore(page.request, 'Northwind Outfitters');
    expect((await page.request.post('/api/stores/active', { data: { storeId: second.id } })).status()).toBe(200);
    expect((await page.request.post('/trpc/demo.load', { data: {}, ...UNTIL_DONE })).status()).toBe(200);

    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      await page.goto('/dashboard');
      await expect(page.getByTestId('kpi-card')).toHaveCount(9);
      await expect(drawnChart(page, 'net-sales-trend')).toBeVisible();
      await screenSettled(page);
      await page.screenshot({ path: `${SCREENSHOT_DIR}/dashboard-${viewport.name}-${theme}.png`, fullPage: true });

      await page.goto('/dashboards');
      await expect(page.getByTestId('total-row')).toBeVisible();
      await expect(drawnChart(page, 'stores-chart')).toBeVisible();
      await screenSettled(page);
      await page.screenshot({ path: `${SCREENSHOT_DIR}/dashboards-${viewport.name}-${theme}.png`, fullPage: true });
    }
  });
}
