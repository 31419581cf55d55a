import { expect, type Page } from '@playwright/test';
import { createStore, register, startTrial, test } from './account-helpers.ts';
import { screenshots, seriousViolations, signedInAdmin } from './admin-helpers.ts';
import { MetaCommentsFake } from '../test/fakes/meta-comments.ts';
import { MetaAdsFake } from '../test/fakes/metaads.ts';
import { E2E_PORT, INTEGRATION_FAKE_PORTS } from './integration-fakes-env.ts';
import { loadDemoData, UNTIL_DONE } from './waits.ts';

// /meta-comments-manager (issue 20): an admin with the demo store connects Meta through the fake's
// login dialog, syncs the comments of the Page's posts, an ad's post and Instagram media, hides one,
// replies to another, and a comment the fake delivers by signed webhook appears without a reload.
// A subscriber who is not an admin sees 'Coming Soon'. With SCREENSHOTS_DIR set, screenshots at 1280
// and 390 px in light and dark.

let meta: MetaAdsFake;
let comments: MetaCommentsFake;

test.beforeAll(async () => {
  meta = await new MetaAdsFake({ currency: 'GBP', campaigns: 2, otherAccount: false }).start(INTEGRATION_FAKE_PORTS.metaads);
  comments = new MetaCommentsFake(meta);
});

test.afterAll(async () => {
  await meta?.close();
});

const row = (page: Page, text: string) => page.getByTestId('comment-row').filter({ hasText: text });

test('an admin syncs comments from Meta, hides one, replies to one, and a webhook comment appears without a reload', async ({ page }) => {
  await signedInAdmin(page);
  await createStore(page.request, 'Comments Demo');
  await page.goto('/dashboard');
  await loadDemoData(page);

  // Before Meta is connected: the way to /integrations.
  await page.goto('/meta-comments-manager');
  await expect(page.getByRole('heading', { level: 1, name: 'Meta Comments' })).toBeVisible();
  await expect(page.getByTestId('empty-state')).toContainText('Connect Meta to manage comments');
  await page.getByRole('link', { name: 'Go to Integrations' }).click();
  await expect(page).toHaveURL(/\/integrations$/);
  await page.locator('[data-testid="integration-card"][data-platform="metaads"]').getByRole('button', { name: 'Connect' }).click();
  await page.getByRole('button', { name: 'Allow' }).click();
  await expect(page.getByTestId('toast').filter({ hasText: 'Meta Ads connected' })).toBeVisible();

  await page.goto('/meta-comments-manager');
  await expect(page.getByTestId('last-sync')).toContainText('Not synced yet');
  await page.getByRole('button', { name: 'Sync now' }).click();
  await expect(page.getByTestId('toast').filter({ hasText: 'Synced: 9 comments' })).toBeVisible(UNTIL_DONE);
  await expect(page.getByTestId('comment-row')).toHaveCount(9);
  // Newest first, each with its post or ad and its labels.
  await expect(page.getByTestId('comment-row').first()).toContainText('Love this jacket');
  await expect(row(page, 'Terrible service')).toContainText('Ad: Winter sale');
  await expect(row(page, 'Terrible service')).toContainText('Complaint');
  await expect(row(page, 'Wie viel kostet')).toContainText('Instagram');
  await expect(row(page, 'DM me')).toContainText('Spam');
  await expect(page.getByTestId('complaints-alert')).toContainText('2 complaints have no reply yet.');
  expect(await seriousViolations(page, 'main')).toEqual([]);

  // Hide the spam: on Meta (the fake) and in the list.
  const spam = row(page, 'DM me');
  const spamId = (await spam.getAttribute('data-comment-id'))!;
  await spam.getByRole('button', { name: 'Hide' }).click();
  await expect(spam).toHaveAttribute('data-hidden', 'true');
  await expect(spam.getByTestId('hidden-badge')).toBeVisible();
  expect(comments.comment(spamId)!.hidden).toBe(true);

  // Reply with a template.
  await page.getByTestId('templates-panel').getByRole('textbox', { name: 'Template name' }).fill('Shipping');
  await page.getByTestId('templates-panel').getByRole('textbox', { name: 'Template text' }).fill('Hola {first_name}, enviamos en 2-3 días.');
  await page.getByRole('button', { name: 'Add template' }).click();
  await expect(page.getByTestId('templates-panel')).toContainText('Shipping');
  const question = row(page, 'Cuándo llega');
  const questionId = (await question.getAttribute('data-comment-id'))!;
  await question.getByRole('button', { name: 'Reply' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('combobox', { name: 'Use a template…' }).selectOption({ label: 'Shipping' });
  await expect(dialog.getByRole('textbox', { name: 'Your reply' })).toHaveValue('Hola Carlos, enviamos en 2-3 días.');
  await dialog.getByRole('button', { name: 'Send reply' }).click();
  await expect(question).toHaveAttribute('data-replied', 'true');
  expect(comments.comments.some((comment) => comment.parentId === questionId && comment.message === 'Hola Carlos, enviamos en 2-3 días.')).toBe(true);

  // Meta delivers a new comment by webhook: it appears while the page stays open.
  const delivered = await comments.deliverNewComment(`http://127.0.0.1:${E2E_PORT}/api/webhooks/meta`, { authorName: 'Webhook Wendy', message: 'Do you ship to Canada?' });
  expect(delivered.status).toBe(200);
  await expect(row(page, 'Do you ship to Canada?')).toBeVisible();
  await expect(row(page, 'Do you ship to Canada?')).toContainText('Question');
  // A forged delivery changes nothing.
  const forged = await comments.deliverNewComment(`http://127.0.0.1:${E2E_PORT}/api/webhooks/meta`, { authorName: 'Mallory', message: 'Forged comment' }, { secret: 'wrong-secret' });
  expect(forged.status).toBe(403);

  // Filters: hidden only.
  await page.getByRole('combobox', { name: 'Visibility' }).selectOption({ label: 'Hidden' });
  await expect(page.getByTestId('comment-row')).toHaveCount(1);
  await page.getByRole('combobox', { name: 'Visibility' }).selectOption({ label: 'Visibility: all' });
  await expect(page.getByTestId('comment-row')).toHaveCount(10);
  await expect(row(page, 'Forged comment')).toHaveCount(0);

  if (process.env.SCREENSHOTS_DIR) {
    await screenshots(page, 'meta-comments', async (shot) => {
      await expect(shot.getByTestId('comment-row')).toHaveCount(10);
    });
  }
});

test("a subscriber who is not an admin sees 'Coming Soon', and the procedures refuse them", async ({ page }) => {
  await register(page.request, 'commentspro');
  await startTrial(page.request, 'professional');
  await createStore(page.request, 'Pro Comments Store');
  await page.goto('/meta-comments-manager');
  await expect(page.getByRole('heading', { level: 1, name: 'Meta Comments' })).toBeVisible();
  await expect(page.getByTestId('placeholder-screen').getByTestId('empty-state')).toContainText('Coming Soon');
  await expect(page.getByTestId('nav-metaComments')).toContainText('Coming Soon');
  await expect(page.getByTestId('comments-section')).toHaveCount(0);
  expect((await page.request.get('/trpc/metaComments.list?input=%7B%7D')).status()).toBe(403);
});
