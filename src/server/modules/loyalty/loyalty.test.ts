import { beforeAll, describe, expect, it } from 'vitest';
import { createCommerceStore, setFlatFxRates, signedInStoreOwner, testOrder, type StoreOwner } from '../../../../test/commerce-fixtures.ts';
import { newGuestOf } from '../../../../test/guests.ts';
import { trpcQuery, useTestApp } from '../../../../test/harness.ts';
import { JOBS } from '../../jobs/queues.ts';
import { ingestOrders, ingestRefunds } from '../commerce/ingest.ts';
import { num, sqlRunner } from '../commerce/raw-sql.ts';
import { LOYALTY_JOB, LOYALTY_QUEUE, recomputeLoyalty } from './loyalty-job.ts';
import { loyaltyCustomers, loyaltySummary } from './loyalty.service.ts';
import { AT_RISK_CUSTOMERS_SEGMENT, segmentCustomerIds } from '../audiences/audience-push.service.ts';

// The loyalty job, procedures and GET /api/customers/loyalty on a real PostgreSQL.
//
// Store A (GBP, Europe/London), observed on 1 October 2026 (day 0; offsets in days):
//   a1  6 orders at −300 −240 −180 −120 −60 −5, £100 each but one of them USD 100 (= £68): spent £568, last 5 days ago
//   a2  2 orders at −200 −100, £100 each, £40 refunded on the second: spent £160, last 100 days ago
//   a3  1 order at −10, £50 (plus a cancelled and a test order, which count nowhere): last 10 days ago
//   a4  4 orders at −500 −460 −430 −400, £250 each: spent £1,000, last 400 days ago
//   a5  1 order at −700, £20
// R by recency quintile: a5 1, a4 2, a2 3, a3 4, a1 5; M by spend: a5 1, a3 2, a2 3, a1 4, a4 5; F bands 5, 2, 1, 4, 1.
// Segments: a1 Champions (R5 F5), a2 Potential loyalists (R3 F2), a3 New (R4 F1), a4 Can't lose them (R2 F4), a5 Lost (R1 F1).
// Five customers: RFM fallback (too few customers); score 100 × (R + F + M − 3) / 12: 92, 42, 33, 67, 0.

const testApp = useTestApp();
const NOW = new Date('2026-10-01T12:00:00Z');
const at = (offsetDays: number) => new Date(NOW.getTime() + offsetDays * 86_400_000 - 2 * 3_600_000);
let owner: StoreOwner;
let other: StoreOwner;
const ids: Record<string, number> = {};

async function customerIds(storeId: number): Promise<Record<string, number>> {
  const rows = await sqlRunner(testApp.orm.em.fork()).rows<{ id: string; external_id: string }>(`select id::text, external_id from customers where store_id = $1`, [storeId]);
  return Object.fromEntries(rows.map((row) => [row.external_id, num(row.id)]));
}

