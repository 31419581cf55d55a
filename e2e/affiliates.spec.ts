import { expect, test } from '@playwright/test';
import { createStore, distinctAddress, otherPerson, registered, screenshots, startTrial } from './admin-helpers.ts';

// The affiliate programme end to end: join, share the link, a visitor follows it in a fresh browser and
// signs up, the affiliate's dashboard counts the sign-up. With SCREENSHOTS_DIR set it photographs the dashboard.
test('a visitor who follows a referral link and signs up shows on the affiliate dashboard', async ({ page, browser, baseURL }) => {
  await page.context().setExtraHTTPHeaders(distinctAddress());
  await registered(page.request, 'affiliate');
  await startTrial(page.request, 'professional');
  await createStore(page.request, 'Affiliate Shop');

  await page.goto('/affiliate-dashboard');
  await page.getByTestId('affiliate-join').click();
  const linkField = page.getByTestId('affiliate-link');
  await expect(linkField).toHaveValue(/\/\?ref=[a-f0-9]{12}$/);
  const link = new URL(await linkField.inputValue());

  const visitor = await otherPerson(browser, baseURL);
  await visitor.page.goto(`${link.pathname}${link.search}`);
  await expect.poll(async () => (await visitor.context.cookies()).find((cookie) => cookie.name === 'sp_ref')?.value ?? '').toMatch(/^[a-f0-9]{12}\.\d+$/);
  await expect(visitor.page).not.toHaveURL(/ref=/);
  await registered(visitor.page.request, 'referred');
  await visitor.context.close();

  await page.reload();
  await expect(page.getByTestId('affiliate-kpi-signUps')).toContainText('1');
  await expect(page.getByTestId('affiliate-kpi-clicks')).toContainText('1');
  await expect(page.getByTestId('affiliate-referrals')).toContainText(/User #1, joined .*, no plan, signed up/);

  if (process.env.SCREENSHOTS_DIR) {
    await screenshots(page, 'affiliate-dashboard', async (shot) => {
      await expect(shot.getByTestId('affiliate-kpi-signUps')).toContainText('1');
    });
  }
});
