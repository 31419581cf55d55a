import { expect, test } from '@playwright/test';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { strFromU8, unzipSync } from 'fflate';
import { ShopifyFake } from '../test/fakes/shopify.ts';
import { otherPerson, registered, screenshots, signedInAdmin, sql } from './admin-helpers.ts';
import { FAKE_SHOPIFY_APP } from './integration-fakes-env.ts';
import { actAsDistinctClient, createStore, PASSWORD, registerInPage, startTrial } from './shell-helpers.ts';

// A Shopify customer asks a store for their data: Shopify's customers/data_request webhook (signed
// with the app's secret, as Shopify sends it) becomes an export on the owner's /settings, downloaded
// as a zip. The store's connection and the customer's orders are written straight into the e2e
// database (no sync needed for what this journey shows).

const SHOP = 'privacy-e2e.myshopify.com';
const CUSTOMER = { id: 990001, email: 'maria.lopez@example.com', phone: null };

test.beforeEach(async ({ page }) => actAsDistinctClient(page));

test("a customer's data request: the owner sees it in Privacy requests on /settings and downloads the export", async ({ page }) => {
  await registerInPage(page, 'privacy');
  await startTrial(page.request, 'professional');
  const store = await createStore(page.request, 'Casa López');
  const emailHash = createHash('sha256').update(CUSTOMER.email).digest('hex');
  await sql(`insert into platform_connections (store_id, platform, status, connected, account_id, created_at) values ($1, 'shopify', 'connected', true, $2, now())`, [store.id, SHOP]);
  await sql(`insert into customers (store_id, platform, external_id, email_hash, orders_count, total_spent_minor, first_order_at, updated_at) values ($1, 'shopify', $2, $3, 2, 12000, now() - interval '5 days', now())`, [store.id, String(CUSTOMER.id), emailHash]);
  await sql(
    `insert into orders (store_id, platform, external_id, order_number, placed_at, placed_day, currency, gross_minor, net_sales_minor, customer_id, channel, status, updated_at)
     select $1, 'shopify', x.id, x.number, now() - x.ago, (now() - x.ago)::date, 'GBP', x.amount, x.amount, c.id, 'direct', 'paid', now()
       from (values ('5001', '#1001', interval '5 days', 5000), ('5002', '#1002', interval '2 days', 7000)) as x(id, number, ago, amount)
       join customers c on c.store_id = $1 and c.external_id = $2`,
    [store.id, String(CUSTOMER.id)],
  );

  // Before any request: the section says what will appear there.
  await page.goto('/settings');
  await expect(page.getByTestId('privacy-requests-empty')).toBeVisible();

  const signer = new ShopifyFake({ ...FAKE_SHOPIFY_APP, shop: SHOP, orders: 1 });
  const delivery = signer.webhookDelivery('customers/data_request', null, {
    payload: { shop_id: 954889, shop_domain: SHOP, orders_requested: [5001], customer: CUSTOMER, data_request: { id: 9999 } },
  });
  const answer = await page.request.post('/api/webhooks/shopify', { headers: delivery.headers, data: delivery.body });
  expect(answer.status()).toBe(200);

  // The webhook's job makes the export; the list shows it once it is there.
  await expect.poll(async () => ((await (await page.request.get('/trpc/privacy.requests')).json()) as { result: { data: unknown[] } }).result.data.length).toBe(1);
  await page.goto('/settings');
  const list = page.getByTestId('privacy-requests');
  await expect(list.getByText(`Data request from customer ${CUSTOMER.id}`)).toBeVisible();
  await expect(list.getByText(`${SHOP} · Casa López · 2 orders`, { exact: false })).toBeVisible();

  const downloading = page.waitForEvent('download');
  await list.getByRole('link', { name: 'Download export' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^customer-data-\d+\.zip$/);
  const files = unzipSync(new Uint8Array(readFileSync((await download.path())!)));
  const data = JSON.parse(strFromU8(files['customer-data.json']!)) as { request: { customerId: string }; orders: { external_id: string }[] };
  expect(data.request.customerId).toBe(String(CUSTOMER.id));
  expect(data.orders.map((order) => order.external_id)).toEqual(['5001', '5002']);
  expect(strFromU8(files['orders.csv']!)).toContain('#1002');

  await screenshots(page, 'settings-privacy-requests', async (shot) => {
    await expect(shot.getByTestId('privacy-requests')).toBeVisible();
  });
});

test('delete the account from /settings: signed out, sign-in says it is scheduled, cancelling signs in and keeps the store', async ({ page }) => {
  const { username } = await registerInPage(page, 'leaving');
  await startTrial(page.request, 'professional');
  await createStore(page.request, 'Leaving Soon');
  await page.goto('/settings');
  const section = page.getByTestId('delete-account');
  await expect(section).toBeVisible();
  await screenshots(page, 'settings-delete-account', async (shot) => {
    await expect(shot.getByTestId('delete-account')).toBeVisible();
  });

  // A wrong password: refused, nothing happens.
  await section.getByLabel('Your password').fill('not my password');
  await section.getByRole('button', { name: 'Delete my account' }).click();
  await expect(section.getByText('Current password is incorrect')).toBeVisible();

  await section.getByLabel('Your password').fill(PASSWORD);
  await section.getByRole('button', { name: 'Delete my account' }).click();
  await expect(page).toHaveURL(/\/auth$/);

  await page.getByLabel('Username or email').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  const notice = page.getByTestId('scheduled-for-deletion');
  await expect(notice).toContainText('This account is scheduled for deletion');
  await screenshots(page, 'sign-in-scheduled-for-deletion', async (shot) => {
    await shot.getByLabel('Username or email').fill(username);
    await shot.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await shot.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(shot.getByTestId('scheduled-for-deletion')).toBeVisible();
  });

  await notice.getByRole('button', { name: 'Cancel deletion and sign in' }).click();
  await expect(page).not.toHaveURL(/\/auth/);
  const stores = (await (await page.request.get('/api/stores')).json()) as { name: string }[];
  expect(stores.map((store) => store.name)).toEqual(['Leaving Soon']);
});

test("an administrator schedules a user's deletion with the reason, the user cannot sign in, then the admin cancels it", async ({ page, browser, baseURL }) => {
  const visitor = await otherPerson(browser, baseURL);
  const target = await registered(visitor.page.request, 'doomed');
  await visitor.context.close();
  await signedInAdmin(page);
  await page.goto(`/admin/user-dashboard/${target.id}`);
  const card = page.getByRole('region', { name: 'Delete account' });
  await card.getByRole('button', { name: 'Schedule deletion' }).click();
  await expect(card.getByText('Give a reason')).toBeVisible();
  await card.getByLabel('Reason (kept in the audit log)').fill('Asked by e-mail, ticket 42');
  await card.getByRole('button', { name: 'Schedule deletion' }).click();
  await expect(page.getByTestId('user-deletion-scheduled')).toContainText('Scheduled for deletion on');
  await screenshots(page, 'admin-user-deletion-scheduled', async (shot) => {
    await expect(shot.getByTestId('user-deletion-scheduled')).toBeVisible();
  });

  // The user, elsewhere: sign-in refused while the deletion is scheduled.
  const user = await otherPerson(browser, baseURL);
  expect((await user.page.request.post('/api/login', { data: { username: target.username, password: PASSWORD } })).status()).toBe(403);
  await user.context.close();

  await page.getByTestId('user-deletion-scheduled').getByRole('button', { name: 'Cancel deletion' }).click();
  await expect(card.getByRole('button', { name: 'Schedule deletion' })).toBeVisible();
});

test('export all my data from /settings: the job builds it, the zip downloads and holds the account and its stores', async ({ page }) => {
  const { username } = await registerInPage(page, 'exporting');
  await startTrial(page.request, 'professional');
  await createStore(page.request, 'Export Me');
  await page.goto('/settings');
  const section = page.getByTestId('export-data');
  await section.getByRole('button', { name: 'Export my data' }).click();
  // Built by the pg-boss job in the background; the section follows its state.
  await expect(section).toHaveAttribute('data-state', 'ready');

  const downloading = page.waitForEvent('download');
  await section.getByRole('link', { name: 'Download zip' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^storepulse-export-\d+\.zip$/);
  const files = unzipSync(new Uint8Array(readFileSync((await download.path())!)));
  expect((JSON.parse(strFromU8(files['account.json']!)) as { username: string }[])[0]!.username).toBe(username);
  expect((JSON.parse(strFromU8(files['stores.json']!)) as { name: string }[]).map((store) => store.name)).toEqual(['Export Me']);
  expect(strFromU8(files['stores.csv']!)).toContain('Export Me');

  await screenshots(page, 'settings-export-data', async (shot) => {
    await expect(shot.getByTestId('export-data')).toHaveAttribute('data-state', 'ready');
  });
});
