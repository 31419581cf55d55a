import { mkdtemp, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { unzipSync } from 'fflate';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_IMAGE_MODEL_KEY, FakeImageModel } from '../../../../test/fakes/image-model.ts';
import { ownerWithStore } from '../../../../test/guests.ts';
import { signedInAdmin, trpcMutation, trpcQuery, useTestApp } from '../../../../test/harness.ts';
import { QUOTA_FULL_MESSAGE, UPLOAD_TOO_LARGE_MESSAGE, UPLOAD_TYPE_MESSAGE, type GalleryImage } from '../../../shared/product-images.ts';
import { Product } from '../commerce/product.entity.ts';
import { SESSION_COOKIE_NAME } from '../sessions/session-control.ts';
import { startTestServer, type TestServer } from '../page-fetcher/test-servers.ts';
import { redProductOnGrey } from './test-images.ts';
import { configureImageModel, IMAGE_MODEL_NOT_CONFIGURED_MESSAGE, openAiImageModel } from './image-model.ts';
import { acceptedImage } from './image-source.ts';
import { configureImageStorage, FILE_REFUSED_MESSAGE, storeFilePath, storeFolder } from './image-storage.ts';
import { failStaleBatches, runBatchJob, STALE_BATCH_MS } from './batch-job.ts';
import { BATCH_NOT_FOUND_MESSAGE, generateImages, IMAGE_NOT_FOUND_MESSAGE, startBatch } from './product-images.service.ts';

// The generator through its procedures and REST adapter on a real PostgreSQL: sources (a product's
// image URL on a loopback server, the demo catalogue, uploads), the gallery and its files, batches,
// the quota, tenant scoping, the tools rule, and the image model's wire format against its fake.

const testApp = useTestApp();
type Owner = Awaited<ReturnType<typeof ownerWithStore>>;
let owner: Owner;
let stranger: Owner;
let shopImages: TestServer;
let productWithImage: number;
let demoProduct: number;
let productWithoutImage: number;

const cookieOf = (who: Owner) => `${SESSION_COOKIE_NAME}=${who.client.sessionCookie}`;
const ok = <T>(answer: { status: number; body: { result?: { data: T } } }): T => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.result!.data;
};

beforeAll(async () => {
  configureImageStorage(await mkdtemp(path.join(os.tmpdir(), 'product-images-test-')));
  const photo = await redProductOnGrey();
  shopImages = await startTestServer((request, response) => {
    if (request.url === '/red.jpg') return response.writeHead(200, { 'content-type': 'image/jpeg' }).end(photo);
    if (request.url === '/page.html') return response.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
    response.writeHead(404).end();
  });
  owner = await ownerWithStore(testApp.app, testApp.orm, 'Image Shop');
  stranger = await ownerWithStore(testApp.app, testApp.orm, 'Other Image Shop');
  const em = testApp.orm.em.fork();
  const product = (externalId: string, title: string, imageUrl: string | null) =>
    em.create(Product, { store: owner.store.id, platform: 'shopify', externalId, title, priceMinor: 4999, currency: 'EUR', imageUrl });
  const withImage = product('p-1', 'Red Kettle', `${shopImages.origin}/red.jpg`);
  const demo = product('demo-product-3', 'Mug — Blue', null);
  const without = product('p-2', 'No Photo Lamp', null);
  product('p-3', 'Broken Photo Chair', `${shopImages.origin}/page.html`);
  await em.flush();
  [productWithImage, demoProduct, productWithoutImage] = [withImage.id, demo.id, without.id];
});
afterAll(async () => {
  await shopImages?.close();
});

