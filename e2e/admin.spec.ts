import { expect, test } from '@playwright/test';
import { createStore, distinctAddress, invitationPathFor, registered, screenshots, seriousViolations, signedInAdmin, startTrial, uniqueName } from './admin-helpers.ts';
import { nothingLoading } from './waits.ts';

test.beforeEach(async ({ page }) => page.context().setExtraHTTPHeaders(distinctAddress()));

const toast = (page: import('@playwright/test').Page) => page.getByTestId('toast');

test('the admin finds a user in the list and views the product as them', async ({ page, playwright, baseURL }) => {
  await signedInAdmin(page);
  const userSide = await playwright.request.newContext({ baseURL, extraHTTPHeaders: distinctAddress() });
  const target = await registered(userSide, 'viewed');
  await startTrial(userSide, 'professional');
  await createStore(userSide, 'Viewed Outdoors');

  await page.goto('/admin');
  await expect(page.getByRole('heading', { level: 1, name: 'Users' })).toBeVisible();
  await page.getByLabel('Search users').fill(target.username);
  await expect(page).toHaveURL(new RegExp(`/admin\\?q=${target.username}$`));
  const table = page.getByTestId('users-table');
  await expect(table.getByRole('row')).toHaveCount(2);
  const row = table.getByRole('row', { name: new RegExp(target.username) });
  await expect(row).toContainText(target.email);
  await expect(row).toContainText('Professional');
  await expect(row).toContainText('Trial');
  await expect(row.getByRole('cell').nth(4)).toHaveText('1');

  await row.getByRole('button', { name: `View as user (${target.username})` }).click();
  await expect(page).toHaveURL(/\/dashboard$/);
  const status = await (await page.request.get('/api/admin/guest-mode-status')).json();
  expect(status).toEqual({ isGuestMode: true, guestUserId: target.id, guestUsername: target.username });
  // The layout's guest-mode banner names the viewed user.
  await expect(page.getByText(/Viewing as:/).first()).toContainText(`Viewing as: ${target.username}`);
  expect((await (await page.request.get('/api/stores/active')).json()).store.name).toBe('Viewed Outdoors');

  expect((await page.request.post('/api/admin/exit-guest-mode')).status()).toBe(200);
  await userSide.dispose();
});

test('the admin grants a plan from the user’s detail page', async ({ page, playwright, baseURL }) => {
  await signedInAdmin(page);
  const userSide = await playwright.request.newContext({ baseURL, extraHTTPHeaders: distinctAddress() });
  const target = await registered(userSide, 'grantee');

  await page.goto(`/admin?q=${target.username}`);
  await page.getByTestId('users-table').getByRole('link', { name: `Details of ${target.username}` }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/user-dashboard/${target.id}$`));
  await expect(page.getByRole('heading', { level: 1 })).toContainText(target.username);
  await expect(page.getByText(target.email).first()).toBeVisible();
  await expect(page.getByText('No subscription so far.')).toBeVisible();

  await page.getByLabel('Plan', { exact: true }).selectOption('business');
  await page.getByLabel('Days').fill('10');
  await page.getByRole('button', { name: 'Grant plan' }).click();
  await expect(toast(page)).toContainText('Plan granted');
  await expect(toast(page)).toContainText(`${target.username} has the Business plan until`);
  await expect(page.getByTestId('user-subscriptions')).toContainText('Business');
  await expect(page.getByTestId('user-subscriptions')).toContainText('Granted by an admin');
  await expect(page.getByTestId('audit-list')).toContainText('granted a plan to');

  const current = await (await userSide.get('/api/subscription/current')).json();
  expect(current).toMatchObject({ hasActiveSubscription: true, access: 'own', subscription: { status: 'active', plan: { name: 'Business' } } });
  const days = (Date.parse(current.subscription.currentPeriodEnd) - Date.now()) / 86_400_000;
  expect(days).toBeGreaterThan(9.9);
  expect(days).toBeLessThan(10.1);

  // Not an affiliate: no link; the affiliate page says so.
  await expect(page.getByTestId('user-affiliate-link')).toHaveCount(0);
  await page.goto(`/admin/affiliate/${target.id}`);
  await expect(page.getByTestId('affiliate-empty')).toContainText('This user has not joined the affiliate programme.');
  expect((await userSide.post('/api/affiliate')).status()).toBe(200);
  await page.goto(`/admin/user-dashboard/${target.id}`);
  await page.getByTestId('user-affiliate-link').click();
  await expect(page).toHaveURL(new RegExp(`/admin/affiliate/${target.id}$`));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Affiliate: ${target.username}`);
  await expect(page.getByText('No referred accounts yet.')).toBeVisible();
  await userSide.dispose();
});