beforeAll(async () => {
  owner = await signedInStoreOwner(testApp, 'loyalty');
  other = await signedInStoreOwner(testApp, 'loyother');
  const em = () => testApp.orm.em.fork();
  await setFlatFxRates(em(), '2024-01-01', '2026-10-01');
  const names: Record<string, string> = { a1: 'Ada Lovelace', a2: 'Bea Hart', a3: 'Cal Quimby', a4: 'Dora Hartley', a5: 'Eli Stone' };
  const customer = (id: string) => ({ externalId: id, email: `${id}@example.com`, name: names[id] });
  const orders = [
    ...[-300, -240, -180, -120, -60, -5].map((d, i) => testOrder({ externalId: `a1-${i}`, placedAt: at(d), customer: customer('a1'), ...(i === 2 ? { currency: 'USD' } : {}) })),
    ...[-200, -100].map((d, i) => testOrder({ externalId: `a2-${i}`, placedAt: at(d), customer: customer('a2') })),
    testOrder({ externalId: 'a3-0', placedAt: at(-10), grossMinor: 5_000, customer: customer('a3') }),
    testOrder({ externalId: 'a3-cancelled', placedAt: at(-3), grossMinor: 90_000, status: 'cancelled', customer: customer('a3') }),
    testOrder({ externalId: 'a3-test', placedAt: at(-2), grossMinor: 90_000, isTest: true, customer: customer('a3') }),
    ...[-500, -460, -430, -400].map((d, i) => testOrder({ externalId: `a4-${i}`, placedAt: at(d), grossMinor: 25_000, customer: customer('a4') })),
    testOrder({ externalId: 'a5-0', placedAt: at(-700), grossMinor: 2_000, customer: customer('a5') }),
  ];
  await ingestOrders(em(), owner.store.id, orders);
  await ingestRefunds(em(), owner.store.id, [{ platform: 'shopify', externalId: 'rf-a2', orderExternalId: 'a2-1', refundedAt: at(-90), amountMinor: 4_000, currency: 'GBP' }]);
  await ingestOrders(em(), other.store.id, [testOrder({ externalId: 'b1-0', placedAt: at(-20), customer: { externalId: 'b1', email: 'a1@example.com', name: 'Ada Lovelace' } })]);
  Object.assign(ids, await customerIds(owner.store.id));
  await recomputeLoyalty(em(), owner.store.id, NOW);
  await recomputeLoyalty(em(), other.store.id, NOW);
});

describe('the loyalty job on a small store', () => {
  it('stores RFM scores, segments and the RFM-fallback score per customer, with the reason', async () => {
    const rows = await sqlRunner(testApp.orm.em.fork()).rows<Record<string, unknown>>(
      `select customer_id::text as id, orders, spent_minor::text as spent, r, f, m, segment, loyalty_score, churn_risk, repeat_orders, recency_days, age_days
         from customer_loyalty where store_id = $1 order by customer_id`,
      [owner.store.id],
    );
    const byCustomer = Object.fromEntries(rows.map((row) => [Object.entries(ids).find(([, id]) => id === num(row.id))![0], row]));
    expect(byCustomer.a1).toMatchObject({ orders: 6, spent: '56800', r: 5, f: 5, m: 4, segment: 'champions', loyalty_score: 92, churn_risk: null, repeat_orders: 5, recency_days: 295, age_days: 300 });
    expect(byCustomer.a2).toMatchObject({ orders: 2, spent: '16000', r: 3, f: 2, m: 3, segment: 'potential_loyalists', loyalty_score: 42 });
    expect(byCustomer.a3).toMatchObject({ orders: 1, spent: '5000', r: 4, f: 1, m: 2, segment: 'new', loyalty_score: 33 });
    expect(byCustomer.a4).toMatchObject({ orders: 4, spent: '100000', r: 2, f: 4, m: 5, segment: 'cant_lose_them', loyalty_score: 67 });
    expect(byCustomer.a5).toMatchObject({ orders: 1, spent: '2000', r: 1, f: 1, m: 1, segment: 'lost', loyalty_score: 0 });
    const [model] = await sqlRunner(testApp.orm.em.fork()).rows<Record<string, unknown>>(`select model, fallback_reason, customers, history_days, holdout_mae from loyalty_models where store_id = $1`, [owner.store.id]);
    expect(model).toEqual({ model: 'rfm', fallback_reason: 'too_few_customers', customers: 5, history_days: 700, holdout_mae: null });
  });

  it('is idempotent: a second run gives the same rows', async () => {
    const read = () => sqlRunner(testApp.orm.em.fork()).rows(`select * from customer_loyalty where store_id = $1 order by customer_id`, [owner.store.id]);
    const before = await read();
    await recomputeLoyalty(testApp.orm.em.fork(), owner.store.id, NOW);
    expect(await read()).toEqual(before);
    expect(before).toHaveLength(5);
  });

  it('is a pg-boss job with a nightly schedule; a job with a store recomputes that store', async () => {
    const job = JOBS.find((definition) => definition.queue === LOYALTY_QUEUE);
    expect(job?.cron).toBe('30 2 * * *');
    const store = await createCommerceStore(testApp.orm);
    await ingestOrders(testApp.orm.em.fork(), store.id, [testOrder({ externalId: 'j-1', placedAt: at(-1), customer: { externalId: 'j' } })]);
    await LOYALTY_JOB.handle({ em: testApp.orm.em.fork(), baseUrl: 'http://localhost', log: () => {} }, { storeId: store.id });
    const rows = await sqlRunner(testApp.orm.em.fork()).rows<{ orders: number }>(`select orders from customer_loyalty where store_id = $1`, [store.id]);
    expect(rows).toEqual([{ orders: 1 }]);
  });
});

