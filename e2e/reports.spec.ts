import { expect, type Page } from '@playwright/test';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createStore, deleteAfterCancelling, register, startTrial, test } from './account-helpers.ts';
import { drawnChart, loadDemoData, screenSettled } from './waits.ts';

// The reports journey on a demo store: net sales and orders by channel, its CSV (same header and
// rows as the table), saving it, finding it after a reload, scheduling it weekly. With SCREENSHOTS_DIR
// set, screenshots at 1280 and 390 px in light and dark.

async function demoStore(page: Page, prefix: string): Promise<void> {
  await register(page.request, prefix);
  await startTrial(page.request, 'professional');
  await createStore(page.request, 'Reports Demo');
  await page.goto('/reports');
  await loadDemoData(page);
}

async function buildChannelReport(page: Page): Promise<void> {
  const metrics = page.getByTestId('report-metrics');
  for (const metric of ['netSales', 'orders']) await metrics.locator(`input[data-metric="${metric}"]`).check();
  await page.getByTestId('report-dimension').selectOption('channel');
  await page.getByTestId('range-preset').selectOption('last_90_days');
  await page.getByTestId('range-compare').selectOption('none');
  await page.getByTestId('report-run').click();
  await expect(page.getByTestId('report-row').first()).toBeVisible();
}

test('reports: net sales and orders by channel, CSV like the table, saved, still there after a reload, scheduled weekly', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await demoStore(page, 'repdemo');
  await buildChannelReport(page);

  const table = page.getByTestId('report-table');
  await expect(table.locator('thead th')).toContainText(['Channel', 'Net sales', 'Orders']);
  const rows = await page.getByTestId('report-row').evaluateAll((trs) =>
    trs.map((tr) => {
      const cells = [...tr.querySelectorAll('td')];
      return { label: tr.querySelector('th')!.textContent!.trim(), netSales: Number(cells[0]!.getAttribute('data-value')), orders: Number(cells[1]!.getAttribute('data-value')) };
    }),
  );
  expect(rows.length).toBeGreaterThan(1);

  const download = page.waitForEvent('download');
  await page.getByTestId('report-export').click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^report-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv$/);
  const lines = readFileSync((await file.path())!, 'utf8').trimEnd().split('\r\n');
  const header = lines[0]!.split(',');
  expect(header).toEqual(['Channel', 'Net sales (GBP)', 'Orders']);
  const csvRows = lines.slice(1, -1).map((line) => line.split(','));
  expect(csvRows).toEqual(rows.map((row) => [row.label, (row.netSales / 100).toFixed(2), String(row.orders)]));
  expect(lines.at(-1)!.startsWith('Total,')).toBe(true);

  // Save it; it is listed, and still after a reload.
  await page.getByTestId('report-save').click();
  await expect(page.getByText('Enter a name for the report.')).toBeVisible();
  await page.getByTestId('report-name').fill('Channel mix');
  await page.getByTestId('report-save').click();
  await expect(page.getByText('Report “Channel mix” saved')).toBeVisible();
  await expect(page).toHaveURL(/report=\d+/);
  await page.reload();
  const saved = page.getByTestId('saved-report').filter({ hasText: 'Channel mix' });
  await expect(saved).toBeVisible();
  await expect(page.getByTestId('report-row').first()).toBeVisible();

  // Schedule it weekly: a recipient is required, then it shows in the list.
  await saved.getByTestId('saved-report-edit').click();
  const form = page.getByTestId('report-settings-form');
  await form.getByTestId('report-schedule').selectOption('weekly');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form.getByText('Add at least one recipient to schedule the report.')).toBeVisible();
  await form.getByTestId('report-recipients').fill('not an e-mail');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form.getByText('Enter valid e-mail addresses, separated by commas.')).toBeVisible();
  await form.getByTestId('report-recipients').fill('owner@example.com, analyst@example.com');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Report “Channel mix” updated')).toBeVisible();
  await expect(saved.getByTestId('saved-report-schedule')).toHaveText('Weekly to owner@example.com, analyst@example.com');
  await page.reload();
  await expect(page.getByTestId('saved-report').filter({ hasText: 'Channel mix' }).getByTestId('saved-report-schedule')).toContainText('Weekly to owner@example.com');

  // Deleting it asks first, and says that its e-mails stop; cancelled, it stays; confirmed, it is gone.
  await deleteAfterCancelling(page, {
    deleteButton: saved.getByRole('button', { name: 'Delete Channel mix' }),
    dialogName: 'Delete the report “Channel mix”?',
    says: 'Its scheduled e-mails stop too',
    confirmLabel: 'Delete report',
    item: saved,
  });
  await expect(page.getByText('Report deleted')).toBeVisible();
  await expect(page.getByTestId('saved-report')).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId('saved-reports')).toBeVisible();
  await expect(page.getByTestId('saved-report')).toHaveCount(0);
});

