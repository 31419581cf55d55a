import { describe, expect, it } from 'vitest';
import { figureFormat } from './figure-format.ts';

describe('figures on the marketing and analytics screens', () => {
  const en = figureFormat('en-GB');

  it('writes money from minor units, ratios as multiples and fractions as percentages', () => {
    expect(en.money(123_450, 'GBP')).toBe('£1,234.50');
    expect(en.compactMoney(1_250_000, 'GBP')).toBe('£12.5k');
    expect(en.multiple(3.2)).toBe('3.20x');
    expect(en.percent(0.0825, 2)).toBe('8.25%');
    expect(en.decimal(12.345)).toBe('12.35');
    expect(en.shortDay('2026-06-03')).toBe('3 Jun');
    expect(figureFormat('de').money(123_450, 'EUR')).toBe('1.234,50\u00a0€');
  });

  it('shows "—" for a figure without value, never Infinity or NaN', () => {
    for (const value of [null, undefined, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(en.money(value, 'GBP')).toBe('—');
      expect(en.multiple(value)).toBe('—');
      expect(en.percent(value)).toBe('—');
      expect(en.integer(value)).toBe('—');
    }
  });
});
