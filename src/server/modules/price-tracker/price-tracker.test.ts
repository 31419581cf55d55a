import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { COMPETITOR_MARKUPS, startCompetitorShop, type CompetitorShop } from '../../../../test/fakes/competitor-shop.ts';
import { ownerWithStore } from '../../../../test/guests.ts';
import { trpcMutation, trpcQuery, useTestApp } from '../../../../test/harness.ts';
import { upsertFxRates } from '../commerce/fx.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { OutboundEmail } from '../email/outbound-email.entity.ts';
import { clearRobotsCache } from '../page-fetcher/page-fetcher.ts';
import { DomainPacer, setCrawlPacer } from '../page-fetcher/politeness.ts';
import { checkDuePages, TRACKED_URL_NOT_FOUND_MESSAGE } from './price-tracker.service.ts';

// The tracker end to end on a real PostgreSQL against a loopback competitor shop whose prices change
// between checks: extraction of every markup style, the FX difference, alerts (and their e-mail),
// error reasons, the schedule with robots.txt and the per-domain pace, and tenant scoping.

const testApp = useTestApp();
let shop: CompetitorShop;
type Owner = Awaited<ReturnType<typeof ownerWithStore>>;
let owner: Owner;
let stranger: Owner;
const TODAY = new Date().toISOString().slice(0, 10);

const ok = <T = any>(answer: { status: number; body: any }): T => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.result.data as T;
};
const add = (client: Owner['client'], url: string, extra: Record<string, unknown> = {}) =>
  trpcMutation(client, 'priceTracker.add', { url, own: { name: 'Our espresso machine', priceMinor: 120_000 }, ...extra });
const competitorOf = async (client: Owner['client'], id: string) => {
  const list = ok(await trpcQuery(client, 'priceTracker.list'));
  return list.products.flatMap((product: any) => product.competitors).find((row: any) => row.id === id);
};

beforeAll(async () => {
  shop = await startCompetitorShop();
  // Today's rate, so the expected conversion is known: 1 EUR = 0.85 GBP (the stores' currency is GBP).
  await upsertFxRates(testApp.orm.em.fork(), [{ day: TODAY, currency: 'GBP', rate: 0.85, source: 'manual' }]);
  owner = await ownerWithStore(testApp.app, testApp.orm, 'Tracker Shop');
  stranger = await ownerWithStore(testApp.app, testApp.orm, 'Other Shop');
});
beforeEach(() => {
  // The shop is one loopback "domain"; these tests check its pages back to back (the pace has its own test).
  setCrawlPacer(new DomainPacer(0));
  clearRobotsCache();
});
afterAll(async () => {
  setCrawlPacer(new DomainPacer());
  await shop?.close();
});

