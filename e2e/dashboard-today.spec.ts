import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { actAsDistinctClient, createStore, registerInPage, startTrial } from './shell-helpers.ts';
import { animationsFinished, drawnChart, loadDemoData, screenSettled } from './waits.ts';

/**
 * Issue 16, "Today" and the finish of the dashboard: a single day compares like with like (the tiles
 * agree with the Today card: today so far against yesterday up to the same local time) and shows an
 * hourly chart; tiles open their metric in Analytics and show the previous value; the LTV tile says
 * when its customers are too recent; keyboard users get a skip link, one tab stop per chart and focus
 * back on the order they opened; French and German fit a 390 px phone without sideways scrolling.
 */

test.beforeEach(async ({ page }) => actAsDistinctClient(page));

async function demoStore(page: Page, prefix: string) {
  await registerInPage(page, prefix);
  await startTrial(page.request, 'business');
  await createStore(page.request, 'Trail Supply Co');
  await page.goto('/dashboard');
  await expect(page.getByTestId('empty-state')).toBeVisible();
  await loadDemoData(page);
}

const tile = (page: Page, label: string) => page.getByRole('region', { name: 'Key figures' }).getByRole('article', { name: label, exact: true });

/** Whether the page itself is wider than the screen (it would scroll sideways). */
async function pageOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

