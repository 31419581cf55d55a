import { expect, test, type Locator, type Page } from '@playwright/test';
import { invitationPathFor, otherPerson, PASSWORD, seriousViolations, sql, uniqueName } from './admin-helpers.ts';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { KlaviyoFake } from '../test/fakes/klaviyo.ts';
import { MetaAdsFake } from '../test/fakes/metaads.ts';
import { ShopifyFake } from '../test/fakes/shopify.ts';
import { FAKE_SHOPIFY_APP, INTEGRATION_FAKE_PORTS } from './integration-fakes-env.ts';
import { actAsDistinctClient, createStore, registerInPage, startTrial, useTheme } from './shell-helpers.ts';
import { screenSettled, UNTIL_DONE } from './waits.ts';

/**
 * The integrations journey against the platform fakes (test/fakes) on the fixed ports the server was
 * started with (e2e/integration-fakes-env.ts): Shopify through its consent page, then a sync with a
 * progress bar and figures on the dashboard; Meta Ads the same way with spend; Klaviyo's API key form
 * (a wrong key is refused in the form); Disconnect. With SCREENSHOTS_DIR set, /integrations at 1280
 * and 390 px in light and dark with connected cards.
 */
const SCREENSHOT_DIR = process.env.SCREENSHOTS_DIR;
const DAY_MS = 86_400_000;

let shopify: ShopifyFake;
let meta: MetaAdsFake;
let klaviyo: KlaviyoFake;

test.beforeAll(async () => {
  const now = Date.now();
  // Orders over the last 60 days, and a cost bucket small enough that the backfill takes a few
  // seconds (the fake's realistic Shopify throttling): long enough to see the progress bar.
  shopify = await new ShopifyFake({
    orders: 1500,
    currency: 'GBP',
    from: new Date(now - 60 * DAY_MS),
    to: new Date(now - 3_600_000),
    accessToken: null,
    ...FAKE_SHOPIFY_APP,
    maximumAvailable: 1000,
    restoreRate: 200,
  }).start(INTEGRATION_FAKE_PORTS.shopify);
  meta = await new MetaAdsFake({ currency: 'GBP', campaigns: 4 }).start(INTEGRATION_FAKE_PORTS.metaads);
  klaviyo = await new KlaviyoFake({
    currency: 'GBP',
    campaigns: 12,
    start: new Date(now - 90 * DAY_MS).toISOString().slice(0, 10),
    days: 90,
  }).start(INTEGRATION_FAKE_PORTS.klaviyo);
});

test.afterAll(async () => {
  await Promise.all([shopify?.close(), meta?.close(), klaviyo?.close()]);
});

test.beforeEach(async ({ page }) => actAsDistinctClient(page));

function card(page: Page, platform: string): Locator {
  return page.locator(`[data-testid="integration-card"][data-platform="${platform}"]`);
}

async function kpiValue(page: Page, label: string): Promise<string> {
  return (await page.getByRole('region', { name: 'Key figures' }).getByRole('article', { name: label, exact: true }).getByTestId('kpi-value').textContent()) ?? '';
}

/** Waits until the platform's sync has finished: no progress bar, rows synced, status Connected. */
async function expectSynced(page: Page, platform: string) {
  const entry = card(page, platform);
  await expect(entry).toHaveAttribute('data-status', 'connected', UNTIL_DONE);
  await expect(entry.getByTestId('sync-progress')).toHaveCount(0);
  await expect(entry.getByTestId('integration-rows')).not.toHaveText('0');
}

