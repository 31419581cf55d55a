import AxeBuilder from '@axe-core/playwright';
import { expect, test, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { animationsFinished, screenSettled } from './waits.ts';

const PASSWORD = 'correct horse battery';

function uniqueUsername(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

/** Registers through the REST API; with `page.request` the page's browser context is signed in too. */
async function register(request: APIRequestContext, prefix: string): Promise<{ username: string; email: string }> {
  const username = uniqueUsername(prefix);
  const email = `${username}@example.com`;
  const response = await request.post('/api/register', { data: { username, email, password: PASSWORD } });
  expect(response.status(), await response.text()).toBe(201);
  return { username, email };
}

/** Signs an existing account in (registrations are rate-limited per network; sign-ins much less). */
async function signIn(request: APIRequestContext, username: string): Promise<void> {
  const response = await request.post('/api/login', { data: { username, password: PASSWORD } });
  expect(response.status(), await response.text()).toBe(200);
}

/** The admin CLI attached to the e2e server's embedded PostgreSQL. */
function adminCli(...args: string[]): string {
  return execFileSync(process.execPath, ['src/scripts/admin.ts', ...args], {
    env: { ...process.env, DATA_DIR: process.env.E2E_DATA_DIR, LOG_LEVEL: 'silent' },
    encoding: 'utf8',
  });
}

function toast(page: Page) {
  return page.getByTestId('toast');
}

test('help search finds a guide across topics, opens it, and a reload keeps it open', async ({ page }) => {
  await register(page.request, 'helpsearch');
  await page.goto('/help');
  await expect(page).toHaveURL(/\/help-center$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Help Center' })).toBeVisible();

  // The four topics, with real guides in each.
  for (const topic of ['Getting started', 'Features', 'Integrations', 'Troubleshooting']) {
    await expect(page.getByRole('tab', { name: new RegExp(topic) })).toBeVisible();
  }
  await page.getByRole('tab', { name: /Integrations/ }).click();
  await expect(page.getByRole('tabpanel').getByRole('link', { name: /Connect WooCommerce/ })).toBeVisible();

  const search = page.getByRole('searchbox', { name: 'Search the guides' });
  await search.fill('zzqxv');
  await expect(page.getByRole('heading', { name: 'No guides match "zzqxv"' })).toBeVisible();

  // Matches the body, not only titles: "attribution windows" is explained in a troubleshooting guide.
  await search.fill('attribution windows');
  await expect(page.getByText(/guides? match(es)? "attribution windows"/)).toBeVisible();
  await page.getByRole('link', { name: /Why StorePulse numbers differ/ }).click();
  await expect(page).toHaveURL(/\/help-center\?guide=numbers-differ&q=attribution\+windows$/);
  const article = page.getByRole('article');
  await expect(article.getByRole('heading', { name: "Why StorePulse numbers differ from a platform's own report" })).toBeVisible();
  await expect(article.getByText('Time zones', { exact: true })).toBeVisible();

  await page.reload();
  await expect(page.getByRole('article').getByRole('heading', { name: /Why StorePulse numbers differ/ })).toBeVisible();

  await page.getByRole('link', { name: 'Back to search results' }).click();
  await expect(page).toHaveURL(/\/help-center\?q=attribution\+windows$/);
  await expect(search).toHaveValue('attribution windows');

  // The KPI guide with its definitions.
  await search.fill('ROAS');
  await page.getByRole('link', { name: /Reading the dashboard KPIs/ }).click();
  await expect(page.getByText('Gross sales minus discounts and refunds, excluding tax and shipping.', { exact: false })).toBeVisible();

  await expect(page.getByRole('link', { name: 'Read the privacy policy' })).toHaveAttribute('href', '/privacy-policy');
});

test('the contact form validates, sends, shows "Message sent" and the message is stored and confirmed', async ({ page }) => {
  const { username, email } = await register(page.request, 'contact');
  await page.goto('/help-center');

  await expect(page.getByLabel('Name')).toHaveValue(username);
  await expect(page.getByLabel('Email')).toHaveValue(email);

  await page.getByRole('button', { name: 'Send message' }).click();
  await expect(page.getByText('Message must be at least 10 characters')).toBeVisible();
  await expect(page.getByLabel('Message')).toBeFocused();

  const message = `Orders from my WooCommerce store stopped syncing yesterday (${username}).`;
  await page.getByLabel('Message').fill(message);
  await page.getByRole('button', { name: 'Send message' }).click();
  await expect(toast(page)).toContainText('Message sent');
  await expect(toast(page)).toContainText("We'll get back to you as soon as possible.");
  await expect(page.getByLabel('Message')).toHaveValue('');

  const outbox = adminCli('outbox', '--to', email, '--limit', '1');
  expect(outbox).toContain(`to ${email}`);
  expect(outbox).toContain('Subject: We received your message');
  expect(outbox).toContain(message);
});

test('the contact form shows the failure toast when the server cannot be reached', async ({ page }) => {
  await register(page.request, 'contactfail');
  await page.goto('/help-center');
  await page.route('**/trpc/support.contact**', (route) => route.abort());
  await page.getByLabel('Message').fill('This message will not arrive anywhere.');
  await page.getByRole('button', { name: 'Send message' }).click();
  await expect(toast(page)).toContainText('Failed to send message. Please try again later.');
  await expect(toast(page)).toHaveAttribute('data-variant', 'destructive');
  await expect(page.getByLabel('Message')).toHaveValue('This message will not arrive anywhere.');
});

test('a feature request is submitted, listed as yours and voted for', async ({ page, browser }) => {
  await register(page.request, 'feature');
  await page.goto('/request-feature');
  await expect(page.getByRole('heading', { level: 1, name: 'Request a Feature' })).toBeVisible();

  await page.getByRole('button', { name: 'Submit request' }).click();
  await expect(page.getByText('Title must be at least 5 characters')).toBeVisible();

  const title = `Amazon connector ${Date.now().toString(36)}`;
  await page.getByLabel('Title').fill(title);
  await page.getByLabel('Description').fill('Import Amazon Seller Central orders next to Shopify.');
  await page.getByRole('button', { name: 'Submit request' }).click();
  await expect(toast(page)).toContainText('Request submitted');

  const card = page.getByTestId('feature-request').filter({ hasText: title });
  await expect(card.getByText('Your request')).toBeVisible();
  await expect(card.getByText('Open', { exact: true })).toBeVisible();
  const vote = card.getByRole('button', { name: new RegExp(`^Vote for "${title}"`) });
  await expect(vote).toHaveAttribute('aria-pressed', 'true');
  await expect(card.getByTestId('vote-count')).toHaveText('1');

  await vote.click();
  await expect(vote).toHaveAttribute('aria-pressed', 'false');
  await expect(card.getByTestId('vote-count')).toHaveText('0');
  await vote.click();
  await expect(vote).toHaveAttribute('aria-pressed', 'true');
  await expect(card.getByTestId('vote-count')).toHaveText('1');

  // Another user votes for it: the count grows, and it is not "their request".
  const otherContext = await browser.newContext();
  const other = await otherContext.newPage();
  await register(other.request, 'voter');
  await other.goto('/request-feature?sort=new');
  const otherCard = other.getByTestId('feature-request').filter({ hasText: title });
  await expect(otherCard.getByText('Your request')).toHaveCount(0);
  await otherCard.getByRole('button', { name: new RegExp(`^Vote for "${title}"`) }).click();
  await expect(otherCard.getByTestId('vote-count')).toHaveText('2');
  await otherContext.close();

  await page.reload();
  await expect(card.getByTestId('vote-count')).toHaveText('2');
  await expect(vote).toHaveAttribute('aria-pressed', 'true');

  // The status filter keeps the view in the URL.
  await page.getByLabel('Filter by status').selectOption('planned');
  await expect(page).toHaveURL(/status=planned/);
  await expect(page.getByText('No requests with this status')).toBeVisible();
});

test('an admin sets the status of a request from the list', async ({ page }) => {
  const username = uniqueUsername('fradmin');
  adminCli('create-user', '--username', username, '--email', `${username}@example.com`, '--password', PASSWORD, '--admin');
  await signIn(page.request, username);
  const created = await page.request.post('/api/feature-requests', {
    data: { title: `Status check ${username}`, description: 'A request whose status the admin changes.' },
  });
  expect(created.status()).toBe(201);

  await page.goto('/request-feature?sort=new');
  const card = page.getByTestId('feature-request').filter({ hasText: `Status check ${username}` });
  await card.getByLabel(`Status of "Status check ${username}"`).selectOption('in_progress');
  await expect(toast(page)).toContainText('Status changed to In progress');
  await expect(card.getByText('In progress', { exact: true }).first()).toBeVisible();

  await page.getByLabel('Filter by status').selectOption('in_progress');
  await expect(card).toBeVisible();
});

test('the privacy policy and the terms of service are public pages', async ({ page }) => {
  await page.goto('/privacy-policy');
  await expect(page).toHaveURL(/\/privacy-policy$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Privacy Policy' })).toBeVisible();
  await expect(page.getByText('Last updated: 21 November 2026')).toBeVisible();
  await expect(page.getByText(/StorePulse sets a single cookie, analytics\.sid/)).toBeVisible();
  await page.getByRole('navigation', { name: 'Contents' }).getByRole('link', { name: 'Retention and deletion' }).click();
  await expect(page).toHaveURL(/#retention$/);
  await expect(page.getByText(/Deleting a store deletes its data/)).toBeInViewport();

  await page.getByRole('link', { name: 'Terms of Service' }).first().click();
  await expect(page).toHaveURL(/\/terms-of-service$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Terms of Service' })).toBeVisible();
  await expect(page.getByText(/laws of England and Wales/)).toBeVisible();
  await expect(page.getByText(/one free trial of 14 days/)).toBeVisible();

  await page.getByRole('button', { name: 'Back' }).click();
  await expect(page).toHaveURL(/\/privacy-policy/);
});

test('the legal pages are translated', async ({ page }) => {
  await page.addInitScript(() => localStorage.setItem('i18nextLng', 'de'));
  await page.goto('/terms-of-service');
  await expect(page.getByRole('heading', { level: 1, name: 'Nutzungsbedingungen' })).toBeVisible();
  await expect(page.getByText(/England und Wales/).first()).toBeVisible();
});

/** Each page once it shows its own content (the request list once it has loaded), so that axe and screenshots see it. */
const LOADED: Record<string, (page: Page) => Locator> = {
  '/help-center': (page) => page.getByRole('tab').nth(3),
  '/help-center?guide=dashboard-kpis': (page) => page.getByRole('article').getByRole('heading', { level: 2 }).first(),
  '/help-center?guide=numbers-differ': (page) => page.getByRole('article').getByRole('heading', { level: 2 }).first(),
  '/help-center?q=zzqxv': (page) => page.getByRole('heading', { name: 'No guides match "zzqxv"' }),
  '/request-feature': (page) => page.getByTestId('feature-request').first(),
  '/privacy-policy': (page) => page.getByRole('heading', { level: 1, name: 'Privacy Policy' }),
  '/terms-of-service': (page) => page.getByRole('heading', { level: 1 }),
};

test('no serious or critical accessibility violation on these pages, light and dark', async ({ browser }) => {
  let username: string | null = null;
  for (const theme of ['light', 'dark'] as const) {
    const context = await browser.newContext();
    await context.addInitScript((value) => localStorage.setItem('theme', value), theme);
    const page = await context.newPage();
    if (username) await signIn(page.request, username);
    else {
      username = (await register(page.request, 'axe')).username;
      await page.request.post('/api/feature-requests', { data: { title: 'Accessible idea', description: 'A request so that the list has an item to check.' } });
    }
    // The signed-in pages are checked inside their content area; the layout around them has its own checks.
    const pages: [string, string | null][] = [
      ['/help-center', 'main'],
      ['/help-center?guide=dashboard-kpis', 'main'],
      ['/help-center?q=zzqxv', 'main'],
      ['/request-feature', 'main'],
      ['/privacy-policy', null],
      ['/terms-of-service', null],
    ];
    for (const [path, scope] of pages) {
      await page.goto(path);
      await expect(LOADED[path]!(page)).toBeVisible();
      await animationsFinished(page);
      const builder = new AxeBuilder({ page });
      if (scope) builder.include(scope);
      const { violations } = await builder.analyze();
      const serious = violations
        .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
        .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
      expect(serious, `${path} (${theme})`).toEqual([]);
    }
    await context.close();
  }
});

// Screenshots for review: SCREENSHOTS_DIR=<dir> npx playwright test e2e/help.spec.ts -g screenshots
test('screenshots of the help, feature-request and legal pages', async ({ browser }) => {
  const directory = process.env.SCREENSHOTS_DIR;
  test.skip(!directory, 'Set SCREENSHOTS_DIR to take them');
  mkdirSync(directory!, { recursive: true });
  const setup = await browser.newContext();
  const { username } = await register(setup.request, 'shots');
  await setup.request.post('/api/feature-requests', {
    data: { title: 'Connect Amazon Seller Central', description: 'Import Amazon orders and fees next to my Shopify sales, so that net sales include the marketplace.' },
  });
  await setup.request.post('/api/feature-requests', {
    data: { title: 'Weekly e-mail summary', description: 'A Monday e-mail with last week’s net sales, ad spend and ROAS per store.' },
  });
  await setup.close();
  for (const theme of ['light', 'dark'] as const) {
    for (const width of [1280, 390]) {
      const context = await browser.newContext({ viewport: { width, height: width === 390 ? 844 : 900 } });
      await context.addInitScript((value) => localStorage.setItem('theme', value), theme);
      const page = await context.newPage();
      await signIn(page.request, username);
      const shots: [string, string][] = [
        ['help-center', '/help-center'],
        ['help-guide', '/help-center?guide=dashboard-kpis'],
        ['help-search-empty', '/help-center?q=zzqxv'],
        ['request-feature', '/request-feature'],
        ['privacy-policy', '/privacy-policy'],
        ['terms-of-service', '/terms-of-service'],
      ];
      for (const [name, path] of shots) {
        await page.goto(path);
        await expect(LOADED[path]!(page)).toBeVisible();
        await screenSettled(page);
        if (width === 390) expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} overflows`).toBeLessThanOrEqual(390);
        await page.screenshot({ path: `${directory}/${name}-${width}-${theme}.png`, fullPage: true });
        await page.screenshot({ path: `${directory}/${name}-${width}-${theme}-top.png` });
      }
      await page.goto('/help-center');
      await page.getByRole('button', { name: 'Send message' }).click();
      await expect(page.getByText('Message must be at least 10 characters')).toBeVisible();
      await page.screenshot({ path: `${directory}/help-contact-errors-${width}-${theme}.png` });
      await context.close();
    }
  }
  // German has the longest words: check that nothing overflows at 390 px.
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  await context.addInitScript(() => localStorage.setItem('i18nextLng', 'de'));
  const page = await context.newPage();
  await signIn(page.request, username);
  for (const [name, path] of [['help-center', '/help-center'], ['help-guide', '/help-center?guide=numbers-differ'], ['request-feature', '/request-feature'], ['terms-of-service', '/terms-of-service']]) {
    await page.goto(path!);
    await expect(LOADED[path!]!(page)).toBeVisible();
    await screenSettled(page);
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} overflows`).toBeLessThanOrEqual(390);
    await page.screenshot({ path: `${directory}/${name}-390-de.png`, fullPage: true });
  }
  await context.close();
});
