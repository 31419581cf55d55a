import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_LLM_KEY, FakeLlm } from '../../../../test/fakes/llm.ts';
import { startLandingPageSite, type LandingPageSite } from '../../../../test/fakes/landing-page-site.ts';
import { ownerWithStore } from '../../../../test/guests.ts';
import { trpcMutation, trpcQuery, useTestApp } from '../../../../test/harness.ts';
import type { Finding, ReviewDetail } from '../../../shared/page-reviewer.ts';
import type { OutboundPolicy } from '../../outbound/outbound-http.ts';
import { openAiCompatibleProvider } from '../llm/llm-provider.ts';
import { startTestServer } from '../page-fetcher/test-servers.ts';
import { AdMetricDaily } from '../commerce/ad-metric.entity.ts';
import { Product } from '../commerce/product.entity.ts';
import { CAMPAIGN_NOT_FOUND_MESSAGE, PRODUCT_NOT_FOUND_MESSAGE, REVIEW_NOT_FOUND_MESSAGE } from './page-reviewer.service.ts';
import { PageReview } from './page-review.entity.ts';
import { failStaleReviews, runReview, STALE_REVIEW_MESSAGE, STALE_REVIEW_MS } from './review-job.ts';

// The reviewer end to end on a real PostgreSQL and Debian's Chromium: a review of a loopback shop page
// (test/fakes/landing-page-site.ts) through the procedures and the job, the findings a user would read,
// the screenshot route, tenant scoping and the tools rule.

const testApp = useTestApp();
let site: LandingPageSite;
let policy: OutboundPolicy;
type Owner = Awaited<ReturnType<typeof ownerWithStore>>;
let owner: Owner;
let stranger: Owner;
let basic: Owner;

beforeAll(async () => {
  site = await startLandingPageSite();
  policy = { allow: [{ host: '127.0.0.1', port: site.port }] };
  owner = await ownerWithStore(testApp.app, testApp.orm, 'Review Shop');
  stranger = await ownerWithStore(testApp.app, testApp.orm, 'Other Shop');
  basic = await ownerWithStore(testApp.app, testApp.orm, 'Basic Shop', 'basic');
});
afterAll(async () => {
  await site?.close();
});

async function review(client: Owner['client'], url: string, options: Parameters<typeof runReview>[2] = { policy }): Promise<ReviewDetail> {
  const started = await trpcMutation(client, 'pageReviewer.start', { url });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const id = started.body.result.data.id as number;
  await runReview(testApp.orm.em.fork(), id, options);
  const answer = await trpcQuery(client, 'pageReviewer.get', { id });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.result.data;
}

const finding = (detail: ReviewDetail, code: Finding['code']) => detail.findings.find((item) => item.code === code);

