import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_LLM_KEY, FakeLlm } from '../../../../test/fakes/llm.ts';
import { ownerWithStore } from '../../../../test/guests.ts';
import { ApiClient, GENEROUS_AUTH_LIMITS, createTestApp, signedInAdmin, trpcMutation, trpcQuery, useTestApp } from '../../../../test/harness.ts';
import { createAuthLimiters } from '../auth/attempt-limiter.ts';
import { Product } from '../commerce/product.entity.ts';
import { openAiCompatibleProvider } from '../llm/llm-provider.ts';
import { createServices } from '../../trpc/context.ts';
import type { FastifyInstance } from 'fastify';

const testApp = useTestApp();
type Admin = Awaited<ReturnType<typeof signedInAdmin>> & { storeId: number };

async function adminWithStore(name: string): Promise<Admin> {
  const admin = await signedInAdmin(testApp.app, testApp.orm);
  const created = await admin.client.post('/api/stores', { name });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { ...admin, storeId: created.body.id };
}

async function addProducts(storeId: number, products: { externalId: string; title: string; sku?: string; imageUrl?: string; active?: boolean }[]): Promise<number[]> {
  const em = testApp.orm.em.fork();
  const rows = products.map((product) =>
    em.create(Product, { store: storeId, platform: 'demo', externalId: product.externalId, title: product.title, sku: product.sku ?? null, priceMinor: 2599, currency: 'GBP', unitCostMinor: null, imageUrl: product.imageUrl ?? null, active: product.active ?? true }),
  );
  await em.flush();
  return rows.map((row) => row.id);
}

const data = <T = any>(answer: { status: number; body: any }): T => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.result.data as T;
};

const feedPath = (url: string) => new URL(url, 'http://localhost').pathname;

let admin: Admin;
let other: Admin;
let adminProducts: number[];
let otherProducts: number[];

beforeAll(async () => {
  admin = await adminWithStore('Tom & Co');
  other = await adminWithStore('Other Shop');
  adminProducts = await addProducts(admin.storeId, [
    { externalId: 'mug-1', title: 'MUG <WHITE> & BLUE - FREE SHIPPING', sku: 'MUG-1', imageUrl: 'https://cdn.example/mug.jpg' },
    { externalId: 'tee-1', title: 'T-Shirt — Black', sku: 'TEE-1' },
    { externalId: 'old-1', title: 'Archived thing', active: false },
  ]);
  otherProducts = await addProducts(other.storeId, [{ externalId: 'secret-product', title: 'Other store only' }]);
});

