import { describe, expect, it } from 'vitest';
import type { RetentionCohort } from '../../../shared/loyalty-retention.ts';
import { columnCount, intensity, scaleTop } from './retention-scale.ts';

const cell = (monthsSince: number, retention: number) => ({ monthsSince, activeCustomers: 0, retention, revenuePerCustomerMinor: 0, partial: false });
const cohorts: RetentionCohort[] = [
  { month: '2026-01', customers: 10, cells: [cell(0, 1), cell(1, 0.2), cell(2, 0.05)] },
  { month: '2026-02', customers: 10, cells: [cell(0, 1), cell(1, 0.1)] },
  { month: '2026-03', customers: 0, cells: [] },
];

describe('the retention heat-map scale', () => {
  it('runs from 0 to the highest share of months after the first, which month 0 (always 100 %) does not set', () => {
    expect(scaleTop(cohorts)).toBe(0.2);
    expect(intensity(1, 0, 0.2)).toBe(1);
    expect(intensity(0.2, 1, 0.2)).toBe(1);
    expect(intensity(0.05, 2, 0.2)).toBeCloseTo(0.5); // square root: a quarter of the top is half the colour
    expect(intensity(0, 3, 0.2)).toBe(0);
    expect(intensity(0.1, 1, 0)).toBe(0);
    expect(columnCount(cohorts)).toBe(3);
  });
});
