import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { startCompetitorShop, type CompetitorShop } from '../test/fakes/competitor-shop.ts';
import { E2E_PORT } from './integration-fakes-env.ts';
import { actAsDistinctClient, applyTheme, createStore, grantPlan, registerInPage } from './shell-helpers.ts';

// The competitor price tracker's journey against a loopback competitor shop (test/fakes/competitor-shop.ts;
// the server allows 127.0.0.1 through OUTBOUND_ALLOW_HOSTS): add a page, see its price, the shop
// changes its price, check now, see the new price and the alert, export CSV.

test.use({ timezoneId: 'UTC' });
test.beforeEach(async ({ page }) => actAsDistinctClient(page));

let shop: CompetitorShop;
test.beforeAll(async () => {
  // A port of this run's own (E2E_PORT + 1), so suites side by side do not collide.
  shop = await startCompetitorShop(E2E_PORT + 1);
});
test.afterAll(async () => {
  await shop?.close();
});

test('add a competitor page, see its price, the price drops, check now: the new price and an alert; CSV export', async ({ page }) => {
  // Each check of the same domain waits for the pacer (one request per domain per 10 s).
  test.setTimeout(180_000);
  const { username } = await registerInPage(page, 'prices');
  grantPlan(username, 'professional');
  await createStore(page.request, 'Price Store');
  shop.offers.set('/p/journey', { markup: 'json_ld', offer: { priceMinor: 4_990, currency: 'GBP', inStock: true } });

  await page.goto('/price-tracker');
  await expect(page.getByRole('heading', { level: 1, name: 'Price Tracker' })).toBeVisible();
  await expect(page.getByTestId('empty-state')).toContainText('No products tracked yet');

  const form = page.getByTestId('add-competitor-form');
  await form.getByLabel('Competitor product page').fill(shop.url('/p/journey'));
  await form.getByLabel("Your product's name").fill('Moka pot');
  await form.getByLabel('Your price (store currency)').fill('49.90');
  await form.getByLabel('Alert when cheaper by more than (%)').fill('10');
  await form.getByRole('button', { name: 'Add and check' }).click();

  const row = page.getByTestId('competitor-row');
  await expect(row).toHaveAttribute('data-status', 'ok');
  await expect(row.getByTestId('competitor-price')).toHaveText('£49.90');
  await expect(row.getByTestId('competitor-difference')).toHaveText('0.0 %');
  await expect(page.getByTestId('own-price')).toHaveText('£49.90');
  await expect(page.getByTestId('price-alerts')).toHaveCount(0);

  // The shop drops its price by 20 %.
  shop.offers.set('/p/journey', { markup: 'json_ld', offer: { priceMinor: 3_990, currency: 'GBP', inStock: true } });
  await row.getByTestId('check-now').click();
  await expect(row.getByTestId('competitor-price')).toHaveText('£39.90', { timeout: 30_000 });
  await expect(row.getByTestId('competitor-difference')).toHaveText('-20.0 %');
  const alert = page.getByTestId('price-alert');
  await expect(alert).toHaveAttribute('data-kind', 'undercut');
  await expect(alert).toContainText('sells Moka pot for £39.90, 20.0 % below your price');

  // The history chart draws own vs competitor.
  await page.getByRole('button', { name: 'Show price history' }).click();
  await expect(page.getByTestId('price-history-chart')).toHaveAttribute('data-chart-status', 'ready');

  // A page that blocks nothing but has no price says so in words.
  await form.getByLabel('Competitor product page').fill(shop.url('/no-price'));
  await form.getByLabel("Your product's name").fill('Moka pot');
  await form.getByLabel('Your price (store currency)').fill('49.90');
  await form.getByRole('button', { name: 'Add and check' }).click();
  const failed = page.locator('[data-testid="competitor-row"][data-status="error"]');
  await expect(failed).toContainText('No price found', { timeout: 30_000 });
  await expect(failed.getByTestId('competitor-error')).toContainText('Set a CSS selector');

  const downloading = page.waitForEvent('download');
  await page.getByTestId('export-csv').click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^price-tracker-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = await readFile(await download.path(), 'utf8');
  expect(csv).toContain(`Moka pot,49.90,${shop.url('/p/journey')},39.90,GBP,39.90,-20,in_stock,ok`);

  // Bulk add: a result per line at once; the new pages are checked by the background job, one per 10 s
  // for this one shop, and each row shows "Checking…" until its price lands.
  await page.getByRole('button', { name: 'Bulk add' }).click();
  const bulk = page.getByTestId('bulk-add-dialog');
  await bulk.getByLabel('Addresses, one per line').fill([shop.url('/p/microdata'), shop.url('/p/open_graph'), 'not a url', shop.url('/p/journey')].join('\n'));
  await bulk.getByLabel("Your product's name").fill('Moka pot');
  await bulk.getByLabel('Your price (store currency)').fill('49.90');
  await bulk.getByRole('button', { name: 'Add 4 pages' }).click();
  const results = bulk.getByTestId('bulk-results').getByRole('listitem');
  await expect(results).toHaveText([/^Added.*\/p\/microdata/, /^Added.*\/p\/open_graph/, /^Invalid address\s*not a url/, /^Already tracked.*\/p\/journey/]);
  await expect(bulk.getByTestId('bulk-checking-note')).toContainText('checked in the background');
  const directory = process.env.SCREENSHOTS_DIR;
  if (directory) await page.screenshot({ path: path.join(directory, 'price-tracker-bulk-results.png') });
  await bulk.getByRole('button', { name: 'Close' }).click();
  await expect(page.getByTestId('competitor-row')).toHaveCount(4);
  // The second page of the shop waits 10 s behind the first: it is seen checking.
  const openGraphRow = page.getByTestId('competitor-row').filter({ hasText: '/p/open_graph' });
  await expect(openGraphRow).toHaveAttribute('data-status', 'pending');
  await expect(openGraphRow.getByTestId('competitor-checking')).toHaveText('Checking…');
  if (directory) await page.getByTestId('tracked-product').screenshot({ path: path.join(directory, 'price-tracker-checking.png') });
  for (const path of ['/p/microdata', '/p/open_graph']) {
    const bulkRow = page.getByTestId('competitor-row').filter({ hasText: path });
    await expect(bulkRow, path).toHaveAttribute('data-status', 'ok', { timeout: 45_000 });
    await expect(bulkRow.getByTestId('competitor-price')).toContainText('€1,299.00');
  }

  // Delete asks first.
  await failed.getByRole('button', { name: 'Stop tracking' }).click();
  const confirm = page.getByRole('dialog', { name: 'Stop tracking this page?' });
  await expect(confirm).toContainText(shop.url('/no-price'));
  await confirm.getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByTestId('competitor-row')).toHaveCount(3);

  // The dashboard notifies of the open alert and leads to the tracker.
  await page.goto('/dashboard');
  const notice = page.getByTestId('dashboard-price-alerts');
  await expect(notice).toContainText('1 competitor price alert to look at');
  await notice.getByRole('link', { name: 'Open the price tracker' }).click();
  await expect(page).toHaveURL(/\/price-tracker$/);
  await expect(page.getByTestId('price-alert')).toHaveCount(1);

  if (directory) {
    for (const theme of ['light', 'dark'] as const) {
      for (const width of [1280, 390]) {
        // A fresh load at each width, so the chart is drawn for it (not resized from the last one).
        await page.setViewportSize({ width, height: 900 });
        await page.reload();
        await applyTheme(page, theme);
        await page.getByRole('button', { name: 'Show price history' }).click();
        await expect(page.getByTestId('price-history-chart')).toHaveAttribute('data-chart-status', 'ready');
        // From the top, so the sticky header is where a visitor sees it.
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({ path: path.join(directory, `price-tracker-${theme}-${width}.png`), fullPage: true });
      }
    }
  }
});
