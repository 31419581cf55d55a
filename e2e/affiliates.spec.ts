import { expect, test } from '@playwright/test';
import { createStore, distinctAddress, otherPerson, registered, screenshots, seriousViolations, signedInAdmin, sql, startTrial } from './admin-helpers.ts';
import { drawnChart } from './waits.ts';

// The affiliate programme end to end: join, share the link, a visitor follows it in a fresh browser and
// signs up, the affiliate's dashboard counts the sign-up. With SCREENSHOTS_DIR set it photographs the dashboard.
test('a visitor who follows a referral link and signs up shows on the affiliate dashboard', async ({ page, browser, baseURL }) => {
  await page.context().setExtraHTTPHeaders(distinctAddress());
  await registered(page.request, 'affiliate');
  await startTrial(page.request, 'professional');
  await createStore(page.request, 'Affiliate Shop');

  await page.goto('/affiliate-dashboard');
  await page.getByTestId('affiliate-join').click();
  const linkField = page.getByTestId('affiliate-link');
  await expect(linkField).toHaveValue(/\/\?ref=[a-f0-9]{12}$/);
  const link = new URL(await linkField.inputValue());

  const visitor = await otherPerson(browser, baseURL);
  await visitor.page.goto(`${link.pathname}${link.search}`);
  await expect.poll(async () => (await visitor.context.cookies()).find((cookie) => cookie.name === 'sp_ref')?.value ?? '').toMatch(/^[a-f0-9]{12}\.\d+$/);
  await expect(visitor.page).not.toHaveURL(/ref=/);
  await registered(visitor.page.request, 'referred');
  await visitor.context.close();

  await page.reload();
  await expect(page.getByTestId('affiliate-kpi-signUps')).toContainText('1');
  await expect(page.getByTestId('affiliate-kpi-clicks')).toContainText('1');
  await expect(page.getByTestId('affiliate-referrals')).toContainText(/User #1, joined .*, no plan, signed up/);

  // Six months at least, read as the reader writes them ("Nov 2026"), this one last with its sign-up.
  await expect(drawnChart(page, 'affiliate-chart')).toBeVisible();
  const monthRows = page.getByTestId('affiliate-chart').getByTestId('chart-table').locator('tbody tr');
  await expect(monthRows).toHaveCount(6);
  const thisMonth = new Intl.DateTimeFormat('en', { month: 'short', year: 'numeric', timeZone: 'UTC' }).format(new Date());
  await expect(monthRows.last()).toContainText(thisMonth);
  await expect(monthRows.last().locator('td')).toHaveText(['1']);
  await expect(monthRows.first().locator('td')).toHaveText(['0']);

  if (process.env.SCREENSHOTS_DIR) {
    await screenshots(page, 'affiliate-dashboard', async (shot) => {
      await expect(shot.getByTestId('affiliate-kpi-signUps')).toContainText('1');
      await expect(drawnChart(shot, 'affiliate-chart')).toBeVisible();
    });
  }
});

/**
 * Three paid £79 invoices of a referred account, each earning 30 % (£23.70) and past its 30-day hold: £71.10
 * payable. The e2e server has no Stripe (its payment provider is the test one), so the rows are written here.
 */
async function seedPayableCommissions(referredUserId: number, code: string): Promise<void> {
  await sql(
    `with invoices as (
       insert into billing_invoices (user_id, stripe_invoice_id, status, currency, amount_due, amount_paid, amount_refunded, disputed, period_start, period_end, paid_at, created_at, updated_at)
       select $1, 'in_e2e_' || $2 || '_' || n, 'paid', 'GBP', 7900, 7900, 0, false,
              now() - (n * 30 + 40) * interval '1 day', now() - (n * 30 + 10) * interval '1 day', now() - (n * 30 + 40) * interval '1 day', now(), now()
         from generate_series(0, 2) as n
       returning id, paid_at)
     insert into affiliate_commissions (affiliate_id, invoice_id, status, currency, rate_percent, amount_minor, payable_at, created_at, updated_at)
     select (select id from affiliates where code = $2), id, 'earned', 'GBP', 30, 2370, paid_at + interval '30 days', now(), now() from invoices`,
    [referredUserId, code],
  );
}

// Payouts end to end: the affiliate requests their payable balance; an administrator finds them in the
// console's list, sets an override, approves the payout and marks it paid with a reference; the affiliate
// sees it paid. With SCREENSHOTS_DIR set it photographs the dashboard, the admin list and the affiliate page.
test('an affiliate requests a payout; an admin sets an override, approves it and marks it paid', async ({ page, browser, baseURL }) => {
  await page.context().setExtraHTTPHeaders(distinctAddress());
  const affiliate = await registered(page.request, 'payee');
  await startTrial(page.request, 'professional');
  await createStore(page.request, 'Payee Shop');
  const joined = await page.request.post('/api/affiliate');
  const { code } = (await joined.json()) as { code: string };

  const visitor = await otherPerson(browser, baseURL);
  await visitor.page.goto(`/?ref=${code}`);
  await expect.poll(async () => (await visitor.context.cookies()).find((cookie) => cookie.name === 'sp_ref')?.value ?? '').toMatch(/^[a-f0-9]{12}\.\d+$/);
  const referred = await registered(visitor.page.request, 'referredpay');
  await visitor.context.close();
  await seedPayableCommissions(referred.id, code);

  await page.goto('/affiliate-dashboard');
  await expect(page.getByTestId('affiliate-kpi-payable')).toContainText('£71.10');
  await expect(page.getByTestId('payout-reason')).toContainText('You can request your payable £71.10 now.');
  await page.getByTestId('payout-request').click();
  await expect(page.getByTestId('payout-history')).toContainText('requested');
  await expect(page.getByTestId('payout-request')).toBeDisabled();
  await expect(page.getByTestId('payout-reason')).toContainText('Your payout of £71.10 requested on');
  await expect(page.getByTestId('affiliate-kpi-payable')).toContainText('£0.00');

  const admin = await otherPerson(browser, baseURL);
  await signedInAdmin(admin.page);
  await admin.page.goto('/admin/dashboard');
  await admin.page.getByRole('searchbox', { name: 'Search affiliates' }).fill(affiliate.email);
  const list = admin.page.getByTestId('affiliates-list');
  await expect(list.locator('table')).toContainText('£71.10 requested');
  await expect(list.locator('table')).toContainText(code);
  await list.locator('table').getByRole('link', { name: affiliate.email }).click();

  await expect(admin.page).toHaveURL(new RegExp(`/admin/affiliate/${affiliate.id}$`));
  await expect(admin.page.getByRole('heading', { level: 1 })).toHaveText(`Affiliate: ${affiliate.username}`);
  await expect(admin.page.getByTestId('affiliate-referrals')).toContainText(referred.email);
  await expect(admin.page.getByTestId('affiliate-commissions').locator('tbody tr')).toHaveCount(3);

  await admin.page.getByTestId('override-rate').fill('101');
  await admin.page.getByTestId('override-save').click();
  await expect(admin.page.getByText('Enter a whole rate from 0 to 100 %')).toBeVisible();
  await admin.page.getByTestId('override-rate').fill('40');
  await admin.page.getByTestId('override-months').fill('24');
  await admin.page.getByTestId('override-save').click();
  await expect(admin.page.locator('#affiliate-audit').locator('xpath=ancestor::section')).toContainText('rate 40 %, duration 24 months');

  await admin.page.getByTestId('payout-approve').click();
  const payout = admin.page.getByTestId('affiliate-admin-payouts').locator('li').first();
  await expect(payout).toHaveAttribute('data-status', 'approved');
  await admin.page.getByTestId('payout-mark-paid').click();
  await expect(admin.page.getByText('Enter the payment reference')).toBeVisible();
  await admin.page.getByTestId('payout-reference').fill('BACS-E2E-0042');
  await admin.page.getByTestId('payout-mark-paid').click();
  await expect(payout).toHaveAttribute('data-status', 'paid');
  await expect(payout).toContainText('reference BACS-E2E-0042');

  await page.reload();
  await expect(page.getByTestId('affiliate-kpi-paid')).toContainText('£71.10');
  await expect(page.getByTestId('payout-history')).toContainText('BACS-E2E-0042');
  await expect(page.getByTestId('payout-history')).toContainText('paid');
  await expect(page.getByTestId('payout-reason')).toContainText('Payouts open at £50.00 payable');
  for (const theme of ['light', 'dark']) {
    await page.evaluate((value) => window.localStorage.setItem('theme', value), theme);
    await page.reload();
    await expect(page.getByTestId('payout-history')).toContainText('BACS-E2E-0042');
    expect(await seriousViolations(page, 'main')).toEqual([]);
    await admin.page.evaluate((value) => window.localStorage.setItem('theme', value), theme);
    await admin.page.goto('/admin/dashboard');
    await expect(admin.page.getByTestId('affiliates-list')).toContainText(affiliate.email);
    expect(await seriousViolations(admin.page, 'main')).toEqual([]);
  }
  await page.evaluate(() => window.localStorage.removeItem('theme'));
  await admin.page.evaluate(() => window.localStorage.removeItem('theme'));
  await admin.page.goto(`/admin/affiliate/${affiliate.id}`);

  if (process.env.SCREENSHOTS_DIR) {
    await screenshots(page, 'affiliate-dashboard-payouts', async (shot) => {
      await expect(shot.getByTestId('payout-history')).toContainText('BACS-E2E-0042');
      await expect(drawnChart(shot, 'affiliate-chart')).toBeVisible();
    });
    await screenshots(admin.page, 'admin-affiliate', async (shot) => {
      await expect(shot.getByTestId('affiliate-admin-payouts')).toContainText('BACS-E2E-0042');
    });
    await admin.page.goto('/admin/dashboard');
    await screenshots(admin.page, 'admin-affiliates-list', async (shot) => {
      await expect(shot.getByTestId('affiliates-list')).toContainText(affiliate.email);
    });
  }
  await admin.context.close();
});
