import { mkdtemp, readdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { unzipSync } from 'fflate';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_S3_ACCESS_KEY_ID, FAKE_S3_BUCKET, FAKE_S3_REGION, FAKE_S3_SECRET_ACCESS_KEY, FakeS3 } from '../../../../test/fakes/s3.ts';
import { ownerWithStore } from '../../../../test/guests.ts';
import { trpcMutation, trpcQuery, useTestApp } from '../../../../test/harness.ts';
import { QUOTA_FULL_MESSAGE, type GalleryImage } from '../../../shared/product-images.ts';
import { loadConfig } from '../../config.ts';
import { SESSION_COOKIE_NAME } from '../sessions/session-control.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { PRODUCT_IMAGE_REMOVAL_JOB } from './batch-job.ts';
import { configureImageStorage, FILE_REFUSED_MESSAGE, imageStoreFor, useImageStore } from './image-storage.ts';
import { ProductImage } from './product-images.entities.ts';
import { generateImages, IMAGE_NOT_FOUND_MESSAGE } from './product-images.service.ts';
import { S3ImageStore, STORAGE_REFUSED_MESSAGE } from './s3-image-store.ts';
import { redProductOnGrey } from './test-images.ts';

// IMAGE_STORAGE=s3 end to end on a real PostgreSQL: the generator's files become objects in a loopback S3
// bucket (test/fakes/s3.ts, which checks every request's Signature V4), downloads stream from it, deletions
// and the quota go through it, and one store's keys never reach another's.

const testApp = useTestApp();
type Owner = Awaited<ReturnType<typeof ownerWithStore>>;
let owner: Owner;
let stranger: Owner;
let bucket: FakeS3;
let localRoot: string;

const PREFIX = 'tenant-a/';
const s3Env = (overrides: Record<string, string> = {}) => ({
  ...process.env,
  IMAGE_STORAGE: 's3',
  S3_ENDPOINT: bucket.url,
  S3_REGION: FAKE_S3_REGION,
  S3_BUCKET: FAKE_S3_BUCKET,
  S3_ACCESS_KEY_ID: FAKE_S3_ACCESS_KEY_ID,
  S3_SECRET_ACCESS_KEY: FAKE_S3_SECRET_ACCESS_KEY,
  S3_FORCE_PATH_STYLE: 'true',
  S3_PREFIX: 'tenant-a',
  ...overrides,
});
const storePrefix = (storeId: number) => `${PREFIX}product-images/${storeId}/`;
const cookieOf = (who: Owner) => `${SESSION_COOKIE_NAME}=${who.client.sessionCookie}`;
const ok = <T>(answer: { status: number; body: { result?: { data: T } } }): T => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.result!.data;
};
const upload = async (who: Owner, formats: string[]) =>
  trpcMutation(who.client, 'productImages.upload', { fileName: 'kettle', dataBase64: (await redProductOnGrey()).toString('base64'), formats });
const generationOptions = { formats: ['main' as const], mainSize: 1000, discountPercent: null, showPrice: false, text: '', locale: 'en' as const };

beforeAll(async () => {
  bucket = await new FakeS3().start();
  localRoot = await mkdtemp(path.join(os.tmpdir(), 'product-images-s3-test-'));
  configureImageStorage(localRoot);
  useImageStore(await imageStoreFor(loadConfig(s3Env()).imageStorage));
  owner = await ownerWithStore(testApp.app, testApp.orm, 'Bucket Shop');
  stranger = await ownerWithStore(testApp.app, testApp.orm, 'Other Bucket Shop');
});
afterAll(async () => {
  useImageStore(null);
  await bucket?.close();
});

