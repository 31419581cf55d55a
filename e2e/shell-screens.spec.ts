import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import {
  actAsDistinctClient,
  createAdminInPage,
  createStore,
  grantPlan,
  insertConnections,
  openAccountMenu,
  registerInPage,
  startTrial,
  useTheme,
} from './shell-helpers.ts';
import { animationsFinished, screenSettled } from './waits.ts';

/**
 * Looks at the shell: an axe scan of each main screen at 1280 and 390 px in light and dark that must
 * find no serious or critical violation, and screenshots of them when SCREENSHOTS_DIR is set.
 */
const SCREENSHOT_DIR = process.env.SCREENSHOTS_DIR;
const THEMES = ['light', 'dark'] as const;
const VIEWPORTS = [
  { name: '1280', width: 1280, height: 800 },
  { name: '390', width: 390, height: 844 },
] as const;

test.use({ timezoneId: 'UTC' });
test.beforeAll(() => {
  if (SCREENSHOT_DIR) mkdirSync(SCREENSHOT_DIR, { recursive: true });
});
test.beforeEach(async ({ page }) => actAsDistinctClient(page));

async function shoot(page: Page, name: string, theme: string, viewport: string) {
  if (!SCREENSHOT_DIR) return;
  await screenSettled(page);
  await page.screenshot({ path: `${SCREENSHOT_DIR}/${name}-${viewport}-${theme}.png`, fullPage: false });
}

async function expectNoSeriousViolations(page: Page, label: string) {
  await animationsFinished(page);
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  const serious = results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${label}: ${violation.id} (${violation.impact}) ${violation.nodes.map((node) => `${node.target.join(' ')} ${node.failureSummary?.split('\n')[1] ?? ''}`).join(', ')}`,
    );
  expect(serious).toEqual([]);
}

for (const theme of THEMES) {
  test.describe(`${theme} theme`, () => {
    test.beforeEach(async ({ page }) => useTheme(page, theme));

    test(`signed-in screens (${theme})`, async ({ page }) => {
      const { username } = await registerInPage(page, `shots${theme}`);
      await startTrial(page.request, 'business');
      const store = await createStore(page.request, 'Acme Outdoors');
      await createStore(page.request, 'Northwind Supply');
      await insertConnections(store.id, [
        { platform: 'woocommerce', connected: true, lastCheckedAt: new Date(Date.now() - 12 * 60_000).toISOString() },
        { platform: 'googleads', connected: true, lastCheckedAt: new Date(Date.now() - 3 * 3_600_000).toISOString() },
        { platform: 'metaads', connected: false, lastCheckedAt: null },
      ]);
      expect(username).toBeTruthy();

      for (const viewport of VIEWPORTS) {
        await page.setViewportSize(viewport);
        await page.goto('/dashboard');
        // A store without data offers demo data and the integrations instead of empty figures.
        await expect(page.getByTestId('empty-state')).toBeVisible();
        await shoot(page, 'dashboard', theme, viewport.name);
        if (viewport.name === '1280') await expectNoSeriousViolations(page, 'dashboard');

        await page.goto('/orders');
        await expect(page.getByTestId('empty-state')).toBeVisible();
        await shoot(page, 'empty-state', theme, viewport.name);
        if (viewport.name === '1280') await expectNoSeriousViolations(page, 'orders');

        await openAccountMenu(page);
        await shoot(page, 'account-menu', theme, viewport.name);
        if (viewport.name === '1280') await expectNoSeriousViolations(page, 'account menu');
        await page.keyboard.press('Escape');

        await page.getByRole('button', { name: 'API Connection Status' }).click();
        await expect(page.getByTestId('connection-row')).toHaveCount(2);
        await shoot(page, 'connection-status', theme, viewport.name);
        if (viewport.name === '1280') await expectNoSeriousViolations(page, 'connection status');
        await page.keyboard.press('Escape');

        await page.getByTestId('store-switcher').getByRole('button').first().click();
        await shoot(page, 'store-switcher', theme, viewport.name);
        await page.keyboard.press('Escape');

        if (viewport.name === '390') {
          await page.getByRole('button', { name: 'Open navigation menu' }).click();
          await expect(page.getByTestId('mobile-navigation')).toBeVisible();
          await shoot(page, 'mobile-menu', theme, viewport.name);
          await expectNoSeriousViolations(page, 'mobile menu');
          await page.keyboard.press('Escape');
        }

        await page.goto('/pricing');
        await shoot(page, 'pricing-signed-in', theme, viewport.name);
      }
    });

    test(`first-store gate (${theme})`, async ({ page }) => {
      const { username } = await registerInPage(page, `gate${theme}`);
      grantPlan(username, 'business');
      for (const viewport of VIEWPORTS) {
        await page.setViewportSize(viewport);
        await page.goto('/dashboard');
        await expect(page.getByRole('dialog', { name: 'Create your first store' })).toBeVisible();
        await shoot(page, 'first-store-gate', theme, viewport.name);
        if (viewport.name === '1280') await expectNoSeriousViolations(page, 'first-store gate');
      }
    });

    test(`guest banner and basic plan (${theme})`, async ({ browser, page }) => {
      const other = await browser.newContext();
      const otherPage = await other.newPage();
      await actAsDistinctClient(otherPage);
      const viewed = await registerInPage(otherPage, `viewed${theme}`);
      grantPlan(viewed.username, 'basic');
      await createStore(otherPage.request, 'Viewed Boutique');
      await other.close();

      await createAdminInPage(page);
      await createStore(page.request, 'Admin Store');
      expect((await page.request.post('/api/admin/enter-guest-mode', { data: { userId: viewed.id } })).status()).toBe(200);
      for (const viewport of VIEWPORTS) {
        await page.setViewportSize(viewport);
        await page.goto('/dashboard');
        await expect(page.getByTestId('guest-banner')).toBeVisible();
        // The viewed store has no data: the dashboard has loaded once it says so.
        await expect(page.getByTestId('empty-state')).toBeVisible();
        await shoot(page, 'guest-banner', theme, viewport.name);
        if (viewport.name === '1280') await expectNoSeriousViolations(page, 'guest banner');
      }
    });

    test(`public screens (${theme})`, async ({ page }) => {
      for (const viewport of VIEWPORTS) {
        await page.setViewportSize(viewport);
        for (const [name, path, loaded] of [
          ['auth', '/auth', page.getByRole('button', { name: 'Sign in', exact: true })],
          ['pricing-public', '/pricing', page.getByTestId('plan-card').nth(3)],
          ['not-found', '/no-such-page', page.getByRole('heading', { name: 'Page not found' })],
        ] as const) {
          await page.goto(path);
          await expect(loaded).toBeVisible();
          await shoot(page, name, theme, viewport.name);
          if (viewport.name === '1280') await expectNoSeriousViolations(page, name);
        }
      }
    });
  });
}