describe('adding a competitor page', () => {
  it('reads the price at once and compares it with the own price in the store currency at today’s rate', async () => {
    const row = ok(await add(owner.client, shop.url('/p/json_ld')));
    // 1,299.00 EUR at 0.85 = 1,104.15 GBP against our 1,200.00 GBP: 7.99 % cheaper, one decimal.
    expect(row).toMatchObject({ status: 'ok', priceMinor: 129_900, currency: 'EUR', availability: 'in_stock', method: 'json_ld', priceInStoreCurrencyMinor: 110_415, differencePercent: -8, errorReason: null });
    const list = ok(await trpcQuery(owner.client, 'priceTracker.list'));
    expect(list.currency).toBe('GBP');
    expect(list.products).toHaveLength(1);
    expect(list.products[0]).toMatchObject({ key: 'manual:Our espresso machine', name: 'Our espresso machine', ownPriceMinor: 120_000 });
    // 8 % cheaper than us, past the default 5 %: an alert at the first check.
    expect(ok(await trpcQuery(owner.client, 'priceTracker.alerts')).items).toMatchObject([{ trackedUrlId: row.id, kind: 'undercut', differencePercent: -8 }]);
  });

  it('refuses the same page twice and a selector cheerio cannot read, keeping what was there', async () => {
    const again = await add(owner.client, shop.url('/p/json_ld'));
    expect(again.status).toBe(409);
    expect(again.body.error.message).toBe('This page is already tracked');
    const badSelector = await add(owner.client, shop.url('/p/plain'), { cssSelector: 'div[[' });
    expect(badSelector.status).toBe(400);
    expect(badSelector.body.error.message).toBe('This CSS selector is not valid');
    const notHttp = await add(owner.client, 'ftp://example.com/x');
    expect(notHttp.status).toBe(400);
    expect(ok(await trpcQuery(owner.client, 'priceTracker.list')).products[0].competitors).toHaveLength(1);
  });

  it('bulk-adds every markup style with a result per line; the scan reads them', async () => {
    const urls = COMPETITOR_MARKUPS.filter((markup) => markup !== 'json_ld').map((markup) => shop.url(`/p/${markup}`));
    const answer = ok(await trpcMutation(stranger.client, 'priceTracker.bulkAdd', { urls: [...urls, 'not a url', urls[0]!, shop.url('/no-price')], own: { name: 'Grinder', priceMinor: 100_000 } }));
    expect(answer.results.map((result: any) => result.outcome)).toEqual(['added', 'added', 'added', 'added', 'added', 'added', 'invalid', 'duplicate', 'added']);
    expect(answer.results[6].message).toBeTruthy();
    // Saved, due, not read yet: no pg-boss runs in this file, so the check job is called as its scan would.
    expect(ok(await trpcQuery(stranger.client, 'priceTracker.list')).products[0].competitors.map((row: any) => row.status)).toEqual(Array(7).fill('pending'));
    expect(await checkDuePages(() => testApp.orm.em.fork())).toBe(7);
    const competitors = ok(await trpcQuery(stranger.client, 'priceTracker.list')).products[0].competitors;
    const byPath = Object.fromEntries(competitors.map((row: any) => [new URL(row.url).pathname, row]));
    for (const markup of ['json_ld_graph', 'json_ld_aggregate', 'microdata', 'open_graph', 'twitter_meta']) expect(byPath[`/p/${markup}`], markup).toMatchObject({ priceMinor: 129_900, currency: 'EUR', status: 'ok' });
    // The plain page has no structured price: an error the user can fix by setting a selector.
    expect(byPath['/p/plain']).toMatchObject({ status: 'error', errorReason: 'no_price', priceMinor: null });
    const fixed = ok(await trpcMutation(stranger.client, 'priceTracker.update', { id: byPath['/p/plain'].id, cssSelector: '.price-now' }));
    expect(fixed.cssSelector).toBe('.price-now');
    expect(ok(await trpcMutation(stranger.client, 'priceTracker.checkNow', { id: byPath['/p/plain'].id }))).toMatchObject({ status: 'ok', priceMinor: 129_900, method: 'css_selector' });
  });
});