describe('IMAGE_STORAGE=s3', () => {
  let images: GalleryImage[];
  beforeAll(async () => {
    images = ok(await upload(owner, ['main', 'square']));
  }, 60_000);

  it('puts each image as two objects under <prefix>product-images/<store_id>/<id>.<ext>, and nothing on disk', async () => {
    const expected = images.flatMap((image) => [`${storePrefix(owner.store.id)}${image.id}.jpg`, `${storePrefix(owner.store.id)}${image.id}.webp`]);
    expect(bucket.keysUnder(PREFIX)).toEqual(expected.sort());
    for (const image of images) {
      expect(bucket.objects.get(`${storePrefix(owner.store.id)}${image.id}.jpg`)!.body.length).toBe(image.jpegBytes);
      expect(bucket.objects.get(`${storePrefix(owner.store.id)}${image.id}.webp`)!.contentType).toBe('image/webp');
    }
    expect(await readdir(localRoot)).toEqual([]);
    const gallery = ok<{ usage: { usedBytes: number } }>(await trpcQuery(owner.client, 'productImages.gallery', {}));
    expect(gallery.usage.usedBytes).toBe(images.reduce((sum, image) => sum + image.webpBytes + image.jpegBytes, 0));
  });

  it('streams single files and zips from the bucket, and never another store\'s', async () => {
    const main = images[0]!;
    const file = await testApp.app.inject({ method: 'GET', url: `/api/product-images/${main.id}.jpg`, headers: { cookie: cookieOf(owner) } });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-disposition']).toBe(`attachment; filename="kettle-main-${main.id}.jpg"`);
    expect(Buffer.compare(file.rawPayload, bucket.objects.get(`${storePrefix(owner.store.id)}${main.id}.jpg`)!.body)).toBe(0);
    const webp = await testApp.app.inject({ method: 'GET', url: `/api/product-images/${main.id}.webp`, headers: { cookie: cookieOf(owner) } });
    expect((await sharp(webp.rawPayload).metadata()).format).toBe('webp');

    const zip = await testApp.app.inject({ method: 'GET', url: `/api/product-images/zip?ids=${images.map((image) => image.id).join(',')}&ext=jpg`, headers: { cookie: cookieOf(owner) } });
    expect(zip.statusCode).toBe(200);
    const files = unzipSync(new Uint8Array(zip.rawPayload));
    expect(Object.keys(files).sort()).toEqual([`kettle-main-${main.id}.jpg`, `kettle-square-${images[1]!.id}.jpg`]);
    expect((await sharp(Buffer.from(files[`kettle-square-${images[1]!.id}.jpg`]!)).metadata()).width).toBe(1080);

    expect(await stranger.client.get(`/api/product-images/${main.id}.jpg`)).toMatchObject({ status: 404, body: { message: IMAGE_NOT_FOUND_MESSAGE } });
    expect((await stranger.client.get(`/api/product-images/zip?ids=${main.id}`)).status).toBe(404);
    expect(bucket.calls.filter((call) => call.operation === 'GetObject').every((call) => call.key.startsWith(storePrefix(owner.store.id)))).toBe(true);
  });

  it('says plainly when an image\'s object is missing from the bucket', async () => {
    const main = images[0]!;
    const object = bucket.objects.get(`${storePrefix(owner.store.id)}${main.id}.webp`)!;
    bucket.objects.delete(`${storePrefix(owner.store.id)}${main.id}.webp`);
    expect(await owner.client.get(`/api/product-images/${main.id}.webp`)).toMatchObject({ status: 404, body: { message: 'No such image file.' } });
    bucket.objects.set(`${storePrefix(owner.store.id)}${main.id}.webp`, object);
  });

  it('deletes an image\'s two objects with it, and no other', async () => {
    const square = images[1]!;
    expect(ok(await trpcMutation(owner.client, 'productImages.remove', { ids: [square.id] }))).toEqual({ deleted: 1 });
    expect(bucket.keysUnder(storePrefix(owner.store.id))).toEqual([`${storePrefix(owner.store.id)}${images[0]!.id}.jpg`, `${storePrefix(owner.store.id)}${images[0]!.id}.webp`]);
    expect((await owner.client.get(`/api/product-images/${square.id}.jpg`)).status).toBe(404);
  });
});

describe('key scoping', () => {
  it('builds keys from numbers only, and a store\'s prefix never covers another store (1 is not 12)', async () => {
    const store = new S3ImageStore({ ...(loadConfig(s3Env()).imageStorage as Extract<ReturnType<typeof loadConfig>['imageStorage'], { kind: 's3' }>) });
    expect(store.objectKey(owner.store.id, '12.jpg')).toBe(`${storePrefix(owner.store.id)}12.jpg`);
    for (const name of ['../1.jpg', `../${stranger.store.id}/1.jpg`, '1.jpg/../2.jpg', '1.png', '%2e%2e.jpg']) expect(() => store.objectKey(owner.store.id, name)).toThrow(FILE_REFUSED_MESSAGE);
    for (const id of [0, -1, 1.5, Number.NaN]) expect(() => store.storePrefix(id)).toThrow(FILE_REFUSED_MESSAGE);

    // Neighbours whose ids start with a store's digits ("7" and "70"): their bytes and objects are not the store's.
    const ownerNeighbour = `${PREFIX}product-images/${owner.store.id}0/1.jpg`;
    const strangerNeighbour = `${PREFIX}product-images/${stranger.store.id}0/1.jpg`;
    bucket.putDirect(ownerNeighbour, Buffer.alloc(5000));
    bucket.putDirect(strangerNeighbour, Buffer.alloc(5000));
    expect(await store.usageBytes(owner.store.id)).toBe(bucket.keysUnder(storePrefix(owner.store.id)).reduce((sum, key) => sum + bucket.objects.get(key)!.body.length, 0));
    await store.deleteStore(stranger.store.id);
    expect(bucket.objects.has(strangerNeighbour)).toBe(true);
    bucket.objects.delete(ownerNeighbour);
    bucket.objects.delete(strangerNeighbour);
  });
});