test('connect Shopify and Meta Ads through their consent pages, see the sync and the dashboard figures, connect Klaviyo by key, disconnect', async ({ page }) => {
  await registerInPage(page, 'integ');
  await startTrial(page.request, 'business');
  await createStore(page.request, 'Harbour Goods');

  await page.goto('/integrations');
  await expect(page.getByRole('heading', { name: 'Integrations', level: 1 })).toBeVisible();
  await expect(page.getByTestId('integration-card')).toHaveCount(10);
  for (const group of ['Store platforms', 'Advertising', 'E-mail']) await expect(page.getByRole('heading', { name: group, level: 2 })).toBeVisible();
  await expect(card(page, 'bingads').getByRole('heading', { name: 'Bing Ads' })).toBeVisible();
  await expect(card(page, 'shopify').getByTestId('integration-status')).toHaveText('Not connected');

  // Shopify: the store address is checked, then the fake's consent page, then back here.
  await card(page, 'shopify').getByRole('button', { name: 'Connect' }).click();
  const shopDialog = page.getByTestId('shopify-dialog');
  await shopDialog.getByLabel('Store address').fill('not a shop');
  await shopDialog.getByRole('button', { name: 'Continue to Shopify' }).click();
  await expect(shopDialog.getByText("Enter your store's address, like your-store.myshopify.com.")).toBeVisible();
  await shopDialog.getByLabel('Store address').fill(shopify.shop);
  await shopDialog.getByRole('button', { name: 'Continue to Shopify' }).click();
  await expect(page).toHaveURL(new RegExp(`^${shopify.url}/admin/oauth/authorize`));
  await expect(page.getByRole('heading', { name: 'Install StorePulse' })).toBeVisible();
  await page.getByRole('button', { name: 'Allow' }).click();

  await expect(page).toHaveURL(/\/integrations$/);
  await expect(page.getByTestId('toast').filter({ hasText: 'Shopify connected' })).toBeVisible();
  const shopifyCard = card(page, 'shopify');
  await expect(shopifyCard.getByTestId('integration-status')).toHaveText(/Connected|Syncing/);
  await expect(shopifyCard.getByTestId('sync-progress')).toBeVisible();
  await shootElement(shopifyCard, 'integrations-sync-progress');
  await expect(shopifyCard.getByTestId('integration-account')).not.toHaveText('—');
  await expectSynced(page, 'shopify');
  await expect(shopifyCard.getByTestId('integration-status')).toHaveText('Connected');
  // The comparison with Shopify's own totals is there as soon as the sync is: both sides count the
  // same orders (no test, cancelled or voided ones), so it matches.
  await expect(shopifyCard.getByTestId('reconciliation')).toHaveAttribute('data-matches', 'true');
  await expect(shopifyCard.getByTestId('reconciliation')).toContainText('Matches source');
  await expect(shopifyCard.getByTestId('integration-problem')).toHaveCount(0);

  // The dashboard now shows the shop's orders.
  await page.goto('/dashboard');
  await expect.poll(() => kpiValue(page, 'Total orders')).toMatch(/[1-9]/);
  await expect.poll(() => kpiValue(page, 'Net sales')).toMatch(/£[\d,]*[1-9]/);
  const spendBefore = await kpiValue(page, 'Marketing spend');

  // Meta Ads: straight to the fake's Facebook Login dialog.
  await page.goto('/integrations');
  await card(page, 'metaads').getByRole('button', { name: 'Connect' }).click();
  await expect(page).toHaveURL(new RegExp(`^${meta.url}/`));
  await page.getByRole('button', { name: 'Allow' }).click();
  await expect(page).toHaveURL(/\/integrations$/);
  await expect(page.getByTestId('toast').filter({ hasText: 'Meta Ads connected' })).toBeVisible();
  // The login reaches two ad accounts (GBP in Los Angeles, EUR in Berlin): nothing syncs until the owner chooses.
  const metaCard = card(page, 'metaads');
  await expect(metaCard.getByTestId('integration-status')).toHaveText('Choose accounts');
  await expect(metaCard.getByText('This login reaches 2 ad accounts: choose the ones to sync.')).toBeVisible();
  await metaCard.getByTestId('choose-accounts').click();
  const accountsDialog = page.getByTestId('accounts-dialog');
  await expect(accountsDialog.getByTestId('account-option')).toHaveCount(2);
  await expect(accountsDialog.getByTestId('account-option').filter({ hasText: 'Other brand' })).toContainText('EUR · Europe/Berlin');
  expect(await seriousViolations(page, '[data-testid="accounts-dialog"]')).toEqual([]);
  await accountsDialog.getByRole('button', { name: 'Sync 0 accounts' }).click();
  await expect(accountsDialog.getByRole('alert')).toHaveText('Choose at least one account to sync.');
  for (const option of await accountsDialog.getByTestId('account-option').all()) await option.getByRole('checkbox').check();
  await shootElement(accountsDialog.locator('.modal-box'), 'integrations-choose-accounts');
  await accountsDialog.getByRole('button', { name: 'Sync 2 accounts' }).click();
  await expect(page.getByTestId('toast').filter({ hasText: 'Meta Ads: 2 accounts are synced' })).toBeVisible();
  await expectSynced(page, 'metaads');
  await expect(metaCard.getByTestId('chosen-accounts').getByRole('listitem')).toHaveCount(2);
  // Both report their own days, not the store's (London): said so, and left unshifted.
  await expect(metaCard.getByTestId('account-timezone-note')).toContainText('not in the store');
  await shootElement(metaCard, 'integrations-meta-accounts');

  await page.goto('/dashboard');
  await expect.poll(() => kpiValue(page, 'Marketing spend')).not.toBe(spendBefore);
  await expect.poll(() => kpiValue(page, 'Marketing spend')).toMatch(/£[\d,]*[1-9]/);

  // Klaviyo: an API key form; the platform's refusal shows in the form and the typed key stays.
  await page.goto('/integrations');
  await card(page, 'klaviyo').getByRole('button', { name: 'Connect' }).click();
  const keyDialog = page.getByTestId('credentials-dialog');
  await expect(keyDialog.getByText('Settings > Account > API keys')).toBeVisible();
  expect(await seriousViolations(page, '[data-testid="credentials-dialog"]')).toEqual([]);
  await keyDialog.getByLabel('Private API key').fill('pk_wrong_key');
  await keyDialog.getByRole('button', { name: 'Check and connect' }).click();
  await expect(keyDialog.getByRole('alert')).toContainText('Klaviyo refused the private API key: it was revoked, deleted or mistyped. Create a new private key and reconnect.');
  await expect(keyDialog.getByLabel('Private API key')).toHaveValue('pk_wrong_key');
  await shootElement(keyDialog.locator('.modal-box'), 'integrations-credentials-error');
  await keyDialog.getByLabel('Private API key').fill(klaviyo.options.apiKey);
  await keyDialog.getByRole('button', { name: 'Check and connect' }).click();
  await expect(keyDialog).not.toBeVisible();
  await expect(page.getByTestId('toast').filter({ hasText: 'Klaviyo connected' })).toBeVisible();
  await expectSynced(page, 'klaviyo');

  // The generic e-mail platform: a CSV file; the parser's line errors are shown, then a clean file imports.
  await card(page, 'email').getByRole('button', { name: 'Upload CSV' }).click();
  const uploadDialog = page.getByTestId('upload-dialog');
  const header = 'day,campaign_id,campaign_name,sends,opens,clicks,orders,revenue,cost,currency';
  // Two days ago in UTC: a day the sync reads in any time zone (the store took the fake shop's zone,
  // whose "today" is still yesterday for hours after midnight UTC, and a later day is outside the window).
  const sendDay = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
  await uploadDialog.getByLabel('CSV file').setInputFiles({ name: 'brevo.csv', mimeType: 'text/csv', buffer: Buffer.from(`${header}\n${sendDay},c1,Spring sale,100,40,9,2,"12,5",1.50,GBP\n`) });
  await uploadDialog.getByRole('button', { name: 'Upload and import' }).click();
  await expect(uploadDialog.getByTestId('upload-error')).toContainText('Line 2: revenue "12,5" is not a number');
  await shootElement(uploadDialog.locator('.modal-box'), 'integrations-upload-error');
  await uploadDialog.getByLabel('CSV file').setInputFiles({ name: 'brevo.csv', mimeType: 'text/csv', buffer: Buffer.from(`${header}\n${sendDay},c1,Spring sale,100,40,9,2,125.00,1.50,GBP\n`) });
  await uploadDialog.getByRole('button', { name: 'Upload and import' }).click();
  await expect(uploadDialog).not.toBeVisible();
  await expectSynced(page, 'email');
  await expect(card(page, 'email').getByTestId('integration-account')).toHaveText('brevo.csv');

  // How much history a backfill reads is set per platform in the card's menu.
  await card(page, 'googleads').getByRole('button', { name: 'Google Ads settings' }).click();
  await card(page, 'googleads').getByLabel('History to import').selectOption('6');
  await expect(page.getByTestId('toast').filter({ hasText: 'Google Ads will import 6 months of history' })).toBeVisible();
  await page.keyboard.press('Escape');

  // A refused consent comes back as ?error=...: a toast, and the address is cleaned.
  await page.goto('/integrations?error=Meta%20Ads%20did%20not%20grant%20access%20(access_denied).');
  await expect(page.getByTestId('toast').filter({ hasText: 'Connecting failed' })).toContainText('Meta Ads did not grant access (access_denied).');
  await expect(page).toHaveURL(/\/integrations$/);

  // The header's API Connection Status lists them with a real check time.
  await page.getByRole('button', { name: 'API Connection Status' }).click();
  await expect(page.getByTestId('connection-row').filter({ hasText: 'Shopify' })).toContainText('Updated: ');
  await expect(page.getByTestId('connection-row').filter({ hasText: 'Shopify' })).not.toContainText('Just now');
  await page.keyboard.press('Escape');

  // Accessible in both themes, with connected cards and a differing comparison opened.
  const comparison = card(page, 'shopify').getByTestId('reconciliation').locator('summary');
  if (await comparison.count()) await comparison.click();
  expect(await seriousViolations(page, 'main')).toEqual([]);
  const setTheme = (theme: 'light' | 'dark') =>
    page.evaluate((value) => {
      document.documentElement.classList.remove('light', 'dark');
      document.documentElement.classList.add(value);
      document.documentElement.dataset.theme = value;
    }, theme);
  await setTheme('dark');
  expect(await seriousViolations(page, 'main')).toEqual([]);
  await setTheme('light');

  if (SCREENSHOT_DIR) await screenshots(page);

  // Disconnect Shopify: confirmed in a dialog; the card says Not connected, the data stays.
  await card(page, 'shopify').getByRole('button', { name: 'Disconnect' }).click();
  const confirm = page.getByTestId('disconnect-dialog');
  await expect(confirm.getByRole('heading', { name: 'Disconnect Shopify?' })).toBeVisible();
  await confirm.getByRole('button', { name: 'Disconnect' }).click();
  await expect(card(page, 'shopify').getByTestId('integration-status')).toHaveText('Not connected');
  await expect(card(page, 'shopify').getByRole('button', { name: 'Connect' })).toBeVisible();
  await page.goto('/dashboard');
  await expect.poll(() => kpiValue(page, 'Total orders')).toMatch(/[1-9]/);
});

