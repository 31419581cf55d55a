import { test as base, expect, request as requestFactory, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';

/** A client address of its own ("10.x.y.z"); the e2e server trusts X-Forwarded-For. */
function distinctAddress(): string {
  const octet = () => 1 + Math.floor(Math.random() * 254);
  return `10.${octet()}.${octet()}.${octet()}`;
}

/**
 * Each test is a client of its own address, so the per-address limits (registrations, sign-ins,
 * reset e-mails) count it alone and the whole suite can share one server.
 */
export const test = base.extend({
  extraHTTPHeaders: async ({}, use) => {
    await use({ 'X-Forwarded-For': distinctAddress() });
  },
});

/** A request context outside the page's browser (its cookies stay apart), from an address of its own. */
export function outsideRequest(baseURL: string | undefined): Promise<APIRequestContext> {
  return requestFactory.newContext({ baseURL, extraHTTPHeaders: { 'X-Forwarded-For': distinctAddress() } });
}

export const PASSWORD = 'correct horse battery';

export interface Account {
  username: string;
  email: string;
  password: string;
}

export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

/** Registers through the REST API; with `page.request` the page's browser context is then signed in too. */
export async function register(request: APIRequestContext, prefix: string): Promise<Account> {
  const username = uniqueName(prefix);
  const account = { username, email: `${username}@example.com`, password: PASSWORD };
  const response = await request.post('/api/register', { data: account });
  expect(response.status(), await response.text()).toBe(201);
  return account;
}

export async function planId(request: APIRequestContext, tier: 'basic' | 'professional' | 'business' | 'enterprise'): Promise<number> {
  const plans = (await (await request.get('/api/subscription/plans')).json()) as { id: number; tier: string }[];
  const plan = plans.find((candidate) => candidate.tier === tier);
  if (!plan) throw new Error(`No ${tier} plan`);
  return plan.id;
}

export async function startTrial(request: APIRequestContext, tier: 'basic' | 'professional' | 'business' | 'enterprise'): Promise<void> {
  const response = await request.post('/api/subscription/trial', { data: { planId: await planId(request, tier) } });
  expect(response.status(), await response.text()).toBe(200);
}

export async function createStore(request: APIRequestContext, name: string): Promise<{ id: number; name: string }> {
  const response = await request.post('/api/stores', { data: { name } });
  expect(response.status(), await response.text()).toBe(201);
  return response.json();
}

/** Runs the admin CLI against the e2e server's database (the same embedded PostgreSQL). */
export function adminCli(...args: string[]): string {
  return execFileSync(process.execPath, ['src/scripts/admin.ts', ...args], {
    env: { ...process.env, DATA_DIR: process.env.E2E_DATA_DIR, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
  });
}

/** The reset link of the latest e-mail sent to this address, as a path on this site. */
export function latestResetPath(email: string): string {
  const output = adminCli('outbox', '--to', email, '--limit', '1');
  const match = /https?:\/\/[^/\s]+(\/reset-password\?token=\S+)/.exec(output);
  if (!match) throw new Error(`No reset link in:\n${output}`);
  return match[1]!;
}

export function toast(page: Page) {
  return page.getByTestId('toast');
}

/**
 * Checks the visible toast shows every text, then closes it (it covers the bottom-right corner,
 * where row buttons sit, for 5 s). The pointer rests on it first, which pauses its countdown: on a
 * loaded machine the checks may take longer than the toast's 5 s.
 */
export async function expectToast(page: Page, ...texts: string[]): Promise<void> {
  // Held open by the pointer and by focus, each on its own (toast.tsx): focus keeps it open even when a
  // layout change under a resting pointer ends the hover (a CI run once waited 90 s on a toast that
  // had been hovered and was counting down again).
  await toast(page).hover();
  await toast(page).focus();
  await expect(toast(page)).not.toHaveAttribute('data-closes-at');
  for (const text of texts) await expect(toast(page)).toContainText(text);
  await toast(page).getByRole('button', { name: 'Close notification' }).click();
  await expect(toast(page)).toHaveCount(0);
}

export async function signIn(page: Page, username: string, password: string): Promise<void> {
  await page.getByLabel('Username or email').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/**
 * A deletion that asks first, both ways: `deleteButton` opens the dialog named `dialogName` (which
 * says `says`, when given); Cancel closes it and `item` stays; asked again, `confirmLabel` confirms.
 */
export async function deleteAfterCancelling(
  page: Page,
  { deleteButton, dialogName, says, confirmLabel, item }: { deleteButton: Locator; dialogName: string; says?: string; confirmLabel: string; item: Locator },
): Promise<void> {
  await deleteButton.click();
  const dialog = page.getByRole('dialog', { name: dialogName });
  if (says) await expect(dialog).toContainText(says);
  else await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expect(item).toBeVisible();
  await deleteButton.click();
  await dialog.getByRole('button', { name: confirmLabel }).click();
}