describe('shoppingOptimizer: audit, suggestions, overrides and feed', () => {
  it('audits the active products with scores, issues, suggestions and totals by issue type', async () => {
    const audit = data(await trpcQuery(admin.client, 'shoppingOptimizer.audit'));
    expect(audit.products.map((product: any) => product.offerId)).toEqual(['mug-1', 'tee-1']);
    const mug = audit.products[0];
    expect(mug.issues.map((issue: any) => issue.type)).toEqual(['title_all_caps', 'title_promotional', 'missing_description', 'missing_link', 'missing_brand', 'missing_identifier']);
    expect(mug.score).toBe(100 - 4 * 20 - 2 * 8);
    expect(mug.suggestions.find((suggestion: any) => suggestion.attribute === 'title').value).toBe('Mug <White> & Blue');
    expect(audit.totals).toMatchObject({ missing_description: 2, missing_image: 1, title_promotional: 1 });
    // No Google Ads at all: said plainly, no figures per product.
    expect(audit.adsPerformance).toMatchObject({ status: 'not_connected', costMinor: 0 });
    expect(audit.products.every((product: any) => product.ads === null)).toBe(true);
  });

  it('accepting in bulk stores overrides; the XML feed served at the secret URL without a session validates and carries them', async () => {
    data(await trpcMutation(admin.client, 'shoppingOptimizer.updateSettings', { linkTemplate: 'https://tom.example/products/{id}', defaultBrand: 'Tom & Co' }));
    const accepted = data(await trpcMutation(admin.client, 'shoppingOptimizer.acceptSuggestions', {}));
    expect(accepted.accepted).toBeGreaterThanOrEqual(8);
    const audit = data(await trpcQuery(admin.client, 'shoppingOptimizer.audit'));
    const mug = audit.products.find((product: any) => product.offerId === 'mug-1');
    expect(mug.overrides).toMatchObject({ brand: 'Tom & Co', link: 'https://tom.example/products/mug-1', mpn: 'MUG-1' });
    // The title suggestion was made before the brand was known: a second round puts the brand first.
    data(await trpcMutation(admin.client, 'shoppingOptimizer.acceptSuggestions', { productIds: [adminProducts[0]], attributes: ['title'] }));

    const settings = data(await trpcQuery(admin.client, 'shoppingOptimizer.settings'));
    const anonymous = new ApiClient(testApp.app);
    const feed = await anonymous.get(feedPath(settings.xmlUrl));
    expect(feed.status).toBe(200);
    expect(feed.headers['content-type']).toContain('application/xml');
    expect(XMLValidator.validate(feed.body)).toBe(true);
    const parsed = new XMLParser({ parseTagValue: false }).parse(feed.body);
    expect(parsed.rss.channel.title).toBe('Tom & Co');
    const items = [parsed.rss.channel.item].flat();
    expect(items.map((item: any) => item['g:id'])).toEqual(['mug-1', 'tee-1']);
    expect(items[0]['g:title']).toBe('Tom & Co Mug <White> & Blue');
    expect(items[0]['g:brand']).toBe('Tom & Co');
    expect(items[0]['g:price']).toBe('25.99 GBP');
    expect(items[0]['g:availability']).toBe('in_stock');
    expect(feed.body).toContain('<g:title>Tom &amp; Co Mug &lt;White&gt; &amp; Blue</g:title>');

    const tsv = await anonymous.get(feedPath(settings.tsvUrl));
    expect(tsv.status).toBe(200);
    expect(String(tsv.body).split('\n')[1]!.split('\t').slice(0, 2)).toEqual(['mug-1', 'Tom & Co Mug <White> & Blue']);
  });

  it('an edited value is stored and checked; a bad one gets a clear error and changes nothing', async () => {
    const product = data(await trpcMutation(admin.client, 'shoppingOptimizer.setOverride', { productId: adminProducts[1], attribute: 'gtin', value: '036000291452' }));
    expect(product.overrides.gtin).toBe('036000291452');
    expect(product.issues.map((issue: any) => issue.type)).not.toContain('missing_identifier');
    const refused = await trpcMutation(admin.client, 'shoppingOptimizer.setOverride', { productId: adminProducts[1], attribute: 'link', value: 'not a link' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toBe('Enter an address starting with https:// or http://');
    const reverted = data(await trpcMutation(admin.client, 'shoppingOptimizer.removeOverride', { productId: adminProducts[1], attribute: 'gtin' }));
    expect(reverted.overrides.gtin).toBeUndefined();
    expect(reverted.overrides.link).toBe('https://tom.example/products/tee-1');
  });

  it('a new feed URL retires the old one at once', async () => {
    const before = data(await trpcQuery(admin.client, 'shoppingOptimizer.settings'));
    const after = data(await trpcMutation(admin.client, 'shoppingOptimizer.regenerateFeedUrl'));
    expect(after.xmlUrl).not.toBe(before.xmlUrl);
    const anonymous = new ApiClient(testApp.app);
    expect((await anonymous.get(feedPath(before.xmlUrl))).status).toBe(404);
    expect((await anonymous.get(feedPath(after.xmlUrl))).status).toBe(200);
  });
});

describe('shoppingOptimizer: access and tenant scoping', () => {
  it("another store's product cannot be overridden or read: not found", async () => {
    const answer = await trpcMutation(admin.client, 'shoppingOptimizer.setOverride', { productId: otherProducts[0], attribute: 'title', value: 'Hijacked' });
    expect(answer.status).toBe(404);
    expect((await trpcQuery(admin.client, 'shoppingOptimizer.suggestions', { productId: otherProducts[0] })).status).toBe(404);
    const otherAudit = data(await trpcQuery(other.client, 'shoppingOptimizer.audit'));
    expect(otherAudit.products[0].title).toBe('Other store only');
  });

  it("one store's feed token never serves another store's products", async () => {
    const mine = data(await trpcQuery(admin.client, 'shoppingOptimizer.settings'));
    const theirs = data(await trpcQuery(other.client, 'shoppingOptimizer.settings'));
    const anonymous = new ApiClient(testApp.app);
    const myFeed = await anonymous.get(feedPath(mine.xmlUrl));
    expect(myFeed.body).not.toContain('secret-product');
    // My secret with their store id: refused, not their feed.
    const mySecret = feedPath(mine.xmlUrl).split('-').slice(1).join('-');
    const crossed = await anonymous.get(`/feeds/google/${other.storeId}-${mySecret}`);
    expect(crossed.status).toBe(404);
    expect(String(crossed.body)).not.toContain('secret-product');
    expect((await anonymous.get(feedPath(theirs.xmlUrl))).body).toContain('secret-product');
    expect((await anonymous.get('/feeds/google/not-a-token.xml')).status).toBe(404);
  });

  it('a subscriber who is not an admin is refused, and so is an admin in guest mode', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Pro Shop');
    for (const path of ['shoppingOptimizer.audit', 'shoppingOptimizer.settings']) {
      const answer = await trpcQuery(owner.client, path);
      expect(answer.status).toBe(403);
      expect(answer.body.error.message).toBe('Administrator access required');
    }
    expect((await trpcMutation(owner.client, 'shoppingOptimizer.acceptSuggestions', {})).status).toBe(403);
    const viewer = await signedInAdmin(testApp.app, testApp.orm);
    expect((await viewer.client.post('/api/admin/enter-guest-mode', { userId: owner.user.id })).status).toBe(200);
    expect((await trpcQuery(viewer.client, 'shoppingOptimizer.audit')).status).toBe(403);
  });
});

describe('shoppingOptimizer: the optional LLM', () => {
  const fake = new FakeLlm({
    reply: (request) => {
      const prompt = JSON.parse((request.body as { messages: { content: string }[] }).messages.at(-1)!.content) as { title: string };
      return prompt.title.includes('Black')
        ? '{"title": "Tom & Co Cotton T-Shirt - Black", "description": "A soft cotton T-shirt in black with a crew neck."}'
        : '{"title": "BUY NOW!!! BEST PRICE", "description": ""}';
    },
  });
  let llmApp: FastifyInstance;

  beforeAll(async () => {
    await fake.start();
    llmApp = await createTestApp(testApp.orm, createServices({
      authLimiters: createAuthLimiters(GENEROUS_AUTH_LIMITS),
      llm: openAiCompatibleProvider({ baseUrl: fake.baseUrl, apiKey: FAKE_LLM_KEY, model: 'fake-model', timeoutMs: 5_000, maxTokens: 300 }),
    }));
  });
  afterAll(async () => {
    await llmApp?.close();
    await fake.close();
  });

  it('improves title and description when configured; an answer that is only promotion keeps the rule suggestion; a failure keeps all rule suggestions', async () => {
    const client = new ApiClient(llmApp);
    expect((await client.post('/api/login', { username: admin.credentials.username, password: admin.credentials.password })).status).toBe(200);
    data(await trpcMutation(client, 'shoppingOptimizer.removeOverride', { productId: adminProducts[1], attribute: 'description' }));
    const tee = data(await trpcQuery(client, 'shoppingOptimizer.suggestions', { productId: adminProducts[1] }));
    expect(tee.llmError).toBeNull();
    expect(tee.suggestions).toContainEqual({ attribute: 'description', value: 'A soft cotton T-shirt in black with a crew neck.', source: 'llm' });
    expect(fake.server.requests.at(-1)!.headers.authorization).toBe(`Bearer ${FAKE_LLM_KEY}`);

    data(await trpcMutation(client, 'shoppingOptimizer.removeOverride', { productId: adminProducts[0], attribute: 'title' }));
    const mug = data(await trpcQuery(client, 'shoppingOptimizer.suggestions', { productId: adminProducts[0] }));
    const title = mug.suggestions.find((suggestion: any) => suggestion.attribute === 'title');
    expect(title).toEqual({ attribute: 'title', value: 'Tom & Co Mug <White> & Blue', source: 'rules' });

    fake.failNext = { status: 500, message: 'overloaded', type: 'server_error' };
    const failed = data(await trpcQuery(client, 'shoppingOptimizer.suggestions', { productId: adminProducts[0] }));
    expect(failed.llmError).toContain('The AI service could not answer');
    expect(failed.suggestions.map((suggestion: any) => suggestion.source)).toEqual(failed.suggestions.map(() => 'rules'));
  });
});