test("a guest sees the store's integrations and their problems, without any button to change them", async ({ page, browser, baseURL }) => {
  await registerInPage(page, 'integowner');
  await startTrial(page.request, 'professional');
  const store = await createStore(page.request, 'Shared Integrations Co');
  await sql(
    `insert into platform_connections (store_id, platform, connected, status, account_name, rows_synced, last_sync_at, disconnect_reason, created_at)
     values ($1, 'shopify', true, 'connected', 'Shared Shop', 420, now() - interval '2 hours', null, now()),
            ($1, 'metaads', false, 'disconnected', 'Shared Ads', 99, now() - interval '3 days', 'The access token was revoked in Meta Business settings', now())`,
    [store.id],
  );

  const guestEmail = `${uniqueName('intguest')}@example.com`;
  await page.goto('/guest-users');
  await page.getByLabel('Email address').fill(guestEmail);
  await page.getByRole('button', { name: 'Send invitation' }).click();
  await expect(page.getByTestId('toast')).toContainText('Invitation sent');

  const guest = await otherPerson(browser, baseURL);
  await guest.page.goto(invitationPathFor(guestEmail));
  await guest.page.getByLabel('Username', { exact: true }).fill(uniqueName('intguestuser'));
  await guest.page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await guest.page.getByRole('button', { name: 'Create account and accept' }).click();
  await expect(guest.page).toHaveURL(/\/dashboard$/);

  await guest.page.goto('/integrations');
  await expect(guest.page.getByTestId('integration-card')).toHaveCount(10);
  await expect(guest.page.getByRole('note')).toContainText('Only its owner can connect, sync or disconnect platforms.');
  await expect(card(guest.page, 'shopify').getByTestId('integration-status')).toHaveText('Connected');
  await expect(card(guest.page, 'shopify').getByTestId('integration-account')).toHaveText('Shared Shop');
  await expect(card(guest.page, 'shopify').getByTestId('integration-rows')).toHaveText('420');
  await expect(card(guest.page, 'metaads').getByTestId('integration-status')).toHaveText('Disconnected');
  await expect(card(guest.page, 'metaads').getByTestId('integration-problem')).toContainText('The access token was revoked in Meta Business settings');
  await expect(guest.page.getByTestId('integrations').getByRole('button')).toHaveCount(0);
  await guest.context.close();
});