describe('the quota', () => {
  it('counts every object of the store across listing pages, and refuses what would not fit, keeping nothing', async () => {
    const em = testApp.orm.em.fork();
    for (let index = 0; index < 1500; index += 1) bucket.putDirect(`${storePrefix(owner.store.id)}${900000 + index}.jpg`, Buffer.alloc(2000));
    const usage = ok<{ usage: { usedBytes: number } }>(await trpcQuery(owner.client, 'productImages.gallery', {})).usage.usedBytes;
    expect(usage).toBeGreaterThan(1500 * 2000);
    const keysBefore = bucket.keysUnder(PREFIX);
    const rowsBefore = await em.count(ProductImage, { store: owner.store.id });
    const source = { bytes: await redProductOnGrey(), title: 'Too big', productId: null, priceMinor: null, currency: null };
    // Room for the new image if the listing's later pages were not counted, not with them.
    await expect(generateImages(em, owner.store.id, source, generationOptions, usage + 1000)).rejects.toThrow(QUOTA_FULL_MESSAGE);
    expect(bucket.keysUnder(PREFIX)).toEqual(keysBefore);
    expect(await em.count(ProductImage, { store: owner.store.id })).toBe(rowsBefore);
    for (let index = 0; index < 1500; index += 1) bucket.objects.delete(`${storePrefix(owner.store.id)}${900000 + index}.jpg`);
  });
});

describe('a bucket that refuses', () => {
  it('with a wrong secret key: a clear error naming SignatureDoesNotMatch, and nothing kept', async () => {
    const em = testApp.orm.em.fork();
    const keysBefore = bucket.keysUnder(PREFIX);
    const rowsBefore = await em.count(ProductImage, { store: owner.store.id });
    useImageStore(await imageStoreFor(loadConfig(s3Env({ S3_SECRET_ACCESS_KEY: 'not-the-secret' })).imageStorage));
    try {
      const refused = await upload(owner, ['main']);
      expect(refused.status).toBe(502);
      expect(refused.body.error.message).toBe(`${STORAGE_REFUSED_MESSAGE} (S3: SignatureDoesNotMatch, HTTP 403)`);
    } finally {
      useImageStore(await imageStoreFor(loadConfig(s3Env()).imageStorage));
    }
    expect(bucket.calls.at(-1)).toMatchObject({ status: 403 });
    expect(bucket.keysUnder(PREFIX)).toEqual(keysBefore);
    expect(await em.count(ProductImage, { store: owner.store.id })).toBe(rowsBefore);
  });

  it('that does not answer (a wrong S3_ENDPOINT): a clear error, and nothing kept', async () => {
    const em = testApp.orm.em.fork();
    const rowsBefore = await em.count(ProductImage, { store: owner.store.id });
    const closed = await new FakeS3().start();
    await closed.close();
    useImageStore(await imageStoreFor(loadConfig(s3Env({ S3_ENDPOINT: closed.url })).imageStorage));
    try {
      const refused = await upload(owner, ['main']);
      expect(refused.status).toBe(502);
      expect(refused.body.error.message).toContain(`${STORAGE_REFUSED_MESSAGE} (S3: `);
      expect(refused.body.error.message).toContain('ECONNREFUSED');
    } finally {
      useImageStore(await imageStoreFor(loadConfig(s3Env()).imageStorage));
    }
    expect(await em.count(ProductImage, { store: owner.store.id })).toBe(rowsBefore);
  });

  it('refusing a write after the row exists: the row and any written object go', async () => {
    const em = testApp.orm.em.fork();
    const keysBefore = bucket.keysUnder(PREFIX);
    const rowsBefore = await em.count(ProductImage, { store: owner.store.id });
    bucket.failNext('PutObject', 'AccessDenied', 403);
    const refused = await upload(owner, ['main']);
    expect([refused.status, refused.body.error.message]).toEqual([502, `${STORAGE_REFUSED_MESSAGE} (S3: AccessDenied, HTTP 403)`]);
    expect(bucket.keysUnder(PREFIX)).toEqual(keysBefore);
    expect(await em.count(ProductImage, { store: owner.store.id })).toBe(rowsBefore);
  });
});