describe('a review of a loopback page', () => {
  let weak: ReviewDetail;

  beforeAll(async () => {
    weak = await review(owner.client, `${site.origin}/weak`);
  }, 60_000);

  it('finishes with scores, metrics and both screenshots', () => {
    expect(weak).toMatchObject({ status: 'done', progress: 100, step: 'done', error: null, finalUrl: `${site.origin}/weak`, screenshots: { aboveFold: true, fullPage: true } });
    expect(weak.scores!.overall).toBeGreaterThan(0);
    expect(weak.scores!.overall).toBeLessThan(70);
    expect(weak.metrics!.requests).toBeGreaterThanOrEqual(2);
  });

  it('finds the missing H1, the missing Product JSON-LD and the slow LCP of the late hero image', () => {
    expect(finding(weak, 'h1')).toMatchObject({ severity: 'high', category: 'seo', evidence: { value: '0' } });
    expect(finding(weak, 'product_jsonld')).toMatchObject({ severity: 'high', category: 'conversion' });
    expect(weak.metrics!.lcpMs).toBeGreaterThanOrEqual(4500);
    expect(finding(weak, 'lcp')).toMatchObject({ severity: 'high', category: 'performance' });
  });

  it('finds the short title, the missing description, the image without alt, the broken link and the visible call to action', () => {
    expect(finding(weak, 'title_length')).toMatchObject({ severity: 'low', evidence: { value: '4: Shop' } });
    expect(finding(weak, 'meta_description')).toMatchObject({ severity: 'medium', evidence: { value: null } });
    expect(finding(weak, 'image_alt')).toMatchObject({ severity: 'medium', evidence: { value: '1/1' } });
    expect(finding(weak, 'broken_links')).toMatchObject({ severity: 'medium', evidence: { value: `${site.origin}/missing (404)` } });
    expect(finding(weak, 'cta_above_fold')).toMatchObject({ severity: 'pass', evidence: { element: 'button', value: 'Add to cart' } });
  });

  it('serves the screenshots as JPEG to the store, and to nobody else', async () => {
    const mine = await owner.client.get(`/api/landing-page-reviews/${weak.id}/screenshots/above-fold.jpg`);
    expect(mine.status).toBe(200);
    expect(mine.headers['content-type']).toBe('image/jpeg');
    const theirs = await stranger.client.get(`/api/landing-page-reviews/${weak.id}/screenshots/above-fold.jpg`);
    expect(theirs.status).toBe(404);
  });

  it("never shows, re-runs or deletes another store's review", async () => {
    const get = await trpcQuery(stranger.client, 'pageReviewer.get', { id: weak.id });
    expect(get.status).toBe(404);
    expect(get.body.error.message).toBe(REVIEW_NOT_FOUND_MESSAGE);
    expect((await trpcMutation(stranger.client, 'pageReviewer.rerun', { id: weak.id })).status).toBe(404);
    expect((await trpcMutation(stranger.client, 'pageReviewer.remove', { id: weak.id })).status).toBe(404);
    expect((await trpcQuery(stranger.client, 'pageReviewer.list')).body.result.data.items).toEqual([]);
    expect((await owner.client.get(`/api/landing-page-reviews/${weak.id}`)).status).toBe(200);
    expect((await stranger.client.get(`/api/landing-page-reviews/${weak.id}`)).status).toBe(404);
  });

  it('compares a re-run with the previous review of the same address, and lists both', async () => {
    const rerun = await trpcMutation(owner.client, 'pageReviewer.rerun', { id: weak.id });
    expect(rerun.status).toBe(200);
    const id = rerun.body.result.data.id as number;
    const queued = (await trpcQuery(owner.client, 'pageReviewer.get', { id })).body.result.data as ReviewDetail;
    expect(queued).toMatchObject({ status: 'queued', url: weak.url, previous: { id: weak.id, scores: weak.scores } });
    const list = (await trpcQuery(owner.client, 'pageReviewer.list')).body.result.data.items as { id: number }[];
    expect(list.map((item) => item.id)).toEqual([id, weak.id]);
    expect((await trpcMutation(owner.client, 'pageReviewer.remove', { id })).status).toBe(200);
    expect((await trpcQuery(owner.client, 'pageReviewer.get', { id })).status).toBe(404);
  });
});

it('scores a well-made page higher, with AI suggestions from the configured LLM', async () => {
  const fake = new FakeLlm({ reply: () => JSON.stringify({ headline: 'Run further on wet rock', cta: 'Add Trail Runner 2 to cart', hypotheses: ['A price anchor raises conversion.'] }) });
  await fake.start();
  try {
    const llm = openAiCompatibleProvider({ baseUrl: fake.baseUrl, apiKey: FAKE_LLM_KEY, model: 'fake-model', timeoutMs: 5_000, maxTokens: 400 });
    const strong = await review(owner.client, `${site.origin}/strong`, { policy, llm });
    expect(strong.status).toBe('done');
    for (const code of ['h1', 'product_jsonld', 'title_length', 'meta_description', 'trust_signals', 'image_alt', 'cta_above_fold', 'broken_links', 'lcp'] as const) {
      expect(finding(strong, code)?.severity, code).toBe('pass');
    }
    expect(strong.scores!.overall).toBeGreaterThan(85);
    expect(strong.aiSuggestions).toEqual({ headline: 'Run further on wet rock', cta: 'Add Trail Runner 2 to cart', hypotheses: ['A price anchor raises conversion.'] });
  } finally {
    await fake.close();
  }
}, 60_000);