describe('generating from a product', () => {
  let images: GalleryImage[];
  beforeAll(async () => {
    images = ok(await trpcMutation(owner.client, 'productImages.generate', { productId: productWithImage, formats: ['main', 'square'], discountPercent: 20, showPrice: true, text: 'Winter sale', locale: 'de' }));
  }, 60_000);

  it('fetches the image URL and makes a main image that passes every check, and a social square', () => {
    expect(images.map((image) => [image.format, image.width, image.height])).toEqual([['main', 2000, 2000], ['square', 1080, 1080]]);
    expect(images[0]!.checks).toMatchObject({ whiteBorder: { pass: true }, productFill: { pass: true }, minSize: { pass: true } });
    expect(images[0]!.jpegBytes).toBeGreaterThan(1000);
    expect(images[1]!.checks).toBeNull();
  });

  it('lists them in the gallery with the usage, and serves each file as a download', async () => {
    const gallery = ok<{ images: GalleryImage[]; usage: { usedBytes: number; quotaBytes: number } }>(await trpcQuery(owner.client, 'productImages.gallery', { format: 'main' }));
    expect(gallery.images.map((image) => image.id)).toEqual([images[0]!.id]);
    expect(gallery.usage.usedBytes).toBe(images.reduce((sum, image) => sum + image.webpBytes + image.jpegBytes, 0));
    expect(gallery.usage.quotaBytes).toBe(200 * 1024 * 1024);
    const file = await owner.client.request('GET', `/api/product-images/${images[0]!.id}.jpg`);
    expect(file.status).toBe(200);
    expect(file.headers['content-disposition']).toBe(`attachment; filename="red-kettle-main-${images[0]!.id}.jpg"`);
    const response = await testApp.app.inject({ method: 'GET', url: `/api/product-images/${images[0]!.id}.webp`, headers: { cookie: cookieOf(owner) } });
    expect((await sharp(response.rawPayload).metadata()).format).toBe('webp');
  });

  it('zips several images for download, and refuses another store the files, the zip and the delete', async () => {
    const zip = await testApp.app.inject({ method: 'GET', url: `/api/product-images/zip?ids=${images.map((image) => image.id).join(',')}&ext=jpg`, headers: { cookie: cookieOf(owner) } });
    expect(zip.statusCode).toBe(200);
    const files = unzipSync(new Uint8Array(zip.rawPayload));
    expect(Object.keys(files).sort()).toEqual([`red-kettle-main-${images[0]!.id}.jpg`, `red-kettle-square-${images[1]!.id}.jpg`]);
    expect((await sharp(Buffer.from(files[`red-kettle-main-${images[0]!.id}.jpg`]!)).metadata()).width).toBe(2000);

    const theirs = await stranger.client.get(`/api/product-images/${images[0]!.id}.jpg`);
    expect(theirs).toMatchObject({ status: 404, body: { message: IMAGE_NOT_FOUND_MESSAGE } });
    expect((await stranger.client.get(`/api/product-images/zip?ids=${images[0]!.id}`)).status).toBe(404);
    expect((await trpcMutation(stranger.client, 'productImages.remove', { ids: [images[0]!.id] })).status).toBe(404);
    expect(ok<{ images: unknown[] }>(await trpcQuery(stranger.client, 'productImages.gallery', {})).images).toEqual([]);
    expect((await trpcMutation(stranger.client, 'productImages.generate', { productId: productWithImage, formats: ['main'] })).status).toBe(404);
  });

  it('deletes an image: its row and both files', async () => {
    const square = images[1]!;
    expect(ok(await trpcMutation(owner.client, 'productImages.remove', { ids: [square.id] }))).toEqual({ deleted: 1 });
    expect(await readdir(storeFolder(owner.store.id))).not.toContain(`${square.id}.jpg`);
    expect((await owner.client.get(`/api/product-images/${square.id}.jpg`)).status).toBe(404);
  });
});

describe('file paths', () => {
  it('never leave the store folder', async () => {
    expect(() => storeFilePath(owner.store.id, `../${stranger.store.id}/1.jpg`)).toThrow(FILE_REFUSED_MESSAGE);
    expect(() => storeFilePath(owner.store.id, '1.jpg/../../x.jpg')).toThrow(FILE_REFUSED_MESSAGE);
    expect(storeFilePath(owner.store.id, '12.webp')).toBe(path.join(storeFolder(owner.store.id), '12.webp'));
    expect((await owner.client.get(`/api/product-images/..%2F${stranger.store.id}%2F1.jpg`)).status).toBe(404);
  });
});

