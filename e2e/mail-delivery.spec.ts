import { expect, test, type Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { configureUnsubscribeSigning, unsubscribeUrl } from '../src/server/modules/email/unsubscribe.ts';
import { startSmtpPeer, type SmtpPeer } from '../test/fakes/smtp-peer.ts';
import { distinctAddress, registered, screenshots, signedInAdmin, uniqueName, PASSWORD } from './admin-helpers.ts';
import { E2E_PORT } from './integration-fakes-env.ts';
import { startOwnServer, type OwnServer } from './own-server.ts';
import { screenSettled } from './waits.ts';

// E-mail through SMTP, end to end: a server of its own (`node src/server/main.ts`, its own embedded
// PostgreSQL) with SMTP_URL pointing at a real SMTP peer on loopback (test/fakes/smtp-peer.ts: STARTTLS
// with a self-signed certificate, AUTH). The suite's shared server has no SMTP_URL: it shows the
// "not configured" state. Ports: the server E2E_PORT + 1, the peer E2E_PORT + 2.

const MAIL_SERVER_PORT = E2E_PORT + 1;
const SMTP_PEER_PORT = E2E_PORT + 2;
const mailBase = `http://localhost:${MAIL_SERVER_PORT}`;
const SCREENS = process.env.SCREENSHOTS_DIR;

test.describe.configure({ mode: 'serial' });

let peer: SmtpPeer;
let mailServer: OwnServer;
let dataDir: string;

test.beforeAll(async () => {
  peer = await startSmtpPeer({ port: SMTP_PEER_PORT });
  mailServer = await startOwnServer(MAIL_SERVER_PORT, 'mail', {
    SMTP_URL: peer.url,
    MAIL_FROM: 'StorePulse <noreply@storepulse.test>',
    // The peer's certificate is self-signed, made at its start.
    SMTP_TLS_REJECT_UNAUTHORIZED: 'false',
  });
  dataDir = mailServer.dataDir;
});

test.afterAll(async () => {
  await mailServer?.stop();
  await peer?.stop();
});

function mailAdminCli(...args: string[]): string {
  return execFileSync(process.execPath, ['src/scripts/admin.ts', ...args], { env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, encoding: 'utf8' });
}

async function shoot(page: Page, name: string): Promise<void> {
  await screenSettled(page);
  mkdirSync(SCREENS!, { recursive: true });
  await page.screenshot({ path: path.join(SCREENS!, `${name}.png`), fullPage: true });
}

test('the password reset link, taken from the e-mail the SMTP server received, sets a new password', async ({ page, playwright }) => {
  const visitor = await playwright.request.newContext({ baseURL: mailBase, extraHTTPHeaders: distinctAddress() });
  const account = await registered(visitor, 'smtpreset');
  await visitor.dispose();

  await page.goto(`${mailBase}/forgot-password`);
  await page.getByLabel('Email').fill(account.email);
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await expect(page.getByTestId('reset-requested')).toBeVisible();

  await expect.poll(() => peer.to(account.email).length).toBe(1);
  const mail = peer.to(account.email)[0]!;
  expect(mail.tls).toBe(true);
  expect(mail.parsed.subject).toBe('Reset your StorePulse password');
  const link = /https?:\/\/\S+\/reset-password\?token=[\w-]+/.exec(mail.parsed.text ?? '')![0];
  // The HTML part carries the same link, clickable.
  expect(mail.parsed.html).toContain(`href="${link}"`);

  const newPassword = 'a passphrase from the mailbox';
  await page.goto(`${mailBase}${new URL(link).pathname}${new URL(link).search}`);
  await page.getByLabel('New password', { exact: true }).fill(newPassword);
  await page.getByLabel('Confirm new password').fill(newPassword);
  await page.getByRole('button', { name: 'Set new password' }).click();
  await expect(page.getByRole('heading', { name: 'Password updated' })).toBeVisible();

  await page.goto(`${mailBase}/auth`);
  await page.getByLabel('Username or email').fill(account.username);
  await page.getByLabel('Password', { exact: true }).fill(newPassword);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page).not.toHaveURL(/\/auth/);
  expect((await page.request.get(`${mailBase}/api/user`)).status()).toBe(200);
});

test('an unsubscribe link asks first, then turns product news off; the page follows the system\'s light or dark theme', async ({ page, playwright }) => {
  const visitor = await playwright.request.newContext({ baseURL: mailBase, extraHTTPHeaders: distinctAddress() });
  const account = await registered(visitor, 'smtpunsub');
  expect((await visitor.patch('/api/settings/preferences', { data: { marketingEmails: true } })).status()).toBe(200);
  // The link as product news would carry it: signed with the key the mail server derives from its session secret.
  configureUnsubscribeSigning(readFileSync(path.join(dataDir, 'session-secret'), 'utf8').trim());
  const link = unsubscribeUrl(mailBase, { kind: 'marketing', userId: account.id });

  await page.goto(link);
  await expect(page.getByTestId('unsubscribe-question')).toHaveText('Stop sending product news to this account?');
  // Opening the link (or a mail scanner fetching it) changes nothing.
  expect((await (await visitor.get('/api/settings')).json()).marketingEmails).toBe(true);
  if (SCREENS) await unsubscribeScreens(page, 'unsubscribe-confirm');

  await page.getByRole('button', { name: 'Unsubscribe' }).click();
  await expect(page.getByTestId('unsubscribe-done')).toHaveText('You are unsubscribed. You will not receive these e-mails any more.');
  expect((await (await visitor.get('/api/settings')).json()).marketingEmails).toBe(false);
  await expect(page.getByRole('link', { name: 'E-mail preferences in StorePulse' })).toHaveAttribute('href', '/settings');
  if (SCREENS) await unsubscribeScreens(page, 'unsubscribe-done');

  await page.goto(`${mailBase}/api/unsubscribe?token=forged.token`);
  await expect(page.getByTestId('unsubscribe-invalid')).toContainText('This unsubscribe link is not valid.');
  await visitor.dispose();
});