it('fails with a clear error when the page cannot be fetched, and refuses loopback addresses the policy does not allow', async () => {
  const missing = await review(owner.client, `${site.origin}/nowhere`);
  expect(missing).toMatchObject({ status: 'failed', step: 'failed', error: `127.0.0.1:${site.port} answered HTTP 404.` });
  const unsafe = await review(owner.client, 'http://169.254.169.254/latest/meta-data/');
  expect(unsafe.status).toBe('failed');
  expect(unsafe.error).toMatch(/169\.254\.169\.254/);
}, 60_000);

it('refuses bad addresses with a clear message, and users whose plan has no tools', async () => {
  const bad = await trpcMutation(owner.client, 'pageReviewer.start', { url: 'ftp://example.com/x' });
  expect(bad.status).toBe(400);
  expect(JSON.stringify(bad.body)).toContain('Enter a full web address starting with http:// or https://.');
  const refused = await trpcMutation(basic.client, 'pageReviewer.start', { url: `${site.origin}/weak` });
  expect(refused.status).toBe(403);
  expect((await trpcQuery(basic.client, 'pageReviewer.list')).status).toBe(403);
});

it('marks a review whose job was lost as failed after ten minutes, and leaves recent ones waiting', async () => {
  const started = await trpcMutation(owner.client, 'pageReviewer.start', { url: `${site.origin}/weak` });
  const id = started.body.result.data.id as number;
  const em = testApp.orm.em.fork();
  const created = (await em.findOneOrFail(PageReview, { id })).createdAt;
  await failStaleReviews(em, new Date(created.getTime() + STALE_REVIEW_MS - 1000));
  expect((await trpcQuery(owner.client, 'pageReviewer.get', { id })).body.result.data.status).toBe('queued');
  await failStaleReviews(em, new Date(created.getTime() + STALE_REVIEW_MS + 1000));
  expect((await trpcQuery(owner.client, 'pageReviewer.get', { id })).body.result.data).toMatchObject({ status: 'failed', error: STALE_REVIEW_MESSAGE });
});

it("reviews a page for one of the store's products, kept on a re-run; another store's product is not found", async () => {
  const em = testApp.orm.em.fork();
  const shoe = em.create(Product, { store: owner.store.id, platform: 'shopify', externalId: 'p-1', title: 'Trail Runner 2', priceMinor: 12900, currency: 'EUR' });
  const theirs = em.create(Product, { store: stranger.store.id, platform: 'shopify', externalId: 'p-9', title: 'Other shoe', priceMinor: 5000, currency: 'EUR' });
  await em.flush();
  expect((await trpcQuery(owner.client, 'pageReviewer.products')).body.result.data.items).toEqual([{ id: shoe.id, title: 'Trail Runner 2' }]);
  const started = await trpcMutation(owner.client, 'pageReviewer.start', { url: `${site.origin}/strong`, productId: shoe.id });
  const id = started.body.result.data.id as number;
  expect((await trpcQuery(owner.client, 'pageReviewer.get', { id })).body.result.data.productTitle).toBe('Trail Runner 2');
  const rerun = (await trpcMutation(owner.client, 'pageReviewer.rerun', { id })).body.result.data.id as number;
  expect((await trpcQuery(owner.client, 'pageReviewer.get', { id: rerun })).body.result.data.productTitle).toBe('Trail Runner 2');
  const refused = await trpcMutation(owner.client, 'pageReviewer.start', { url: `${site.origin}/strong`, productId: theirs.id });
  expect(refused.status).toBe(404);
  expect(refused.body.error.message).toBe(PRODUCT_NOT_FOUND_MESSAGE);
  await trpcMutation(owner.client, 'pageReviewer.remove', { id });
  await trpcMutation(owner.client, 'pageReviewer.remove', { id: rerun });
});