test('"Today" compares like with like in the tiles and the card, draws hours, and every tile explains itself', async ({ page }) => {
  await demoStore(page, 'today');
  await page.getByTestId('range-preset').selectOption('today');
  await expect(page).toHaveURL(/compare=previous_period/);

  // The tiles and the card compare the same windows, so they show the same change.
  const tileDelta = tile(page, 'Net sales').getByTestId('kpi-delta');
  const cardDelta = page.getByTestId('today-net-sales').getByTestId('kpi-delta');
  await expect(tile(page, 'Net sales')).toContainText(/vs yesterday until \d{1,2}:\d{2}(?:\s[AP]M)?/);
  // Cards show pence below £1,000 and whole pounds from there up ("£48.25", "£1,187"); today can be negative.
  await expect(tile(page, 'Net sales').getByTestId('kpi-value')).toHaveText(/^-?£(?:\d{1,3}\.\d\d|\d{1,3}(?:,\d{3})+)$/);
  // Just after the store's midnight, yesterday up to the same time can have no sales: then there is
  // no percentage ("—"), and the previous value below is £0.00.
  await expect(tileDelta).toHaveText(/^[+-]?\d[\d,]*\.\d%$|^0\.0%$|^—$/);
  await expect.poll(async () => (await tileDelta.textContent()) === (await cardDelta.textContent())).toBe(true);
  await expect(tile(page, 'Total orders').getByTestId('kpi-value')).toHaveText(await page.getByTestId('today-orders').getByTestId('kpi-value').innerText());

  // The previous value in a tooltip (and for screen readers); spend up to the same time is an estimate.
  await expect(tile(page, 'Net sales').getByTestId('kpi-previous')).toBeHidden();
  await tile(page, 'Net sales').getByTestId('kpi-delta').hover();
  await expect(tile(page, 'Net sales').getByTestId('kpi-previous')).toBeVisible();
  await expect(tile(page, 'Net sales').getByTestId('kpi-previous')).toHaveText(/^Yesterday until \d{1,2}:\d{2}(?:\s[AP]M)?: £[\d,.]+$/);
  if ((await tileDelta.textContent()) === '—') await expect(tile(page, 'Net sales').getByTestId('kpi-previous')).toHaveText(/: £0\.00$/);
  await tile(page, 'Marketing spend').getByTestId('kpi-delta').hover();
  await expect(tile(page, 'Marketing spend').getByTestId('kpi-previous')).toHaveText(/^Yesterday until \d{1,2}:\d{2}(?:\s[AP]M)?: £[\d,.]+ \(estimated/);

  // An hourly chart in place of the empty daily one: 24 hours, none after the current one filled in.
  await expect(drawnChart(page, 'hourly-trend')).toBeVisible();
  await expect(page.getByTestId('net-sales-trend')).toHaveCount(0);
  const hours = page.getByTestId('hourly-trend').getByTestId('chart-table').locator('tbody tr');
  await expect(hours).toHaveCount(24);
  const cells = await hours.evaluateAll((rows) => rows.map((row) => row.querySelector('td')?.textContent ?? ''));
  const lastFilled = cells.findLastIndex((cell) => cell !== '');
  expect(lastFilled).toBeGreaterThanOrEqual(0);
  expect(cells.slice(0, lastFilled + 1).every((cell) => cell !== '')).toBe(true);

  // Today's new customers are hours old: the LTV tile says so instead of a change.
  await expect(tile(page, 'LTV').getByTestId('kpi-note')).toContainText('Too recent to judge: 100% of these customers joined under 90 days ago');
  await expect(tile(page, 'LTV').getByTestId('kpi-delta')).toHaveAttribute('data-tone', 'none');

  // A tile opens its metric in Analytics over the same day.
  const url = new URL(page.url());
  await tile(page, 'ROAS').click();
  await expect(page).toHaveURL(new RegExp(`/analytics\\?kpi=roas&from=${url.searchParams.get('from')}&to=${url.searchParams.get('to')}&compare=previous_period$`));

  // A 30-day range: daily chart again, tooltips name the previous period.
  await page.goto('/dashboard');
  await page.getByTestId('range-preset').selectOption('last_30_days');
  await expect(drawnChart(page, 'net-sales-trend')).toBeVisible();
  await tile(page, 'Net sales').getByTestId('kpi-delta').hover();
  await expect(tile(page, 'Net sales').getByTestId('kpi-previous')).toHaveText(/^Previous period: £[\d,.]+$/);
});

test('keyboard and screen readers: skip link, one tab stop per chart with a text alternative, focus back on the order', async ({ page }) => {
  await demoStore(page, 'keys');
  await page.goto('/dashboard');
  await expect(drawnChart(page, 'net-sales-trend')).toBeVisible();

  // The first Tab reaches the skip link, which moves focus to the page.
  await page.keyboard.press('Tab');
  const skip = page.getByTestId('skip-link');
  await expect(skip).toBeFocused();
  await expect(skip).toBeVisible();
  await page.keyboard.press('Enter');
  await expect(page.locator('#main-content')).toBeFocused();

  // A chart is one tab stop: nothing inside it takes focus, and Tab leaves it at once.
  const trend = page.getByTestId('net-sales-trend');
  await expect(trend).toHaveAttribute('tabindex', '0');
  await expect(trend.locator('[tabindex]:not([tabindex="-1"]), a[href], button')).toHaveCount(0);
  await expect(trend.getByTestId('chart-table').locator('tbody tr').first()).toBeAttached();
  await trend.focus();
  await page.keyboard.press('Tab');
  expect(await trend.evaluate((figure) => figure.contains(document.activeElement))).toBe(false);
  // Each sparkline too, with a one-line summary.
  const sparkline = tile(page, 'Net sales').getByRole('figure');
  await expect(sparkline).toHaveAttribute('tabindex', '0');
  await expect(sparkline.locator('[tabindex]:not([tabindex="-1"])')).toHaveCount(0);
  // A day can net below zero (its refunds of earlier orders exceed its sales: early in the store's day,
  // CI once saw "to -£149.55"), so every figure may be negative.
  await expect(sparkline.getByTestId('chart-summary')).toHaveText(/^From -?£[\d,.]+ to -?£[\d,.]+; lowest -?£[\d,.]+, highest -?£[\d,.]+\.$/);

  await animationsFinished(page);
  const results = await new AxeBuilder({ page }).include('#main-content').withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  const serious = results.violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
  expect(serious.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`)).toEqual([]);

  // Orders: Escape closes the drawer and focus is back on the order it showed.
  await page.goto('/orders');
  const firstOrder = page.getByTestId('order-row').first().locator('button[data-order-id]');
  await firstOrder.focus();
  const orderId = await firstOrder.getAttribute('data-order-id');
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('order-drawer')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('order-drawer')).toBeHidden();
  await expect(page.locator(`button[data-order-id="${orderId}"]:visible`)).toBeFocused();
  // Opened with the mouse on a cell of another row and closed with ×: focus lands on that order.
  const third = page.getByTestId('order-row').nth(2);
  const thirdId = await third.locator('button[data-order-id]').getAttribute('data-order-id');
  await third.locator('td').nth(1).click();
  await page.getByTestId('order-drawer').getByRole('button', { name: /close/i }).first().click();
  await expect(page.locator(`button[data-order-id="${thirdId}"]:visible`)).toBeFocused();
});

test('French and German fit a 390 px phone: figures in their own format, no sideways scrolling on the dashboard and P&L', async ({ page }) => {
  await demoStore(page, 'locales');
  await page.setViewportSize({ width: 390, height: 844 });
  for (const [language, spend] of [
    ['fr', 'Dépenses marketing'],
    ['de', 'Marketingausgaben'],
  ] as const) {
    await page.evaluate((value) => localStorage.setItem('i18nextLng', value), language);
    await page.goto('/dashboard');
    await page.getByTestId('range-preset').selectOption('last_30_days');
    const spendTile = page.locator(`article[aria-label="${spend}"]`).first();
    await expect(spendTile.getByTestId('kpi-value')).toHaveText(/\d/);
    // "+13,3 %": decimal comma and a no-break space before the sign.
    await expect(spendTile.getByTestId('kpi-delta')).toHaveText(/^[+-]?[\d.\u202f\u00a0]+,\d[\u00a0\u202f]%$/);
    await expect(page.getByRole('region').getByRole('article').filter({ hasText: 'ROAS' }).first().getByTestId('kpi-value')).toHaveText(/^\d+,\d{2}×$/);
    // Nothing of the Spend tile is cut off: its label, hint and value fit their boxes.
    const clipped = await spendTile.evaluate((card) =>
      [...card.querySelectorAll('h3, p:not(.sr-only)')].filter((element) => element.scrollWidth > element.clientWidth + 1).map((element) => element.textContent),
    );
    expect(clipped).toEqual([]);
    await expect(drawnChart(page, 'net-sales-trend')).toBeVisible();
    expect(await pageOverflow(page), `${language} dashboard`).toBeLessThanOrEqual(0);
    // "Today": longer captions and tooltips ("estimated from the whole day").
    await page.getByTestId('range-preset').selectOption('today');
    await expect(drawnChart(page, 'hourly-trend')).toBeVisible();
    expect(await pageOverflow(page), `${language} dashboard today`).toBeLessThanOrEqual(0);

    await page.goto('/profit-and-loss');
    await expect(page.getByTestId('pnl-statement')).toBeVisible();
    expect(await pageOverflow(page), `${language} profit and loss`).toBeLessThanOrEqual(0);

    // All stores and Analytics write changes and multiples the same way.
    await page.goto('/dashboards');
    await page.getByTestId('range-preset').selectOption('last_30_days');
    const total = page.getByTestId('total-row');
    await expect(total.locator('td').nth(4)).toHaveText(/^\d+,\d{2}×$/);
    await expect(total.locator('td').last()).toHaveText(/^[+-]?[\d.\u202f\u00a0]+,\d[\u00a0\u202f]%$/);
    await page.goto('/analytics');
    await expect(page.getByTestId('trend-card').locator('.badge').first()).toHaveText(/^[+-]?[\d.\u202f\u00a0]+,\d[\u00a0\u202f]%$/);
  }
});

const SCREENSHOT_DIR = process.env.SCREENSHOTS_DIR;

for (const theme of ['light', 'dark'] as const) {
  test(`"Today" and French screenshots (${theme})`, async ({ page }) => {
    test.skip(!SCREENSHOT_DIR, 'screenshots only with SCREENSHOTS_DIR');
    await page.addInitScript((value) => localStorage.setItem('theme', value), theme);
    // ApexCharts animates in SVG (not the Web Animations screenSettled waits for): draw at once.
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await demoStore(page, `todayshot${theme}`);
    for (const [language, width] of [
      ['en', 1280],
      ['en', 390],
      ['fr', 390],
      ['de', 1280],
    ] as const) {
      await page.setViewportSize({ width, height: 900 });
      await page.evaluate((value) => localStorage.setItem('i18nextLng', value), language);
      await page.goto('/dashboard');
      await page.getByTestId('range-preset').selectOption('today');
      await expect(drawnChart(page, 'hourly-trend')).toBeVisible();
      await screenSettled(page);
      await page.screenshot({ path: `${SCREENSHOT_DIR}/today-${language}-${width}-${theme}.png`, fullPage: true });
      await page.getByTestId('range-preset').selectOption('last_30_days');
      await expect(drawnChart(page, 'net-sales-trend')).toBeVisible();
      await screenSettled(page);
      await page.screenshot({ path: `${SCREENSHOT_DIR}/dashboard30-${language}-${width}-${theme}.png`, fullPage: true });
      if (width === 390) {
        await page.goto('/profit-and-loss');
        await expect(page.getByTestId('pnl-statement')).toBeVisible();
        await screenSettled(page);
        await page.screenshot({ path: `${SCREENSHOT_DIR}/pnl-${language}-${width}-${theme}.png`, fullPage: true });
      }
    }
  });
}