describe('linking one of the store’s own products', () => {
  it('compares with the product’s current price in its currency, offers only this store’s products, and follows a price change', async () => {
    const sql = sqlRunner(testApp.orm.em.fork());
    const insertProduct = async (storeId: number, title: string, priceMinor: number, currency: string) => {
      const [row] = await sql.rows<{ id: number }>(
        `insert into products (store_id, platform, external_id, title, price_minor, currency, updated_at) values ($1, 'shopify', $2, $3, $4, $5, now()) returning id::int as id`,
        [storeId, `ext-${title}`, title, priceMinor, currency],
      );
      return row!.id;
    };
    const mine = await insertProduct(owner.store.id, 'Milk frother', 11_000, 'EUR');
    const theirs = await insertProduct(stranger.store.id, 'Secret blender', 5_000, 'GBP');
    expect(ok(await trpcQuery(owner.client, 'priceTracker.products')).items).toEqual([{ id: mine, title: 'Milk frother', priceMinor: 11_000, currency: 'EUR' }]);
    const refused = await trpcMutation(owner.client, 'priceTracker.add', { url: shop.url('/p/json_ld_graph'), own: { productId: theirs } });
    expect(refused.status).toBe(404);
    expect(refused.body.error.message).toBe('Product not found in this store');

    const row = ok(await trpcMutation(owner.client, 'priceTracker.add', { url: shop.url('/p/json_ld_graph'), own: { productId: mine } }));
    // Own 110.00 EUR = 93.50 GBP; competitor 1,299.00 EUR = 1,104.15 GBP.
    let list = ok(await trpcQuery(owner.client, 'priceTracker.list'));
    expect(list.products.find((item: any) => item.key === `product:${mine}`)).toMatchObject({ name: 'Milk frother', productId: mine, ownPriceMinor: 9_350 });
    expect(row.differencePercent).toBe(1080.9);
    await sql.run(`update products set price_minor = 130000 where store_id = $1 and id = $2`, [owner.store.id, mine]);
    list = ok(await trpcQuery(owner.client, 'priceTracker.list'));
    expect(list.products.find((item: any) => item.key === `product:${mine}`).competitors[0].differencePercent).toBe(-0.1);
  });
});

describe('checks and alerts', () => {
  it('detects a price change and raises one undercut alert, with an e-mail when asked for', async () => {
    shop.offers.set('/p/changing', { markup: 'microdata', offer: { priceMinor: 119_900, currency: 'GBP', inStock: true } });
    const row = ok(await add(owner.client, shop.url('/p/changing'), { alertThresholdPercent: 10, emailAlerts: true }));
    expect(row).toMatchObject({ priceMinor: 119_900, differencePercent: -0.1 });
    expect(ok(await trpcQuery(owner.client, 'priceTracker.alerts')).items.filter((alert: any) => alert.trackedUrlId === row.id)).toEqual([]);

    shop.offers.set('/p/changing', { markup: 'microdata', offer: { priceMinor: 99_900, currency: 'GBP', inStock: true } });
    const checked = ok(await trpcMutation(owner.client, 'priceTracker.checkNow', { id: row.id }));
    expect(checked).toMatchObject({ priceMinor: 99_900, differencePercent: -16.7 });
    const alerts = ok(await trpcQuery(owner.client, 'priceTracker.alerts')).items.filter((alert: any) => alert.trackedUrlId === row.id);
    expect(alerts).toMatchObject([{ kind: 'undercut', priceMinor: 99_900, currency: 'GBP', differencePercent: -16.7, productName: 'Our espresso machine', acknowledgedAt: null }]);
    const mails = await testApp.orm.em.fork().find(OutboundEmail, { template: 'price_alert', toAddress: owner.credentials.email.toLowerCase() });
    expect(mails).toHaveLength(1);
    expect(mails[0]!.textBody).toContain('16.7 % below your price');

    // The same price checked again is no news.
    ok(await trpcMutation(owner.client, 'priceTracker.checkNow', { id: row.id }));
    expect(ok(await trpcQuery(owner.client, 'priceTracker.alerts')).items.filter((alert: any) => alert.trackedUrlId === row.id)).toHaveLength(1);
    // The json_ld page of the first test undercut at its first check: two alerts are open.
    expect(ok(await trpcQuery(owner.client, 'priceTracker.list')).unacknowledgedAlerts).toBe(2);
    ok(await trpcMutation(owner.client, 'priceTracker.acknowledgeAlert', { id: alerts[0].id }));
    expect(ok(await trpcQuery(owner.client, 'priceTracker.list')).unacknowledgedAlerts).toBe(1);

    // The history keeps every check, converted to the store's currency.
    const history = ok(await trpcQuery(owner.client, 'priceTracker.history', { key: 'manual:Our espresso machine' }));
    expect(history.own).toEqual({ name: 'Our espresso machine', priceMinor: 120_000 });
    expect(history.series.find((series: any) => series.id === row.id).points.map((point: any) => point.priceMinor)).toEqual([119_900, 99_900, 99_900]);
  });

  it('raises an out-of-stock alert when a competitor sells out', async () => {
    shop.offers.set('/p/stock', { markup: 'open_graph', offer: { priceMinor: 150_000, currency: 'GBP', inStock: true } });
    const row = ok(await add(owner.client, shop.url('/p/stock')));
    shop.offers.set('/p/stock', { markup: 'open_graph', offer: { priceMinor: 150_000, currency: 'GBP', inStock: false } });
    expect(ok(await trpcMutation(owner.client, 'priceTracker.checkNow', { id: row.id })).availability).toBe('out_of_stock');
    const alerts = ok(await trpcQuery(owner.client, 'priceTracker.alerts')).items.filter((alert: any) => alert.trackedUrlId === row.id);
    expect(alerts.map((alert: any) => alert.kind)).toEqual(['out_of_stock']);
  });

  it('records a clear reason per page: HTTP error, wrong content type, unsafe address, no price', async () => {
    const reasons: Record<string, [string, RegExp]> = {
      [shop.url('/broken')]: ['http_status', /HTTP 503/],
      [shop.url('/feed.json')]: ['content_type', /application\/json/],
      ['http://169.254.169.254/latest/meta-data/']: ['unsafe_address', /./],
      [shop.url('/no-price')]: ['no_price', /No price found/],
    };
    for (const [url, [reason, detail]] of Object.entries(reasons)) {
      const row = ok(await add(owner.client, url));
      expect(row, url).toMatchObject({ status: 'error', errorReason: reason, priceMinor: null });
      expect(row.errorDetail).toMatch(detail);
      expect(row.errorStatus, url).toBe(reason === 'http_status' ? 503 : null);
    }
  });
});

