import { expect, type Page } from '@playwright/test';
import { startLandingPageSite, type LandingPageSite } from '../test/fakes/landing-page-site.ts';
import { createStore, register, startTrial, test } from './account-helpers.ts';
import { distinctAddress, registered, screenshots, signedInAdmin } from './admin-helpers.ts';
import { E2E_PORT } from './integration-fakes-env.ts';
import { applyTheme, database } from './shell-helpers.ts';
import { UNTIL_DONE } from './waits.ts';

// The landing page reviewer: a review started from the screen on a loopback shop page (served on
// E2E_PORT + 1; the server's outbound allow-list names 127.0.0.1 for the fakes) lands on its detail
// page with the findings; the history re-runs (compared with the previous review) and deletes with a
// confirmation. The tools guard: a basic plan and an admin in guest mode are sent to /, and the
// procedures refuse them. With SCREENSHOTS_DIR set, both screens at 1280 and 390 px, light and dark.

let site: LandingPageSite;

test.beforeAll(async () => {
  site = await startLandingPageSite(E2E_PORT + 1);
});
test.afterAll(async () => {
  await site?.close();
});

async function reviewDone(page: Page): Promise<void> {
  await expect(page.getByTestId('review-detail')).toHaveAttribute('data-state', 'done', UNTIL_DONE);
}

/** Screenshots of a state that does not survive a reload (a running review): the theme and width change in place. */
async function screenshotsInPlace(page: Page, name: string): Promise<void> {
  for (const theme of ['light', 'dark'] as const) {
    await applyTheme(page, theme);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await page.screenshot({ path: `${process.env.SCREENSHOTS_DIR}/${name}-${width}-${theme}.png`, fullPage: true });
    }
  }
  await page.setViewportSize({ width: 1280, height: 720 });
}

test('a review started from the screen lands on its detail page with the findings, and the history re-runs and deletes it', async ({ page }) => {
  await register(page.request, 'reviewer');
  await startTrial(page.request, 'business');
  await createStore(page.request, 'Review Shop');
  await page.goto('/landing-page-reviewer');
  await expect(page.getByRole('heading', { level: 1, name: 'Page Reviewer' })).toBeVisible();
  await expect(page.getByTestId('review-history-card')).toContainText('No landing pages reviewed yet');
  // A store without advertising campaigns is offered no campaign to pick.
  await expect(page.getByLabel('Campaign this page is for (optional)')).toHaveCount(0);
  if (process.env.SCREENSHOTS_DIR) await screenshots(page, 'page-reviewer-empty', async (shown) => expect(shown.getByTestId('review-history-card')).toContainText('No landing pages reviewed yet'));

  const address = page.getByLabel('Page address');
  await address.fill('shop.example/product');
  await page.getByRole('button', { name: 'Review page' }).click();
  await expect(page.getByRole('alert')).toHaveText('Enter a full web address starting with http:// or https://.');
  await expect(address).toHaveValue('shop.example/product');

  await address.fill(`${site.origin}/weak`);
  await page.getByRole('button', { name: 'Review page' }).click();
  await expect(page).toHaveURL(/\/landing-page-reviewer\/\d+$/);
  await reviewDone(page);
  const firstUrl = page.url();

  const finding = (code: string) => page.getByTestId(`finding-${code}`);
  await expect(finding('h1')).toHaveAttribute('data-severity', 'high');
  await expect(finding('h1')).toContainText('One main heading (H1)');
  await expect(finding('h1')).toContainText('Use exactly one H1');
  await expect(finding('product_jsonld')).toHaveAttribute('data-severity', 'high');
  await expect(finding('lcp')).toHaveAttribute('data-severity', 'high');
  await expect(page.getByTestId('findings-performance')).toContainText('Largest Contentful Paint');
  await expect(page.getByTestId('review-scores')).toContainText('The first review of this address');
  await expect(page.getByTestId('review-ai')).toContainText('AI suggestions are not configured. Set LLM_BASE_URL and LLM_MODEL');
  const shot = page.getByTestId('review-screenshots').getByRole('img').first();
  await expect.poll(() => shot.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth)).toBeGreaterThan(0);

  // Only the passed checks.
  await page.getByLabel('Show').selectOption('pass');
  await expect(finding('h1')).toHaveCount(0);
  await expect(finding('viewport_meta')).toHaveAttribute('data-severity', 'pass');

  if (process.env.SCREENSHOTS_DIR) await screenshots(page, 'page-review-detail', reviewDone);

  // Printed (Print / PDF): the report alone, without the app's navigation and buttons.
  await page.emulateMedia({ media: 'print' });
  await expect(page.getByTestId('sidebar')).toBeHidden();
  await expect(page.getByTestId('app-header')).toBeHidden();
  await expect(page.getByRole('button', { name: 'Print / PDF' })).toBeHidden();
  await expect(page.getByTestId('review-findings')).toBeVisible();
  if (process.env.SCREENSHOTS_DIR) await page.screenshot({ path: `${process.env.SCREENSHOTS_DIR}/page-review-detail-print.png`, fullPage: true });
  await page.emulateMedia({ media: 'screen' });

  // Print / PDF prints in the light theme and gives the screen its dark theme back afterwards.
  await page.evaluate(() => window.localStorage.setItem('theme', 'dark'));
  await page.reload();
  await reviewDone(page);
  const root = page.locator('html');
  await expect(root).toHaveAttribute('data-theme', 'dark');
  await page.evaluate(() => {
    window.print = () => {
      document.documentElement.dataset.themeWhilePrinting = document.documentElement.dataset.theme;
    };
  });
  await page.getByRole('button', { name: 'Print / PDF' }).click();
  await expect(root).toHaveAttribute('data-theme-while-printing', 'light');
  await expect(root).toHaveAttribute('data-theme', 'light');
  await page.evaluate(() => window.dispatchEvent(new Event('afterprint')));
  await expect(root).toHaveAttribute('data-theme', 'dark');

  // A re-run is a new review of the same address, compared with the first.
  await page.getByRole('button', { name: 'Re-run review' }).click();
  await expect(page).not.toHaveURL(firstUrl);
  await reviewDone(page);
  await expect(page.getByTestId('review-scores')).toContainText('Compared with the review of');
  if (process.env.SCREENSHOTS_DIR) await screenshots(page, 'page-review-compared', reviewDone);

  await page.getByRole('link', { name: 'All reviews' }).click();
  const rows = page.getByTestId('review-history').locator('tbody tr');
  await expect(rows).toHaveCount(2);
  await expect(rows.first()).toContainText('Done');
  if (process.env.SCREENSHOTS_DIR) await screenshots(page, 'page-reviewer', async (shown) => expect(shown.getByTestId('review-history').locator('tbody tr')).toHaveCount(2));

  await rows.last().getByRole('button', { name: /^Delete:/ }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog).toContainText('Delete this review?');
  await dialog.getByRole('button', { name: 'Delete' }).click();
  await expect(rows).toHaveCount(1);
  await page.goto(firstUrl);
  await expect(page.getByTestId('review-detail')).toContainText('This review does not exist, or it belongs to another store.');
});

