import AxeBuilder from '@axe-core/playwright';
import { expect, type APIRequestContext, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { animationsFinished, screenSettled } from './waits.ts';

/** Shared by e2e/admin.spec.ts and e2e/guests.spec.ts. */

export const PASSWORD = 'correct horse battery';
export const SCREENS_DIR = process.env.SCREENSHOTS_DIR ?? '/tmp/screens-d';

export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

/** Each test is its own client address (the e2e server trusts X-Forwarded-For), so per-address limits count it alone. */
export function distinctAddress(): Record<string, string> {
  const octet = () => 1 + Math.floor(Math.random() * 254);
  return { 'X-Forwarded-For': `10.${octet()}.${octet()}.${octet()}` };
}

/** The admin CLI against the e2e server's database. */
export function adminCli(...args: string[]): string {
  return execFileSync(process.execPath, ['src/scripts/admin.ts', ...args], {
    env: { ...process.env, DATA_DIR: process.env.E2E_DATA_DIR, LOG_LEVEL: 'warn' },
    encoding: 'utf8',
  });
}

export async function signIn(request: APIRequestContext, username: string): Promise<void> {
  const response = await request.post('/api/login', { data: { username, password: PASSWORD } });
  expect(response.status(), await response.text()).toBe(200);
}

/** An administrator made with the CLI, signed in in this page's context. */
export async function signedInAdmin(page: Page): Promise<{ username: string }> {
  const username = uniqueName('admin');
  adminCli('create-user', '--username', username, '--email', `${username}@example.com`, '--password', PASSWORD, '--admin');
  await signIn(page.request, username);
  return { username };
}

/** A user registered through the API in this request context (which is then signed in as them). */
export async function registered(request: APIRequestContext, prefix: string, email?: string): Promise<{ id: number; username: string; email: string }> {
  const username = uniqueName(prefix);
  const address = email ?? `${username}@example.com`;
  const response = await request.post('/api/register', { data: { username, email: address, password: PASSWORD } });
  expect(response.status(), await response.text()).toBe(201);
  return { id: ((await response.json()) as { id: number }).id, username, email: address };
}

export async function startTrial(request: APIRequestContext, tier: string): Promise<void> {
  const plans = (await (await request.get('/api/subscription/plans')).json()) as { id: number; tier: string }[];
  const response = await request.post('/api/subscription/trial', { data: { planId: plans.find((plan) => plan.tier === tier)!.id } });
  expect(response.ok(), await response.text()).toBe(true);
}

export async function createStore(request: APIRequestContext, name: string): Promise<{ id: number; name: string }> {
  const response = await request.post('/api/stores', { data: { name } });
  expect(response.status(), await response.text()).toBe(201);
  return (await response.json()) as { id: number; name: string };
}

/** The invitation link of the latest e-mail to this address, read with `admin outbox --to <email> --limit 1`. */
export function invitationPathFor(email: string): string {
  const output = adminCli('outbox', '--to', email, '--limit', '1');
  const match = /https?:\/\/[^/\s]+(\/accept-invite\?token=[A-Za-z0-9_-]+)/.exec(output);
  if (!match) throw new Error(`No invitation link in the outbox for ${email}:\n${output}`);
  return match[1]!;
}

/** A second browser (its own cookies and client address), for a second person in one test. */
export async function otherPerson(browser: Browser, baseURL: string | undefined): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL, locale: 'en-GB', extraHTTPHeaders: distinctAddress() });
  return { context, page: await context.newPage() };
}

/** SQL against the e2e server's embedded PostgreSQL (for states no API produces, such as an expired link). */
export async function sql(text: string, values: unknown[] = []): Promise<void> {
  const dataDir = process.env.E2E_DATA_DIR!;
  const password = readFileSync(path.join(dataDir, 'postgres-password'), 'utf8').trim();
  const port = Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[3]);
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'storepulse' });
  await client.connect();
  try {
    await client.query(text, values);
  } finally {
    await client.end();
  }
}

/**
 * Screenshots of the current path at 1280 and 390 px, light and dark, into SCREENS_DIR. `ready` is
 * awaited after each load (the page's own content, so the shot is not a spinner).
 */
export async function screenshots(page: Page, name: string, ready: (page: Page) => Promise<void>): Promise<void> {
  mkdirSync(SCREENS_DIR, { recursive: true });
  const url = page.url();
  // Charts drawn without their entrance animation: a bar is shot at its height, not on its way up.
  await page.emulateMedia({ reducedMotion: 'reduce' });
  for (const theme of ['light', 'dark'] as const) {
    await page.evaluate((value) => window.localStorage.setItem('theme', value), theme);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await page.goto(url);
      await ready(page);
      await screenSettled(page);
      await page.screenshot({ path: path.join(SCREENS_DIR, `${name}-${width}-${theme}.png`), fullPage: true });
    }
  }
  await page.emulateMedia({ reducedMotion: null });
  await page.setViewportSize({ width: 1280, height: 720 });
}

/** Serious or critical axe findings in the page (or in `scope`), as readable lines; [] when clean. */
export async function seriousViolations(page: Page, scope?: string): Promise<string[]> {
  await animationsFinished(page);
  const builder = new AxeBuilder({ page });
  const result = await (scope ? builder.include(scope) : builder).analyze();
  return result.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}
