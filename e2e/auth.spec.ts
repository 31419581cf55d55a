import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { actAsDistinctClient, distinctAddress, grantPlan, openAccountMenu, startTrial } from './shell-helpers.ts';

const PASSWORD = 'correct horse battery';

function uniqueUsername(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

/** An account made through the REST API, in a context of its own (the page stays signed out). */
async function createAccount(request: APIRequestContext, prefix: string): Promise<string> {
  const username = uniqueUsername(prefix);
  const response = await request.post('/api/register', {
    data: { username, email: `${username}@example.com`, password: PASSWORD },
    headers: { 'X-Forwarded-For': distinctAddress() },
  });
  expect(response.status(), await response.text()).toBe(201);
  return username;
}

// Each journey is a client of its own for the per-address sign-in and registration limits.
test.beforeEach(async ({ page }) => actAsDistinctClient(page));

async function signIn(page: Page, username: string, password: string): Promise<void> {
  await page.getByLabel('Username or email').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

test('register, see the plans, use the dashboard, stay signed in across a reload, log out', async ({ page }) => {
  const username = uniqueUsername('journey');

  await page.goto('/');
  await expect(page).toHaveURL(/\/auth$/);

  await page.getByRole('tab', { name: 'Register' }).click();
  await expect(page).toHaveURL(/\/auth\?tab=register$/);
  await page.getByLabel('Username', { exact: true }).fill(username);
  await page.getByLabel('Email', { exact: true }).fill(`${username}@example.com`);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();

  await expect(page).toHaveURL(/\/onboarding\/pricing$/);
  await expect(page.getByRole('heading', { level: 1 })).toContainText(username);

  // Without a plan the dashboard is not open yet; with a trial it is, after the first store.
  await page.goto('/dashboard');
  await expect(page).toHaveURL(/\/pricing$/);
  await startTrial(page.request, 'business');
  await page.goto('/dashboard');
  const gate = page.getByRole('dialog', { name: 'Create your first store' });
  await gate.getByLabel('Store name').fill('Journey Store');
  await gate.getByRole('button', { name: 'Create store' }).click();
  await expect(gate).toHaveCount(0);
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole('heading', { level: 1 })).toContainText(username);
  await expect(page.getByRole('link', { name: 'Connect a platform' })).toHaveAttribute('href', '/integrations');

  await page.reload();
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole('heading', { level: 1 })).toContainText(username);

  await openAccountMenu(page);
  await page.getByRole('button', { name: 'Log out' }).click();
  await expect(page).toHaveURL(/\/auth$/);
  await expect(page.getByRole('tab', { name: 'Sign in' })).toBeVisible();

  // The session is really gone: the dashboard asks for sign-in again.
  await page.goto('/dashboard');
  await expect(page).toHaveURL(/\/auth\?redirect=%2Fdashboard$/);
});

test('a wrong password shows the server message and stays on /auth', async ({ page, request }) => {
  const username = await createAccount(request, 'wrongpw');

  await page.goto('/auth');
  await signIn(page, username, 'not the right password');

  await expect(page.getByRole('alert')).toHaveText('Invalid username or password');
  await expect(page).toHaveURL(/\/auth$/);
});

test('a signed-out visit to /dashboard signs in and comes back to /dashboard', async ({ page, request }) => {
  const username = await createAccount(request, 'redirect');
  grantPlan(username, 'business');
  expect((await request.post('/api/stores', { data: { name: 'Redirect Store' } })).status()).toBe(201);

  await page.goto('/dashboard');
  await expect(page).toHaveURL(/\/auth\?redirect=%2Fdashboard$/);

  await signIn(page, username, PASSWORD);
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByRole('heading', { level: 1 })).toContainText(username);
});
