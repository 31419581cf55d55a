import { expect, test, type Locator, type Page } from '@playwright/test';
import { actAsDistinctClient, registerInPage } from './shell-helpers.ts';

// Spec section 9: one toast visible at a time, auto-close after 5 s, swipe right 50 px to dismiss,
// F8 focuses the notification area. A signed-in user without a subscription who opens a gated
// route gets the 'Subscription Required' toast on /pricing (no dialog is open there).
//
// Each test stops the page's clock (Playwright's page.clock) before a toast appears, so a toast's 5 s
// pass only when the test says: on a loaded machine the test may take longer than 5 s between two
// steps, and the toast must still be there (or closed) because of what the app did, not the machine.

/** Loads /pricing on a running fake clock, then stops that clock. */
async function stopTheClockOnPricing(page: Page): Promise<void> {
  await page.clock.install();
  await page.goto('/pricing');
  await expect(page.getByTestId('plan-card')).toHaveCount(4);
  // pauseAt only moves the clock forward, and the page's clock runs on while this line travels to the
  // browser: a minute ahead is ahead of it by far more than that trip takes. On the loaded /pricing
  // page the jump only fires the timers due in that minute, once.
  await page.clock.pauseAt(Math.ceil(await pageNow(page)) + 60_000);
}

/** Date.now() in the page. */
function pageNow(page: Page): Promise<number> {
  return page.evaluate(() => Date.now());
}

/** When the toast's countdown ends (its data-closes-at, a Date.now() time); null while none runs. */
async function closesAt(toast: Locator): Promise<number | null> {
  const value = await toast.getAttribute('data-closes-at');
  return value === null ? null : Number(value);
}

/** Opens a path inside the single-page app, without a reload (which would restart the clock). */
async function openInApp(page: Page, path: string): Promise<void> {
  await page.evaluate((target) => window.history.pushState(null, '', target), path);
}

test.describe('toasts', () => {
  test.beforeEach(async ({ page }) => {
    await actAsDistinctClient(page);
    await registerInPage(page, 'toasts');
  });

  test('only one is visible at a time and F8 moves focus to the notification area', async ({ page }) => {
    await stopTheClockOnPricing(page);
    const toasts = page.getByTestId('toast');
    const first = await pageNow(page);
    await openInApp(page, '/orders');
    await expect(toasts).toHaveCount(1);
    await expect(toasts).toContainText('Subscription Required');
    await expect(toasts).toContainText('You need an active subscription to access this feature');
    await expect(page).toHaveURL(/\/pricing$/);
    await expect.poll(() => closesAt(toasts)).toBe(first + 5_000);

    // A second later a second gated route raises a second toast: it takes the place of the first,
    // which could not have closed by itself on the stopped clock (its countdown is a second older).
    await page.clock.runFor(1_000);
    const second = await pageNow(page);
    expect(second).toBeGreaterThan(first);
    await openInApp(page, '/analytics');
    await expect.poll(() => closesAt(toasts)).toBe(second + 5_000);
    await expect(toasts).toHaveCount(1);

    await page.keyboard.press('F8');
    const region = page.getByRole('region', { name: /^Notifications/ });
    await expect(region.locator('ol')).toBeFocused();
  });

  test('a swipe of more than 50 px to the right dismisses it; a shorter one does not', async ({ page }) => {
    await stopTheClockOnPricing(page);
    await openInApp(page, '/orders');
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
    // It slides back (a CSS transition) before the second press, so that the press lands on it.
    await expect.poll(() => toast.evaluate((element) => element.getAnimations().length)).toBe(0);
    await expect.poll(async () => (await toast.boundingBox())?.x).toBe(box.x);

    await page.mouse.move(x, y);
    await page.mouse.down();
    await page.mouse.move(x + 80, y, { steps: 5 });
    await page.mouse.up();
    // On the stopped clock it cannot have closed by itself: the swipe closed it.
    await expect(toast).toHaveCount(0);
  });

  test('it closes by itself after 5 seconds', async ({ page }) => {
    await stopTheClockOnPricing(page);
    // Away from the toast: a pointer over it pauses the countdown.
    await page.mouse.move(0, 0);
    const shownAt = await pageNow(page);
    await openInApp(page, '/orders');
    const toast = page.getByTestId('toast');
    await expect(toast).toBeVisible();
    // Its countdown started when it appeared, on the stopped clock.
    await expect.poll(() => closesAt(toast)).toBe(shownAt + 5_000);
    await page.clock.runFor(4_999);
    await expect(toast).toBeVisible();
    await page.clock.runFor(1);
    await expect(toast).toHaveCount(0);
  });
});
