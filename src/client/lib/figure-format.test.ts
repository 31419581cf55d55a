import { describe, expect, it } from 'vitest';
import { figureFormat, formatChange, formatMultipleIn } from './figure-format.ts';

describe('figures on the marketing and analytics screens', () => {
  const en = figureFormat('en-GB');

  it('writes money from minor units, ratios as multiples and fractions as percentages', () => {
    expect(en.money(123_450, 'GBP')).toBe('£1,234.50');
    expect(en.compactMoney(1_250_000, 'GBP')).toBe('£12.5k');
    expect(en.multiple(3.2)).toBe('3.20×');
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

describe('changes and multiples in the user\'s language', () => {
  // Intl writes French, Spanish and German percentages with a no-break space before the sign
  // (French: narrow or not, by ICU version).
  const NBSP = '\u00a0';
  const FRENCH_SPACE = '[\u00a0\u202f]';

  it('writes a change with its sign, in each language\'s decimal mark and spacing', () => {
    expect(formatChange(13.3, 'en')).toBe('+13.3%');
    expect(formatChange(13.3, 'es')).toBe(`+13,3${NBSP}%`);
    expect(formatChange(13.3, 'fr')).toMatch(new RegExp(`^\\+13,3${FRENCH_SPACE}%$`));
    expect(formatChange(13.3, 'de')).toBe(`+13,3${NBSP}%`);
    expect(formatChange(-74.04, 'en')).toBe('-74.0%');
    expect(formatChange(-74.04, 'de')).toBe(`-74,0${NBSP}%`);
    // 1234.56 % keeps its grouping: "+1,234.6%" / "+1.234,6 %".
    expect(formatChange(1234.56, 'en')).toBe('+1,234.6%');
    expect(formatChange(1234.56, 'de')).toBe(`+1.234,6${NBSP}%`);
    // No sign for no change, even when the unrounded change was slightly negative.
    expect(formatChange(-0.04, 'en')).toBe('0.0%');
    expect(formatChange(0, 'fr')).toMatch(new RegExp(`^0,0${FRENCH_SPACE}%$`));
    expect(formatChange(40, 'en', 0)).toBe('+40%');
  });

  it('writes a multiple with the × sign: 4.3 -> "4.30×", "4,30×"', () => {
    expect(formatMultipleIn(4.3, 'en')).toBe('4.30×');
    expect(formatMultipleIn(4.3, 'fr')).toBe('4,30×');
    expect(formatMultipleIn(4.3, 'de')).toBe('4,30×');
    expect(formatMultipleIn(4.3, 'es')).toBe('4,30×');
    // Rounded half up to 2 decimals: 1.2903 -> 1.29.
    expect(formatMultipleIn(80 / 62, 'en')).toBe('1.29×');
    expect(figureFormat('fr').multiple(2.5)).toBe('2,50×');
  });

  it('shows "—" without a value', () => {
    for (const value of [null, undefined, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(formatChange(value, 'fr')).toBe('—');
      expect(formatMultipleIn(value, 'de')).toBe('—');
    }
  });
});
