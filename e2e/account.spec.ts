import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';
import { adminCli, createStore, expectToast, latestResetPath, outsideRequest, planId, register, signIn, startTrial, test, uniqueName } from './account-helpers.ts';
import { animationsFinished } from './waits.ts';

function storeList(page: Page) {
  return page.getByRole('region', { name: 'Your stores' });
}

function storeRow(page: Page, name: string) {
  return storeList(page).getByTestId('store-row').filter({ has: page.getByTestId('store-name').getByText(name, { exact: true }) });
}

test.describe('store management', () => {
  test('create, validate, rename, change currency, switch (reloads) and delete, with every toast', async ({ page }) => {
    await register(page.request, 'stores');
    await startTrial(page.request, 'business');
    const alpha = await createStore(page.request, 'Alpha');

    await page.goto('/store-management');
    await expect(page.getByRole('heading', { level: 1, name: 'Store management' })).toBeVisible();
    await expect(storeRow(page, 'Alpha').getByText('Active', { exact: true })).toBeVisible();
    await expect(page.getByTestId('dashboard-limits')).toContainText('1 of 10 dashboards used');

    // Validation happens before any request: a blank name.
    await page.getByLabel('Store name').fill('   ');
    await page.getByRole('button', { name: 'Create store' }).click();
    await expectToast(page, 'Validation Error', 'name: Store name is required');

    // Create.
    await page.getByLabel('Store name').fill('Beta');
    await page.getByRole('button', { name: 'Create store' }).click();
    await expectToast(page, 'Store "Beta" has been created.');
    await expect(storeRow(page, 'Beta')).toBeVisible();
    await expect(page.getByLabel('Store name')).toHaveValue('');
    await expect(page.getByTestId('dashboard-limits')).toContainText('2 of 10 dashboards used');
    await expect(storeRow(page, 'Beta').getByText('Active', { exact: true })).toHaveCount(0);

    // Create failure: the request never reaches the server.
    await page.route('**/trpc/stores.create**', (route) => route.abort('failed'));
    await page.getByLabel('Store name').fill('Gamma');
    await page.getByRole('button', { name: 'Create store' }).click();
    await expectToast(page, 'Error', "Failed to create store: We couldn't reach StorePulse.");
    await page.unroute('**/trpc/stores.create**');
    await page.getByLabel('Store name').fill('');

    // Rename inline; Escape cancels, Save keeps.
    await page.getByRole('button', { name: 'Rename Beta' }).click();
    await page.getByLabel('New store name').fill('Ignored');
    await page.getByLabel('New store name').press('Escape');
    await expect(storeRow(page, 'Beta')).toBeVisible();
    await page.getByRole('button', { name: 'Rename Beta' }).click();
    await page.getByLabel('New store name').fill('Beta Outdoors');
    await page.getByRole('button', { name: 'Save' }).click();
    await expectToast(page, 'Store "Beta Outdoors" has been updated.');
    await expect(storeRow(page, 'Beta Outdoors')).toBeVisible();

    // Currency.
    await page.getByLabel('Currency of Beta Outdoors').selectOption('EUR');
    await expectToast(page, 'Beta Outdoors now reports in EUR (€).');
    await expect(storeRow(page, 'Beta Outdoors')).toContainText('EUR (€)');
    const stored = (await (await page.request.get('/api/stores')).json()) as { name: string; currency: string }[];
    expect(stored.find((store) => store.name === 'Beta Outdoors')?.currency).toBe('EUR');

    // Switching reloads the whole page, then the other store is active.
    await Promise.all([page.waitForEvent('load'), page.getByRole('button', { name: 'Switch to Beta Outdoors' }).click()]);
    await expect(storeRow(page, 'Beta Outdoors').getByText('Active', { exact: true })).toBeVisible();
    await expect(storeRow(page, 'Alpha').getByText('Active', { exact: true })).toHaveCount(0);
    expect((await (await page.request.get('/api/stores/active')).json()).store.name).toBe('Beta Outdoors');

    // Delete asks first, with the exact text; Cancel keeps the store.
    await page.getByRole('button', { name: 'Delete Alpha' }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByTestId('delete-confirmation')).toHaveText('Are you sure you want to delete "Alpha"? This action cannot be undone.');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
    await expect(storeRow(page, 'Alpha')).toBeVisible();

    await page.getByRole('button', { name: 'Delete Alpha' }).click();
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await expectToast(page, 'Store "Alpha" has been deleted.');
    await expect(storeRow(page, 'Alpha')).toHaveCount(0);
    await expect(page.getByTestId('dashboard-limits')).toContainText('1 of 10 dashboards used');
    expect((await (await page.request.get('/api/stores')).json()).map((store: { id: number }) => store.id)).not.toContain(alpha.id);
  });

  test('failed switch and delete show the server message in an Error toast', async ({ page }) => {
    await register(page.request, 'storeerr');
    await startTrial(page.request, 'professional');
    await createStore(page.request, 'Keeper');
    const gone = await createStore(page.request, 'Vanishing');

    await page.goto('/store-management');
    await expect(storeRow(page, 'Vanishing')).toBeVisible();
    // Deleted elsewhere (another tab): the list on this page is still fresh for two minutes.
    expect((await page.request.delete(`/api/stores/${gone.id}`)).status()).toBe(200);

    await page.getByRole('button', { name: 'Switch to Vanishing' }).click();
    await expectToast(page, 'Error', 'Failed to switch store: Store not found');

    await page.getByRole('button', { name: 'Delete Vanishing' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click();
    await expectToast(page, 'Failed to delete store: Store not found');
  });

  test('on a Basic trial with one store the limit stops creation before any request', async ({ page }) => {
    await register(page.request, 'limit');
    await startTrial(page.request, 'basic');
    await createStore(page.request, 'Only One');

    await page.goto('/store-management');
    const limits = page.getByTestId('dashboard-limits');
    await expect(limits).toContainText('1 of 1 dashboards used');
    await expect(limits.getByRole('link', { name: 'Upgrade plan' })).toHaveAttribute('href', '/pricing');

    let createCalls = 0;
    page.on('request', (request) => {
      if (request.url().includes('stores.create')) createCalls += 1;
    });
    await page.getByLabel('Store name').fill('Second');
    await page.getByRole('button', { name: 'Create store' }).click();
    await expectToast(page, 'Dashboard Limit Reached', "You've reached your dashboard limit. Please upgrade your plan to create more dashboards.");
    expect(createCalls).toBe(0);
    await expect(storeList(page).getByTestId('store-row')).toHaveCount(1);
  });
});

test.describe('plans', () => {
  test('pricing: start a trial, then the plan is marked as current', async ({ page }) => {
    await register(page.request, 'pricing');
    await createStore(page.request, 'Trial Shop');

    await page.goto('/pricing');
    await expect(page.getByRole('heading', { level: 1, name: 'Pricing & Plans' })).toBeVisible();
    const cards = page.getByTestId('plan-card');
    await expect(cards).toHaveCount(4);
    const basic = page.locator('[data-plan="basic"]');
    await expect(basic.getByTestId('plan-price')).toHaveText('£29 / month');
    await expect(basic).toContainText('1 store dashboard');
    await expect(page.locator('[data-plan="professional"]').getByTestId('plan-price')).toHaveText('£79 / month');
    await expect(page.locator('[data-plan="professional"]')).toContainText('3 store dashboards');
    await expect(page.locator('[data-plan="professional"]')).toContainText('AI tools: page reviewer, price tracker and more');
    await expect(basic.getByRole('link', { name: 'Choose Basic' })).toHaveAttribute('href', `/checkout/${await planId(page.request, 'basic')}`);

    const professional = page.locator('[data-plan="professional"]');
    await professional.getByRole('button', { name: 'Start 14-day free trial of Professional' }).click();
    await expectToast(page, 'Trial started');
    await expect(professional.getByTestId('current-plan-badge')).toHaveText('Current plan · Trial');
    await expect(professional).toContainText('Trial ends');
    await expect(page.getByRole('button', { name: /Start 14-day free trial/ })).toHaveCount(0);
    const current = await (await page.request.get('/api/subscription/current')).json();
    expect(current).toMatchObject({ hasActiveSubscription: true, subscription: { status: 'trial', plan: { name: 'Professional' } } });
  });

  test('signed-out visitors see the plans with "Create an account"', async ({ page }) => {
    await page.goto('/pricing');
    await expect(page.getByTestId('plan-card')).toHaveCount(4);
    const links = page.getByRole('link', { name: 'Create an account' });
    await expect(links).toHaveCount(4);
    await expect(links.first()).toHaveAttribute('href', '/auth?tab=register');
  });

  test('onboarding after registration: welcome, skip link, and a trial leads to the dashboard', async ({ page }) => {
    const username = `onboard_${Date.now().toString(36)}`;
    await page.goto('/auth?tab=register');
    await page.getByLabel('Username', { exact: true }).fill(username);
    await page.getByLabel('Email', { exact: true }).fill(`${username}@example.com`);
    await page.getByLabel('Password', { exact: true }).fill('correct horse battery');
    await page.getByRole('button', { name: 'Create account' }).click();

    await expect(page).toHaveURL(/\/onboarding\/pricing$/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Welcome to StorePulse, ${username}`);
    await expect(page.getByRole('link', { name: 'Skip for now' })).toHaveAttribute('href', '/store-management');
    await page.locator('[data-plan="basic"]').getByRole('button', { name: 'Start 14-day free trial of Basic' }).click();
    await expect(page).toHaveURL(/\/dashboard$/);
  });

  test('checkout in test mode activates the plan; an unknown plan says so', async ({ page }) => {
    await register(page.request, 'checkout');
    await createStore(page.request, 'Paid Shop');
    const business = await planId(page.request, 'business');

    await page.goto(`/checkout/${business}`);
    await expect(page.getByRole('heading', { level: 1, name: 'Subscribe to Business' })).toBeVisible();
    await expect(page.getByTestId('test-mode')).toContainText('Test mode — no payment will be taken');
    await expect(page.getByText('10 store dashboards')).toBeVisible();
    await expect(page.getByTestId('plan-price')).toHaveText('£199 / month');
    await page.getByRole('button', { name: 'Confirm and subscribe' }).click();
    // Read while it shows (not hovered: the dashboard opening behind it may cover it with its dialog).
    await expect(page.getByTestId('toast').filter({ hasText: "You're now on the Business plan." })).toBeVisible();
    await expect(page).toHaveURL(/\/dashboard$/);
    const current = await (await page.request.get('/api/subscription/current')).json();
    expect(current).toMatchObject({ hasActiveSubscription: true, subscription: { status: 'active', provider: 'test', plan: { name: 'Business' } } });

    await page.goto('/profile');
    await expect(page.getByTestId('profile-plan')).toContainText('Business');
    await expect(page.getByTestId('profile-plan')).toContainText('Active');
    await expect(page.getByTestId('profile-store-count')).toHaveText('1 store');

    await page.goto('/checkout/987654');
    await expect(page.getByTestId('plan-not-found')).toContainText('Plan not found');
    await page.getByRole('link', { name: 'See all plans' }).click();
    await expect(page).toHaveURL(/\/pricing$/);
  });
});

test.describe('settings', () => {
  test('account and preferences save with the settings toasts', async ({ page, baseURL }) => {
    const account = await register(page.request, 'prefs');
    await startTrial(page.request, 'basic');
    await createStore(page.request, 'Prefs Shop');

    await page.goto('/settings');
    await expect(page.getByLabel('Username')).toHaveValue(account.username);
    const renamed = uniqueName('renamed');
    await page.getByLabel('Username').fill(renamed);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expectToast(page, 'Your settings have been updated successfully.');
    expect((await (await page.request.get('/api/settings')).json()).username).toBe(renamed);

    // Someone else's username: the failure toast, and the server's reason under the field.
    const outside = await outsideRequest(baseURL);
    const other = await register(outside, 'taken');
    await outside.dispose();
    await page.getByLabel('Username').fill(other.username);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expectToast(page, 'Failed to update settings. Please try again.');
    await expect(page.getByText('That username is already taken')).toBeVisible();

    await page.getByRole('switch', { name: 'Product news and tips by e-mail' }).check();
    await expectToast(page, 'Your settings have been updated successfully.');
    expect((await (await page.request.get('/api/settings')).json()).marketingEmails).toBe(true);

    await page.getByRole('radio', { name: 'Dark' }).check();
    await expect(page.locator('html')).toHaveClass(/\bdark\b/);
    expect(await page.evaluate(() => localStorage.getItem('theme'))).toBe('dark');
  });

  test('change e-mail: the current password, a link to the new address, then the address changes', async ({ page, browser, baseURL }) => {
    const account = await register(page.request, 'mover');
    await startTrial(page.request, 'basic');
    await createStore(page.request, 'Mover Shop');
    const newEmail = `${uniqueName('moved')}@example.com`;

    await page.goto('/settings');
    const section = page.getByRole('region', { name: 'Email address' });
    await expect(section.getByTestId('current-email')).toHaveText(account.email);
    await section.getByLabel('New email address').fill(newEmail);
    await section.getByLabel('Your password').fill('not my password');
    await section.getByRole('button', { name: 'Send confirmation link' }).click();
    await expect(section.getByText('Current password is incorrect')).toBeVisible();

    await section.getByLabel('Your password').fill(account.password);
    await section.getByRole('button', { name: 'Send confirmation link' }).click();
    await expectToast(page, 'Check the new inbox', `We sent a confirmation link to ${newEmail}.`);
    await expect(section.getByTestId('pending-email')).toContainText(newEmail);
    expect((await (await page.request.get('/api/settings')).json()).email).toBe(account.email);

    // The link, opened in another browser (signed out): a click confirms it.
    const link = /https?:\/\/[^/\s]+(\/confirm-email\?token=[A-Za-z0-9_-]+)/.exec(adminCli('outbox', '--to', newEmail, '--limit', '1'))![1]!;
    const elsewhere = await browser.newContext({ baseURL });
    const other = await elsewhere.newPage();
    await other.goto(link);
    await other.getByRole('button', { name: 'Confirm new address' }).click();
    await expect(other.getByTestId('confirm-email-done')).toContainText(`Your account now uses ${newEmail}.`);
    await other.goto(link);
    await other.getByRole('button', { name: 'Confirm new address' }).click();
    await expect(other.getByTestId('confirm-email-invalid')).toContainText('This confirmation link is invalid or has expired.');
    await elsewhere.close();

    await page.reload();
    await expect(section.getByTestId('current-email')).toHaveText(newEmail);
    await expect(section.getByTestId('pending-email')).toHaveCount(0);
  });

  test('change password: wrong current refused, then updated, and the new password signs in', async ({ page }) => {
    const account = await register(page.request, 'passwd');
    await startTrial(page.request, 'basic');
    await createStore(page.request, 'Password Shop');
    const newPassword = 'a much better passphrase';

    await page.goto('/settings');
    await page.getByLabel('Current password').fill('not my password');
    await page.getByLabel('New password', { exact: true }).fill(newPassword);
    await page.getByLabel('Confirm new password').fill(newPassword);
    await page.getByRole('button', { name: 'Update password' }).click();
    await expectToast(page, 'Failed to update password. Please try again.');
    await expect(page.getByText('Current password is incorrect')).toBeVisible();

    await page.getByLabel('Confirm new password').fill('something else');
    await page.getByRole('button', { name: 'Update password' }).click();
    await expect(page.getByText('Passwords do not match')).toBeVisible();

    await page.getByLabel('Current password').fill(account.password);
    await page.getByLabel('Confirm new password').fill(newPassword);
    await page.getByRole('button', { name: 'Update password' }).click();
    await expectToast(page, 'Your password has been updated successfully.');
    await expect(page.getByLabel('Current password')).toHaveValue('');
    // Still signed in, in a fresh session.
    expect((await page.request.get('/api/user')).status()).toBe(200);

    await page.goto('/api/logout');
    await expect(page).toHaveURL(/\/auth$/);
    await signIn(page, account.username, account.password);
    await expect(page.getByRole('alert')).toHaveText('Invalid username or password');
    await signIn(page, account.username, newPassword);
    await expect(page).toHaveURL(/\/dashboard$/);
  });
});

test.describe('forgot and reset password', () => {
  test('request a link from the sign-in page, set a new password with it, sign in', async ({ page, baseURL }) => {
    const outside = await outsideRequest(baseURL);
    const account = await register(outside, 'forgot');
    await outside.dispose();
    const newPassword = 'reset gives a new passphrase';

    await page.goto('/auth');
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await expect(page).toHaveURL(/\/forgot-password$/);
    await page.getByLabel('Email').fill(account.email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await expect(page.getByTestId('reset-requested')).toHaveText(
      "If an account exists for that email, we've sent a link to reset your password.",
    );

    const resetPath = latestResetPath(account.email);
    await page.goto(resetPath);
    await expect(page.getByRole('heading', { name: 'Choose a new password' })).toBeVisible();
    await page.getByLabel('New password', { exact: true }).fill(newPassword);
    await page.getByLabel('Confirm new password').fill('does not match at all');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await expect(page.getByText('Passwords do not match')).toBeVisible();
    await page.getByLabel('Confirm new password').fill(newPassword);
    await page.getByRole('button', { name: 'Set new password' }).click();
    await expect(page.getByRole('heading', { name: 'Password updated' })).toBeVisible();

    await page.getByRole('link', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(/\/auth$/);
    await signIn(page, account.username, newPassword);
    await expect(page).not.toHaveURL(/\/auth/);
    expect((await page.request.get('/api/user')).status()).toBe(200);

    // The link worked once.
    await page.goto(resetPath);
    await page.getByLabel('New password', { exact: true }).fill('yet another passphrase');
    await page.getByLabel('Confirm new password').fill('yet another passphrase');
    await page.getByRole('button', { name: 'Set new password' }).click();
    await expect(page.getByTestId('reset-invalid')).toContainText('This reset link is invalid or has expired.');
  });

  test('an unknown address gets the same answer; a missing token says the link is invalid', async ({ page }) => {
    await page.goto('/forgot-password');
    await page.getByLabel('Email').fill('nobody-here@example.com');
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await expect(page.getByTestId('reset-requested')).toHaveText(
      "If an account exists for that email, we've sent a link to reset your password.",
    );

    await page.goto('/reset-password');
    await expect(page.getByTestId('reset-invalid')).toContainText('This reset link is invalid or has expired.');
    await expect(page.getByRole('link', { name: 'Request a new link' })).toHaveAttribute('href', '/forgot-password');
  });
});

/** Serious or critical axe findings in the page (or in one part of it), as readable lines; the caller waits for the content first. */
async function seriousViolations(page: Page, label: string, within?: string): Promise<string[]> {
  await animationsFinished(page);
  let builder = new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']);
  if (within) builder = builder.include(within);
  const results = await builder.analyze();
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${label}: ${violation.id} (${violation.impact}) ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

for (const theme of ['light', 'dark'] as const) {
  test(`the account screens have no serious accessibility violations (${theme})`, async ({ page }) => {
    await page.addInitScript((value) => localStorage.setItem('theme', value), theme);
    const found: string[] = [];

    await page.goto('/forgot-password');
    await expect(page.getByRole('button', { name: 'Send reset link' })).toBeVisible();
    found.push(...(await seriousViolations(page, 'forgot-password')));
    await page.goto('/reset-password?token=some-token');
    await expect(page.getByRole('button', { name: 'Set new password' })).toBeVisible();
    found.push(...(await seriousViolations(page, 'reset-password')));
    await page.goto('/reset-password');
    await expect(page.getByTestId('reset-invalid')).toBeVisible();
    found.push(...(await seriousViolations(page, 'reset-password invalid')));
    await page.goto('/confirm-email?token=some-token');
    await expect(page.getByRole('button', { name: 'Confirm new address' })).toBeVisible();
    found.push(...(await seriousViolations(page, 'confirm-email')));
    await page.goto('/confirm-email');
    await expect(page.getByTestId('confirm-email-invalid')).toBeVisible();
    found.push(...(await seriousViolations(page, 'confirm-email invalid')));
    await page.goto('/auth');
    await expect(page.getByRole('link', { name: 'Forgot password?' })).toBeVisible();
    found.push(...(await seriousViolations(page, 'forgot link on /auth', 'a[href="/forgot-password"]')));

    await register(page.request, `axe${theme}`);
    await page.goto('/onboarding/pricing');
    await expect(page.getByTestId('plan-card')).toHaveCount(4);
    found.push(...(await seriousViolations(page, 'onboarding')));

    await createStore(page.request, 'Axe Store');
    await startTrial(page.request, 'professional');
    await createStore(page.request, 'Second Axe Store');
    // The layout around the pages is the shell's; these checks cover the pages' own content.
    for (const [path, ready] of [
      ['/store-management', 'store-row'],
      ['/pricing', 'plan-card'],
      [`/checkout/${await planId(page.request, 'business')}`, 'test-mode'],
      ['/profile', 'profile-plan'],
    ] as const) {
      await page.goto(path);
      await expect(page.getByTestId(ready).first()).toBeVisible();
      found.push(...(await seriousViolations(page, path, 'main')));
    }
    await page.goto('/settings');
    await expect(page.getByLabel('Username')).not.toHaveValue('');
    found.push(...(await seriousViolations(page, '/settings', 'main')));
    await page.goto('/store-management');
    await page.getByRole('button', { name: 'Delete Axe Store' }).click();
    await expect(page.getByRole('dialog')).toBeVisible();
    found.push(...(await seriousViolations(page, 'delete dialog', 'dialog')));

    expect(found).toEqual([]);
  });
}
