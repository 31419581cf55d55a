import { describe, expect, it } from 'vitest';
import { maxDashboardsForTier, tierFromPlanName, tierIncludesAiTools } from './plans.ts';

describe('tierFromPlanName', () => {
  it.each([
    ['Basic', 'basic'],
    ['professional', 'professional'],
    ['PROFESSIONAL Annual', 'professional'],
    ['Business (monthly)', 'business'],
    ['  enterprise plus', 'enterprise'],
    ['Premium', null],
    ['My Business', null],
    ['', null],
    [null, null],
  ])('%j -> %j', (name, tier) => {
    expect(tierFromPlanName(name)).toBe(tier);
  });
});

describe('plan limits', () => {
  it('gives 1, 3, 10, 50 dashboards and 1 without a plan', () => {
    expect([null, 'basic', 'professional', 'business', 'enterprise'].map((tier) => maxDashboardsForTier(tier as never))).toEqual([1, 1, 3, 10, 50]);
  });
  it('includes AI tools in every plan above basic', () => {
    expect(tierIncludesAiTools('basic')).toBe(false);
    expect(tierIncludesAiTools(null)).toBe(false);
    expect(tierIncludesAiTools('professional')).toBe(true);
    expect(tierIncludesAiTools('enterprise')).toBe(true);
  });
});