describe('loyalty procedures', () => {
  it('summary: tiles, the model and the segment grid', async () => {
    const answer = await trpcQuery(owner.client, 'loyalty.summary');
    expect(answer.status).toBe(200);
    const summary = answer.body.result.data;
    expect(summary).toMatchObject({
      currency: 'GBP', customers: 5, activeCustomers: 3, repeatRate: 0.6, atRiskRevenueMinor: null, atRiskCustomers: 1,
      model: { model: 'rfm', fallbackReason: 'too_few_customers', customers: 5, historyDays: 700, holdoutMae: null, baselineMae: null },
    });
    expect(summary.scoreExplanation).toMatch(/recency, frequency and spend/);
    const grid = Object.fromEntries(summary.segments.map((s: { segment: string; customers: number; spentMinor: number }) => [s.segment, [s.customers, s.spentMinor]]));
    expect(grid).toEqual({
      champions: [1, 56_800], loyal: [0, 0], potential_loyalists: [1, 16_000], new: [1, 5_000], cant_lose_them: [1, 100_000], at_risk: [0, 0], hibernating: [0, 0], lost: [1, 2_000],
    });
  });

  it('customers: sorted, paged on the server, filtered by segment, at risk and search', async () => {
    const page = async (input: object) => (await trpcQuery(owner.client, 'loyalty.customers', input)).body.result.data;
    const bySpent = await page({ sort: 'spent', pageSize: 2, page: 2 });
    expect(bySpent.total).toBe(5);
    expect(bySpent.customers.map((c: { id: number }) => c.id)).toEqual([ids.a2, ids.a3]);
    expect((await page({ sort: 'spent', direction: 'asc', pageSize: 1 })).customers[0].id).toBe(ids.a5);
    expect((await page({ segment: 'champions' })).customers.map((c: { id: number }) => c.id)).toEqual([ids.a1]);
    expect((await page({ atRisk: true })).customers.map((c: { id: number }) => c.id)).toEqual([ids.a4]);
    expect((await page({ search: 'A3@example.com' })).customers.map((c: { id: number }) => c.id)).toEqual([ids.a3]);
    expect((await page({ search: 'a4' })).customers.map((c: { id: number }) => c.id)).toEqual([ids.a4]);
    expect((await page({ search: '%' })).total).toBe(0);
    // Names: the start of any word of the name, accents and case aside; never another store's customer of the same name.
    expect((await page({ search: 'HART' })).customers.map((c: { id: number }) => c.id).sort()).toEqual([ids.a2, ids.a4].sort());
    expect((await page({ search: 'ada love' })).customers.map((c: { id: number; name: string; email: string }) => [c.id, c.name, c.email])).toEqual([[ids.a1, 'Ada Lovelace', 'a1@example.com']]);
    expect((await page({ search: 'artley' })).total).toBe(0);
  });

  it('customer: the order history (cancelled and test orders marked) and the score inputs', async () => {
    const answer = await trpcQuery(owner.client, 'loyalty.customer', { customerId: ids.a3 });
    expect(answer.status).toBe(200);
    const detail = answer.body.result.data;
    expect(detail.customer).toMatchObject({ id: ids.a3, segment: 'new', r: 4, f: 1, m: 2, loyaltyScore: 33, orders: 1 });
    expect(detail.inputs).toEqual({ repeatOrders: 0, recencyDays: 0, ageDays: 10, daysSinceLastOrder: 10 });
    expect(detail.orders.map((o: { counts: boolean; status: string }) => [o.status, o.counts])).toEqual([['paid', false], ['cancelled', false], ['paid', true]]);
  });

  it('exportCsv: every customer of the filter with a header', async () => {
    const answer = await trpcQuery(owner.client, 'loyalty.exportCsv', { sort: 'spent' });
    const lines = answer.body.result.data.csv.trim().split('\r\n');
    expect(lines).toHaveLength(6);
    expect(lines[0]).toMatch(/^Customer ID,Platform,External ID,Name,E-mail,Orders,Spent/);
    expect(lines[1]).toContain(',a4,Dora Hartley,a4@example.com,4,1000.00,');
  });
});