describe('sources', () => {
  it('draws the demo catalogue its photos, and says plainly when a product has no image or its URL is no image', async () => {
    const demo = ok<GalleryImage[]>(await trpcMutation(owner.client, 'productImages.generate', { productId: demoProduct, formats: ['main'] }));
    expect(demo[0]!.checks!.whiteBorder.pass).toBe(true);
    const none = await trpcMutation(owner.client, 'productImages.generate', { productId: productWithoutImage, formats: ['main'] });
    expect(none.status).toBe(400);
    expect(none.body.error.message).toBe('This product has no image. Upload one instead.');
    const products = ok<{ title: string }[]>(await trpcQuery(owner.client, 'productImages.products', { search: 'kettle' }));
    expect(products.map((product) => product.title)).toEqual(['Red Kettle']);
  });

  it('accepts an uploaded PNG and refuses other types and files over 20 MB with a clear message', async () => {
    const png = await sharp(await redProductOnGrey()).png().toBuffer();
    const uploaded = await testApp.app.inject({
      method: 'POST',
      url: `/api/product-images/upload?name=kettle.png&options=${encodeURIComponent(JSON.stringify({ formats: ['main'] }))}`,
      payload: png,
      headers: { 'content-type': 'image/png', cookie: cookieOf(owner) },
    });
    expect(uploaded.statusCode, uploaded.body).toBe(200);
    expect(uploaded.json().images[0]).toMatchObject({ title: 'kettle.png', productId: null, format: 'main', checks: { whiteBorder: { pass: true } } });

    const gif = await sharp({ create: { width: 20, height: 20, channels: 3, background: '#ff0000' } }).gif().toBuffer();
    const noFormat = await testApp.app.inject({ method: 'POST', url: '/api/product-images/upload?name=a.png', payload: png, headers: { 'content-type': 'image/png', cookie: cookieOf(owner) } });
    expect(noFormat.statusCode).toBe(400);
    expect(noFormat.json().errors[0].field).toBe('formats');
    const gifUpload = await testApp.app.inject({ method: 'POST', url: `/api/product-images/upload?name=a.gif&options=${encodeURIComponent('{"formats":["main"]}')}`, payload: gif, headers: { 'content-type': 'image/gif', cookie: cookieOf(owner) } });
    expect([gifUpload.statusCode, gifUpload.json()]).toEqual([400, { message: UPLOAD_TYPE_MESSAGE }]);
    const refused = await trpcMutation(owner.client, 'productImages.upload', { fileName: 'a.gif', dataBase64: gif.toString('base64'), formats: ['main'] });
    expect(refused).toMatchObject({ status: 400, body: { error: { message: UPLOAD_TYPE_MESSAGE } } });
    const text = await trpcMutation(owner.client, 'productImages.upload', { fileName: 'photo.jpg', dataBase64: Buffer.from('not an image').toString('base64'), formats: ['main'] });
    expect(text.body.error.message).toBe(UPLOAD_TYPE_MESSAGE);

    await expect(acceptedImage(Buffer.alloc(20 * 1024 * 1024 + 1))).rejects.toThrow(UPLOAD_TOO_LARGE_MESSAGE);
    const big = await testApp.app.inject({ method: 'POST', url: '/api/product-images/upload?name=big.jpg', payload: Buffer.alloc(21 * 1024 * 1024), headers: { 'content-type': 'image/jpeg', cookie: cookieOf(owner) } });
    expect(big.statusCode).toBe(413);
    expect(big.json()).toEqual({ message: UPLOAD_TOO_LARGE_MESSAGE });
  });
});

describe('the quota', () => {
  it('refuses images that would not fit, and keeps nothing of them', async () => {
    const em = testApp.orm.em.fork();
    const before = await readdir(storeFolder(owner.store.id));
    const source = { bytes: await redProductOnGrey(), title: 'Too big', productId: null, priceMinor: null, currency: null };
    const options = { formats: ['main' as const], mainSize: 2000, discountPercent: null, showPrice: false, text: '', locale: 'en' as const };
    await expect(generateImages(em, owner.store.id, source, options, 1000)).rejects.toThrow(QUOTA_FULL_MESSAGE);
    expect(await readdir(storeFolder(owner.store.id))).toEqual(before);
  });
});