/** A column's values (data-value) in the rows' order. */
async function columnValues(page: Page, metric: string): Promise<number[]> {
  const index = await page.getByTestId('report-table').locator('thead th').evaluateAll((ths, name) => ths.findIndex((th) => th.getAttribute('data-column') === name), metric);
  return page.getByTestId('report-row').evaluateAll((trs, at) => trs.map((tr) => Number(tr.children[at]!.getAttribute('data-value'))), index);
}

/** The Total row's value of a metric. */
async function totalOf(page: Page, metric: string): Promise<string> {
  const index = await page.getByTestId('report-table').locator('thead th').evaluateAll((ths, name) => ths.findIndex((th) => th.getAttribute('data-column') === name), metric);
  return (await page.getByTestId('report-total').evaluate((tr, at) => tr.children[at]!.getAttribute('data-value'), index))!;
}

test('reports: the same Total by day and by channel, eight metrics with Δ % fit 1280 px, sortable columns, a daily schedule', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await demoStore(page, 'repsort');
  const metrics = ['netSales', 'orders', 'aov', 'spend', 'clicks', 'roas', 'mer', 'cac'];
  for (const metric of metrics) await page.getByTestId('report-metrics').locator(`input[data-metric="${metric}"]`).check();
  await page.getByTestId('range-preset').selectOption('last_30_days');
  await page.getByTestId('range-compare').selectOption('previous_period');
  const run = async (dimension: string) => {
    await page.getByTestId('report-dimension').selectOption(dimension);
    await page.getByTestId('report-run').click();
    await expect(page.getByTestId('report-table').locator('thead th').first()).toHaveText(dimension === 'day' ? 'Day' : 'Channel');
    await expect(page.getByTestId('report-row').first()).toBeVisible();
  };

  await run('day');
  const byDay = Object.fromEntries(await Promise.all(metrics.map(async (metric) => [metric, await totalOf(page, metric)])));
  expect(Number(byDay.roas)).toBeGreaterThan(0);
  // Δ % beneath the figures, no "(previous)" columns: one header per metric besides the day.
  await expect(page.getByTestId('report-table').locator('thead th')).toHaveCount(1 + metrics.length);
  await expect(page.getByTestId('report-table')).not.toContainText('(previous)');
  expect(await page.getByTestId('report-change').count()).toBeGreaterThan(metrics.length);
  await expect(page.getByTestId('report-total').getByTestId('report-change').first()).toHaveText(/^[+−-]?\d|^—$/);
  // Eight metrics fit at 1280 px: neither the table nor the page scrolls sideways.
  expect(await page.getByTestId('report-table-scroll').evaluate((box) => box.firstElementChild!.scrollWidth - box.firstElementChild!.clientWidth)).toBeLessThanOrEqual(1);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1280);

  await run('channel');
  const byChannel = Object.fromEntries(await Promise.all(metrics.map(async (metric) => [metric, await totalOf(page, metric)])));
  expect(byChannel).toEqual(byDay);

  // Sorting: net sales highest first, then lowest first; aria-sort says which.
  const header = page.getByTestId('report-table').locator('th[data-column="netSales"]');
  await expect(header).toHaveAttribute('aria-sort', 'none');
  await page.getByTestId('report-sort-netSales').click();
  await expect(header).toHaveAttribute('aria-sort', 'descending');
  const descending = await columnValues(page, 'netSales');
  expect(descending.length).toBeGreaterThan(1);
  expect(descending).toEqual([...descending].sort((a, b) => b - a));
  await page.getByTestId('report-sort-netSales').click();
  await expect(header).toHaveAttribute('aria-sort', 'ascending');
  expect(await columnValues(page, 'netSales')).toEqual([...descending].sort((a, b) => a - b));
  await page.getByTestId('report-sort-label').click();
  await expect(page.getByTestId('report-table').locator('th[data-column="label"]')).toHaveAttribute('aria-sort', 'ascending');
  await expect(header).toHaveAttribute('aria-sort', 'none');

  // A daily schedule.
  await page.getByTestId('report-name').fill('Daily channels');
  await page.getByTestId('report-save').click();
  const saved = page.getByTestId('saved-report').filter({ hasText: 'Daily channels' });
  await expect(saved).toBeVisible();
  await saved.getByTestId('saved-report-edit').click();
  const form = page.getByTestId('report-settings-form');
  await expect(form.getByTestId('report-schedule').locator('option')).toHaveText(['Not scheduled', 'Daily (every day, 08:00)', 'Weekly (Mondays, 08:00)', 'Monthly (the 1st, 08:00)']);
  await form.getByTestId('report-schedule').selectOption('daily');
  await form.getByTestId('report-recipients').fill('owner@example.com');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(saved.getByTestId('saved-report-schedule')).toHaveText('Daily to owner@example.com');
});

