import { expect, test } from '@playwright/test';
import { actAsDistinctClient, registerInPage } from './shell-helpers.ts';

// Spec section 9: one toast visible at a time, auto-close after 5 s, swipe right 50 px to dismiss,
// F8 focuses the notification area. A signed-in user without a subscription who opens a gated
// route gets the 'Subscription Required' toast on /pricing (no dialog is open there).
test.describe('toasts', () => {
  test.beforeEach(async ({ page }) => {
    await actAsDistinctClient(page);
    await registerInPage(page, 'toasts');
  });

  test('only one is visible at a time and F8 moves focus to the notification area', async ({ page }) => {
    await page.goto('/orders');
    await expect(page).toHaveURL(/\/pricing$/);
    const toasts = page.getByTestId('toast');
    await expect(toasts).toHaveCount(1);
    await expect(toasts).toContainText('Subscription Required');
    await expect(toasts).toContainText('You need an active subscription to access this feature');

    await page.goto('/analytics');
    await expect(page).toHaveURL(/\/pricing$/);
    await expect(toasts).toHaveCount(1);

    await page.keyboard.press('F8');
    const region = page.getByRole('region', { name: /^Notifications/ });
    await expect(region.locator('ol')).toBeFocused();
  });

  test('a swipe of more than 50 px to the right dismisses it; a shorter one does not', async ({ page }) => {
    await page.goto('/orders');
    const toast = page.getByTestId('toast');
    await expect(toast).toBeVisible();
    const box = (await toast.boundingBox())!;
    const y = box.y + box.height / 2;
    const x = box.x + 20;

    await page.mouse.move(x, y);
    await page.mouse.down();
    await page.mouse.move(x + 30, y, { steps: 5 });
    await page.mouse.up();
    await expect(toast).toBeVisible();
    // A second press at the same spot right away would be a double click to the browser.
    await page.waitForTimeout(800);

    await page.mouse.move(x, y);
    await page.mouse.down();
    await page.mouse.move(x + 80, y, { steps: 5 });
    await page.mouse.up();
    await expect(toast).toHaveCount(0);
  });

  test('it closes by itself after 5 seconds', async ({ page }) => {
    await page.goto('/orders');
    const toast = page.getByTestId('toast');
    await expect(toast).toBeVisible();
    await page.mouse.move(0, 0);
    await page.waitForTimeout(4_000);
    await expect(toast).toBeVisible();
    await expect(toast).toHaveCount(0, { timeout: 3_000 });
  });
});
