import { expect, test, type Page } from '@playwright/test';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { StripeFake } from '../test/fakes/stripe.ts';
import { E2E_PORT } from './integration-fakes-env.ts';
import { registerInPage } from './shell-helpers.ts';
import { screenSettled } from './waits.ts';

// Stripe billing end to end: a server of its own with PAYMENT_PROVIDER=stripe (the shared one keeps
// the test provider), pointed at the loopback Stripe fake, which signs its webhooks to that server.
// Ports: the shared server's E2E_PORT + 1 (the fake) and + 2 (this server).
const FAKE_PORT = E2E_PORT + 1;
const APP_PORT = E2E_PORT + 2;
const APP_URL = `http://localhost:${APP_PORT}`;
const SECRET_KEY = 'sk_test_e2efake';
const WEBHOOK_SECRET = 'whsec_e2efakesecret';
const DAY = 86_400;
const directory = process.env.SCREENSHOTS_DIR;

test.describe.configure({ mode: 'serial' });
test.use({ baseURL: APP_URL });

let fake: StripeFake;
let server: ChildProcess | undefined;
let dataDir: string;

test.beforeAll(async () => {
  test.setTimeout(10 * 60_000);
  fake = await new StripeFake({
    secretKey: SECRET_KEY,
    webhookSecret: WEBHOOK_SECRET,
    deliver: async (body, signature) =>
      (await fetch(`${APP_URL}/api/webhooks/stripe`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'stripe-signature': signature } })).status,
  }).start(FAKE_PORT);
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'storepulse-e2e-stripe-'));
  server = spawn(process.execPath, ['src/server/main.ts'], {
    env: {
      ...process.env,
      PORT: String(APP_PORT),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      FX_SOURCE: 'synthetic',
      RATE_LIMIT_REGISTRATIONS_PER_IP: '10000',
      RATE_LIMIT_LOGINS_PER_IP: '10000',
      PAYMENT_PROVIDER: 'stripe',
      STRIPE_SECRET_KEY: SECRET_KEY,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_BASE: fake.url,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  await expect.poll(async () => fetch(`${APP_URL}/healthz`).then((answer) => answer.status, () => 0), { timeout: 10 * 60_000 }).toBe(200);
});

test.afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  await fake?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function shootAll(page: Page, name: string, url: string, ready: () => Promise<void>): Promise<void> {
  if (!directory) return;
  mkdirSync(directory, { recursive: true });
  for (const theme of ['light', 'dark'] as const) {
    for (const [size, viewport] of [['desktop', { width: 1280, height: 860 }], ['mobile', { width: 390, height: 844 }]] as const) {
      await page.setViewportSize(viewport);
      await page.evaluate((value) => localStorage.setItem('theme', value), theme);
      await page.goto(url);
      // The theme is read at load; a goto that only changes the hash does not load the page again.
      await page.reload();
      await ready();
      await screenSettled(page);
      await page.screenshot({ path: path.join(directory, `${name}-${size}-${theme}.png`), fullPage: true });
    }
  }
  await page.setViewportSize({ width: 1280, height: 860 });
}

/** Basic through the fake's hosted Checkout, trial included; returns once the webhook made it active. */
async function subscribeToBasic(page: Page): Promise<void> {
  await page.goto('/pricing');
  await page.locator('[data-plan="basic"]').getByRole('link', { name: /Choose Basic/ }).click();
  await page.getByRole('button', { name: 'Confirm and subscribe' }).click();
  // The fake's hosted checkout page: the buyer pays there.
  await expect(page.getByRole('heading', { name: 'Pay StorePulse' })).toBeVisible();
  await page.getByRole('button', { name: 'Pay' }).click();
  await expect(page).toHaveURL(/\/pricing\?checkout=success/);
  await expect(page.getByTestId('checkout-return')).toHaveAttribute('data-state', 'active');
  await expect(page.getByTestId('checkout-return')).toContainText('Basic');
  // A first store, so the pages open without the first-store dialog in front.
  expect((await page.request.post('/api/stores', { data: { name: 'Stripe Shop' } })).status()).toBe(201);
}

test('pricing -> Stripe Checkout -> back: waits for the webhook, then the plan is active and the invoice listed', async ({ page }) => {
  const { username } = await registerInPage(page, 'stripe');
  await page.goto('/pricing');
  await page.getByRole('radio', { name: /Yearly/ }).click();
  const professional = page.locator('[data-plan="professional"]');
  await expect(professional.getByTestId('plan-price')).toContainText('£790');
  await shootAll(page, 'pricing-yearly', '/pricing?billing=yearly', () => expect(page.getByTestId('plan-card')).toHaveCount(4));
  await shootAll(page, 'pricing-monthly', '/pricing', () => expect(page.getByTestId('plan-card')).toHaveCount(4));

  await subscribeToBasic(page);

  // The trial ends and the card pays: the invoice with its PDF link.
  await fake.advanceClock(15 * DAY);
  // The job applies the webhooks in the background: the list shows the invoice once it has.
  await page.goto('/settings#billing');
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId('invoice-row').filter({ hasText: '£29' })).toHaveAttribute('data-status', 'paid', { timeout: 2000 });
  }).toPass({ timeout: 5 * 60_000 });
  await expect(page.getByTestId('invoice-row').filter({ hasText: '£29' }).getByTestId('invoice-pdf')).toHaveAttribute('href', /\/pdf$/);
  await shootAll(page, 'billing-invoices', '/settings#billing', () => expect(page.getByTestId('invoice-row').first()).toBeVisible());

  // A renewal fails: past_due, and the banner says until when.
  const subscription = [...fake.objects.values()].find((item) => item.object === 'subscription')!;
  fake.declineCard(String(subscription.customer));
  await fake.advanceClock(32 * DAY);
  await page.goto('/pricing');
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId('past-due-banner')).toContainText('Your last payment failed', { timeout: 2000 });
  }).toPass({ timeout: 5 * 60_000 });
  await shootAll(page, 'past-due-banner', '/settings#billing', () => expect(page.getByTestId('past-due-banner')).toBeVisible());
  await fake.recoverPayment(subscription.id);
  await page.goto('/settings#billing');
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId('billing-state')).toContainText('renews', { timeout: 2000 });
  }).toPass({ timeout: 5 * 60_000 });
  await expect(page.getByTestId('past-due-banner')).toHaveCount(0);
  expect(username).toBeTruthy();
});