describe('the schedule', () => {
  it('checks only due pages, obeys robots.txt, keeps one request per domain per interval, and plans the next check in 6 hours', async () => {
    const { client, store } = await ownerWithStore(testApp.app, testApp.orm, 'Scheduled Shop');
    const ids: string[] = [];
    for (const path of ['/p/json_ld', '/p/microdata', '/private/deal']) ids.push(ok(await add(client, shop.url(path))).id);
    // The user's own "add" read /private/deal (a person reading a page); the schedule must not.
    const sql = sqlRunner(testApp.orm.em.fork());
    await sql.run(`update price_tracked_urls set next_check_at = now() + interval '1 hour'`, []);
    await sql.run(`update price_tracked_urls set next_check_at = now() - interval '1 minute' where store_id = $1`, [store.id]);
    const before = shop.requests.length;
    const pacer = new DomainPacer(300);
    expect(await checkDuePages(() => testApp.orm.em.fork(), { pacer })).toBe(3);
    const pageRequests = shop.requests.slice(before).filter((request) => request.path !== '/robots.txt');
    expect(pageRequests.map((request) => request.path).sort()).toEqual(['/p/json_ld', '/p/microdata']);
    // The first check's slot opens with its robots.txt request; the second check's page comes a pace later
    // (measured from there, not from the first page, which the robots.txt round trip delays on a busy machine).
    const firstCheckStart = shop.requests[before]!.at;
    expect(pageRequests[1]!.at - firstCheckStart).toBeGreaterThanOrEqual(290);
    const scheduled = await competitorOf(client, ids[2]!);
    expect(scheduled).toMatchObject({ status: 'error', errorReason: 'robots' });
    const hoursAhead = (Date.parse(scheduled.nextCheckAt) - Date.now()) / 3_600_000;
    expect(hoursAhead).toBeGreaterThan(5.9);
    expect(hoursAhead).toBeLessThanOrEqual(6);
    // Nothing is due any more.
    expect(await checkDuePages(() => testApp.orm.em.fork(), { pacer })).toBe(0);
  });
});

