import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCompetitorShop, type CompetitorShop } from '../../../../test/fakes/competitor-shop.ts';
import { signedInAdmin, trpcMutation, trpcQuery, useTestApp } from '../../../../test/harness.ts';
import type { FeedAuditOutput, PageCheckResult } from '../../../shared/shopping-optimizer.ts';
import type { OutboundPolicy } from '../../outbound/outbound-http.ts';
import { Product } from '../commerce/product.entity.ts';
import { DomainPacer } from '../page-fetcher/politeness.ts';
import { failStalePageChecks, PAGE_CHECK_NO_LINKS_MESSAGE, PAGE_CHECK_RUNNING_MESSAGE, runPageCheck, STALE_PAGE_CHECK_MESSAGE, STALE_PAGE_CHECK_MS } from './page-check.ts';

// "Check product pages" against a loopback shop (test/fakes/competitor-shop.ts): one page that matches the
// feed, one with another price, one out of stock while the feed says in stock, one 404, one the shop's
// robots.txt disallows; the results as audit issues, tenant scoping and the one-run-at-a-time rule.

const testApp = useTestApp();
let shop: CompetitorShop;
let policy: OutboundPolicy;
type Admin = Awaited<ReturnType<typeof signedInAdmin>> & { storeId: number };
let admin: Admin;
let other: Admin;
let ids: Record<'match' | 'cheaper' | 'soldOut' | 'missing' | 'private' | 'noLink', number>;

async function adminWithStore(name: string): Promise<Admin> {
  const signedIn = await signedInAdmin(testApp.app, testApp.orm);
  const created = await signedIn.client.post('/api/stores', { name });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return { ...signedIn, storeId: created.body.id };
}

const data = <T = any>(answer: { status: number; body: any }): T => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.result.data as T;
};

async function addProduct(storeId: number, externalId: string, priceMinor: number): Promise<number> {
  const em = testApp.orm.em.fork();
  const product = em.create(Product, { store: storeId, platform: 'demo', externalId, title: `Espresso Machine ${externalId}`, sku: null, priceMinor, currency: 'EUR', unitCostMinor: null, imageUrl: null, active: true });
  await em.flush();
  return product.id;
}

async function link(client: Admin['client'], productId: number, url: string) {
  data(await trpcMutation(client, 'shoppingOptimizer.setOverride', { productId, attribute: 'link', value: url }));
}

beforeAll(async () => {
  shop = await startCompetitorShop();
  policy = { allow: [{ host: '127.0.0.1', port: shop.port }] };
  admin = await adminWithStore('Page Check Shop');
  other = await adminWithStore('Someone Else');
  shop.offers.set('/p/match', { markup: 'json_ld', offer: { priceMinor: 129_900, currency: 'EUR', inStock: true } });
  shop.offers.set('/p/cheaper', { markup: 'microdata', offer: { priceMinor: 119_900, currency: 'EUR', inStock: true } });
  shop.offers.set('/p/sold-out', { markup: 'open_graph', offer: { priceMinor: 129_900, currency: 'EUR', inStock: false } });
  ids = {
    match: await addProduct(admin.storeId, 'match', 129_900),
    cheaper: await addProduct(admin.storeId, 'cheaper', 129_900),
    soldOut: await addProduct(admin.storeId, 'sold-out', 129_900),
    missing: await addProduct(admin.storeId, 'missing', 129_900),
    private: await addProduct(admin.storeId, 'private', 100),
    noLink: await addProduct(admin.storeId, 'no-link', 129_900),
  };
  await link(admin.client, ids.match, shop.url('/p/match'));
  await link(admin.client, ids.cheaper, shop.url('/p/cheaper'));
  await link(admin.client, ids.soldOut, shop.url('/p/sold-out'));
  await link(admin.client, ids.missing, shop.url('/p/gone'));
  await link(admin.client, ids.private, shop.url('/private/deal'));
});
afterAll(async () => {
  await shop?.close();
});