test('the comparison with the platform shows the difference in money, and the days and orders behind it', async ({ page }) => {
  await registerInPage(page, 'integrecon');
  await startTrial(page.request, 'business');
  const store = await createStore(page.request, 'Reconciled Goods');
  // A Shopify connection whose last comparison found Shopify's net sales £12.34 above ours on one day
  // (a refund we have that Shopify does not), and one order more at Shopify on another (not synced yet).
  await sql(
    `with connection as (
       insert into platform_connections (store_id, platform, connected, status, account_name, rows_synced, last_sync_at, created_at)
       values ($1, 'shopify', true, 'connected', 'Reconciled Shop', 1500, now(), now()) returning id
     )
     insert into reconciliation_results (store_id, connection_id, checked_at, from_day, to_day, matches, currency, our_orders, source_orders,
                                         our_net_sales_minor, source_net_sales_minor, days, explanations)
     select $1, id, now(), '2026-10-01', '2026-10-31', false, 'GBP', 1499, 1500, 305000, 310534,
            $2::jsonb, $3::jsonb from connection`,
    [
      store.id,
      JSON.stringify([
        { day: '2026-10-14', ourOrders: 48, sourceOrders: 48, ourNetSales: 151000, sourceNetSales: 152234 },
        { day: '2026-10-20', ourOrders: 51, sourceOrders: 52, ourNetSales: 154000, sourceNetSales: 158300 },
      ]),
      JSON.stringify([{ orderExternalId: '5610000001042', orderNumber: '#2043', reason: 'missing_here', detail: 'Counted by the platform on 2026-10-20 but not synced here yet; the next sync brings it in.' }]),
    ],
  );
  await page.goto('/integrations');
  const comparison = card(page, 'shopify').getByTestId('reconciliation');
  await expect(comparison).toHaveAttribute('data-matches', 'false');
  await expect(comparison).toContainText('Our figures differ from Shopify');
  // Period: 3,050.00 here, 3,105.34 at Shopify: −55.34, 1.8 % of Shopify's.
  await expect(comparison.getByTestId('reconciliation-netSales')).toContainText('£3,050£3,105.34');
  await expect(comparison.getByTestId('reconciliation-netSales-difference')).toHaveText('−£55.34 (−1.8 %)');
  await expect(comparison.getByTestId('reconciliation-orders-difference')).toHaveText('−1 (−0.1 %)');
  await comparison.getByText('Show the differing days (2) and the orders that explain them (1)').click();
  const days = comparison.getByTestId('reconciliation-days');
  await expect(days.getByRole('row')).toHaveCount(3);
  await expect(days.getByRole('row').nth(1)).toContainText('£1,510 vs £1,522.34');
  await expect(comparison.locator('ul[data-testid="reconciliation-orders"]')).toContainText('#2043');
  await expect(comparison.locator('ul[data-testid="reconciliation-orders"]')).toContainText('Missing in StorePulse');
  for (const theme of ['light', 'dark'] as const) {
    await useTheme(page, theme);
    await page.reload();
    await card(page, 'shopify').getByText('Show the differing days (2) and the orders that explain them (1)').click();
    expect(await seriousViolations(page, '[data-testid="reconciliation"]')).toEqual([]);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await shootElement(card(page, 'shopify'), `integrations-reconciliation-money-${theme}-${width}`);
    }
  }
});

