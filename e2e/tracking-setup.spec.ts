import { expect, type Page } from '@playwright/test';
import path from 'node:path';
import { createStore, expectToast, register, startTrial, test, uniqueName } from './account-helpers.ts';
import { applyTheme } from './shell-helpers.ts';

// /tracking-setup in Chromium: the snippet is copied (clipboard and toast), allowed domains are
// edited (a bad entry is refused in place and loses nothing; good ones are saved), a test event sent
// from the screen and an event posted to the collector by the test both appear in the live view
// without a reload, and the health count rises with them. Every wait is on the screen's state.

const VISITOR_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

async function signUpWithStore(page: Page): Promise<{ storeKey: string; snippet: string }> {
  await register(page.request, 'tracking');
  await startTrial(page.request, 'business');
  await createStore(page.request, uniqueName('Tracking shop'));
  return (await page.request.get('/api/tracking/setup')).json();
}

function eventsTile(page: Page) {
  return page.getByTestId('health-events').getByTestId('kpi-value');
}

test('the tracking set-up screen copies the snippet, edits allowed domains, and shows test and collector events live with the health count', async ({ page, context, baseURL }) => {
  const origin = new URL(baseURL!).origin;
  const setup = await signUpWithStore(page);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  await page.goto('/tracking-setup');
  await expect(page.getByRole('heading', { level: 1, name: 'Tracking Setup' })).toBeVisible();

  // Nothing arrived yet: the empty state says what to do next.
  const empty = page.getByTestId('empty-state');
  await expect(empty).toContainText('No event has arrived yet');
  await expect(empty.getByRole('link', { name: 'See the install steps' })).toHaveAttribute('href', '#install');

  // The snippet: the store key and the tag, copied with a toast.
  const snippetCard = page.getByTestId('tracking-snippet');
  await expect(snippetCard.getByTestId('store-key')).toHaveText(setup.storeKey);
  await snippetCard.getByRole('button', { name: 'Copy Tracking snippet' }).click();
  await expectToast(page, 'Tracking snippet copied to the clipboard');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toContain(setup.snippet);
  expect(copied).toContain('window.sp = window.sp ||');

  // Allowed domains: a bad entry is refused where it was typed, and nothing is saved or lost.
  const domains = page.getByTestId('allowed-domains');
  const input = domains.getByRole('textbox', { name: 'Add to Allowed domains' });
  await input.fill('not a domain!');
  await domains.getByRole('button', { name: 'Add' }).click();
  await expect(domains.getByRole('alert')).toHaveText('Enter a domain name such as shop.example.com (no path, port or spaces).');
  await expect(input).toHaveValue('not a domain!');
  await expect(input).toHaveAttribute('aria-invalid', 'true');
  expect((await (await page.request.get('/api/tracking/setup')).json()).allowedDomains).toEqual([]);

  // Good ones are saved: a host name, and a pasted address reduced to its host.
  await input.fill('Shop.Example.com');
  await domains.getByRole('button', { name: 'Add' }).click();
  await expectToast(page, 'Tracking settings saved');
  await expect(input).toHaveValue('');
  await input.fill('https://www.other-shop.example/checkout?x=1');
  await domains.getByRole('button', { name: 'Add' }).click();
  await expectToast(page, 'Tracking settings saved');
  await expect(domains.getByTestId('domain-item')).toHaveText(['shop.example.com', 'www.other-shop.example']);
  // The same one twice is refused in place.
  await input.fill('shop.example.com');
  await domains.getByRole('button', { name: 'Add' }).click();
  await expect(domains.getByRole('alert')).toHaveText('shop.example.com is already in the list.');
  await expect(input).toHaveValue('shop.example.com');
  // Removed with its button.
  await domains.getByRole('button', { name: 'Remove www.other-shop.example' }).click();
  await expectToast(page, 'Tracking settings saved');
  await expect(domains.getByTestId('domain-item')).toHaveText(['shop.example.com']);
  expect((await (await page.request.get('/api/tracking/setup')).json()).allowedDomains).toEqual(['shop.example.com']);

  // A test event, sent from the empty state: it shows in the live view, and health appears with it.
  await empty.getByRole('button', { name: 'Send test event' }).click();
  await expectToast(page, 'Test event sent');
  const live = page.getByTestId('tracking-live');
  const testRow = live.getByTestId('live-row').filter({ hasText: 'test_event' });
  await expect(testRow).toHaveCount(1);
  await expect(testRow).toContainText('Test');
  await expect(page.getByTestId('empty-state')).toHaveCount(0);
  await expect(eventsTile(page)).toHaveText('1');

  // An event posted to the collector from outside (the shop's page, an allowed domain) appears without a reload.
  const eventId = `e2e_${Date.now().toString(36)}`;
  const posted = await page.request.post('/p/e', {
    headers: { 'content-type': 'text/plain;charset=UTF-8', origin: 'https://shop.example.com', 'user-agent': VISITOR_AGENT },
    data: JSON.stringify({
      key: setup.storeKey,
      aid: 'visitor_e2e_0001',
      consent: 1,
      now: Date.now(),
      events: [{ name: 'page_view', id: eventId, ts: Date.now(), url: 'https://shop.example.com/products/mug?utm_source=e2e', title: 'The mug' }],
    }),
  });
  expect(posted.status()).toBe(204);
  const pixelRow = live.locator(`[data-testid="live-row"][data-event-id="${eventId}"]`);
  await expect(pixelRow).toContainText('page_view');
  await expect(pixelRow).toContainText('shop.example.com/products/mug');
  await expect(pixelRow).toContainText('Pixel');
  await expect(eventsTile(page)).toHaveText('2');
  // Newest first.
  await expect(live.getByTestId('live-row').first()).toHaveAttribute('data-event-id', eventId);

  // Screenshots of the screen with data, light and dark, desktop and phone (SCREENSHOTS_DIR set only).
  const directory = process.env.SCREENSHOTS_DIR;
  if (directory) {
    for (const theme of ['light', 'dark'] as const) {
      await applyTheme(page, theme);
      for (const [label, width] of [['1280', 1280], ['390', 390]] as const) {
        await page.setViewportSize({ width, height: 900 });
        await expect(pixelRow).toBeVisible();
        await page.screenshot({ path: path.join(directory, `tracking-setup-${theme}-${label}.png`), fullPage: true });
      }
    }
  }
});

test('the empty state of a store without events, light and dark (screenshots with SCREENSHOTS_DIR)', async ({ page }) => {
  const directory = process.env.SCREENSHOTS_DIR;
  test.skip(!directory, 'Set SCREENSHOTS_DIR to take the screenshots');
  await signUpWithStore(page);
  await page.goto('/tracking-setup');
  await expect(page.getByTestId('empty-state')).toContainText('No event has arrived yet');
  for (const theme of ['light', 'dark'] as const) {
    await applyTheme(page, theme);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: path.join(directory!, `tracking-setup-empty-${theme}-${width}.png`), fullPage: false });
    }
  }
});
