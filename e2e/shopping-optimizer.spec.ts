import { expect, type Page } from '@playwright/test';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { readFileSync } from 'node:fs';
import { createStore, register, startTrial, test } from './account-helpers.ts';
import { screenshots, seriousViolations, signedInAdmin, sql } from './admin-helpers.ts';
import { startCompetitorShop } from '../test/fakes/competitor-shop.ts';
import { E2E_PORT } from './integration-fakes-env.ts';
import { loadDemoData } from './waits.ts';

// /shopping-optimizer (issue 20): an admin audits the demo store's products, accepts a suggestion in
// the product drawer, and downloads the XML feed, which parses and carries the accepted value; a
// subscriber who is not an admin sees 'Coming Soon' and the procedures refuse them.
// With SCREENSHOTS_DIR set, screenshots at 1280 and 390 px in light and dark (with the drawer open).

const auditReady = (page: Page) => page.locator('[data-testid="feed-audit"][data-state="ready"]');

test('an admin audits the demo store, accepts a suggestion and downloads an XML feed that validates and carries it', async ({ page }) => {
  await signedInAdmin(page);
  await createStore(page.request, 'Feed Demo');
  await page.goto('/shopping-optimizer');
  await expect(page.getByRole('heading', { level: 1, name: 'Shopping Optimizer' })).toBeVisible();
  await loadDemoData(page);
  await expect(auditReady(page)).toBeVisible();
  await expect(page.getByTestId('placeholder-screen')).toHaveCount(0);
  // The demo store has Google Ads shopping rows: the spend of the window, and a spend column.
  await expect(page.getByTestId('ads-note')).toHaveAttribute('data-status', 'ready');
  await expect(page.getByTestId('ads-note')).toContainText('Google Ads shopping spend of the last 30 days');
  expect(await seriousViolations(page, 'main')).toEqual([]);
  // Demo products have no description: every active product is counted under it.
  const rows = page.getByTestId('product-row');
  const total = Number(await page.getByTestId('product-count').getAttribute('data-count'));
  expect(total).toBeGreaterThan(100);
  await expect(page.getByTestId('tile-missing_description')).toContainText(`Missing description${total}`);
  // 25 a page.
  await expect(rows).toHaveCount(25);
  await expect(page.getByTestId('page-indicator')).toHaveText(`Page 1 of ${Math.ceil(total / 25)}`);

  // Search narrows the table to the matching products.
  await page.getByTestId('product-search').fill('demo-product-7');
  await expect(page.getByTestId('match-count')).toHaveText('11 products'); // 7, 70-79
  await page.getByTestId('product-search').fill('demo-product-77');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('demo-product-77');
  await page.getByTestId('product-search').fill('');
  await expect(rows).toHaveCount(25);

  // Sorted by spend, the products that cost the most come first.
  await page.getByTestId('sort-spend').click();
  await expect(page.getByTestId('sort-spend').locator('..')).toHaveAttribute('aria-sort', 'descending');
  await expect(auditReady(page)).toBeVisible();
  const spendOf = (text: string | null) => Number((text ?? '').replace(/[^\d.]/g, '') || '0');
  const spends = (await page.getByTestId('row-spend').allTextContents()).map(spendOf);
  expect(spends[0]).toBeGreaterThan(0);
  expect(spends).toEqual([...spends].sort((a, b) => b - a));
  if (process.env.SCREENSHOTS_DIR) {
    await screenshots(page, 'shopping-optimizer-by-spend', async (shot) => {
      await expect(shot.getByTestId('sort-spend').locator('..')).toHaveAttribute('aria-sort', 'descending');
      await expect(auditReady(shot)).toBeVisible();
    });
    await page.setViewportSize({ width: 1280, height: 900 });
  }
  // A shorter window spends less.
  const monthCost = Number(await page.getByTestId('ads-note').getAttribute('data-cost-minor'));
  await page.getByTestId('ads-window').selectOption('7');
  await expect(page.getByTestId('ads-note')).toContainText('of the last 7 days');
  expect(Number(await page.getByTestId('ads-note').getAttribute('data-cost-minor'))).toBeLessThan(monthCost);
  await page.getByTestId('ads-window').selectOption('30');
  await page.getByTestId('sort-score').click();
  await expect(page.getByTestId('sort-score').locator('..')).toHaveAttribute('aria-sort', 'ascending');
  await expect(auditReady(page)).toBeVisible();

  // The first product (lowest score): its drawer lists the issues and a rule suggestion for the description.
  const first = rows.first();
  const offerId = (await first.locator('.font-mono').textContent())!.trim();
  await first.getByRole('button').click();
  const drawer = page.getByTestId('product-drawer');
  await expect(drawer.getByTestId('issue-missing_description')).toBeVisible();
  expect(await seriousViolations(page, '[data-testid="product-drawer"]')).toEqual([]);
  const suggestion = drawer.getByTestId('suggestion-description');
  const field = suggestion.getByRole('textbox');
  // Edited before accepting: the stored value is the edited one.
  const accepted = `${await field.inputValue()} Soft, durable and made to last.`;
  await field.fill(accepted);
  await suggestion.getByTestId('accept-suggestion').click();
  await expect(drawer.getByTestId('drawer-overrides')).toContainText('Soft, durable and made to last.');
  await expect(drawer.getByTestId('issue-missing_description')).toHaveCount(0);
  await page.keyboard.press('Escape');
  await expect(drawer).toBeHidden();

  // The XML download: a valid RSS 2.0 document in the g: namespace, the accepted description in it.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-xml').click()]);
  const xml = readFileSync((await download.path())!, 'utf8');
  expect(XMLValidator.validate(xml)).toBe(true);
  const feed = new XMLParser({ ignoreAttributes: false, parseTagValue: false }).parse(xml);
  expect(feed.rss['@_version']).toBe('2.0');
  expect(feed.rss['@_xmlns:g']).toBe('http://base.google.com/ns/1.0');
  const items = feed.rss.channel.item as Record<string, string>[];
  expect(items).toHaveLength(total);
  const item = items.find((entry) => entry['g:id'] === offerId)!;
  expect(item['g:description']).toBe(accepted);
  for (const name of ['g:title', 'g:price', 'g:availability', 'g:condition']) expect(item[name], name).toBeTruthy();

  // The same feed at its secret address without a session (as Merchant Center fetches it).
  const feedUrl = await page.getByTestId('feed-url').inputValue();
  const anonymous = await page.request.fetch(feedUrl, { headers: { cookie: '' } });
  expect(anonymous.status()).toBe(200);

  if (process.env.SCREENSHOTS_DIR) {
    await screenshots(page, 'shopping-optimizer', async (shot) => {
      await expect(auditReady(shot)).toBeVisible();
    });
    await first.getByRole('button').click();
    await expect(drawer.getByTestId('drawer-score')).toBeVisible();
    await screenshots(page, 'shopping-optimizer-drawer', async (shot) => {
      await expect(shot.getByTestId('product-drawer').getByTestId('drawer-score')).toBeVisible();
    });
    await page.keyboard.press('Escape');
  }

  // Bulk: every rule suggestion accepted; no product lacks a description any more, and the TSV carries them.
  await page.goto('/shopping-optimizer');
  await expect(auditReady(page)).toBeVisible();
  await page.getByTestId('bulk-accept').click();
  await page.getByRole('dialog').getByRole('button', { name: 'Accept all' }).click();
  await expect(page.getByTestId('tile-missing_description')).toHaveCount(0);
  await expect(page.getByTestId('tile-missing_identifier')).toHaveCount(0);
  await expect(page.getByTestId('bulk-accept')).toBeDisabled();
  const tsv = await page.request.get((await page.getByTestId('download-tsv').getAttribute('href'))!);
  const lines = (await tsv.text()).trimEnd().split('\n');
  expect(lines).toHaveLength(total + 1);
  const header = lines[0]!.split('\t');
  expect(header).toEqual(['id', 'title', 'description', 'link', 'image_link', 'availability', 'price', 'brand', 'gtin', 'mpn', 'condition']);
  for (const line of lines.slice(1)) {
    const cells = line.split('\t');
    expect(cells).toHaveLength(header.length);
    expect(cells[header.indexOf('description')], line).not.toBe('');
    expect(cells[header.indexOf('mpn')], line).toMatch(/^SP-\d{4}$/);
  }
});

