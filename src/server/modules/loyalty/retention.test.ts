import { beforeAll, describe, expect, it } from 'vitest';
import { setFlatFxRates, signedInStoreOwner, testOrder, type StoreOwner } from '../../../../test/commerce-fixtures.ts';
import { trpcQuery, useTestApp } from '../../../../test/harness.ts';
import type { LoyaltyRetentionOutput } from '../../../shared/loyalty-retention.ts';
import { ingestOrders, ingestRefunds } from '../commerce/ingest.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { loyaltyRetention } from './retention.service.ts';

// Cohort retention on a real PostgreSQL, figures computed by hand. The store sells in GBP and lives
// in New York (UTC-5 in winter, UTC-4 from 8 March 2026); "today" is 2026-04-15 there.
//   A: first order 10 Jan £100; 20 and 25 Feb £50 + £30 (one customer in February, £80); 2 Apr £40.
//   B: first order 20 Jan £80 with £20 refunded (£60); nothing else.
//   C: a cancelled order on 5 Jan (counts nowhere); first counted order 3 Feb £70; a test order
//      on 10 Mar (counts nowhere).
//   D: first order $100 at 03:00 UTC on 1 March = 22:00 on 28 February in New York (February's
//      cohort, not March's); $50 at 02:00 UTC on 1 April = 31 March in New York. USD 1 = GBP 0.68.
//   E: first order in December 2025, before the range; again in January: in no cohort.
//   X: a customer of another store in January: never in this store's cohorts.
// January (A, B): month 0 2/2 = 100 %, (£100 + £60) / 2 = £80; month 1 1/2, £80 / 2 = £40;
//   month 2 0; month 3 (April, under way) 1/2, £40 / 2 = £20.
// February (C, D): month 0 2/2, (£70 + £68) / 2 = £69; month 1 1/2, £34 / 2 = £17; month 2 0.
// March: no new customer.

const testApp = useTestApp();
let owner: StoreOwner;
let stranger: StoreOwner;
const TODAY = '2026-04-15';
const customer = (id: string) => ({ customer: { externalId: id } });
const noon = (day: string) => `${day}T17:00:00Z`;

beforeAll(async () => {
  owner = await signedInStoreOwner(testApp, 'retention');
  stranger = await signedInStoreOwner(testApp, 'retention-stranger');
  const em = () => testApp.orm.em.fork();
  await sqlRunner(em()).run(`update stores set timezone = 'America/New_York' where id = $1`, [owner.store.id]);
  await setFlatFxRates(em(), '2025-12-01', '2026-04-30');
  await ingestOrders(em(), owner.store.id, [
    testOrder({ externalId: 'A-1', placedAt: noon('2026-01-10'), grossMinor: 10_000, ...customer('A') }),
    testOrder({ externalId: 'A-2', placedAt: noon('2026-02-20'), grossMinor: 5_000, ...customer('A') }),
    testOrder({ externalId: 'A-3', placedAt: noon('2026-02-25'), grossMinor: 3_000, ...customer('A') }),
    testOrder({ externalId: 'A-4', placedAt: noon('2026-04-02'), grossMinor: 4_000, ...customer('A') }),
    testOrder({ externalId: 'B-1', placedAt: noon('2026-01-20'), grossMinor: 8_000, ...customer('B') }),
    testOrder({ externalId: 'C-0', placedAt: noon('2026-01-05'), grossMinor: 9_900, status: 'cancelled', ...customer('C') }),
    testOrder({ externalId: 'C-1', placedAt: noon('2026-02-03'), grossMinor: 7_000, ...customer('C') }),
    testOrder({ externalId: 'C-2', placedAt: noon('2026-03-10'), grossMinor: 7_000, isTest: true, ...customer('C') }),
    testOrder({ externalId: 'D-1', placedAt: '2026-03-01T03:00:00Z', currency: 'USD', grossMinor: 10_000, ...customer('D') }),
    testOrder({ externalId: 'D-2', placedAt: '2026-04-01T02:00:00Z', currency: 'USD', grossMinor: 5_000, ...customer('D') }),
    testOrder({ externalId: 'E-1', placedAt: noon('2025-12-15'), grossMinor: 6_000, ...customer('E') }),
    testOrder({ externalId: 'E-2', placedAt: noon('2026-01-15'), grossMinor: 6_000, ...customer('E') }),
  ]);
  await ingestRefunds(em(), owner.store.id, [{ platform: 'shopify', externalId: 'RF-B', orderExternalId: 'B-1', refundedAt: noon('2026-01-25'), amountMinor: 2_000, currency: 'GBP' }]);
  await ingestOrders(em(), stranger.store.id, [
    testOrder({ externalId: 'X-1', placedAt: noon('2026-01-12'), grossMinor: 50_000, ...customer('X') }),
    testOrder({ externalId: 'X-2', placedAt: noon('2026-02-12'), grossMinor: 50_000, ...customer('X') }),
  ]);
});