describe('segment push', () => {
  it('takes the customers of a segment, or the at-risk customers, of the store only', async () => {
    const em = testApp.orm.em.fork();
    expect(await segmentCustomerIds(em, owner.store.id, 'champions')).toEqual([ids.a1]);
    expect(await segmentCustomerIds(em, owner.store.id, AT_RISK_CUSTOMERS_SEGMENT)).toEqual([ids.a4]);
    expect(await segmentCustomerIds(em, other.store.id, 'champions')).not.toContain(ids.a1);
  });
});

describe('GET /api/customers/loyalty', () => {
  it('answers the documented shape', async () => {
    const answer = await owner.client.get('/api/customers/loyalty?segment=champions&sort=spent&page=1');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      model: 'rfm',
      customers: [{ id: ids.a1, name: 'Ada Lovelace', email: 'a1@example.com', orders: 6, spent: 568, lastOrderAt: at(-5).toISOString(), loyaltyScore: 92, churnRisk: null, predictedValue: null, segment: 'champions' }],
      total: 1,
    });
    const all = await owner.client.get('/api/customers/loyalty');
    expect(all.body.total).toBe(5);
    expect((await owner.client.get('/api/customers/loyalty?segment=nope')).status).toBe(400);
  });

  it('is described in /api/openapi.json', async () => {
    const document = (await owner.client.get('/api/openapi.json')).body;
    expect(document.paths['/customers/loyalty'].get).toBeDefined();
  });
});

describe('tenancy', () => {
  it("never shows another store's customers (tRPC and REST)", async () => {
    const theirs = (await trpcQuery(other.client, 'loyalty.customers', {})).body.result.data;
    expect(theirs.total).toBe(1);
    const [b1] = theirs.customers;
    expect(Object.values(ids)).not.toContain(b1.id);
    // The same e-mail address in both stores finds only the caller's own customer.
    expect((await trpcQuery(other.client, 'loyalty.customers', { search: 'a1@example.com' })).body.result.data.customers.map((c: { id: number }) => c.id)).toEqual([b1.id]);
    const rest = await other.client.get('/api/customers/loyalty');
    expect(rest.body.total).toBe(1);
    expect(rest.body.customers.map((c: { id: number }) => c.id)).toEqual([b1.id]);
    const intrusion = await trpcQuery(other.client, 'loyalty.customer', { customerId: ids.a1 });
    expect(intrusion.status).toBe(404);
    expect((await trpcQuery(other.client, 'loyalty.summary')).body.result.data.customers).toBe(1);
    expect((await other.client.get('/api/customers/loyalty?segment=champions')).body.customers).toEqual([]);
  });

  it("a store's guest reads that store's loyalty only", async () => {
    const guest = await newGuestOf(testApp.app, testApp.orm, owner, owner.store.id);
    const answer = await guest.client.get('/api/customers/loyalty');
    expect(answer.status).toBe(200);
    expect(answer.body.total).toBe(5);
    expect((await trpcQuery(guest.client, 'loyalty.customer', { customerId: ids.a1 })).body.result.data.customer.id).toBe(ids.a1);
  });
});

