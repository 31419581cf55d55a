import { expect, type Page } from '@playwright/test';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createStore, register, startTrial, test } from './account-helpers.ts';
import { loadDemoData, screenSettled } from './waits.ts';

// Acquisition cohorts on /touchpoints for a demo store: the section shows channels with numbers, the
// campaign grouping, the months of a source, and a CSV with the same totals as the screen. With
// SCREENSHOTS_DIR set, screenshots at 1280 and 390 px in light and dark.

async function demoStore(page: Page, prefix: string): Promise<void> {
  await register(page.request, prefix);
  await startTrial(page.request, 'business');
  await createStore(page.request, 'Cohort Demo');
  await page.goto('/dashboard');
  await loadDemoData(page);
  await page.goto('/touchpoints');
}

const digits = (text: string | null) => Number((text ?? '').replace(/[^\d]/g, ''));

/** The section once the grouping's answer is on screen (not the previous grouping's, kept while loading). */
function ready(page: Page, group: 'channel' | 'campaign') {
  return page.locator(`[data-testid="cohorts-ready"][data-group="${group}"]:not(.opacity-60)`);
}

test('acquisition cohorts: channels with numbers, campaigns, a source’s months and a CSV with the same totals', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await demoStore(page, 'cohorts');
  const section = page.getByTestId('acquisition-cohorts');
  await expect(section.getByRole('heading', { name: 'Acquisition cohorts' })).toBeVisible();
  await expect(ready(page, 'channel')).toBeVisible();
  const rows = section.getByTestId('cohorts-row');
  await expect(rows.first()).toBeVisible();
  expect(await rows.count()).toBeGreaterThan(1);
  const total = digits(await section.getByTestId('cohorts-tile-customers').locator('div').nth(1).textContent());
  expect(total).toBeGreaterThan(0);
  // Every row has customers; the rows add up to the total.
  const perRow = await rows.evaluateAll((trs) => trs.map((tr) => Number((tr.querySelectorAll('td')[0]?.textContent ?? '').replace(/[^\d]/g, ''))));
  expect(perRow.every((n) => n > 0)).toBe(true);
  expect(perRow.reduce((a, b) => a + b, 0)).toBe(total);
  // The first row's 30-day LTV is an amount (the demo's oldest months have had 30 days).
  await expect(rows.first().locator('td').nth(2)).toHaveText(/\d/);
  await expect(section.getByTestId('cohorts-basis')).toContainText('Payback compares CAC with');

  // A source's months open under it.
  await rows.first().getByRole('button').click();
  await expect(section.getByTestId('cohorts-month').first()).toBeVisible();

  // The CSV: one "all" line per source with the screen's customers.
  const download = page.waitForEvent('download');
  await section.getByTestId('cohorts-export').click();
  const file = await download;
  expect(file.suggestedFilename()).toMatch(/^acquisition-cohorts-channel-\d{4}-\d{2}-\d{4}-\d{2}\.csv$/);
  const lines = readFileSync((await file.path())!, 'utf8').trimEnd().split('\n');
  expect(lines[0]).toBe('channel,campaign,month,customers,first_order_revenue,spend,cac,ltv_30,ltv_90,ltv_180,ltv_365,repeat_rate_90,repeat_rate_365,payback_days');
  const all = lines.slice(1).map((line) => line.split(',')).filter((cells) => cells[2] === 'all');
  expect(all.map((cells) => Number(cells[3]))).toEqual(perRow);
  expect(all.reduce((sum, cells) => sum + Number(cells[3]), 0)).toBe(total);

  // By campaign: the same customers, split by campaign.
  await section.getByRole('button', { name: 'Campaign' }).click();
  await expect(page).toHaveURL(/cohortGroup=campaign/);
  await expect(ready(page, 'campaign')).toBeVisible();
  const campaignRows = await section.getByTestId('cohorts-row').evaluateAll((trs) => trs.map((tr) => Number((tr.querySelectorAll('td')[0]?.textContent ?? '').replace(/[^\d]/g, ''))));
  expect(campaignRows.length).toBeGreaterThan(perRow.length);
  expect(campaignRows.reduce((a, b) => a + b, 0)).toBe(total);
});

const directory = process.env.SCREENSHOTS_DIR;

test('acquisition cohorts screenshots at 1280 and 390 px, light and dark', async ({ page }) => {
  test.skip(!directory, 'Set SCREENSHOTS_DIR to take the cohorts screenshots');
  mkdirSync(directory!, { recursive: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  await demoStore(page, 'cohortshots');
  for (const theme of ['light', 'dark'] as const) {
    for (const [size, viewport] of [['1280', { width: 1280, height: 900 }], ['390', { width: 390, height: 844 }]] as const) {
      await page.evaluate((value) => localStorage.setItem('theme', value), theme);
      await page.setViewportSize(viewport);
      await page.reload();
      await expect(ready(page, 'channel')).toBeVisible();
      await page.getByTestId('cohorts-row').first().getByRole('button').click();
      await expect(page.getByTestId('cohorts-month').first()).toBeVisible();
      await screenSettled(page);
      await page.screenshot({ path: path.join(directory!, `acquisition-cohorts-${size}-${theme}.png`), fullPage: true });
    }
  }
});
