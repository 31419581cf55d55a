import { expect, test } from '@playwright/test';
import {
  PASSWORD,
  actAsDistinctClient,
  adminCli,
  createAdminInPage,
  createStore,
  grantPlan,
  insertConnections,
  openAccountMenu,
  registerInPage,
  startTrial,
  uniqueUsername,
} from './shell-helpers.ts';

test.use({ timezoneId: 'UTC' });
test.beforeEach(async ({ page }) => actAsDistinctClient(page));

const toast = (page: import('@playwright/test').Page) => page.getByTestId('toast');

test.describe('redirects and guards', () => {
  test('/ shows the authentication check, then sends a signed-out visitor to /auth', async ({ page }) => {
    // Hold the "who am I" answer back until the check has been seen.
    let answer: () => void = () => {};
    const seen = new Promise<void>((resolve) => (answer = resolve));
    await page.route('**/trpc/auth.me**', async (route) => {
      await seen;
      await route.continue();
    });
    await page.goto('/');
    await expect(page.getByText('Checking authentication status...')).toBeVisible();
    await expect(page).toHaveURL(/\/$/);
    answer();
    await expect(page).toHaveURL(/\/auth$/);
  });

  test('/ sends a signed-in subscriber to /dashboard; /help goes to /help-center', async ({ page }) => {
    const { username } = await registerInPage(page, 'home');
    grantPlan(username, 'business');
    await createStore(page.request, 'Home Store');
    await page.goto('/');
    await expect(page).toHaveURL(/\/dashboard$/);
    await expect(page.getByRole('heading', { level: 1 })).toContainText(username);
    await page.goto('/help');
    await expect(page).toHaveURL(/\/help-center$/);
  });

  test('a signed-out visit asks for sign-in with the wanted path, and returns there', async ({ page }) => {
    const username = uniqueUsername('back');
    adminCli('create-user', '--username', username, '--email', `${username}@example.com`, '--password', PASSWORD);
    grantPlan(username, 'business');
    await page.goto('/orders?range=30d');
    await expect(page).toHaveURL(/\/auth\?redirect=%2Forders%3Frange%3D30d$/);
    await page.getByLabel('Username or email').fill(username);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(page).toHaveURL(/\/orders\?range=30d$/);
  });

  test('without a subscription, gated routes go to /pricing with the Subscription Required toast', async ({ page }) => {
    await registerInPage(page, 'nosub');
    for (const path of ['/dashboard', '/orders', '/landing-page-reviewer/7', '/settings']) {
      await page.goto(path);
      await expect(page).toHaveURL(/\/pricing$/);
      await expect(toast(page)).toContainText('Subscription Required');
      await expect(toast(page)).toContainText('You need an active subscription to access this feature');
    }
    // /pricing is inside the layout for a signed-in user; every entry but the help center is greyed out.
    await expect(page.getByTestId('sidebar')).toBeVisible();
    await expect(page.getByTestId('nav-orders')).toHaveAttribute('aria-disabled', 'true');
    await expect(page.getByTestId('nav-helpCenter')).toHaveAttribute('href', '/help-center');
    // Routes that need no subscription open.
    await page.goto('/store-management');
    await expect(page).toHaveURL(/\/store-management$/);
  });

  test('a basic plan is sent from the page reviewer and price tracker to /', async ({ page }) => {
    const { username } = await registerInPage(page, 'basic');
    grantPlan(username, 'basic');
    await createStore(page.request, 'Basic Store');
    for (const path of ['/price-tracker', '/landing-page-reviewer', '/landing-page-reviewer/3']) {
      await page.goto(path);
      await expect(page).toHaveURL(/\/dashboard$/);
    }
    await expect(page.getByTestId('nav-priceTracker')).toHaveAttribute('aria-disabled', 'true');
    await expect(page.getByTestId('nav-metaComments')).toContainText('Coming Soon');
    await page.goto('/orders');
    await expect(page.getByRole('heading', { level: 1, name: 'Orders' })).toBeVisible();
  });

  test('a professional plan opens the tools; Meta Comments and Shopping Optimizer stay Coming Soon', async ({ page }) => {
    const { username } = await registerInPage(page, 'pro');
    grantPlan(username, 'professional');
    await createStore(page.request, 'Pro Store');
    await page.goto('/price-tracker');
    await expect(page.getByRole('heading', { level: 1, name: 'Price Tracker' })).toBeVisible();
    await expect(page.getByTestId('nav-priceTracker')).toHaveAttribute('aria-current', 'page');
    await page.getByTestId('nav-pageReviewer').click();
    await expect(page).toHaveURL(/\/landing-page-reviewer$/);
    for (const key of ['metaComments', 'shoppingOptimizer']) {
      await expect(page.getByTestId(`nav-${key}`)).toHaveAttribute('aria-disabled', 'true');
      await expect(page.getByTestId(`nav-${key}`)).toContainText('Coming Soon');
    }
  });

  test('non-admins are sent from admin routes to /; admins see them and the admin links', async ({ page }) => {
    const { username } = await registerInPage(page, 'notadmin');
    grantPlan(username, 'enterprise');
    await createStore(page.request, 'Shop');
    for (const path of ['/admin', '/admin/dashboard', '/admin/email-management']) {
      await page.goto(path);
      await expect(page).toHaveURL(/\/dashboard$/);
    }
    await openAccountMenu(page);
    await expect(page.getByRole('link', { name: 'Admin Dashboard' })).toHaveCount(0);
  });

  test('admins open admin routes without a subscription and without a store', async ({ page }) => {
    await createAdminInPage(page);
    await page.goto('/admin/email-management');
    await expect(page).toHaveURL(/\/admin\/email-management$/);
    await expect(page.getByTestId('first-store-gate')).toHaveCount(0);
    await openAccountMenu(page);
    const menu = page.getByTestId('account-menu');
    await expect(menu.getByRole('link', { name: 'Admin Dashboard' })).toHaveAttribute('href', '/admin/dashboard');
    await expect(menu.getByRole('link', { name: 'Email Templates' })).toHaveAttribute('href', '/admin/email-management');
    // The spec's account menu word for word, with the admin tools; the console's Users list is its first tab.
    await expect(menu.getByRole('link')).toHaveText([
      'Profile',
      'Guest Users',
      'Affiliate Dashboard',
      'Pricing & Plans',
      'Settings',
      'Help Center',
      'Request A Feature',
      'Store Management',
      'Admin Dashboard',
      'Email Templates',
    ]);
    await menu.getByRole('link', { name: 'Admin Dashboard' }).click();
    await page.getByRole('link', { name: 'Users', exact: true }).click();
    await expect(page).toHaveURL(/\/admin$/);
  });

  test('an unknown path shows the not-found page', async ({ page }) => {
    await page.goto('/no-such-page');
    await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
    await page.getByRole('link', { name: 'Back to home' }).click();
    await expect(page).toHaveURL(/\/auth$/);
  });

  test('signed out, /pricing shows the plans without the sidebar', async ({ page }) => {
    await page.goto('/pricing');
    await expect(page.getByRole('link', { name: 'Sign in' })).toBeVisible();
    await expect(page.getByTestId('sidebar')).toHaveCount(0);
  });
});