test('the admin edits an e-mail template with a variable chip, saves it, and resets it to the default', async ({ page }) => {
  await signedInAdmin(page);
  await page.goto('/admin/email-management');
  await expect(page.getByRole('heading', { level: 1, name: 'Email Templates' })).toBeVisible();
  await page.getByRole('button', { name: /Contact confirmation/ }).click();
  await expect(page).toHaveURL(/template=contact_confirmation/);

  const subject = page.getByLabel('Subject');
  await expect(subject).toHaveValue('We received your message');
  await subject.fill('Thanks, ');
  await page.getByRole('button', { name: 'Insert name' }).click();
  await expect(subject).toHaveValue('Thanks, {{name}}');
  await expect(page.getByTestId('template-preview')).toContainText('Thanks, Sam Taylor');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(toast(page)).toContainText('Template saved');

  await page.reload();
  await expect(page.getByLabel('Subject')).toHaveValue('Thanks, {{name}}');
  await expect(page.getByRole('button', { name: /Contact confirmation/ })).toContainText('Customized');
  const saved = (await (await page.request.get('/api/admin/email-templates')).json()) as { key: string; subject: string; customized: boolean }[];
  expect(saved.find((template) => template.key === 'contact_confirmation')).toMatchObject({ subject: 'Thanks, {{name}}', customized: true });

  await page.getByRole('button', { name: 'Reset to default' }).click();
  const dialog = page.getByRole('dialog', { name: 'Reset to the default text?' });
  await expect(dialog).toContainText('“Contact confirmation” goes back to the text StorePulse ships with.');
  await dialog.getByRole('button', { name: 'Reset', exact: true }).click();
  await expect(toast(page)).toContainText('Template reset');
  await expect(page.getByLabel('Subject')).toHaveValue('We received your message');
  const restored = (await (await page.request.get('/api/admin/email-templates')).json()) as { key: string; customized: boolean }[];
  expect(restored.find((template) => template.key === 'contact_confirmation')?.customized).toBe(false);
});

test('the outbox finds an e-mail by recipient and shows it', async ({ page, playwright, baseURL }) => {
  await signedInAdmin(page);
  const owner = await playwright.request.newContext({ baseURL, extraHTTPHeaders: distinctAddress() });
  await registered(owner, 'outboxowner');
  await startTrial(owner, 'professional');
  const store = await createStore(owner, 'Outbox Shop');
  const recipient = `${uniqueName('recipient')}@example.com`;
  expect((await owner.post('/api/guests/invitations', { data: { storeId: store.id, email: recipient } })).status()).toBe(201);
  const link = invitationPathFor(recipient);

  await page.goto('/admin/email-management?tab=outbox');
  await page.getByLabel('Search by recipient').fill(recipient.slice(0, 20));
  const list = page.getByTestId('outbox-list');
  await expect(list.getByRole('listitem')).toHaveCount(1);
  await list.getByRole('button', { name: /invited you to view Outbox Shop/ }).click();
  const detail = page.getByRole('dialog');
  await expect(detail).toContainText(recipient);
  await expect(detail).toContainText('Guest invitation');
  await expect(detail).toContainText('Logged');
  // The link is shown without its token (an admin must not be able to use it); the CLI read it whole.
  await expect(page.getByTestId('outbox-body')).toContainText('/accept-invite?token=[redacted]');
  await expect(page.getByTestId('outbox-body')).not.toContainText(link);
  await detail.getByRole('button', { name: 'Close' }).first().click();
  await expect(detail).toBeHidden();
  await owner.dispose();
});