/** An advertising campaign of the store, as a platform's daily figures bring it in. */
async function insertCampaign(storeId: number, campaignId: string, name: string): Promise<void> {
  const client = await database();
  try {
    await client.query(
      `insert into ad_metrics_daily (store_id, platform, account_id, campaign_id, day, campaign_name, currency) values ($1, 'googleads', 'acc-1', $2, current_date, $3, 'EUR')`,
      [storeId, campaignId, name],
    );
  } finally {
    await client.end();
  }
}

test('a review for one of the store\'s campaigns shows its progress while it runs, and why it failed when the page never answers', async ({ page }) => {
  await register(page.request, 'heldrev');
  await startTrial(page.request, 'business');
  const store = await createStore(page.request, 'Held Shop');
  await insertCampaign(store.id, 'cmp-7', 'Winter sale');
  await page.goto('/landing-page-reviewer');
  if (process.env.SCREENSHOTS_DIR) await screenshots(page, 'page-reviewer-campaign-form', async (shown) => expect(shown.getByLabel('Campaign this page is for (optional)')).toBeVisible());
  await page.getByLabel('Page address').fill(`${site.origin}/held`);
  await page.getByLabel('Campaign this page is for (optional)').selectOption({ label: 'Winter sale (Google Ads)' });
  await page.getByRole('button', { name: 'Review page' }).click();
  const detail = page.getByTestId('review-detail');
  await expect(detail).toHaveAttribute('data-state', 'running');
  await expect(detail).toContainText('Campaign: Winter sale (Google Ads)');
  await expect(detail.getByTestId('review-progress')).toContainText('Fetching the page… 5%');
  await expect(detail).toContainText('Started ');
  if (process.env.SCREENSHOTS_DIR) await screenshotsInPlace(page, 'page-review-running');

  await expect(detail).toHaveAttribute('data-state', 'failed', UNTIL_DONE);
  await expect(detail.getByRole('alert')).toContainText('The review failed');
  await expect(detail).toContainText('Reviewed ');
  await expect(page.getByRole('button', { name: 'Print / PDF' })).toHaveCount(0);
  if (process.env.SCREENSHOTS_DIR) await screenshots(page, 'page-review-failed', async (shown) => expect(shown.getByTestId('review-detail')).toHaveAttribute('data-state', 'failed'));
  await page.getByRole('link', { name: 'All reviews' }).click();
  const row = page.getByTestId('review-history').locator('tbody tr');
  await expect(row).toContainText('Failed');
  await expect(row).toContainText('Campaign: Winter sale (Google Ads)');
});

test('a basic plan is sent from the reviewer to /, and its procedures refuse it', async ({ page }) => {
  await register(page.request, 'basicrev');
  await startTrial(page.request, 'basic');
  await createStore(page.request, 'Basic Shop');
  for (const path of ['/landing-page-reviewer', '/landing-page-reviewer/1']) {
    await page.goto(path);
    await expect(page).toHaveURL(/\/dashboard$/);
  }
  expect((await page.request.get('/trpc/pageReviewer.list')).status()).toBe(403);
});

// The admin's own right to the tools ends in guest mode: viewing a basic-plan user, the admin has that user's rights.
test('an admin in guest mode has no tools: the route redirects and the procedures refuse', async ({ page, browser }) => {
  const userContext = await browser.newContext({ extraHTTPHeaders: distinctAddress() });
  const viewed = await registered(userContext.request, 'viewedrev');
  await startTrial(userContext.request, 'basic');
  await createStore(userContext.request, 'Viewed Shop');
  await userContext.close();

  await signedInAdmin(page);
  await createStore(page.request, 'Admin Shop');
  await page.goto('/landing-page-reviewer');
  await expect(page.getByRole('heading', { level: 1, name: 'Page Reviewer' })).toBeVisible();
  const entered = await page.request.post('/api/admin/enter-guest-mode', { data: { userId: viewed.id } });
  expect(entered.status(), await entered.text()).toBe(200);
  await page.goto('/landing-page-reviewer');
  await expect(page).toHaveURL(/\/dashboard$/);
  expect((await page.request.get('/trpc/pageReviewer.list')).status()).toBe(403);
  expect((await page.request.post('/trpc/pageReviewer.start', { data: { url: `${site.origin}/weak` } })).status()).toBe(403);
});