const store = () => ({ id: owner.store.id, currency: 'GBP', timezone: 'America/New_York' });
const cell = (monthsSince: number, activeCustomers: number, retention: number, revenuePerCustomerMinor: number, partial = false) => ({ monthsSince, activeCustomers, retention, revenuePerCustomerMinor, partial });

describe('cohort retention (loyalty.retention)', () => {
  it('counts each first-order month’s customers and the share who ordered in each month since, with net revenue per customer', async () => {
    const report = await loyaltyRetention(testApp.orm.em.fork(), store(), { from: '2026-01', to: '2026-03' }, { today: TODAY });
    expect(report).toEqual({
      currency: 'GBP', timezone: 'America/New_York', from: '2026-01', to: '2026-03', currentMonth: '2026-04',
      cohorts: [
        { month: '2026-01', customers: 2, cells: [cell(0, 2, 1, 8_000), cell(1, 1, 0.5, 4_000), cell(2, 0, 0, 0), cell(3, 1, 0.5, 2_000, true)] },
        { month: '2026-02', customers: 2, cells: [cell(0, 2, 1, 6_900), cell(1, 1, 0.5, 1_700), cell(2, 0, 0, 0, true)] },
        { month: '2026-03', customers: 0, cells: [] },
      ],
    });
  });

  it('defaults to the 12 months up to the store’s current month', async () => {
    const report = await loyaltyRetention(testApp.orm.em.fork(), store(), {}, { today: TODAY });
    expect(report.from).toBe('2025-05');
    expect(report.to).toBe('2026-04');
    expect(report.cohorts.map((c) => c.month)).toHaveLength(12);
    expect(report.cohorts.filter((c) => c.customers > 0).map((c) => [c.month, c.customers])).toEqual([['2025-12', 1], ['2026-01', 2], ['2026-02', 2]]);
  });

  it('answers over tRPC for the caller’s active store only; another store sees its own customer', async () => {
    const mine = await trpcQuery<{ result: { data: LoyaltyRetentionOutput } }>(owner.client, 'loyalty.retention', { from: '2026-01', to: '2026-02' });
    expect(mine.status).toBe(200);
    expect(mine.body.result.data.cohorts.map((c) => c.customers)).toEqual([2, 2]);
    const theirs = await trpcQuery<{ result: { data: LoyaltyRetentionOutput } }>(stranger.client, 'loyalty.retention', { from: '2026-01', to: '2026-02' });
    expect(theirs.body.result.data.cohorts.map((c) => [c.customers, c.cells[1]?.activeCustomers, c.cells[0]?.revenuePerCustomerMinor])).toEqual([[1, 1, 50_000], [0, undefined, undefined]]);
    const backwards = await trpcQuery(owner.client, 'loyalty.retention', { from: '2026-03', to: '2026-01' });
    expect(backwards.status).toBe(400);
  });
});