/** A screenshot of one part of the page, when SCREENSHOTS_DIR is set. */
async function shootElement(element: Locator, name: string) {
  if (!SCREENSHOT_DIR) return;
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await element.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`) });
}

async function screenshots(page: Page) {
  mkdirSync(SCREENSHOT_DIR!, { recursive: true });
  for (const theme of ['light', 'dark'] as const) {
    await useTheme(page, theme);
    for (const viewport of [
      { name: '1280', width: 1280, height: 900 },
      { name: '390', width: 390, height: 844 },
    ]) {
      await page.setViewportSize({ width: viewport.width, height: viewport.height });
      await page.goto('/integrations');
      await expect(page.getByTestId('integration-card')).toHaveCount(10);
      await screenSettled(page);
      await page.screenshot({ path: path.join(SCREENSHOT_DIR!, `integrations-${viewport.name}-${theme}.png`), fullPage: true });
    }
    // The reconciliation's details, opened, when the figures differ.
    const details = card(page, 'shopify').getByTestId('reconciliation').locator('summary');
    if (await details.count()) {
      await details.click();
      await card(page, 'shopify').screenshot({ path: path.join(SCREENSHOT_DIR!, `integrations-reconciliation-390-${theme}.png`) });
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await useTheme(page, 'light');
}
