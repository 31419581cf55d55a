import { expect, type Page } from '@playwright/test';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { unzipSync } from 'fflate';
import sharp from 'sharp';
import { createStore, register, startTrial, test } from './account-helpers.ts';
import { imagesDecoded, loadDemoData, screenSettled } from './waits.ts';

// The product image generator on a demo store: one product -> the white main image with its checks
// passing -> gallery -> download; then a batch for three products -> progress to done -> the zip of
// the batch holds the images (unzipped here with fflate and read with sharp). With SCREENSHOTS_DIR
// set, screenshots at 1280 and 390 px in light and dark.

async function demoStore(page: Page, prefix: string): Promise<void> {
  await register(page.request, prefix);
  await startTrial(page.request, 'professional');
  await createStore(page.request, 'Image Demo');
  await page.goto('/dashboard');
  await loadDemoData(page);
  await page.goto('/product-image-generator');
  await expect(page.getByRole('heading', { level: 1, name: 'Product Image Generator' })).toBeVisible();
}

function productChoices(page: Page) {
  return page.getByTestId('source-products').getByRole('checkbox');
}

test('generate a main image, then a batch for three products, and download them as a zip', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await demoStore(page, 'images');
  const gallery = page.getByTestId('image-gallery');
  await expect(gallery).toContainText('No images generated yet');
  await expect(gallery).toContainText('Download only');
  await expect(page.getByTestId('image-model-note')).toContainText('AI backgrounds need an image model');

  // One product: the white square main image, its three checks passing, in the gallery.
  await expect(productChoices(page).first()).toBeVisible();
  await productChoices(page).nth(0).check();
  await page.getByRole('button', { name: 'Generate', exact: true }).click();
  const result = page.getByTestId('generated-results').getByTestId('product-image');
  await expect(result).toHaveCount(1);
  await expect(result.locator('[data-check]')).toHaveCount(3);
  await expect(result.locator('[data-state="pass"]')).toHaveCount(3);
  await expect(result).toContainText('2000×2000');
  await expect(gallery.getByTestId('product-image')).toHaveCount(1);
  await expect(page.getByTestId('storage-usage')).toContainText('of 200 MB used');

  // A single download is the JPEG itself.
  const single = page.waitForEvent('download');
  await result.getByRole('link', { name: /^JPEG/ }).click();
  const singleFile = await single;
  expect(singleFile.suggestedFilename()).toMatch(/-main-\d+\.jpg$/);
  expect((await sharp(readFileSync(await singleFile.path())).metadata()).width).toBe(2000);

  // A batch for three products, main image and social square with a sale badge and text.
  await productChoices(page).nth(0).uncheck();
  for (const index of [1, 2, 3]) await productChoices(page).nth(index).check();
  await page.getByTestId('image-generator-form').getByLabel('Social square 1080×1080').check();
  await page.getByLabel('Sale badge (% off)').fill('20');
  await page.getByLabel('Text on social images').fill('Winter <sale> & more');
  await page.getByRole('button', { name: 'Generate for 3 products' }).click();
  const progress = page.getByTestId('batch-progress');
  await expect(progress).toHaveAttribute('data-state', 'done');
  await expect(progress).toContainText('Done: 3 of 3 products');
  await expect(gallery.getByTestId('product-image')).toHaveCount(7);

  // The batch's social squares, selected and downloaded as one zip.
  await page.getByLabel('Format').selectOption({ label: 'Social square 1080×1080' });
  await expect(gallery.getByTestId('product-image')).toHaveCount(3);
  await gallery.getByRole('button', { name: 'Select all' }).click();
  const zipped = page.waitForEvent('download');
  await gallery.getByRole('link', { name: 'Download 3 as ZIP' }).click();
  const zip = await zipped;
  const files = unzipSync(new Uint8Array(readFileSync(await zip.path())));
  const names = Object.keys(files);
  expect(names).toHaveLength(3);
  for (const name of names) {
    expect(name).toMatch(/-square-\d+\.jpg$/);
    const meta = await sharp(Buffer.from(files[name]!)).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 1080, 1080]);
  }
});

test('upload a photo: the main image passes its checks; a GIF is refused with a clear message', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await register(page.request, 'imageupload');
  await startTrial(page.request, 'professional');
  await createStore(page.request, 'Upload Shop');
  await page.goto('/product-image-generator');
  const form = page.getByTestId('image-generator-form');
  await form.getByRole('tab', { name: 'Upload a photo' }).click();

  const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="900"><rect width="1200" height="900" fill="rgb(200,200,200)"/><rect x="300" y="150" width="700" height="500" rx="60" fill="rgb(210,30,30)"/></svg>';
  const gif = await sharp(Buffer.from(svg)).gif().toBuffer();
  await form.getByLabel('Photo').setInputFiles({ name: 'kettle.gif', mimeType: 'image/gif', buffer: gif });
  await form.getByRole('button', { name: 'Generate', exact: true }).click();
  await expect(form.getByRole('alert')).toHaveText('Only JPEG, PNG, WebP or AVIF images can be used.');

  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  await form.getByLabel('Photo').setInputFiles({ name: 'kettle.png', mimeType: 'image/png', buffer: png });
  await form.getByRole('button', { name: 'Generate', exact: true }).click();
  const result = page.getByTestId('generated-results').getByTestId('product-image');
  await expect(result.locator('[data-state="pass"]')).toHaveCount(3);
  await expect(result).toContainText('kettle.png');
  await expect(page.getByTestId('image-gallery').getByTestId('product-image')).toHaveCount(1);
});

const directory = process.env.SCREENSHOTS_DIR;

test('product image generator screenshots at 1280 and 390 px, light and dark', async ({ page }) => {
  test.skip(!directory, 'Set SCREENSHOTS_DIR to take the product image screenshots');
  mkdirSync(directory!, { recursive: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  await demoStore(page, 'imageshots');
  await productChoices(page).nth(0).check();
  await page.getByTestId('image-generator-form').getByLabel('Social portrait 1080×1350').check();
  await page.getByLabel('Sale badge (% off)').fill('15');
  await page.getByRole('button', { name: 'Generate', exact: true }).click();
  await expect(page.getByTestId('generated-results').getByTestId('product-image')).toHaveCount(2);
  for (const theme of ['light', 'dark'] as const) {
    for (const [size, viewport] of [['1280', { width: 1280, height: 900 }], ['390', { width: 390, height: 844 }]] as const) {
      await page.evaluate((value) => localStorage.setItem('theme', value), theme);
      await page.setViewportSize(viewport);
      await page.reload();
      await expect(page.getByTestId('image-gallery').getByTestId('product-image')).toHaveCount(2);
      await expect(page.getByTestId('batch-progress')).toHaveCount(0);
      // The gallery's images load lazily: each brought into view and decoded.
      await imagesDecoded(page, page.getByTestId('image-gallery'));
      await screenSettled(page);
      await page.screenshot({ path: path.join(directory!, `product-images-${size}-${theme}.png`), fullPage: true });
      // The other source: a photo of one's own.
      const form = page.getByTestId('image-generator-form');
      await form.getByRole('tab', { name: 'Upload a photo' }).click();
      await expect(form.getByLabel('Photo')).toBeVisible();
      await page.evaluate(() => window.scrollTo(0, 0));
      await screenSettled(page);
      await page.screenshot({ path: path.join(directory!, `product-images-upload-${size}-${theme}.png`), fullPage: true });
    }
  }
});