describe('a store the BG/NBD model fits', () => {
  it('stores churn risk, expected orders, predicted value, the holdout MAEs, and the at-risk revenue tile', async () => {
    const store = await createCommerceStore(testApp.orm);
    const orders: Parameters<typeof ingestOrders>[2] = [];
    // 240 customers over 18 months: a third order every ~40 days until now, a third bought twice long ago, a third once.
    for (let i = 0; i < 240; i++) {
      const first = -540 + ((i * 37) % 420);
      const days = i % 3 === 0 ? Array.from({ length: Math.floor(-first / 40) }, (_, k) => first + k * 40) : i % 3 === 1 ? [first, first + 15] : [first];
      days.forEach((d, k) => orders.push(testOrder({ externalId: `m${i}-${k}`, placedAt: at(d), grossMinor: 3_000 + (i % 5) * 500 + k * 100, customer: { externalId: `m${i}` } })));
    }
    await ingestOrders(testApp.orm.em.fork(), store.id, orders);
    const result = await recomputeLoyalty(testApp.orm.em.fork(), store.id, NOW);
    expect(result).toMatchObject({ model: 'bgnbd', customers: 240 });
    expect(result!.holdout).not.toBeNull();
    const summary = await loyaltySummary(testApp.orm.em.fork(), store);
    expect(summary.model).toMatchObject({ model: 'bgnbd', fallbackReason: null, customers: 240 });
    expect(summary.model!.holdoutMae).toBeGreaterThan(0);
    expect(summary.model!.baselineMae).toBeGreaterThan(0);
    // The stored holdout is of the median forecasts (whole order counts), so errors × customers are whole numbers.
    const customers = summary.model!.holdoutCustomers!;
    for (const mae of [summary.model!.holdoutMae!, summary.model!.baselineMae!]) expect(Math.abs(mae * customers - Math.round(mae * customers))).toBeLessThan(1e-6);
    expect(Object.keys(summary.model!.parameters!).sort()).toEqual(['a', 'alpha', 'b', 'gamma', 'p', 'q', 'r', 'seasonalIndex90d']);
    // The seasonal index of the next 90 days, by hand from the order days: last year's same 90 days
    // (days −364..−275) per day, over the orders per day of the 365 days centred on them (−501..−137).
    const orderDays = orders.map((order) => Math.round((Date.parse(String(order.placedAt)) - at(0).getTime()) / 86_400_000));
    const between = (from: number, to: number) => orderDays.filter((d) => d >= from && d <= to).length;
    expect(between(-364, -275)).toBeGreaterThan(0);
    expect(summary.model!.parameters!.seasonalIndex90d).toBeCloseTo((between(-364, -275) / 90) / (between(-501, -137) / 365), 12);
    const [check] = await sqlRunner(testApp.orm.em.fork()).rows<{ at_risk: string; missing: number }>(
      `select coalesce(sum(predicted_value_12m_minor) filter (where churn_risk >= 0.5), 0)::text as at_risk,
              (count(*) filter (where churn_risk is null or p_alive is null or expected_orders_90d is null or predicted_value_12m_minor is null))::int as missing
         from customer_loyalty where store_id = $1`,
      [store.id],
    );
    expect(check!.missing).toBe(0);
    expect(summary.atRiskRevenueMinor).toBe(num(check!.at_risk));
    expect(summary.atRiskRevenueMinor).toBeGreaterThan(0);
    const top = await loyaltyCustomers(testApp.orm.em.fork(), store, { sort: 'predicted_value', pageSize: 5 });
    const values = top.customers.map((c) => c.predictedValue12mMinor!);
    expect(values).toEqual([...values].sort((a, b) => b - a));
    // Regular buyers (still ordering) lead the top customers; a lapsed two-time buyer is at risk.
    expect(top.customers[0]!.orders).toBeGreaterThan(2);
    const atRisk = await loyaltyCustomers(testApp.orm.em.fork(), store, { atRisk: true, pageSize: 100 });
    expect(atRisk.customers.every((c) => c.churnRisk! >= 0.5)).toBe(true);
  });
});