describe('batches', () => {
  it('generate for several products with progress and per-product failure reasons, and stay with their store', async () => {
    const started = ok<{ id: number; status: string; total: number }>(await trpcMutation(owner.client, 'productImages.startBatch', { productIds: [productWithImage, demoProduct, productWithoutImage], formats: ['main'] }));
    expect(started).toMatchObject({ status: 'queued', total: 3 });
    await runBatchJob(testApp.orm.em.fork(), owner.store.id, started.id);
    const batch = ok<{ status: string; done: number; failures: { title: string; reason: string }[] }>(await trpcQuery(owner.client, 'productImages.batch', { id: started.id }));
    expect(batch).toMatchObject({ status: 'done', done: 3, failures: [{ title: 'No Photo Lamp', reason: 'This product has no image. Upload one instead.' }] });
    const gallery = ok<{ images: GalleryImage[] }>(await trpcQuery(owner.client, 'productImages.gallery', { batchId: started.id }));
    expect(gallery.images.map((image) => image.title).sort()).toEqual(['Mug — Blue', 'Red Kettle']);

    expect(await trpcQuery(stranger.client, 'productImages.batch', { id: started.id })).toMatchObject({ status: 404, body: { error: { message: BATCH_NOT_FOUND_MESSAGE } } });
    expect((await trpcMutation(stranger.client, 'productImages.startBatch', { productIds: [productWithImage], formats: ['main'] })).status).toBe(404);
  }, 60_000);

  it('lost with their process are marked failed after the stale limit, not before', async () => {
    const em = testApp.orm.em.fork();
    const options = { formats: ['main' as const], mainSize: 1000, discountPercent: null, showPrice: false, text: '', locale: 'en' as const };
    const batch = await startBatch(em, owner.store.id, owner.user.id, [demoProduct], options);
    const created = new Date(batch.createdAt).getTime();
    await failStaleBatches(em, new Date(created + STALE_BATCH_MS - 1000));
    expect(ok(await trpcQuery(owner.client, 'productImages.batch', { id: batch.id }))).toMatchObject({ status: 'queued' });
    await failStaleBatches(em, new Date(created + STALE_BATCH_MS + 1000));
    expect(ok(await trpcQuery(owner.client, 'productImages.batch', { id: batch.id }))).toMatchObject({ status: 'failed', done: 0 });
  });

  it('stop when cancelled, before the next product', async () => {
    const em = testApp.orm.em.fork();
    const options = { formats: ['main' as const], mainSize: 1000, discountPercent: null, showPrice: false, text: '', locale: 'en' as const };
    const batch = await startBatch(em, owner.store.id, owner.user.id, [demoProduct, productWithImage], options);
    expect(ok(await trpcMutation(owner.client, 'productImages.cancelBatch', { id: batch.id }))).toMatchObject({ status: 'cancelled', done: 0 });
    await runBatchJob(testApp.orm.em.fork(), owner.store.id, batch.id);
    expect(ok(await trpcQuery(owner.client, 'productImages.batch', { id: batch.id }))).toMatchObject({ status: 'cancelled', done: 0 });
  });
});

describe('the tools rule', () => {
  it('refuses the basic plan (403), and lets an admin in guest mode look but not generate', async () => {
    const basic = await ownerWithStore(testApp.app, testApp.orm, 'Basic Image Shop', 'basic');
    expect((await trpcQuery(basic.client, 'productImages.gallery', {})).status).toBe(403);
    expect((await trpcMutation(basic.client, 'productImages.generate', { productId: 1, formats: ['main'] })).status).toBe(403);

    const admin = await signedInAdmin(testApp.app, testApp.orm);
    expect((await admin.client.post('/api/admin/enter-guest-mode', { userId: owner.user.id })).status).toBe(200);
    expect((await trpcQuery(admin.client, 'productImages.gallery', {})).status).toBe(200);
    const refused = await trpcMutation(admin.client, 'productImages.generate', { productId: productWithImage, formats: ['main'] });
    expect(refused).toMatchObject({ status: 403, body: { error: { message: 'Guest mode is read-only' } } });
  });
});