test.describe('query settings', () => {
  test('the dashboard limits are asked for on their own with Cache-Control: no-cache', async ({ page }) => {
    const { username } = await registerInPage(page, 'limits');
    grantPlan(username, 'business');
    await createStore(page.request, 'Limits Shop');
    const limitsRequest = page.waitForRequest((request) => new URL(request.url()).pathname === '/trpc/stores.limits');
    await page.goto('/store-management');
    const request = await limitsRequest;
    expect(await request.headerValue('cache-control')).toBe('no-cache');
  });
});

test.describe('first-store gate', () => {
  test('a subscriber without stores must create one; the dialog cannot be closed', async ({ page }) => {
    const { username } = await registerInPage(page, 'gate');
    grantPlan(username, 'business');
    await page.goto('/dashboard');
    const gate = page.getByRole('dialog', { name: 'Create your first store' });
    await expect(gate).toBeVisible();
    const create = gate.getByRole('button', { name: 'Create store' });
    await expect(create).toBeDisabled();
    await gate.getByLabel('Store name').fill('   ');
    await expect(create).toBeDisabled();

    await page.keyboard.press('Escape');
    await expect(toast(page)).toContainText('Cannot Close');
    await expect(toast(page)).toContainText('You must create a store to continue.');
    await page.keyboard.press('Escape');
    await expect(gate).toBeVisible();
    // A click on the dimmed backdrop, outside the box.
    await page.mouse.click(5, 5);
    await expect(gate).toBeVisible();
    await expect(toast(page)).toContainText('Cannot Close');

    await gate.getByLabel('Store name').fill('  Acme Outdoors ');
    await gate.getByLabel('Store name').press('Enter');
    await expect(toast(page)).toContainText('Store "Acme Outdoors" has been created.');
    await expect(gate).toHaveCount(0);
    await expect(page.getByTestId('active-store-name')).toHaveText('Acme Outdoors');
    const active = await (await page.request.get('/api/stores/active')).json();
    expect(active.store.name).toBe('Acme Outdoors');
  });
});