test('/settings -> Manage billing -> the Stripe Customer Portal -> Return to StorePulse: back on /settings', async ({ page }) => {
  await registerInPage(page, 'portal');
  await subscribeToBasic(page);
  await page.goto('/settings#billing');
  await page.getByRole('button', { name: 'Manage billing' }).click();
  // The portal session's page on the fake (Stripe's host in production), for this user's customer.
  await expect(page.getByRole('heading', { name: 'Manage your StorePulse billing' })).toBeVisible();
  expect(new URL(page.url()).origin).toBe(new URL(fake.url).origin);
  const portal = [...fake.objects.values()].find((item) => item.object === 'billing_portal.session' && item.url === page.url())!;
  expect(portal.return_url).toBe(`${APP_URL}/settings`);
  await page.getByRole('link', { name: 'Return to StorePulse' }).click();
  await expect(page).toHaveURL(`${APP_URL}/settings`);
  await expect(page.getByTestId('billing-state')).toContainText('Basic');
});

test('/settings lists a refunded and disputed invoice with "Refunded £10" and a "Disputed" badge', async ({ page }) => {
  await registerInPage(page, 'dispute');
  await subscribeToBasic(page);
  const customer = String([...fake.objects.values()].filter((item) => item.object === 'checkout.session').at(-1)!.customer);
  // The trial ends and the card pays £29; then part of it is refunded and the rest disputed.
  await fake.advanceClock(15 * DAY);
  const paid = [...fake.objects.values()].find((item) => item.object === 'invoice' && item.customer === customer && Number(item.amount_paid) > 0)!;
  await fake.refund(paid.id, 1000);
  await fake.dispute(paid.id);
  await page.goto('/settings#billing');
  const row = page.getByTestId('invoice-row').filter({ hasText: '£29' });
  await expect(async () => {
    await page.reload();
    await expect(row.getByTestId('invoice-disputed')).toHaveText('Disputed', { timeout: 2000 });
  }).toPass({ timeout: 5 * 60_000 });
  await expect(row.getByTestId('invoice-refunded')).toHaveText('Refunded £10');
  await expect(row).toHaveAttribute('data-status', 'paid');
  // The trial's £0 invoice was neither refunded nor disputed.
  await expect(page.getByTestId('invoice-row').getByTestId('invoice-disputed')).toHaveCount(1);
  await expect(page.getByTestId('invoice-row').getByTestId('invoice-refunded')).toHaveCount(1);
  await shootAll(page, 'billing-invoices-disputed', '/settings#billing', () => expect(page.getByTestId('invoice-disputed')).toBeVisible());
});