describe('the image model (OpenAI-compatible Images API fake)', () => {
  let fake: FakeImageModel;
  beforeAll(async () => {
    fake = await new FakeImageModel().start();
  });
  afterAll(async () => {
    await fake?.close();
  });

  it('generates from a prompt and edits a product photo, as b64_json and as url answers', async () => {
    const model = openAiImageModel({ baseUrl: fake.baseUrl, apiKey: FAKE_IMAGE_MODEL_KEY, model: 'gpt-image-1', timeoutMs: 10_000 });
    const generated = await model.generate('A sunlit kitchen counter');
    expect(await sharp(generated).metadata()).toMatchObject({ format: 'png', width: 1024, height: 1024 });
    const request = fake.server.requests.at(-1)!;
    expect(JSON.parse(request.rawBody)).toEqual({ model: 'gpt-image-1', prompt: 'A sunlit kitchen counter', n: 1, size: '1024x1024' });

    fake.answerWithUrl = true;
    const edited = await model.edit(await sharp(await redProductOnGrey()).png().toBuffer(), 'On a marble table');
    expect((await sharp(edited).metadata()).width).toBe(1024);
    expect(fake.server.requests.some((seen) => seen.path === '/v1/images/edits' && String(seen.headers['content-type']).startsWith('multipart/form-data'))).toBe(true);

    fake.answerWithUrl = false;
    const wrongKey = openAiImageModel({ baseUrl: fake.baseUrl, apiKey: 'sk-wrong', model: 'gpt-image-1', timeoutMs: 10_000 });
    await expect(wrongKey.generate('x')).rejects.toThrow('Incorrect API key provided.');
  });

  it('makes a lifestyle variant of a gallery image through the procedure, and says plainly when no model is set up', async () => {
    const [main] = ok<GalleryImage[]>(await trpcMutation(owner.client, 'productImages.generate', { productId: demoProduct, formats: ['main'], mainSize: 1000 }));
    configureImageModel(null);
    const off = await trpcMutation(owner.client, 'productImages.aiVariant', { imageId: main!.id, prompt: 'On a marble kitchen counter' });
    expect(off).toMatchObject({ status: 412, body: { error: { message: IMAGE_MODEL_NOT_CONFIGURED_MESSAGE } } });
    expect(ok<{ imageModel: boolean }>(await trpcQuery(owner.client, 'productImages.settings')).imageModel).toBe(false);

    configureImageModel(openAiImageModel({ baseUrl: fake.baseUrl, apiKey: FAKE_IMAGE_MODEL_KEY, model: 'gpt-image-1', timeoutMs: 10_000 }));
    try {
      expect(ok<{ imageModel: boolean }>(await trpcQuery(owner.client, 'productImages.settings')).imageModel).toBe(true);
      const variant = ok<GalleryImage>(await trpcMutation(owner.client, 'productImages.aiVariant', { imageId: main!.id, prompt: 'On a marble kitchen counter' }));
      expect(variant).toMatchObject({ format: 'lifestyle', title: 'Mug — Blue', width: 1024, height: 1024, checks: null });
      expect(fake.server.requests.at(-1)!.rawBody).toContain('On a marble kitchen counter');
      expect((await trpcMutation(stranger.client, 'productImages.aiVariant', { imageId: main!.id, prompt: 'On a marble kitchen counter' })).status).toBe(404);
    } finally {
      configureImageModel(undefined);
    }
  });
});

describe('a deleted store', () => {
  it("takes its image files with it, and leaves other stores' files alone", async () => {
    const leaving = await ownerWithStore(testApp.app, testApp.orm, 'Closing Shop');
    const em = testApp.orm.em.fork();
    const product = em.create(Product, { store: leaving.store.id, platform: 'shopify', externalId: 'p-closing', title: 'Last Kettle', priceMinor: 2500, currency: 'EUR', imageUrl: `${shopImages.origin}/red.jpg` });
    await em.flush();
    const [image] = ok<GalleryImage[]>(await trpcMutation(leaving.client, 'productImages.generate', { productId: product.id, formats: ['main'] }));
    expect(await readdir(storeFolder(leaving.store.id))).toEqual([`${image!.id}.jpg`, `${image!.id}.webp`]);
    const ownersFiles = await readdir(storeFolder(owner.store.id));

    expect((await leaving.client.delete(`/api/stores/${leaving.store.id}`)).status).toBe(200);
    await expect(readdir(storeFolder(leaving.store.id))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readdir(storeFolder(owner.store.id))).toEqual(ownersFiles);
  }, 60_000);
});
