import { expect, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { createStore, latestResetPath, outsideRequest, planId, register, startTrial, test } from './account-helpers.ts';
import { screenSettled } from './waits.ts';

// Screenshots of the account screens for a person to look at; only when asked for:
//   SCREENSHOTS_DIR=/tmp/screens-b playwright test e2e/account-screenshots.spec.ts
const directory = process.env.SCREENSHOTS_DIR;
test.skip(!directory, 'Set SCREENSHOTS_DIR to take the account screenshots');

const VIEWPORTS = { desktop: { width: 1280, height: 860 }, mobile: { width: 390, height: 844 } } as const;
const THEMES = ['light', 'dark'] as const;

async function shoot(page: Page, name: string, label: string): Promise<void> {
  await screenSettled(page);
  await page.screenshot({ path: path.join(directory!, `${name}-${label}.png`), fullPage: true });
}

for (const theme of THEMES) {
  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    test(`account screens, ${theme}, ${size}`, async ({ page, baseURL }) => {
      mkdirSync(directory!, { recursive: true });
      const label = `${size}-${theme}`;
      await page.setViewportSize(viewport);
      await page.addInitScript((value) => localStorage.setItem('theme', value), theme);

      // Signed out first.
      await page.goto('/auth');
      await shoot(page, 'auth-sign-in', label);
      await page.getByRole('tab', { name: 'Register' }).click();
      await page.getByRole('button', { name: 'Create account' }).click();
      await expect(page.getByText('Choose a username')).toBeVisible();
      await shoot(page, 'auth-register-errors', label);
      await page.goto('/pricing');
      await expect(page.getByTestId('plan-card')).toHaveCount(4);
      await shoot(page, 'pricing-signed-out', label);

      await page.goto('/forgot-password');
      await shoot(page, 'forgot-password', label);
      const visitor = await outsideRequest(baseURL);
      const other = await register(visitor, 'shotreset');
      await visitor.dispose();
      await page.getByLabel('Email').fill(other.email);
      await page.getByRole('button', { name: 'Send reset link' }).click();
      await expect(page.getByTestId('reset-requested')).toBeVisible();
      await shoot(page, 'forgot-password-sent', label);

      await page.goto(latestResetPath(other.email));
      await page.getByLabel('New password', { exact: true }).fill('short');
      await page.getByRole('button', { name: 'Set new password' }).click();
      await shoot(page, 'reset-password', label);
      await page.goto('/reset-password?token=not-a-real-token');
      await page.getByLabel('New password', { exact: true }).fill('a long enough passphrase');
      await page.getByLabel('Confirm new password').fill('a long enough passphrase');
      await page.getByRole('button', { name: 'Set new password' }).click();
      await expect(page.getByTestId('reset-invalid')).toBeVisible();
      await shoot(page, 'reset-password-invalid', label);

      // A new account: onboarding.
      await register(page.request, 'shots');
      await page.goto('/onboarding/pricing');
      await expect(page.getByTestId('plan-card')).toHaveCount(4);
      await shoot(page, 'onboarding-pricing', label);

      // Stores and a trial.
      await createStore(page.request, 'Acme Outdoors');
      await startTrial(page.request, 'professional');
      await createStore(page.request, 'Northwind Home & Garden Supplies Ltd');
      await page.goto('/store-management');
      await expect(page.getByTestId('store-row')).toHaveCount(2);
      await shoot(page, 'store-management', label);
      await page.getByRole('button', { name: 'Rename Acme Outdoors' }).click();
      await shoot(page, 'store-management-rename', label);
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('button', { name: 'Delete Northwind Home & Garden Supplies Ltd' }).click();
      await expect(page.getByRole('dialog')).toBeVisible();
      await shoot(page, 'store-management-delete', label);
      await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
      await createStore(page.request, 'Third Store');
      await page.reload();
      await page.getByLabel('Store name').fill('Fourth');
      await page.getByRole('button', { name: 'Create store' }).click();
      await expect(page.getByTestId('toast')).toContainText('Dashboard Limit Reached');
      await shoot(page, 'store-management-full', label);

      await page.goto('/pricing');
      await expect(page.getByTestId('current-plan-badge')).toBeVisible();
      await shoot(page, 'pricing', label);

      await page.goto(`/checkout/${await planId(page.request, 'business')}`);
      await expect(page.getByTestId('test-mode')).toBeVisible();
      await shoot(page, 'checkout', label);
      await page.goto('/checkout/424242');
      await shoot(page, 'checkout-not-found', label);

      await page.goto('/settings');
      await expect(page.getByLabel('Username')).not.toHaveValue('');
      await shoot(page, 'settings', label);
      await page.getByLabel('Current password').fill('wrong one');
      await page.getByLabel('New password', { exact: true }).fill('short');
      await page.getByLabel('Confirm new password').fill('different');
      await page.getByRole('button', { name: 'Update password' }).click();
      await shoot(page, 'settings-errors', label);

      await page.goto('/confirm-email?token=not-a-real-token');
      await shoot(page, 'confirm-email', label);
      await page.getByRole('button', { name: 'Confirm new address' }).click();
      await expect(page.getByTestId('confirm-email-invalid')).toBeVisible();
      await shoot(page, 'confirm-email-invalid', label);

      await page.goto('/profile');
      await expect(page.getByTestId('profile-plan')).toContainText('Professional');
      await shoot(page, 'profile', label);
    });
  }
}
