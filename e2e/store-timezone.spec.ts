import AxeBuilder from '@axe-core/playwright';
import { expect, type Locator, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { createStore, expectToast, register, startTrial, test } from './account-helpers.ts';
import { database } from './shell-helpers.ts';
import { animationsFinished, screenSettled, UNTIL_DONE } from './waits.ts';

/**
 * A store's time zone, changed by its owner on /store-management: search the zone, Save, read what
 * will happen, confirm, watch the rebuild's progress to the end, get the success toast; the demo
 * store's orders are then on New York days. The test holds one order row locked so that the
 * rebuild stops after its first chunk: the bar is seen at exactly "5,000 of N rows" whatever the
 * machine's speed. With SCREENSHOTS_DIR set it also photographs every state at 1280 and 390 px,
 * light and dark.
 */

const SCREENSHOTS = process.env.SCREENSHOTS_DIR;
const VIEWPORTS = [
  { name: '1280', width: 1280, height: 900 },
  { name: '390', width: 390, height: 844 },
] as const;
const THEMES = ['light', 'dark'] as const;

/** The rebuild's rows per chunk (TIMEZONE_CHANGE_CHUNK_ROWS in the stores module). */
const CHUNK_ROWS = 5000;

/** Orders whose stored day is not their day in New York. */
async function ordersOffNewYorkDays(db: pg.Client, storeId: number): Promise<number> {
  const result = await db.query<{ n: number }>(
    `select count(*)::int as n from orders where store_id = $1 and placed_day <> (placed_at at time zone 'America/New_York')::date`,
    [storeId],
  );
  return result.rows[0]!.n;
}

/** Every theme and width, `prepare` run after each reload, one shot each (the whole page, or the screen for a dialog). */
async function shootEveryLook(page: Page, name: string, prepare: () => Promise<void> = async () => {}, fullPage = true): Promise<void> {
  if (!SCREENSHOTS) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  for (const theme of THEMES) {
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      await page.evaluate((value) => window.localStorage.setItem('theme', value), theme);
      await page.reload();
      await expect(page.getByTestId('store-row').first()).toBeVisible();
      await prepare();
      await screenSettled(page);
      await page.screenshot({ path: path.join(SCREENSHOTS, `store-timezone-${name}-${viewport.name}-${theme}.png`), fullPage });
    }
  }
  await page.setViewportSize(VIEWPORTS[0]);
}

/** Serious or critical axe findings (WCAG 2.1 A/AA) inside the elements matching `selector`. */
async function accessibilityProblems(page: Page, selector: string): Promise<string[]> {
  await animationsFinished(page);
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).include(selector).analyze();
  return violations.filter((found) => found.impact === 'serious' || found.impact === 'critical').map((found) => `${selector}: ${found.id}`);
}

async function openEditor(row: Locator, name: string): Promise<void> {
  await row.getByRole('button', { name: `Change the time zone of ${name}` }).click();
  await row.getByLabel('Search time zones').fill('new york');
  await expect(row.getByLabel('Time zone', { exact: true })).toHaveValue('America/New_York');
}

