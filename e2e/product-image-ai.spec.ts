import { expect, test } from '@playwright/test';
import { FAKE_IMAGE_MODEL_KEY, FakeImageModel } from '../test/fakes/image-model.ts';
import { createStore, register, startTrial } from './account-helpers.ts';
import { screenshots } from './admin-helpers.ts';
import { E2E_PORT } from './integration-fakes-env.ts';
import { startOwnServer, type OwnServer } from './own-server.ts';
import { imagesDecoded, loadDemoData } from './waits.ts';

// The product image generator with an image model set up (IMAGE_API_URL, IMAGE_API_KEY, IMAGE_MODEL): a
// server of its own whose model is the loopback OpenAI-compatible Images API fake (test/fakes/image-model.ts).
// A main image's card offers an AI background; the variant made from a prompt lands in the gallery.
// The suite's shared server has no model: product-image-generator.spec.ts covers that state. Port: E2E_PORT + 3.

test.describe.configure({ mode: 'serial' });

let model: FakeImageModel;
let server: OwnServer;

test.beforeAll(async () => {
  model = await new FakeImageModel().start();
  server = await startOwnServer(E2E_PORT + 3, 'images-ai', { IMAGE_API_URL: model.baseUrl, IMAGE_API_KEY: FAKE_IMAGE_MODEL_KEY, IMAGE_MODEL: 'gpt-image-1' });
});

test.afterAll(async () => {
  await server?.stop();
  await model?.close();
});

test('with an image model, a main image gets an AI background from a prompt, added to the gallery', async ({ browser }) => {
  const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await register(page.request, 'imageai');
  await startTrial(page.request, 'professional');
  await createStore(page.request, 'AI Image Shop');
  await page.goto('/dashboard');
  await loadDemoData(page);
  await page.goto('/product-image-generator');
  // No "needs an image model" note: this server has one.
  await expect(page.getByRole('heading', { level: 1, name: 'Product Image Generator' })).toBeVisible();
  await expect(page.getByTestId('image-model-note')).toHaveCount(0);

  await page.getByTestId('source-products').getByRole('checkbox').first().check();
  await page.getByRole('button', { name: 'Generate', exact: true }).click();
  const gallery = page.getByTestId('image-gallery');
  await expect(gallery.getByTestId('product-image')).toHaveCount(1);

  const prompt = gallery.getByLabel('AI background (describe the scene)');
  await prompt.fill('On a marble kitchen counter');
  await gallery.getByRole('button', { name: 'Make an AI background' }).click();
  await expect(page.getByText('AI image added to the gallery')).toBeVisible();
  await expect(gallery.getByTestId('product-image')).toHaveCount(2);
  // The product photo went to /images/edits with the prompt, as multipart form data.
  const edit = model.server.requests.find((request) => request.path === '/v1/images/edits');
  expect(String(edit?.headers['content-type'])).toMatch(/^multipart\/form-data/);
  expect(edit?.rawBody).toContain('On a marble kitchen counter');

  if (process.env.SCREENSHOTS_DIR) {
    await screenshots(page, 'product-images-ai', async (shot) => {
      await expect(shot.getByTestId('image-gallery').getByTestId('product-image')).toHaveCount(2);
      await imagesDecoded(shot, shot.getByTestId('image-gallery'));
    });
  }
  await context.close();
});
