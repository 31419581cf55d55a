import { expect, type Locator, type Page, type Response } from '@playwright/test';

/**
 * Waits the journeys share. Each ends on the application's state, never on the clock, so a slow or
 * loaded machine makes them slower, not red (the only budgets are the hang guards of
 * playwright.config.ts).
 */

/**
 * The options of a wait on work that is long by nature (a backfill through a throttled platform, a
 * rebuild of a year of orders): it has no budget of its own, the test's hang guard bounds it.
 */
export const UNTIL_DONE = { timeout: 0 } as const;

/** Whether a response answers a call of the tRPC procedure `procedure` (alone or in a batch). */
function answers(response: Response, procedure: string): boolean {
  const { pathname } = new URL(response.url());
  return pathname.startsWith('/trpc/') && pathname.slice('/trpc/'.length).split(',').includes(procedure);
}

/**
 * Runs `action` and waits for the server's answer to the call of `procedure` it makes, however long
 * the server takes (the test's own guard bounds it); fails unless the answer is a success.
 */
export async function untilAnswered(page: Page, procedure: string, action: () => Promise<void>): Promise<void> {
  const answered = page.waitForResponse((response) => answers(response, procedure), UNTIL_DONE);
  await action();
  const response = await answered;
  expect(response.ok(), `${procedure} answered ${response.status()}: ${await response.text()}`).toBe(true);
}

/**
 * An empty store's "Load demo data" button: waits for the server to finish the load (a year of orders,
 * seconds on a quiet machine, minutes on a loaded one) and for the screen to leave its empty state.
 */
export async function loadDemoData(page: Page): Promise<void> {
  await untilAnswered(page, 'demo.load', () => page.getByRole('button', { name: 'Load demo data' }).click());
  await expect(page.getByTestId('empty-state')).toHaveCount(0);
}

/** The chart `testId` once it has drawn what the screen now shows (the Chart wrapper's data-chart-status). */
export function drawnChart(page: Page, testId: string): Locator {
  return page.locator(`[data-testid="${testId}"][data-chart-status="ready"]`);
}

/**
 * Nothing on screen is still loading: the app marks everything that waits for data with daisyUI's
 * .skeleton or .loading (spinners), so a screen without them shows its data.
 */
export async function nothingLoading(page: Page): Promise<void> {
  await expect(page.locator('.skeleton:visible, .loading:visible')).toHaveCount(0);
}

/**
 * Every finite animation and transition of the page has finished (dialogs and menus fade in, toasts
 * slide), so that colours are read at full opacity. Spinners and skeletons loop forever and are left out.
 */
export async function animationsFinished(page: Page): Promise<void> {
  await page.waitForFunction(() =>
    document.getAnimations().every((animation) => animation.effect?.getTiming().iterations === Infinity || animation.playState !== 'running'),
  );
}

/** What a screenshot should show: the screen's data, and no animation half-way. */
export async function screenSettled(page: Page): Promise<void> {
  await nothingLoading(page);
  await animationsFinished(page);
}

/** Every image in `scope` brought into view (they load lazily) and decoded, then the page back at its top. */
export async function imagesDecoded(page: Page, scope: Locator): Promise<void> {
  for (const image of await scope.getByRole('img').all()) {
    await image.scrollIntoViewIfNeeded();
    await expect.poll(() => image.evaluate((element) => (element as HTMLImageElement).complete && (element as HTMLImageElement).naturalWidth > 0)).toBe(true);
  }
  await page.evaluate(() => window.scrollTo(0, 0));
}
