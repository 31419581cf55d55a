import { describe, expect, it } from 'vitest';
import { dependsOnCurrency } from './currency.tsx';

/** A tRPC query key: [[router, procedure], {input, type}]. */
const key = (procedure: string) => ({ queryKey: [procedure.split('.'), { type: 'query' }] });

describe('what a currency change fetches again', () => {
  it.each([
    // Every answer with amounts: dashboard, ads, analytics, orders, reports, P&L.
    ['commerce.kpis', true],
    ['dashboard.todayVsYesterday', true],
    ['dashboard.allStores', true],
    ['marketing.campaigns', true],
    ['analytics.trend', true],
    ['orders.list', true],
    ['reports.run', true],
    ['finance.profitAndLoss', true],
    // Not the session, the stores (taken from the update's answer), the subscription, guest mode or connection health.
    ['auth.me', false],
    ['stores.active', false],
    ['stores.list', false],
    ['subscription.current', false],
    ['admin.guestModeStatus', false],
    ['connections.status', false],
  ])('%s: %s', (procedure, expected) => {
    expect(dependsOnCurrency(key(procedure))).toBe(expected);
  });
});
