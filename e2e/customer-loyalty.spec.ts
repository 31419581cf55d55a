import { expect, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { createStore, register, startTrial, test } from './account-helpers.ts';
import { loadDemoData, screenSettled } from './waits.ts';

// /customer-loyalty for a demo store: the cohort-retention heat-map shows the months of first
// orders, month 0 is 100 % in every cohort, later months are shares well below it, and hovering or
// focusing a cell shows its cohort size and revenue per customer. Reached from the Analytics tabs.
// With SCREENSHOTS_DIR set, screenshots at 1280 and 390 px in light and dark.

async function demoStore(page: Page, prefix: string): Promise<void> {
  await register(page.request, prefix);
  await startTrial(page.request, 'business');
  await createStore(page.request, 'Loyalty Demo');
  await page.goto('/dashboard');
  await loadDemoData(page);
}

const percent = (text: string | null) => Number((text ?? '').replace(/[^\d.]/g, ''));

test('cohort retention: the demo store’s cohorts, month 0 at 100 %, a cell’s numbers on hover and focus', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await demoStore(page, 'loyalty');
  await page.goto('/analytics');
  await page.getByRole('link', { name: 'Customer loyalty' }).click();
  await expect(page).toHaveURL(/\/customer-loyalty$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Customer loyalty' })).toBeVisible();
  const section = page.getByTestId('retention');
  await expect(section.getByRole('heading', { name: 'Cohort retention' })).toBeVisible();

  // The demo's year: 12 first-order months with customers, each starting at 100 %.
  const rows = section.getByTestId('retention-row');
  await expect(rows).toHaveCount(12);
  for (const customers of await section.getByTestId('retention-customers').allTextContents()) expect(Number(customers.replace(/[^\d]/g, ''))).toBeGreaterThan(100);
  const firstMonths = await section.locator('[data-testid="retention-cell"][data-months-since="0"]').allTextContents();
  expect(firstMonths).toHaveLength(12);
  expect(firstMonths.every((text) => text === '100%'), firstMonths.join(' ')).toBe(true);
  // The oldest cohort has 12 months; its later months are repeat buyers: more than none, far fewer than all.
  const oldest = rows.first().getByTestId('retention-cell');
  await expect(oldest).toHaveCount(12);
  const later = (await oldest.allTextContents()).slice(1).map(percent);
  expect(later.every((value) => value > 0 && value < 40), later.join(' ')).toBe(true);

  // Hover: the detail line names the cell's cohort size, customers and revenue per customer.
  const detail = section.getByTestId('retention-detail');
  await oldest.nth(2).hover();
  await expect(detail).toHaveText(/cohort, month 2: [\d.]+% ordered \(\d+ of [\d,]+ customers\), £[\d,.]+ revenue per customer/);
  const size = (await rows.first().getByTestId('retention-customers').textContent())!;
  await expect(detail).toContainText(`of ${size} customers`);
  // Keyboard: focus reaches the cells and the detail follows.
  await oldest.nth(1).focus();
  await expect(detail).toContainText('month 1:');
  await page.keyboard.press('Tab');
  await expect(oldest.nth(2)).toBeFocused();
  await expect(detail).toContainText('month 2:');
  await expect(oldest.nth(2)).toHaveAttribute('aria-label', /month 2: .* revenue per customer/);

  // Months without new customers: the empty state.
  await section.getByTestId('retention-from').fill('2001-01');
  await section.getByTestId('retention-to').fill('2001-03');
  await expect(section.getByRole('heading', { name: 'No new customers in these months' })).toBeVisible();
});

const directory = process.env.SCREENSHOTS_DIR;

test('customer loyalty screenshots at 1280 and 390 px, light and dark', async ({ page }) => {
  test.skip(!directory, 'Set SCREENSHOTS_DIR to take the customer loyalty screenshots');
  mkdirSync(directory!, { recursive: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  await demoStore(page, 'loyaltyshots');
  await page.goto('/customer-loyalty');
  for (const theme of ['light', 'dark'] as const) {
    for (const [size, viewport] of [['1280', { width: 1280, height: 900 }], ['390', { width: 390, height: 844 }]] as const) {
      await page.evaluate((value) => localStorage.setItem('theme', value), theme);
      await page.setViewportSize(viewport);
      await page.reload();
      await expect(page.getByTestId('retention-row')).toHaveCount(12);
      await page.getByTestId('retention-cell').nth(3).hover();
      await screenSettled(page);
      await page.screenshot({ path: path.join(directory!, `customer-loyalty-${size}-${theme}.png`), fullPage: true });
    }
  }
});
