import { describe, expect, it } from 'vitest';
import { formatCompactCurrency, formatCompactNumber, formatCurrency, formatMoney } from './format.ts';

describe('formatCurrency', () => {
  it('always shows 2 decimals, in GBP by default', () => {
    expect(formatCurrency(1234.5)).toBe('£1,234.50');
    expect(formatCurrency(29)).toBe('£29.00');
    expect(formatCurrency(0.005, 'USD', 'en-US')).toBe('$0.01');
  });

  it('follows the currency and the language', () => {
    expect(formatCurrency(1234.5, 'EUR', 'de')).toBe('1.234,50\u00a0€');
    expect(formatCurrency(99.9, 'CAD', 'en')).toBe('CA$99.90');
    expect(formatCurrency(99.9, 'AUD', 'en')).toBe('A$99.90');
  });
});

describe('formatCompactNumber', () => {
  it.each([
    [950, '950'],
    [999.5, '999.5'],
    [1000, '1k'],
    [1500, '1.5k'],
    [1250, '1.25k'],
    [1234, '1.23k'],
    [12000, '12k'],
    [12050, '12.05k'],
    [999_999, '1m'],
    [1_000_000, '1m'],
    [1_250_000, '1.25m'],
    [1_500_000, '1.5m'],
    [12_345_678, '12.35m'],
    [-1500, '-1.5k'],
  ])('%d -> %s', (value, expected) => {
    expect(formatCompactNumber(value)).toBe(expected);
  });
});

describe('formatCompactCurrency', () => {
  it('puts the symbol before the compact figure, and the minus before the symbol', () => {
    expect(formatCompactCurrency(1500, '£')).toBe('£1.5k');
    expect(formatCompactCurrency(1_250_000, 'CA$')).toBe('CA$1.25m');
    expect(formatCompactCurrency(-12000, '$')).toBe('-$12k');
  });
});

describe('formatMoney (plan prices in minor units)', () => {
  it('drops the decimals of whole amounts only', () => {
    expect(formatMoney(2900, 'GBP', 'en')).toBe('£29');
    expect(formatMoney(2950, 'GBP', 'en')).toBe('£29.50');
  });
});
