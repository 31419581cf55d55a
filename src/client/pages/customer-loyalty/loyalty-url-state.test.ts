import { describe, expect, it } from 'vitest';
import { loyaltyFilterOf, loyaltyViewFromSearch } from './loyalty-url-state.ts';

describe('the loyalty screen in the URL', () => {
  it('reads the defaults from an empty query', () => {
    expect(loyaltyViewFromSearch('')).toEqual({ tab: 'top', segment: null, search: '', sort: 'predicted_value', direction: 'desc', page: 1, customerId: null });
  });

  it('reads a segment, search, sort, page and open customer; unknown values fall back', () => {
    expect(loyaltyViewFromSearch('segment=at_risk&q=Ada%20Lovelace&sort=spent&dir=asc&page=3&customer=42')).toEqual({
      tab: 'top', segment: 'at_risk', search: 'Ada Lovelace', sort: 'spent', direction: 'asc', page: 3, customerId: 42,
    });
    expect(loyaltyViewFromSearch('segment=vip&sort=name&dir=up&page=-1&customer=x')).toMatchObject({ segment: null, sort: 'predicted_value', direction: 'desc', page: 1, customerId: null });
  });

  it('keeps segments to the top-customers tab: the at-risk tab filters by churn risk alone', () => {
    const view = loyaltyViewFromSearch('tab=at-risk&segment=champions');
    expect(view.segment).toBeNull();
    expect(loyaltyFilterOf(view)).toEqual({ segment: undefined, atRisk: true, search: undefined, sort: 'predicted_value', direction: 'desc' });
    expect(loyaltyFilterOf(loyaltyViewFromSearch('segment=lost&q=%20%20'))).toEqual({ segment: 'lost', atRisk: undefined, search: undefined, sort: 'predicted_value', direction: 'desc' });
  });
});