describe('deleting the store', () => {
  it('deletes its whole prefix in DeleteObjects batches of at most 1,000 keys, and no other store\'s objects', async () => {
    const doomed = await ownerWithStore(testApp.app, testApp.orm, 'Closing Shop');
    ok(await upload(doomed, ['main']));
    for (let index = 0; index < 2300; index += 1) bucket.putDirect(`${storePrefix(doomed.store.id)}${500000 + index}.webp`, 'x');
    const othersBefore = bucket.keysUnder(PREFIX).filter((key) => !key.startsWith(storePrefix(doomed.store.id)));
    const deleteCallsBefore = bucket.calls.filter((call) => call.operation === 'DeleteObjects').length;

    const removed = await doomed.client.request('DELETE', `/api/stores/${doomed.store.id}`);
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(bucket.keysUnder(storePrefix(doomed.store.id))).toEqual([]);
    expect(bucket.keysUnder(PREFIX)).toEqual(othersBefore);
    const batches = bucket.calls.filter((call) => call.operation === 'DeleteObjects').slice(deleteCallsBefore);
    expect(batches.map((call) => [call.status, call.keys.length])).toEqual([[200, 1000], [200, 1000], [200, 302]]);
    expect(await pendingRemovals()).toEqual([]);
  }, 60_000);

  it('when the bucket refuses at that moment: the store is still deleted, and the hourly job removes its files once the bucket answers', async () => {
    const doomed = await ownerWithStore(testApp.app, testApp.orm, 'Refused Shop');
    ok(await upload(doomed, ['main']));
    const doomedKeys = bucket.keysUnder(storePrefix(doomed.store.id));
    expect(doomedKeys).toHaveLength(2);

    bucket.failNext('ListObjectsV2', 'AccessDenied', 403);
    const removed = await doomed.client.request('DELETE', `/api/stores/${doomed.store.id}`);
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(bucket.keysUnder(storePrefix(doomed.store.id))).toEqual(doomedKeys);
    expect(await pendingRemovals()).toEqual([{ deleted_store_id: doomed.store.id, attempts: 1, last_error: `${STORAGE_REFUSED_MESSAGE} (S3: AccessDenied, HTTP 403)` }]);

    const log: string[] = [];
    await PRODUCT_IMAGE_REMOVAL_JOB.handle({ em: testApp.orm.em.fork(), baseUrl: 'http://localhost', log: (line) => log.push(line) }, null);
    expect(bucket.keysUnder(storePrefix(doomed.store.id))).toEqual([]);
    expect(await pendingRemovals()).toEqual([]);
    expect(log).toEqual(['product images: files of 1 deleted store(s) removed, 0 refused by the storage (retried next hour)']);
  }, 60_000);
});

const pendingRemovals = () => sqlRunner(testApp.orm.em.fork()).rows(`select deleted_store_id, attempts, last_error from product_image_removals order by deleted_store_id`);

describe('the settings', () => {
  it('default to local, and name what is missing or wrong for s3', () => {
    expect(loadConfig({ ...process.env, IMAGE_STORAGE: undefined }).imageStorage).toEqual({ kind: 'local' });
    expect(() => loadConfig({ ...process.env, IMAGE_STORAGE: 's3', S3_BUCKET: 'images', S3_ACCESS_KEY_ID: undefined, S3_SECRET_ACCESS_KEY: undefined })).toThrow(
      'IMAGE_STORAGE=s3 needs S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY',
    );
    expect(() => loadConfig({ ...process.env, IMAGE_STORAGE: 'ftp' })).toThrow('IMAGE_STORAGE must be local or s3');
    expect(() => loadConfig(s3Env({ S3_FORCE_PATH_STYLE: 'yes' }))).toThrow('S3_FORCE_PATH_STYLE must be true or false');
    expect(() => loadConfig(s3Env({ S3_ENDPOINT: 'ftp://minio' }))).toThrow('S3_ENDPOINT must be an http or https address');
    expect(() => loadConfig(s3Env({ S3_BUCKET: 'My_Bucket' }))).toThrow('S3_BUCKET must be a bucket name');
    expect(() => loadConfig(s3Env({ S3_PREFIX: '../x' }))).toThrow('S3_PREFIX must not hold . or ..');
    expect(() => loadConfig(s3Env({ S3_PREFIX: 'a b' }))).toThrow('S3_PREFIX may only hold');
    expect(loadConfig(s3Env({ S3_ENDPOINT: 'http://minio:9000/' })).imageStorage).toMatchObject({ kind: 's3', endpoint: 'http://minio:9000', prefix: 'tenant-a/', forcePathStyle: true, region: FAKE_S3_REGION });
  });
});