test('an owner changes a store to America/New_York: confirmation, progress to the total, success toast, orders on New York days', async ({ page }) => {
  await register(page.request, 'tzjourney');
  await startTrial(page.request, 'business');
  const store = await createStore(page.request, 'Trail Supply Co');
  // A year of demo orders (about 10,000) in the new store, the active one.
  const loaded = await page.request.post('/trpc/demo.load', { data: {}, ...UNTIL_DONE });
  expect(loaded.status(), await loaded.text()).toBe(200);

  const db = await database();
  try {
    const offBefore = await ordersOffNewYorkDays(db, store.id);
    // Orders placed between 00:00 and 05:00 London time (04:00 in summer) fall on the day before in New York.
    expect(offBefore).toBeGreaterThan(0);
    const [{ orders, refunds }] = (
      await db.query<{ orders: number; refunds: number }>(
        `select (select count(*) from orders where store_id = $1)::int as orders, (select count(*) from refunds where store_id = $1)::int as refunds`,
        [store.id],
      )
    ).rows as [{ orders: number; refunds: number }];
    expect(orders).toBeGreaterThan(CHUNK_ROWS);

    await page.goto('/store-management');
    const row = page.getByTestId('store-row').filter({ hasText: 'Trail Supply Co' });
    await expect(row.getByTestId('store-timezone')).toHaveText(/^Europe\/London \(UTC\+0[01]:00\)$/);
    await shootEveryLook(page, 'before');

    // The picker: search, the matching zone with its offset; Cancel leaves everything as it was.
    await openEditor(row, 'Trail Supply Co');
    await expect(row.getByLabel('Time zone', { exact: true }).locator('option:checked')).toHaveText(/^America\/New_York \(UTC\u22120[45]:00\)$/);
    expect(await accessibilityProblems(page, '[data-testid="timezone-editor"]')).toEqual([]);
    await shootEveryLook(page, 'editor', () => openEditor(row, 'Trail Supply Co'));
    await row.getByRole('button', { name: 'Save' }).click();
    const dialog = page.getByRole('dialog', { name: 'Change the time zone of Trail Supply Co?' });
    await expect(dialog).toContainText('Daily figures of this store will be recomputed in America/New_York. Ad platforms keep their own reporting days.');
    expect(await accessibilityProblems(page, 'dialog[open]')).toEqual([]);
    await shootEveryLook(page, 'confirm', async () => {
      await openEditor(row, 'Trail Supply Co');
      await row.getByRole('button', { name: 'Save' }).click();
      await expect(dialog).toBeVisible();
    }, false);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
    await expect(row.getByTestId('timezone-editor')).toBeVisible();

    // Hold the first order of the second chunk whose day moves: the rebuild stops right after
    // writing the first chunk's progress, until this transaction ends.
    await db.query('begin');
    const [held] = (
      await db.query<{ id: string }>(
        `select id::text from orders
          where store_id = $1 and placed_day <> (placed_at at time zone 'America/New_York')::date
            and id > (select id from orders where store_id = $1 order by id offset ${CHUNK_ROWS - 1} limit 1)
          order by id limit 1 for update`,
        [store.id],
      )
    ).rows;
    expect(held).toBeDefined();

    await row.getByRole('button', { name: 'Save' }).click();
    await dialog.getByRole('button', { name: 'Recompute figures' }).click();
    await expect(dialog).toBeHidden();

    const progress = row.getByTestId('timezone-progress');
    const total = orders + refunds;
    const number = new Intl.NumberFormat('en');
    await expect(progress).toContainText('Recomputing daily figures in America/New_York');
    await expect(row.getByTestId('timezone-progress-rows')).toHaveText(`${number.format(CHUNK_ROWS)} of ${number.format(total)} rows (${Math.floor((CHUNK_ROWS / total) * 100)}%)`);
    await expect(progress.locator('progress')).toHaveAttribute('value', String(Math.floor((CHUNK_ROWS / total) * 100)));
    expect(await accessibilityProblems(page, '[data-testid="store-row"]')).toEqual([]);
    // No second change while this one runs.
    await expect(row.getByRole('button', { name: 'Change the time zone of Trail Supply Co' })).toBeDisabled();
    // Until the rebuild commits, the store is still London's.
    await expect(row.getByTestId('store-timezone')).toHaveText(/^Europe\/London/);
    await shootEveryLook(page, 'progress', () => expect(row.getByTestId('timezone-progress-rows')).toBeVisible());

    await db.query('rollback');
    // The rest of the rebuild (some 10,000 rows) runs now: seconds on a quiet machine, longer on a busy one.
    await expect(page.getByTestId('toast')).toContainText('Time zone changed', UNTIL_DONE);
    await expectToast(page, 'Time zone changed', 'The daily figures of Trail Supply Co are now in America/New_York.');
    await expect(progress).toHaveCount(0);
    await expect(row.getByTestId('store-timezone')).toHaveText(/^America\/New_York \(UTC\u22120[45]:00\)$/);
    await expect(row.getByRole('button', { name: 'Change the time zone of Trail Supply Co' })).toBeEnabled();

    expect(await ordersOffNewYorkDays(db, store.id)).toBe(0);
    const change = (await db.query(`select status, rows_done, rows_total from store_timezone_changes where store_id = $1`, [store.id])).rows;
    expect(change).toEqual([{ status: 'succeeded', rows_done: total, rows_total: total }]);
    await shootEveryLook(page, 'after');
  } finally {
    await db.query('rollback').catch(() => {});
    await db.end();
  }
});