test.describe('header', () => {
  test('the store switcher changes the active store and reloads the page', async ({ page }) => {
    const { username } = await registerInPage(page, 'switch');
    grantPlan(username, 'business');
    await createStore(page.request, 'North Shop');
    await createStore(page.request, 'South Shop');
    await page.goto('/dashboard');
    await expect(page.getByTestId('active-store-name')).toHaveText('North Shop');
    await page.getByRole('button', { name: 'Connected to North Shop' }).click();
    const reloaded = page.waitForEvent('load');
    await page.getByRole('button', { name: 'Switch to South Shop' }).click();
    await reloaded;
    await expect(page.getByTestId('active-store-name')).toHaveText('South Shop');
    expect((await (await page.request.get('/api/stores/active')).json()).store.name).toBe('South Shop');
  });

  test('the connection widget: empty text, then connected rows with green ticks and their update time', async ({ page }) => {
    const { username } = await registerInPage(page, 'conn');
    grantPlan(username, 'business');
    const store = await createStore(page.request, 'Connected Shop');
    await page.goto('/dashboard');
    const widget = page.getByRole('button', { name: 'API Connection Status' });
    await expect(page.getByTestId('connection-icon')).toHaveAttribute('data-tone', 'disconnected');
    await widget.click();
    await expect(page.getByRole('heading', { name: 'API Connection Status' })).toBeVisible();
    await expect(page.getByTestId('connection-empty')).toHaveText('No connection status available');

    await insertConnections(store.id, [
      { platform: 'woocommerce', connected: false, lastCheckedAt: null },
      { platform: 'googleads', connected: true, lastCheckedAt: '2026-03-05T14:07:00Z' },
      { platform: 'metaads', connected: true, lastCheckedAt: null },
    ]);
    await page.reload();
    await expect(page.getByTestId('connection-icon')).toHaveAttribute('data-tone', 'connected');
    await expect(page.getByTestId('connection-icon')).toHaveClass(/text-success/);
    await page.getByRole('button', { name: 'API Connection Status' }).click();
    const rows = page.getByTestId('connection-row');
    await expect(rows).toHaveCount(2);
    await expect(rows.nth(0)).toContainText('Google Ads');
    await expect(rows.nth(0)).toContainText(/Updated: Mar 5, 2:07\sPM/);
    await expect(rows.nth(0).getByRole('img', { name: 'Connected' })).toBeVisible();
    await expect(rows.nth(1)).toContainText('Meta Ads');
    await expect(rows.nth(1)).toContainText('Updated: Just now');
    await page.keyboard.press('Escape');
    await expect(page.getByTestId('connection-rows')).toBeHidden();
  });

  test('with nothing connected the widget is yellow and shows the WooCommerce entry with a red cross', async ({ page }) => {
    const { username } = await registerInPage(page, 'woo');
    grantPlan(username, 'business');
    const store = await createStore(page.request, 'Woo Shop');
    await insertConnections(store.id, [
      { platform: 'tiktokads', connected: false, lastCheckedAt: '2026-01-02T09:30:00Z' },
      { platform: 'woocommerce', connected: false, lastCheckedAt: null },
    ]);
    await page.goto('/dashboard');
    await expect(page.getByTestId('connection-icon')).toHaveAttribute('data-tone', 'disconnected');
    await expect(page.getByTestId('connection-icon')).toHaveClass(/text-warning/);
    await page.getByRole('button', { name: 'API Connection Status' }).click();
    const rows = page.getByTestId('connection-row');
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText('WooCommerce');
    await expect(rows.first()).toContainText('Updated: Just now');
    await expect(rows.first().getByRole('img', { name: 'Not connected' })).toBeVisible();
  });

  test('the account menu: every entry, the trial badge with its end date and Upgrade Plan, and logout', async ({ page }) => {
    await registerInPage(page, 'trial');
    await startTrial(page.request, 'business');
    await createStore(page.request, 'Trial Shop');
    const current = await (await page.request.get('/api/subscription/current')).json();
    const end = new Intl.DateTimeFormat('en', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(
      new Date(current.subscription.currentPeriodEnd),
    );
    await page.goto('/dashboard');
    await openAccountMenu(page);
    const menu = page.getByTestId('account-menu');
    for (const [name, href] of [
      ['Profile', '/profile'],
      ['Guest Users', '/guest-users'],
      ['Affiliate Dashboard', '/affiliate-dashboard'],
      ['Pricing & Plans', '/pricing'],
      ['Settings', '/settings'],
      ['Help Center', '/help-center'],
      ['Request A Feature', '/request-feature'],
      ['Store Management', '/store-management'],
    ]) {
      await expect(menu.getByRole('link', { name: name!, exact: true })).toHaveAttribute('href', href!);
    }
    await expect(menu.getByTestId('trial-info')).toContainText('Trial');
    await expect(menu.getByTestId('trial-info')).toContainText(`Ends ${end}`);
    await menu.getByRole('link', { name: 'Upgrade Plan' }).click();
    await expect(page).toHaveURL(/\/pricing$/);

    await openAccountMenu(page);
    await page.getByRole('button', { name: 'Log out' }).click();
    await expect(page).toHaveURL(/\/auth$/);
  });

  test('a basic plan has no Guest Users entry (tools not available)', async ({ page }) => {
    const { username } = await registerInPage(page, 'noguests');
    grantPlan(username, 'basic');
    await createStore(page.request, 'Shop');
    await page.goto('/dashboard');
    await openAccountMenu(page);
    await expect(page.getByRole('link', { name: 'Profile' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Guest Users' })).toHaveCount(0);
  });

  test('the currency picker saves the currency on the active store', async ({ page }) => {
    const { username } = await registerInPage(page, 'currency');
    grantPlan(username, 'business');
    await createStore(page.request, 'Euro Shop');
    await page.goto('/dashboard');
    await openAccountMenu(page);
    const select = page.getByLabel('Currency');
    await expect(select).toHaveValue('GBP');
    await select.selectOption('EUR');
    await expect(toast(page)).toContainText('Currency changed to Euro');
    expect((await (await page.request.get('/api/stores/active')).json()).store.currency).toBe('EUR');
    await page.reload();
    await openAccountMenu(page);
    await expect(page.getByLabel('Currency')).toHaveValue('EUR');
  });
});

test.describe('preferences', () => {
  test('switching to German translates the page and survives a reload', async ({ page }) => {
    const { username } = await registerInPage(page, 'lang');
    grantPlan(username, 'business');
    await createStore(page.request, 'Laden');
    await page.goto('/orders');
    await expect(page.getByRole('heading', { level: 1, name: 'Orders' })).toBeVisible();
    await openAccountMenu(page);
    await page.getByLabel('Language').selectOption('de');
    await expect(page.getByRole('heading', { level: 1, name: 'Bestellungen' })).toBeVisible();
    await expect(page.locator('html')).toHaveAttribute('lang', 'de');
    await page.reload();
    await expect(page.getByRole('heading', { level: 1, name: 'Bestellungen' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Kontomenü' })).toBeVisible();
    expect(await page.evaluate(() => localStorage.getItem('i18nextLng'))).toBe('de');
  });

  test('the theme choice is applied as a class on <html> and kept after a reload', async ({ page }) => {
    const { username } = await registerInPage(page, 'theme');
    grantPlan(username, 'business');
    await createStore(page.request, 'Dark Shop');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto('/dashboard');
    await expect(page.locator('html')).toHaveClass(/\blight\b/);
    await openAccountMenu(page);
    await page.getByRole('button', { name: 'Dark', exact: true }).click();
    await expect(page.locator('html')).toHaveClass(/\bdark\b/);
    await page.reload();
    await expect(page.locator('html')).toHaveClass(/\bdark\b/);
    expect(await page.evaluate(() => localStorage.getItem('theme'))).toBe('dark');

    // System follows the operating system, live.
    await openAccountMenu(page);
    await page.getByRole('button', { name: 'System', exact: true }).click();
    await expect(page.locator('html')).toHaveClass(/\blight\b/);
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect(page.locator('html')).toHaveClass(/\bdark\b/);
  });
});

test.describe('guest mode', () => {
  test('an admin viewing as a user sees the banner and exits guest mode', async ({ browser, page }) => {
    // The viewed user, in a context of its own.
    const userContext = await browser.newContext();
    const userPage = await userContext.newPage();
    await actAsDistinctClient(userPage);
    const viewed = await registerInPage(userPage, 'viewed');
    grantPlan(viewed.username, 'business');
    await createStore(userPage.request, 'Viewed Shop');
    await userContext.close();

    await createAdminInPage(page);
    await createStore(page.request, 'Admin Shop');
    const entered = await page.request.post('/api/admin/enter-guest-mode', { data: { userId: viewed.id } });
    expect(entered.status(), await entered.text()).toBe(200);
    await page.goto('/dashboard');
    const banner = page.getByTestId('guest-banner');
    await expect(banner).toContainText(`Viewing as: ${viewed.username}`);
    await expect(page.getByTestId('active-store-name')).toHaveText('Viewed Shop');
    await expect(page.getByRole('heading', { level: 1 })).toContainText(viewed.username);
    const reloaded = page.waitForEvent('load');
    await banner.getByRole('button', { name: 'Exit Guest Mode' }).click();
    await reloaded;
    await expect(page.getByTestId('guest-banner')).toHaveCount(0);
    await expect(page.getByTestId('active-store-name')).toHaveText('Admin Shop');
    await expect(page.getByRole('heading', { level: 1 })).not.toContainText(viewed.username);
  });
});

test.describe('390 px', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('the sidebar becomes a slide-in menu that closes on navigation and Escape', async ({ page }) => {
    const { username } = await registerInPage(page, 'mobile');
    grantPlan(username, 'business');
    await createStore(page.request, 'Pocket Shop');
    await page.goto('/dashboard');
    await expect(page.getByTestId('sidebar')).toBeHidden();
    const menuButton = page.getByRole('button', { name: 'Open navigation menu' });
    await menuButton.click();
    const menu = page.getByTestId('mobile-navigation');
    await expect(menu).toBeVisible();
    await menu.getByRole('link', { name: 'Orders' }).click();
    await expect(page).toHaveURL(/\/orders$/);
    await expect(menu).toBeHidden();

    await menuButton.click();
    await expect(menu).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(menu).toBeHidden();

    await menuButton.click();
    await menu.getByRole('button', { name: 'Close navigation menu' }).first().click();
    await expect(menu).toBeHidden();
    // Nothing sticks out sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  });
});