/** The server-rendered page has no theme switch: it follows prefers-color-scheme. */
async function unsubscribeScreens(page: Page, name: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await shoot(page, `${name}-${width}-${colorScheme}`);
    }
  }
  await page.emulateMedia({ colorScheme: null });
  await page.setViewportSize({ width: 1280, height: 720 });
}

test('the admin outbox shows sent and refused e-mails with the server\'s answer, and retries a failed one', async ({ page, playwright }) => {
  const admin = uniqueName('mailadmin');
  mailAdminCli('create-user', '--username', admin, '--email', `${admin}@example.com`, '--password', PASSWORD, '--admin');
  const visitor = await playwright.request.newContext({ baseURL: mailBase, extraHTTPHeaders: distinctAddress() });
  peer.refuseRecipient('bounced@example.com', 550, '5.1.1 No such mailbox here');
  for (const email of ['happy@example.com', 'bounced@example.com']) {
    const answer = await visitor.post('/api/contact', { data: { name: 'Ann Example', email, message: 'A question about weekly reports, please.' } });
    expect(answer.ok(), await answer.text()).toBe(true);
  }
  await visitor.dispose();
  await expect.poll(() => peer.to('happy@example.com').length).toBe(1);

  const response = await page.request.post(`${mailBase}/api/login`, { data: { username: admin, password: PASSWORD } });
  expect(response.status()).toBe(200);
  await page.goto(`${mailBase}/admin/email-management?tab=outbox`);
  await expect(page.getByTestId('mail-delivery')).toHaveAttribute('data-state', 'configured');
  await expect(page.getByTestId('mail-delivery')).toContainText(`E-mails go out through 127.0.0.1:${SMTP_PEER_PORT} (STARTTLS when offered) from StorePulse <noreply@storepulse.test>.`);
  const failedRow = page.getByTestId('outbox-list').getByRole('button').filter({ hasText: 'To bounced@example.com' });
  await expect(failedRow).toContainText('Failed');
  await expect(failedRow.getByTestId('outbox-answer')).toContainText('550 5.1.1 No such mailbox here');
  const sentRow = page.getByTestId('outbox-list').getByRole('button').filter({ hasText: 'To happy@example.com' });
  await expect(sentRow).toContainText('Sent');
  await expect(sentRow).toContainText('1 attempt');

  if (SCREENS) {
    await screenshots(page, 'email-outbox-configured', async () => {
      await expect(page.getByTestId('mail-delivery')).toBeVisible();
      await expect(failedRow).toBeVisible();
    });
    await page.evaluate(() => localStorage.setItem('theme', 'light'));
    await page.reload();
  }

  await failedRow.click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByTestId('outbox-response')).toHaveText(/^550 5\.1\.1 No such mailbox here/);
  if (SCREENS) await shoot(page, 'email-outbox-failed-detail-desktop-light');
  // The mailbox exists again: the retried e-mail goes out, once.
  peer.acceptRecipient('bounced@example.com');
  await dialog.getByRole('button', { name: 'Retry delivery' }).click();
  await expect(dialog.getByRole('button', { name: 'Retry delivery' })).toHaveCount(0);
  await expect.poll(() => peer.to('bounced@example.com').length).toBe(1);
  await expect(failedRow).toContainText('Sent');
  await expect(failedRow).toContainText('2 attempts');
  expect(peer.to('bounced@example.com')).toHaveLength(1);
  // The retry is in the admin console's recent activity, with the administrator and the e-mail's number.
  await page.goto(`${mailBase}/admin/dashboard`);
  await expect(page.getByTestId('audit-list').getByRole('listitem').filter({ hasText: 'retried the delivery of an email' })).toContainText(new RegExp(`${admin}\\s*retried the delivery of an email · Email #\\d+`));
  if (SCREENS) await shoot(page, 'admin-audit-email-retry-desktop-light');
});

test('the shared server has no SMTP_URL: the e-mail screen says mail is not configured', async ({ page }) => {
  await page.setExtraHTTPHeaders(distinctAddress());
  await signedInAdmin(page);
  await page.goto('/admin/email-management?tab=outbox');
  await expect(page.getByTestId('mail-delivery')).toHaveAttribute('data-state', 'not-configured');
  await expect(page.getByTestId('mail-delivery')).toContainText('E-mail is not configured');
  await expect(page.getByTestId('mail-delivery')).toContainText('Set SMTP_URL and MAIL_FROM on the server');
  if (!SCREENS) return;
  await screenshots(page, 'email-outbox-not-configured', async () => {
    await expect(page.getByTestId('mail-delivery')).toBeVisible();
  });
});