test('an admin checks the product pages of a store whose links point at a loopback shop and sees the mismatches', async ({ page }) => {
  // The pacer reads one page per domain every 10 s: four pages of one shop take about 30 s.
  test.setTimeout(180_000);
  // A port of this run's own (E2E_PORT + 1); the server allows 127.0.0.1 through OUTBOUND_ALLOW_HOSTS.
  const shop = await startCompetitorShop(E2E_PORT + 1);
  try {
    shop.offers.set('/p/match', { markup: 'json_ld', offer: { priceMinor: 4_990, currency: 'GBP', inStock: true } });
    shop.offers.set('/p/cheaper', { markup: 'json_ld', offer: { priceMinor: 3_990, currency: 'GBP', inStock: true } });
    shop.offers.set('/p/sold-out', { markup: 'json_ld', offer: { priceMinor: 4_990, currency: 'GBP', inStock: false } });
    await signedInAdmin(page);
    const store = await createStore(page.request, 'Page Check Store');
    await page.goto('/shopping-optimizer');
    await loadDemoData(page);
    // Only four products for sale, each linked (a feed override) to its page in the loopback shop.
    await sql('update products set active = false where store_id = $1', [store.id]);
    for (const [externalId, path] of [['match', '/p/match'], ['cheaper', '/p/cheaper'], ['sold-out', '/p/sold-out'], ['gone', '/p/gone']] as const) {
      await sql(
        `with product as (insert into products (store_id, platform, external_id, title, price_minor, currency, active, updated_at) values ($1, 'demo', $2, $3, 4990, 'GBP', true, now()) returning id)
         insert into shopping_feed_overrides (store_id, product_id, attribute, value, source, updated_at) select $1, id, 'link', $4, 'user', now() from product`,
        [store.id, `page-${externalId}`, `Moka Pot ${externalId}`, shop.url(path)],
      );
    }
    await page.goto('/shopping-optimizer');
    await expect(auditReady(page)).toBeVisible();
    const panel = page.getByTestId('page-check');
    await expect(panel).toHaveAttribute('data-state', 'never');
    await expect(panel.getByTestId('page-check-status')).toHaveText('Not checked yet.');

    await panel.getByRole('button', { name: 'Check product pages' }).click();
    await expect(panel).toHaveAttribute('data-state', /queued|running/);
    await expect(panel.getByTestId('check-pages')).toBeDisabled();
    await expect(panel).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
    await expect(panel.getByTestId('page-check-status')).toContainText('Last checked');
    await expect(panel.getByTestId('page-check-status')).toContainText('4 pages.');
    await expect(page.getByTestId('tile-page_price_mismatch')).toContainText('Price differs from the page1');
    await expect(page.getByTestId('tile-page_availability_mismatch')).toContainText('Availability differs from the page1');
    await expect(page.getByTestId('tile-page_error')).toContainText('Product page could not be read1');
    expect(await seriousViolations(page, 'main')).toEqual([]);

    // The drawer of the product whose page is cheaper: both prices, and the page's address.
    await page.getByTestId('product-search').fill('page-cheaper');
    // The server filters the list: the match is there once the answer is.
    await expect(page.getByTestId('product-row')).toHaveCount(1);
    await expect(page.getByTestId('product-row').first()).toContainText('page-cheaper');
    await page.getByTestId('product-row').first().getByRole('button').click();
    const drawer = page.getByTestId('product-drawer');
    const mismatch = drawer.getByTestId('issue-page_price_mismatch');
    await expect(mismatch).toContainText('Price differs from the page');
    await expect(mismatch.getByTestId('page-evidence')).toContainText('Page: £39.90 · Feed: £49.90');
    await expect(mismatch.getByRole('link', { name: shop.url('/p/cheaper') })).toBeVisible();
    await page.keyboard.press('Escape');
    await page.getByTestId('product-search').fill('page-gone');
    // The server filters the list: the match is there once the answer is.
    await expect(page.getByTestId('product-row')).toHaveCount(1);
    await expect(page.getByTestId('product-row').first()).toContainText('page-gone');
    await page.getByTestId('product-row').first().getByRole('button').click();
    await expect(drawer.getByTestId('issue-page_error').getByTestId('page-evidence')).toContainText('The page answered with HTTP error 404');
    await page.keyboard.press('Escape');
    await page.getByTestId('product-search').fill('');

    if (process.env.SCREENSHOTS_DIR) {
      await screenshots(page, 'shopping-optimizer-pages', async (shot) => {
        await expect(shot.getByTestId('page-check')).toHaveAttribute('data-state', 'done');
      });
      await page.goto(`/shopping-optimizer?product=${await productIdOf(page, 'page-sold-out')}`);
      await screenshots(page, 'shopping-optimizer-pages-drawer', async (shot) => {
        await expect(shot.getByTestId('product-drawer').getByTestId('issue-page_availability_mismatch')).toBeVisible();
      });
    }
  } finally {
    await shop.close();
  }
});

async function productIdOf(page: Page, offerId: string): Promise<number> {
  const answer = await page.request.get('/trpc/shoppingOptimizer.audit');
  const products = (await answer.json()).result.data.products as { productId: number; offerId: string }[];
  return products.find((product) => product.offerId === offerId)!.productId;
}

test("a subscriber who is not an admin sees 'Coming Soon', and the optimizer's procedures refuse them", async ({ page }) => {
  await register(page.request, 'feedpro');
  await startTrial(page.request, 'professional');
  await createStore(page.request, 'Pro Feed Store');
  await page.goto('/shopping-optimizer');
  await expect(page.getByRole('heading', { level: 1, name: 'Shopping Optimizer' })).toBeVisible();
  await expect(page.getByTestId('placeholder-screen').getByTestId('empty-state')).toContainText('Coming Soon');
  await expect(page.getByTestId('nav-shoppingOptimizer')).toContainText('Coming Soon');
  await expect(page.getByTestId('feed-panel')).toHaveCount(0);
  const refused = await page.request.get('/trpc/shoppingOptimizer.audit');
  expect(refused.status()).toBe(403);
});