describe('scans side by side', () => {
  it('read each due page once: a scan claims its pages', async () => {
    const { client, store } = await ownerWithStore(testApp.app, testApp.orm, 'Claimed Shop');
    for (const path of ['/p/open_graph', '/p/json_ld_aggregate']) ok(await add(client, shop.url(path)));
    const sql = sqlRunner(testApp.orm.em.fork());
    await sql.run(`update price_tracked_urls set next_check_at = now() + interval '1 hour'`, []);
    await sql.run(`update price_tracked_urls set next_check_at = now() - interval '1 minute' where store_id = $1`, [store.id]);
    const before = shop.requests.length;
    const scan = () => checkDuePages(() => testApp.orm.em.fork(), { pacer: new DomainPacer(0) });
    const counts = await Promise.all([scan(), scan()]);
    expect(counts[0]! + counts[1]!).toBe(2);
    expect(shop.requests.slice(before).filter((request) => request.path.startsWith('/p/')).map((request) => request.path).sort()).toEqual(['/p/json_ld_aggregate', '/p/open_graph']);
  });
});

describe('access', () => {
  it('never shows or changes another store’s tracked pages', async () => {
    const row = ok(await trpcQuery(owner.client, 'priceTracker.list')).products[0].competitors[0];
    for (const [kind, path, input] of [
      ['mutation', 'priceTracker.checkNow', { id: row.id }],
      ['mutation', 'priceTracker.update', { id: row.id, alertThresholdPercent: 50 }],
      ['mutation', 'priceTracker.remove', { id: row.id }],
      ['query', 'priceTracker.history', { key: 'manual:Our espresso machine' }],
    ] as const) {
      const answer = kind === 'query' ? await trpcQuery(stranger.client, path, input) : await trpcMutation(stranger.client, path, input);
      expect(answer.status, path).toBe(404);
      expect(answer.body.error.message).toBe(TRACKED_URL_NOT_FOUND_MESSAGE);
    }
    const ownerAlert = ok(await trpcQuery(owner.client, 'priceTracker.alerts')).items[0];
    expect((await trpcMutation(stranger.client, 'priceTracker.acknowledgeAlert', { id: ownerAlert.id })).status).toBe(404);
    expect(ok(await trpcQuery(stranger.client, 'priceTracker.list')).products.map((product: any) => product.name)).toEqual(['Grinder']);
    expect(await competitorOf(owner.client, row.id)).toMatchObject({ alertThresholdPercent: 5 });
  });

  it('is a tool: a basic plan is refused', async () => {
    const basic = await ownerWithStore(testApp.app, testApp.orm, 'Basic Shop', 'basic');
    const answer = await trpcQuery(basic.client, 'priceTracker.list');
    expect(answer.status).toBe(403);
  });

  it('deletes a page with its history', async () => {
    const row = ok(await add(owner.client, shop.url('/p/twitter_meta')));
    ok(await trpcMutation(owner.client, 'priceTracker.remove', { id: row.id }));
    expect(await competitorOf(owner.client, row.id)).toBeUndefined();
    const [left] = await sqlRunner(testApp.orm.em.fork()).rows<{ count: number }>(`select count(*)::int as count from price_checks where tracked_url_id = $1`, [row.id]);
    expect(left!.count).toBe(0);
  });

  it('exports the table as CSV', async () => {
    const answer = ok(await trpcQuery(owner.client, 'priceTracker.exportCsv'));
    expect(answer.filename).toMatch(/^price-tracker-\d{4}-\d{2}-\d{2}\.csv$/);
    const lines = answer.csv.trim().split('\r\n');
    expect(lines[0]).toBe('Product,Own price (GBP),Competitor URL,Competitor price,Competitor currency,Price in GBP,Difference %,Availability,Status,Error,Last check');
    expect(lines.find((line: string) => line.includes('/p/json_ld'))).toContain('Our espresso machine,1200.00,');
    expect(lines.find((line: string) => line.includes('/p/json_ld'))).toContain(',1299.00,EUR,1104.15,-8,in_stock,ok,,');
  });
});