test('the overview shows the key figures, recent sign-ups and recent activity', async ({ page, playwright, baseURL }) => {
  await signedInAdmin(page);
  const userSide = await playwright.request.newContext({ baseURL, extraHTTPHeaders: distinctAddress() });
  const newcomer = await registered(userSide, 'newcomer');
  await page.goto('/admin/dashboard');
  await expect(page.getByRole('heading', { level: 1, name: 'Admin Dashboard' })).toBeVisible();
  for (const label of ['Users', 'Active subscriptions', 'Trials', 'MRR', 'New users (7 days)', 'New users (30 days)']) {
    await expect(page.getByRole('listitem').filter({ hasText: label }).first()).toBeVisible();
  }
  await expect(page.getByTestId('kpi-mrr')).toContainText('£');
  await expect(page.getByTestId('recent-signups')).toContainText(newcomer.username);
  await userSide.dispose();
});

test('screenshots of the admin console', async ({ page, playwright, baseURL }) => {
  test.skip(!process.env.SCREENSHOTS_DIR, 'Set SCREENSHOTS_DIR to take the admin screenshots');
  await signedInAdmin(page);
  const userSide = await playwright.request.newContext({ baseURL, extraHTTPHeaders: distinctAddress() });
  const target = await registered(userSide, 'shot');
  await startTrial(userSide, 'business');
  const store = await createStore(userSide, 'Snapshot Supplies');
  await userSide.post('/api/guests/invitations', { data: { storeId: store.id, email: `${uniqueName('shotguest')}@example.com` } });
  await page.request.post(`/api/admin/users/${target.id}/grant-plan`, { data: { tier: 'enterprise', days: 30 } });

  await page.goto('/admin');
  await screenshots(page, 'admin-users', (p) => expect(p.getByRole('heading', { name: 'All accounts' })).toBeVisible());
  await page.goto('/admin/dashboard');
  await screenshots(page, 'admin-dashboard', (p) => expect(p.getByTestId('kpi-mrr')).toBeVisible());
  await page.goto(`/admin/user-dashboard/${target.id}`);
  await screenshots(page, 'admin-user-detail', (p) => expect(p.getByTestId('user-subscriptions')).toBeVisible());
  await page.goto(`/admin/affiliate/${target.id}`);
  await screenshots(page, 'admin-affiliate', (p) => expect(p.getByTestId('affiliate-empty')).toBeVisible());
  await page.goto('/admin/email-management?template=guest_invitation');
  await screenshots(page, 'admin-email-templates', (p) => expect(p.getByTestId('template-preview')).toBeVisible());
  await page.goto('/admin/email-management?tab=outbox');
  await screenshots(page, 'admin-email-outbox', (p) => expect(p.getByTestId('outbox-list')).toBeVisible());
  await userSide.dispose();
});

test('the admin console has no serious or critical accessibility violations, light and dark', async ({ page, playwright, baseURL }) => {
  await signedInAdmin(page);
  const userSide = await playwright.request.newContext({ baseURL, extraHTTPHeaders: distinctAddress() });
  const target = await registered(userSide, 'axe');
  await startTrial(userSide, 'business');
  await createStore(userSide, 'Axe Supplies');
  expect((await userSide.post('/api/affiliate')).status()).toBe(200);
  const pages: [string, string][] = [
    ['/admin', 'All accounts'],
    ['/admin/dashboard', 'Recent activity'],
    [`/admin/user-dashboard/${target.id}`, 'Subscription history'],
    [`/admin/affiliate/${target.id}`, 'Commission settings'],
    ['/admin/email-management', 'Preview'],
    ['/admin/email-management?tab=outbox', 'Outbox'],
  ];
  for (const theme of ['light', 'dark']) {
    await page.addInitScript((value) => window.localStorage.setItem('theme', value), theme);
    for (const [path, heading] of pages) {
      await page.goto(path);
      await expect(page.getByRole('heading', { name: heading, exact: true })).toBeVisible();
      await nothingLoading(page);
      // The layout around the page is checked by its own tests; this is the console's content.
      expect(await seriousViolations(page, 'main'), `${theme} ${path}`).toEqual([]);
    }
  }
  await userSide.dispose();
});