it("reviews a page for one of the store's campaigns, named as on its latest day and kept on a re-run; another store's campaign is not found", async () => {
  const em = testApp.orm.em.fork();
  const day = (date: string, store: number, campaignId: string, campaignName: string) =>
    em.create(AdMetricDaily, { store, platform: 'googleads', accountId: 'acc-1', campaignId, day: date, campaignName, currency: 'EUR' });
  day('2026-11-01', owner.store.id, 'cmp-7', 'Winter sale (draft)');
  day('2026-11-02', owner.store.id, 'cmp-7', 'Winter sale');
  day('2026-11-02', stranger.store.id, 'cmp-9', 'Their campaign');
  await em.flush();
  expect((await trpcQuery(owner.client, 'pageReviewer.campaigns')).body.result.data.items).toEqual([{ platform: 'googleads', id: 'cmp-7', name: 'Winter sale' }]);
  const started = await trpcMutation(owner.client, 'pageReviewer.start', { url: `${site.origin}/strong`, campaign: { platform: 'googleads', id: 'cmp-7' } });
  const id = started.body.result.data.id as number;
  const expected = { platform: 'googleads', id: 'cmp-7', name: 'Winter sale' };
  expect((await trpcQuery(owner.client, 'pageReviewer.get', { id })).body.result.data.campaign).toEqual(expected);
  const rerun = (await trpcMutation(owner.client, 'pageReviewer.rerun', { id })).body.result.data.id as number;
  const history = (await trpcQuery(owner.client, 'pageReviewer.list')).body.result.data.items as { id: number; campaign: unknown }[];
  expect(history.find((item) => item.id === rerun)?.campaign).toEqual(expected);
  for (const campaign of [{ platform: 'googleads', id: 'cmp-9' }, { platform: 'metaads', id: 'cmp-7' }]) {
    const refused = await trpcMutation(owner.client, 'pageReviewer.start', { url: `${site.origin}/strong`, campaign });
    expect(refused.status).toBe(404);
    expect(refused.body.error.message).toBe(CAMPAIGN_NOT_FOUND_MESSAGE);
  }
  expect((await trpcQuery(stranger.client, 'pageReviewer.campaigns')).body.result.data.items).toEqual([{ platform: 'googleads', id: 'cmp-9', name: 'Their campaign' }]);
  await trpcMutation(owner.client, 'pageReviewer.remove', { id });
  await trpcMutation(owner.client, 'pageReviewer.remove', { id: rerun });
});

it('never lets a reviewed page reach other loopback ports or the metadata address: not in the browser, not in the link check', async () => {
  const canary = await startTestServer((_request, response) => response.end('canary'));
  const trap = await startTestServer((_request, response) => {
    response.setHeader('content-type', 'text/html');
    response.end(`<!doctype html><title>trap</title><img src="http://127.0.0.1:${canary.port}/pixel.png">
<a href="http://127.0.0.1:${canary.port}/admin">admin</a> <a href="http://169.254.169.254/latest/meta-data/">meta</a>
<script>fetch('http://127.0.0.1:${canary.port}/fetch').catch(() => {});</script>`);
  });
  try {
    const trapped = await review(owner.client, `${trap.origin}/`, { policy: { allow: [{ host: '127.0.0.1', port: trap.port }] } });
    expect(trapped.status).toBe('done');
    expect(canary.requests).toEqual([]);
    expect(finding(trapped, 'broken_links')).toMatchObject({ severity: 'medium', evidence: { value: `http://127.0.0.1:${canary.port}/admin · http://169.254.169.254/latest/meta-data/` } });
  } finally {
    await trap.close();
    await canary.close();
  }
}, 60_000);
