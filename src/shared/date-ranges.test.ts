import { describe, expect, it } from 'vitest';
import { addDays, comparisonRange, dayInZone, daysOf, presetOf, presetRange, rangeProblem } from './date-ranges.ts';

describe('date range presets', () => {
  const today = '2026-03-15';

  it.each([
    ['today', '2026-03-15', '2026-03-15'],
    ['yesterday', '2026-03-14', '2026-03-14'],
    ['last_7_days', '2026-03-09', '2026-03-15'],
    ['last_30_days', '2026-02-14', '2026-03-15'],
    ['last_90_days', '2025-12-16', '2026-03-15'],
    ['this_month', '2026-03-01', '2026-03-15'],
    ['last_month', '2026-02-01', '2026-02-28'],
    ['this_year', '2026-01-01', '2026-03-15'],
    ['last_365_days', '2025-03-16', '2026-03-15'],
  ] as const)('%s covers %s to %s', (preset, from, to) => {
    expect(presetRange(preset, today)).toEqual({ from, to });
  });

  it('last month from January is the previous December', () => {
    expect(presetRange('last_month', '2026-01-10')).toEqual({ from: '2025-12-01', to: '2025-12-31' });
  });

  it('recognises a preset from its days, anything else is custom', () => {
    expect(presetOf({ from: '2026-03-09', to: '2026-03-15' }, today)).toBe('last_7_days');
    expect(presetOf({ from: '2026-03-01', to: '2026-03-15' }, today)).toBe('this_month');
    expect(presetOf({ from: '2026-03-02', to: '2026-03-15' }, today)).toBe('custom');
  });
});

describe('comparison ranges', () => {
  it('the previous period has the same length and ends the day before', () => {
    expect(comparisonRange({ from: '2026-03-01', to: '2026-03-10' }, 'previous_period')).toEqual({ from: '2026-02-19', to: '2026-02-28' });
  });

  it('the previous year takes the same dates a year earlier, 29 February stepping back to the 28th', () => {
    expect(comparisonRange({ from: '2024-02-01', to: '2024-02-29' }, 'previous_year')).toEqual({ from: '2023-02-01', to: '2023-02-28' });
  });

  it('no comparison gives no range', () => {
    expect(comparisonRange({ from: '2026-03-01', to: '2026-03-10' }, 'none')).toBeNull();
  });
});

describe('custom range validation', () => {
  it('accepts a range up to 800 days and refuses anything else with the reason', () => {
    expect(rangeProblem('2026-01-01', '2026-01-01')).toBeNull();
    expect(rangeProblem('2024-01-01', '2026-03-10')).toBeNull(); // 799 days apart
    expect(rangeProblem('2024-01-01', '2026-03-11')).toBe('tooLong');
    expect(rangeProblem('2026-03-02', '2026-03-01')).toBe('startAfterEnd');
    expect(rangeProblem('2026-02-30', '2026-03-01')).toBe('invalidDate');
    expect(rangeProblem('', '2026-03-01')).toBe('invalidDate');
  });
});

describe("a store's today", () => {
  it('depends on the store time zone near midnight', () => {
    const instant = '2026-03-15T23:30:00Z';
    expect(dayInZone(instant, 'Europe/London')).toBe('2026-03-15');
    expect(dayInZone(instant, 'Europe/Berlin')).toBe('2026-03-16');
    expect(dayInZone(instant, 'America/New_York')).toBe('2026-03-15');
  });
});

describe('days of a range', () => {
  it('lists every day across month, leap-day and year boundaries', () => {
    expect(daysOf({ from: '2024-02-27', to: '2024-03-02' })).toEqual(['2024-02-27', '2024-02-28', '2024-02-29', '2024-03-01', '2024-03-02']);
    expect(daysOf({ from: '2025-12-30', to: '2026-01-02' })).toEqual(['2025-12-30', '2025-12-31', '2026-01-01', '2026-01-02']);
  });

  it('gives one day for a one-day range and none for a reversed one', () => {
    expect(daysOf({ from: '2026-11-21', to: '2026-11-21' })).toEqual(['2026-11-21']);
    expect(daysOf({ from: '2026-11-21', to: '2026-11-20' })).toEqual([]);
  });

  it('agrees with addDays over two years', () => {
    const days = daysOf({ from: '2024-11-22', to: '2026-11-21' });
    expect(days).toHaveLength(730);
    days.forEach((day, index) => expect(day).toBe(addDays('2024-11-22', index)));
  });
});
