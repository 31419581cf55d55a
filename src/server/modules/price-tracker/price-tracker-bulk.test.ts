import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCompetitorShop, type CompetitorShop } from '../../../../test/fakes/competitor-shop.ts';
import { newGuestOf, ownerWithStore } from '../../../../test/guests.ts';
import { grantTestPlan, signedInAdmin, trpcMutation, trpcQuery, useTestApp } from '../../../../test/harness.ts';
import { startJobs, type JobRunner } from '../../jobs/boss.ts';
import { setIntegrationJobSender } from '../integrations/integrations-runtime.ts';
import { clearRobotsCache } from '../page-fetcher/page-fetcher.ts';
import { DomainPacer, setCrawlPacer } from '../page-fetcher/politeness.ts';
import { PRICE_TRACKER_JOB } from './price-tracker-jobs.ts';

// Bulk add with the real pg-boss: the request saves the pages and answers at once, the check job it
// sends reads them one after another behind the domain pacer. And the tracker is read-only for a
// store's invited viewers and for an admin in guest mode.

const testApp = useTestApp();
let shop: CompetitorShop;
let jobs: JobRunner;
type Owner = Awaited<ReturnType<typeof ownerWithStore>>;

const ok = <T = any>(answer: { status: number; body: any }): T => {
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.result.data as T;
};
const competitorsOf = async (client: Owner['client']) =>
  (ok(await trpcQuery(client, 'priceTracker.list')).products as { competitors: any[] }[]).flatMap((product) => product.competitors);

beforeAll(async () => {
  shop = await startCompetitorShop();
  clearRobotsCache();
  jobs = await startJobs({ databaseUrl: testApp.databaseUrl, orm: testApp.orm, baseUrl: 'http://localhost', logger: { info: () => {}, error: () => {} }, jobs: [PRICE_TRACKER_JOB], schedule: false });
  setIntegrationJobSender((queue, data, options) => jobs.boss.send(queue, data, options));
});
afterAll(async () => {
  setIntegrationJobSender(null);
  setCrawlPacer(new DomainPacer());
  await jobs?.stop();
  await shop?.close();
});

describe('bulk add', () => {
  it('answers at once with a result per line; the check job it sends reads every page of the shop, paced', async () => {
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Bulk Shop');
    const paths = ['/p/json_ld', '/p/json_ld_graph', '/p/microdata', '/p/open_graph', '/p/twitter_meta'];
    // One loopback "domain": its checks are 1.5 s apart, and the first waits for a slot booked just before.
    const pacer = new DomainPacer(1_500);
    setCrawlPacer(pacer);
    pacer.reserve(shop.url('/'));
    const before = shop.requests.length;

    const answer = ok(await trpcMutation(owner.client, 'priceTracker.bulkAdd', { urls: [...paths.map((path) => shop.url(path)), 'ftp://example.com/x'], own: { name: 'Kettle', priceMinor: 120_000 } }));
    expect(answer.results.map((result: any) => result.outcome)).toEqual(['added', 'added', 'added', 'added', 'added', 'invalid']);
    expect(answer.results[5].message).toMatch(/http/i);
    // The answer came before any page was read: every new row is still being checked.
    expect(shop.requests.slice(before).filter((request) => request.path.startsWith('/p/'))).toEqual([]);
    expect((await competitorsOf(owner.client)).map((row) => row.status)).toEqual(Array(5).fill('pending'));

    await expect.poll(async () => (await competitorsOf(owner.client)).map((row) => row.status), { timeout: 60_000, interval: 500 }).toEqual(Array(5).fill('ok'));
    for (const row of await competitorsOf(owner.client)) expect(row, row.url).toMatchObject({ priceMinor: 129_900, currency: 'EUR' });
    const pageRequests = shop.requests.slice(before).filter((request) => request.path.startsWith('/p/'));
    expect(pageRequests.map((request) => request.path).sort()).toEqual([...paths].sort());
    for (let index = 1; index < pageRequests.length; index += 1) expect(pageRequests[index]!.at - pageRequests[index - 1]!.at).toBeGreaterThanOrEqual(1_400);
  });
});

describe('read-only viewers', () => {
  it('an invited viewer and an admin in guest mode read the tracker but change nothing', async () => {
    setCrawlPacer(new DomainPacer(0));
    const owner = await ownerWithStore(testApp.app, testApp.orm, 'Watched Shop');
    const added = ok(await trpcMutation(owner.client, 'priceTracker.add', { url: shop.url('/p/microdata'), own: { name: 'Grinder', priceMinor: 100_000 } }));
    const viewer = await newGuestOf(testApp.app, testApp.orm, owner, owner.store.id);
    // The tools follow the signed-in person's own plan.
    await grantTestPlan(testApp.orm, viewer.user.username, 'professional');
    const admin = await signedInAdmin(testApp.app, testApp.orm);
    expect((await admin.client.post('/api/admin/enter-guest-mode', { userId: owner.user.id })).status).toBe(200);

    const mutations: [string, Record<string, unknown>][] = [
      ['priceTracker.add', { url: shop.url('/p/open_graph'), own: { name: 'Grinder', priceMinor: 100_000 } }],
      ['priceTracker.bulkAdd', { urls: [shop.url('/p/twitter_meta')], own: { name: 'Grinder', priceMinor: 100_000 } }],
      ['priceTracker.update', { id: added.id, alertThresholdPercent: 50 }],
      ['priceTracker.checkNow', { id: added.id }],
      ['priceTracker.remove', { id: added.id }],
    ];
    for (const [who, client, message] of [
      ['viewer', viewer.client, 'You have view-only access to this store'],
      ['admin in guest mode', admin.client, 'Guest mode is read-only'],
    ] as const) {
      expect((await competitorsOf(client)).map((row) => row.id), who).toEqual([added.id]);
      for (const [path, input] of mutations) {
        const answer = await trpcMutation(client, path, input);
        expect(answer.status, `${who} ${path}`).toBe(403);
        expect(answer.body.error.message).toBe(message);
      }
    }
    const requestsBefore = shop.requests.length;
    expect(await competitorsOf(owner.client)).toMatchObject([{ id: added.id, alertThresholdPercent: 5, status: 'ok' }]);
    expect(shop.requests.length).toBe(requestsBefore);
  });
});
