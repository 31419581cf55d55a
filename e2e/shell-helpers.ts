import { expect, type APIRequestContext, type Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';

export const PASSWORD = 'correct horse battery';

/**
 * Makes this test's browser context a client of its own address (the e2e server trusts
 * X-Forwarded-For), so the per-address sign-in and registration limits count it alone.
 */
export async function actAsDistinctClient(page: Page): Promise<void> {
  await page.context().setExtraHTTPHeaders({ 'X-Forwarded-For': distinctAddress() });
}

/** A private address for one test client. */
export function distinctAddress(): string {
  const octet = () => 1 + Math.floor(Math.random() * 254);
  return `10.${octet()}.${octet()}.${octet()}`;
}

export function uniqueUsername(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

/** Registers through the REST API with the page's own cookies: the page is then signed in. */
export async function registerInPage(page: Page, prefix: string): Promise<{ username: string; id: number }> {
  const username = uniqueUsername(prefix);
  const response = await page.request.post('/api/register', { data: { username, email: `${username}@example.com`, password: PASSWORD } });
  expect(response.status(), await response.text()).toBe(201);
  const body = (await response.json()) as { id: number };
  return { username, id: body.id };
}

/** The admin CLI against the e2e server's database. */
export function adminCli(...args: string[]): string {
  return execFileSync(process.execPath, ['src/scripts/admin.ts', ...args], {
    env: { ...process.env, DATA_DIR: process.env.E2E_DATA_DIR, LOG_LEVEL: 'warn' },
    encoding: 'utf8',
  });
}

export function grantPlan(username: string, plan: 'basic' | 'professional' | 'business' | 'enterprise'): void {
  adminCli('grant-plan', '--username', username, '--plan', plan);
}

export async function createAdminInPage(page: Page): Promise<{ username: string }> {
  const username = uniqueUsername('admin');
  adminCli('create-user', '--username', username, '--email', `${username}@example.com`, '--password', PASSWORD, '--admin');
  const response = await page.request.post('/api/login', { data: { username, password: PASSWORD } });
  expect(response.status(), await response.text()).toBe(200);
  return { username };
}

export async function startTrial(request: APIRequestContext, tier: string): Promise<void> {
  const plans = (await (await request.get('/api/subscription/plans')).json()) as { id: number; tier: string }[];
  const plan = plans.find((candidate) => candidate.tier === tier);
  if (!plan) throw new Error(`No ${tier} plan`);
  const response = await request.post('/api/subscription/trial', { data: { planId: plan.id } });
  expect(response.ok(), await response.text()).toBe(true);
}

export async function createStore(request: APIRequestContext, name: string): Promise<{ id: number; name: string }> {
  const response = await request.post('/api/stores', { data: { name } });
  expect(response.status(), await response.text()).toBe(201);
  return (await response.json()) as { id: number; name: string };
}

/** A client of the e2e server's embedded PostgreSQL. */
export async function database(): Promise<pg.Client> {
  const dataDir = process.env.E2E_DATA_DIR!;
  const password = readFileSync(path.join(dataDir, 'postgres-password'), 'utf8').trim();
  const port = Number(readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[3]);
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', password, database: 'storepulse' });
  await client.connect();
  return client;
}

export async function insertConnections(storeId: number, rows: { platform: string; connected: boolean; lastCheckedAt: string | null }[]): Promise<void> {
  const client = await database();
  try {
    for (const row of rows) {
      await client.query(
        // A row the header lists: connected now, or connected once and since cut off (refused credentials).
        `insert into platform_connections (store_id, platform, connected, status, connected_at, last_checked_at, created_at)
         values ($1, $2, $3, $4, now() - interval '1 day', $5, now())`,
        [storeId, row.platform, row.connected, row.connected ? 'connected' : 'disconnected', row.lastCheckedAt],
      );
    }
  } finally {
    await client.end();
  }
}

/** The theme as the app applies it (lib/theme.tsx): the class for Tailwind, data-theme for daisyUI. */
export async function applyTheme(page: Page, theme: 'light' | 'dark'): Promise<void> {
  await page.evaluate((value) => {
    const root = document.documentElement;
    root.classList.remove(value === 'dark' ? 'light' : 'dark');
    root.classList.add(value);
    root.dataset.theme = value;
  }, theme);
}

export async function useTheme(page: Page, theme: 'light' | 'dark'): Promise<void> {
  await page.addInitScript((value) => window.localStorage.setItem('theme', value), theme);
}

export async function openAccountMenu(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Account menu' }).click();
  await expect(page.getByRole('button', { name: 'Account menu' })).toHaveAttribute('aria-expanded', 'true');
}
