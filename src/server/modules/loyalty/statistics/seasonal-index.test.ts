import { describe, expect, it } from 'vitest';
import { seasonalIndex } from './seasonal-index.ts';

// The seasonal index of a forecast window: last year's same days against the 365 days centred on them.
describe('seasonalIndex', () => {
  const cut = 1_000;

  it('hand-checked: 5 orders a day in last year\'s 3-day window, 2 a day around it → 5 / ((362 × 2 + 15) / 365) = 1825 / 739', () => {
    // Window: days cut + 1 − 365 .. cut + 3 − 365 = 636..638; centred year: 636 − 181 .. 636 − 181 + 364 = 455..819.
    const orders = (day: number) => (day >= 636 && day <= 638 ? 5 : 2);
    expect(seasonalIndex(orders, 0, cut, 3)).toBeCloseTo(1825 / 739, 12);
    expect(1825 / 739).toBeCloseTo(2.469553, 6);
    // Days outside the centred year do not count.
    expect(seasonalIndex((day) => (day < 455 || day > 819 ? 1_000 : orders(day)), 0, cut, 3)).toBeCloseTo(1825 / 739, 12);
  });

  it('is 1 on a flat series and on a linear trend (a growing store is not a season)', () => {
    expect(seasonalIndex(() => 7, 0, cut, 90)).toBeCloseTo(1, 12);
    // Odd horizon: the centred year is symmetric around the window's middle, so a linear trend cancels exactly.
    expect(seasonalIndex((day) => 10 + 0.05 * day, 0, cut, 91)).toBeCloseTo(1, 12);
    // Even horizon: half a day off centre, a small bias only.
    expect(seasonalIndex((day) => 10 + 0.05 * day, 0, cut, 90)).toBeCloseTo(1, 2);
  });

  it('finds a yearly cycle: a window over last year\'s peak is above 1, over its trough below', () => {
    const yearly = (day: number) => 100 * (1 + 0.3 * Math.cos((2 * Math.PI * (day - 700)) / 365));
    // Window 636..725 straddles the peak at day 700 (and 1065 − 365 = 700).
    expect(seasonalIndex(yearly, 0, cut, 90)).toBeGreaterThan(1.2);
    // A window half a year later, over the trough.
    expect(seasonalIndex(yearly, 0, cut + 182, 90)).toBeLessThan(0.8);
  });

  it('is null without a whole centred year of history, with no orders, or with a horizon outside 1..365', () => {
    // Centred year for a 90-day window starts at cut + 1 − 365 − 137 = 499.
    expect(seasonalIndex(() => 1, 499, cut, 90)).not.toBeNull();
    expect(seasonalIndex(() => 1, 500, cut, 90)).toBeNull();
    expect(seasonalIndex(() => 0, 0, cut, 90)).toBeNull();
    expect(seasonalIndex(() => 1, 0, cut, 0)).toBeNull();
    expect(seasonalIndex(() => 1, 0, cut, 366)).toBeNull();
    expect(seasonalIndex(() => 1, 0, cut, 365)).toBeCloseTo(1, 12);
  });
});
