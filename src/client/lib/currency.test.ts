import { describe, expect, it } from 'vitest';
import { dependsOnCurrency } from './currency.tsx';

const key = (router: string, procedure: string) => ({ queryKey: [[router, procedure], { type: 'query' }] });

describe('what a currency change fetches again', () => {
  it('every answer with amounts: dashboard, ads, analytics, orders, reports, P&L', () => {
    for (const [router, procedure] of [
      ['commerce', 'kpis'],
      ['dashboard', 'todayVsYesterday'],
      ['marketing', 'campaigns'],
      ['analytics', 'trend'],
      ['orders', 'list'],
      ['reports', 'run'],
      ['finance', 'profitAndLoss'],
    ]) {
      expect(dependsOnCurrency(key(router!, procedure!)), `${router}.${procedure}`).toBe(true);
    }
  });

  it('not the session, the stores (taken from the update), the subscription, guest mode or connection health', () => {
    for (const [router, procedure] of [
      ['auth', 'me'],
      ['stores', 'active'],
      ['stores', 'list'],
      ['subscription', 'current'],
      ['admin', 'guestModeStatus'],
      ['connections', 'status'],
    ]) {
      expect(dependsOnCurrency(key(router!, procedure!)), `${router}.${procedure}`).toBe(false);
    }
  });
});