describe('shoppingOptimizer.checkPages', () => {
  let audit: FeedAuditOutput;
  const product = (id: number) => audit.products.find((entry) => entry.productId === id)!;
  const pageIssues = (id: number) => product(id).issues.filter((issue) => issue.type.startsWith('page_')).map((issue) => issue.type);

  beforeAll(async () => {
    const started = data(await trpcMutation(admin.client, 'shoppingOptimizer.checkPages'));
    expect(started).toMatchObject({ status: 'queued', checked: 0, total: 5 });
    // A second click while the first run waits is refused, and nothing is lost.
    const twice = await trpcMutation(admin.client, 'shoppingOptimizer.checkPages');
    expect(twice.status).toBe(409);
    expect(twice.body.error.message).toBe(PAGE_CHECK_RUNNING_MESSAGE);
    await runPageCheck(testApp.orm.em.fork(), admin.storeId, { policy, pacer: new DomainPacer(0) });
    audit = data(await trpcQuery(admin.client, 'shoppingOptimizer.audit'));
  }, 60_000);

  it('records when it ran and how many pages it read', () => {
    expect(audit.pageCheck).toMatchObject({ status: 'done', checked: 5, total: 5, error: null });
    expect(Date.parse(audit.pageCheck!.finishedAt!)).toBeGreaterThanOrEqual(Date.parse(audit.pageCheck!.startedAt!));
  });

  it('a page showing the feed price and stock raises no page issue', () => {
    expect(pageIssues(ids.match)).toEqual([]);
  });

  it('a page with another price is a price mismatch, with both prices', () => {
    expect(pageIssues(ids.cheaper)).toEqual(['page_price_mismatch']);
    const issue = product(ids.cheaper).issues.find((entry) => entry.type === 'page_price_mismatch')!;
    expect(issue).toMatchObject({ severity: 'error', attribute: 'price' });
    expect(issue.page).toMatchObject<Partial<PageCheckResult>>({ outcome: 'price_differs', pagePriceMinor: 119_900, pageCurrency: 'EUR', feedPriceMinor: 129_900, feedCurrency: 'EUR', url: shop.url('/p/cheaper') });
  });

  it('a page out of stock while the feed says in stock is an availability mismatch', () => {
    expect(pageIssues(ids.soldOut)).toEqual(['page_availability_mismatch']);
    expect(product(ids.soldOut).issues.find((entry) => entry.type === 'page_availability_mismatch')!.page).toMatchObject({ outcome: 'availability_differs', pageAvailability: 'out_of_stock', feedAvailability: 'in_stock' });
  });

  it('a 404 is a page error with its status; a page robots.txt disallows is not read', () => {
    expect(pageIssues(ids.missing)).toEqual(['page_error']);
    expect(product(ids.missing).issues.find((entry) => entry.type === 'page_error')!.page).toMatchObject({ error: 'http_status', httpStatus: 404 });
    expect(product(ids.private).issues.find((entry) => entry.type === 'page_error')!.page).toMatchObject({ error: 'robots' });
    expect(shop.requests.map((request) => request.path)).not.toContain('/private/deal');
  });

  it('a product without a link is not read; the tiles count each page issue', () => {
    expect(pageIssues(ids.noLink)).toEqual([]);
    expect(audit.totals).toMatchObject({ page_price_mismatch: 1, page_availability_mismatch: 1, page_error: 2 });
  });

  it("the drawer's product shows the same page issue", async () => {
    const answer = data(await trpcQuery(admin.client, 'shoppingOptimizer.suggestions', { productId: ids.cheaper }));
    expect(answer.product.issues.map((issue: { type: string }) => issue.type)).toContain('page_price_mismatch');
  });

  it("another store's admin sees none of these results and has nothing to check", async () => {
    const theirs = data(await trpcQuery(other.client, 'shoppingOptimizer.audit'));
    expect(theirs.pageCheck).toBeNull();
    const refused = await trpcMutation(other.client, 'shoppingOptimizer.checkPages');
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toBe(PAGE_CHECK_NO_LINKS_MESSAGE);
    const foreign = await trpcQuery(other.client, 'shoppingOptimizer.suggestions', { productId: ids.cheaper });
    expect(foreign.status).toBe(404);
  });
});

describe('a run whose process stopped', () => {
  it('is marked failed once silent for long, and a new run can start', async () => {
    const started = data(await trpcMutation(admin.client, 'shoppingOptimizer.checkPages'));
    expect(started.status).toBe('queued');
    // Not yet stale: left alone, and a second start is still refused.
    expect(await failStalePageChecks(testApp.orm.em.fork())).toBe(0);
    expect((await trpcMutation(admin.client, 'shoppingOptimizer.checkPages')).status).toBe(409);
    const later = new Date(Date.now() + STALE_PAGE_CHECK_MS + 60_000);
    expect(await failStalePageChecks(testApp.orm.em.fork(), later)).toBe(1);
    const audit = data<FeedAuditOutput>(await trpcQuery(admin.client, 'shoppingOptimizer.audit'));
    expect(audit.pageCheck).toMatchObject({ status: 'failed', error: STALE_PAGE_CHECK_MESSAGE });
    // The last results stay visible until a new run replaces them.
    expect(audit.totals).toMatchObject({ page_price_mismatch: 1 });
    expect(data(await trpcMutation(admin.client, 'shoppingOptimizer.checkPages')).status).toBe('queued');
  });
});
