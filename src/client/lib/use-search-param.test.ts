import { describe, expect, it } from 'vitest';
import { readSearchParam } from './use-search-param.ts';

describe('screen state in the query string', () => {
  it('reads an allowed value, else the default', () => {
    expect(readSearchParam('?kpi=orders&from=2026-06-01', 'kpi', ['netSales', 'orders'] as const, 'netSales')).toBe('orders');
    expect(readSearchParam('kpi=happiness', 'kpi', ['netSales', 'orders'] as const, 'netSales')).toBe('netSales');
    expect(readSearchParam('', 'kpi', ['netSales', 'orders'] as const, 'netSales')).toBe('netSales');
  });
});