const directory = process.env.SCREENSHOTS_DIR;

test('reports screenshots at 1280 and 390 px, light and dark', async ({ page }) => {
  test.skip(!directory, 'Set SCREENSHOTS_DIR to take the reports screenshots');
  mkdirSync(directory!, { recursive: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  await demoStore(page, 'repshots');
  // Eight metrics with the previous period: the widest table (Δ % beneath each figure).
  await buildChannelReport(page);
  for (const metric of ['aov', 'spend', 'clicks', 'roas', 'mer', 'cac']) await page.getByTestId('report-metrics').locator(`input[data-metric="${metric}"]`).check();
  await page.getByTestId('range-compare').selectOption('previous_period');
  await page.getByTestId('report-run').click();
  await expect(page.getByTestId('report-change').first()).toBeVisible();
  await page.getByTestId('report-name').fill('Channel mix');
  await page.getByTestId('report-save').click();
  await expect(page.getByTestId('saved-report')).toHaveCount(1);
  for (const theme of ['light', 'dark'] as const) {
    for (const [size, viewport] of [['1280', { width: 1280, height: 900 }], ['390', { width: 390, height: 844 }]] as const) {
      await page.evaluate((value) => localStorage.setItem('theme', value), theme);
      await page.setViewportSize(viewport);
      await page.reload();
      await expect(drawnChart(page, 'report-chart')).toBeVisible();
      await screenSettled(page);
      await page.screenshot({ path: path.join(directory!, `reports-${size}-${theme}.png`), fullPage: true });
      // The saved report's settings with a schedule being filled in.
      await page.getByTestId('saved-report').filter({ hasText: 'Channel mix' }).getByTestId('saved-report-edit').click();
      const form = page.getByTestId('report-settings-form');
      await form.getByTestId('report-schedule').selectOption('daily');
      await form.getByTestId('report-recipients').fill('owner@example.com, analyst@example.com');
      await form.scrollIntoViewIfNeeded();
      await form.screenshot({ path: path.join(directory!, `reports-schedule-${size}-${theme}.png`) });
    }
  }
});
