import { expect, type Page } from '@playwright/test';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createStore, deleteAfterCancelling, register, startTrial, test } from './account-helpers.ts';
import { drawnChart, loadDemoData, screenSettled } from './waits.ts';

// The profit-and-loss journey on a demo store: the statement, a COGS edit applied to past orders
// (gross and net profit fall by exactly units x the cost increase), a custom expense (net profit
// falls by its amount) and the CSV export. With SCREENSHOTS_DIR set, screenshots at 1280 and 390 px
// in light and dark.

async function demoStore(page: Page, prefix: string): Promise<void> {
  await register(page.request, prefix);
  await startTrial(page.request, 'professional');
  await createStore(page.request, 'Finance Demo');
  await page.goto('/profit-and-loss');
  await loadDemoData(page);
  await expect(page.getByTestId('pnl-statement')).toBeVisible();
}

/** The totals column of a line, in minor units. */
async function total(page: Page, line: string): Promise<number> {
  const cell = page.getByTestId(`pnl-total-${line}`);
  await expect(cell).not.toHaveAttribute('data-value', '');
  return Number(await cell.getAttribute('data-value'));
}

function addMonths(month: string, count: number): string {
  const [year, m] = month.split('-').map(Number) as [number, number];
  const index = year * 12 + m - 1 + count;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
}

test('P&L: the statement of a demo store; a higher COGS and a new expense lower the profit by exactly their amounts; CSV export', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await demoStore(page, 'pnldemo');

  // Every month of the demo (24 months up to this one), so every past order line is in the statement.
  const lastMonth = await page.getByTestId('pnl-to').inputValue();
  await page.getByTestId('pnl-from').selectOption(addMonths(lastMonth, -23));
  await expect(page).toHaveURL(new RegExp(`from=${addMonths(lastMonth, -23)}`));
  const statement = page.getByTestId('pnl-statement');
  // The statement of these 24 months has arrived: a column per month between the line names and the
  // totals, and no fetch under way (the previous range stays on screen meanwhile).
  await expect(statement.locator('thead th')).toHaveCount(1 + 24 + 1);
  await expect(page.locator('[aria-busy="false"]', { has: statement })).toBeVisible();
  for (const line of ['netSales', 'cogs', 'grossProfit', 'paymentFees', 'contributionMargin', 'netProfit', 'marginPercent']) {
    await expect(statement.locator(`tr[data-line="${line}"]`)).toBeVisible();
  }
  await expect.poll(() => total(page, 'netSales')).toBeGreaterThan(0);
  await expect(drawnChart(page, 'pnl-chart')).toBeVisible();
  const grossBefore = await total(page, 'grossProfit');
  const netBefore = await total(page, 'netProfit');

  // The best seller's unit cost goes up by 1.00, applied to past orders.
  const row = page.getByTestId('product-row').first();
  const input = row.getByTestId('cost-input');
  const oldCost = Number((await input.inputValue()) || '0');
  await expect(page.getByTestId('apply-past-orders')).toBeChecked();
  await input.fill((oldCost + 1).toFixed(2));
  await row.getByTestId('cost-save').click();
  const toast = page.getByText(/unit(s)? in past orders re-costed/);
  await expect(toast).toBeVisible();
  const units = Number(/(\d+) units? in past orders/.exec((await toast.textContent()) ?? '')![1]);
  expect(units).toBeGreaterThan(0);
  await expect.poll(() => total(page, 'grossProfit')).toBe(grossBefore - units * 100);
  expect(await total(page, 'netProfit')).toBe(netBefore - units * 100);

  // A one-off expense of £1,234.56 today.
  const netAfterCogs = await total(page, 'netProfit');
  await page.getByTestId('add-expense').click();
  const form = page.getByTestId('expense-form');
  await form.getByRole('button', { name: 'Save expense' }).click();
  await expect(form.getByText('Enter a name (up to 120 characters).')).toBeVisible();
  await form.getByLabel('Name', { exact: true }).fill('Trade fair stand');
  await form.getByLabel('Category', { exact: true }).fill('Events');
  await form.getByLabel('Amount').fill('1234.56');
  await form.getByLabel('One-off').check();
  await form.getByLabel('Date').fill(new Date().toISOString().slice(0, 10));
  await form.getByRole('button', { name: 'Save expense' }).click();
  await expect(page.getByText('Expense added')).toBeVisible();
  await expect(page.getByTestId('expense-row').filter({ hasText: 'Trade fair stand' })).toBeVisible();
  await expect.poll(() => total(page, 'netProfit')).toBe(netAfterCogs - 123_456);
  expect(await total(page, 'customExpenses')).toBe(-123_456);

  // The CSV holds the same statement.
  const download = page.waitForEvent('download');
  await page.getByTestId('pnl-export').click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^profit-and-loss-\d{4}-\d{2}-to-\d{4}-\d{2}\.csv$/);
  const lines = readFileSync((await file.path())!, 'utf8').trimEnd().split('\r\n');
  expect(lines[0]).toMatch(/^Line \(GBP\),\d{4}-\d{2},/);
  expect(lines[0]!.split(',')).toHaveLength(1 + 24 + 1);
  const netProfitLine = lines.find((line) => line.startsWith('Net profit,'))!;
  expect(netProfitLine.split(',').at(-1)).toBe(((netAfterCogs - 123_456) / 100).toFixed(2));

  // Deleting the expense asks first; cancelled, it stays; confirmed, the profit is back.
  const expenseRow = page.getByTestId('expense-row').filter({ hasText: 'Trade fair stand' });
  await deleteAfterCancelling(page, {
    deleteButton: expenseRow.getByRole('button', { name: 'Delete Trade fair stand' }),
    dialogName: 'Delete the expense “Trade fair stand”?',
    confirmLabel: 'Delete expense',
    item: expenseRow,
  });
  await expect(page.getByText('Expense deleted')).toBeVisible();
  await expect(expenseRow).toHaveCount(0);
  await expect.poll(() => total(page, 'netProfit')).toBe(netAfterCogs);
});

const directory = process.env.SCREENSHOTS_DIR;

test('P&L screenshots at 1280 and 390 px, light and dark', async ({ page }) => {
  test.skip(!directory, 'Set SCREENSHOTS_DIR to take the P&L screenshots');
  mkdirSync(directory!, { recursive: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  await demoStore(page, 'pnlshots');
  for (const theme of ['light', 'dark'] as const) {
    for (const [size, viewport] of [['1280', { width: 1280, height: 900 }], ['390', { width: 390, height: 844 }]] as const) {
      await page.evaluate((value) => localStorage.setItem('theme', value), theme);
      await page.setViewportSize(viewport);
      await page.reload();
      await expect(drawnChart(page, 'pnl-chart')).toBeVisible();
      await expect(page.getByTestId('product-row').first()).toBeVisible();
      await screenSettled(page);
      await page.screenshot({ path: path.join(directory!, `profit-and-loss-${size}-${theme}.png`), fullPage: true });
      await page.getByTestId('add-expense').click();
      const form = page.getByTestId('expense-form');
      await form.getByRole('button', { name: 'Save expense' }).click();
      await expect(form.getByText('Enter a name (up to 120 characters).')).toBeVisible();
      await screenSettled(page);
      await page.screenshot({ path: path.join(directory!, `profit-and-loss-expense-form-${size}-${theme}.png`) });
      await page.keyboard.press('Escape');
      await expect(form).toBeHidden();
    }
  }
});
