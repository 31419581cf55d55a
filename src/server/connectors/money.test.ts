import { describe, expect, it } from 'vitest';
import { MalformedResponseError } from './connector.ts';
import { decimalToMinor, microsToMinor, minorDigits } from './money.ts';

describe('platform money', () => {
  it('reads decimal strings exactly, per currency', () => {
    expect(decimalToMinor('1234.50', 'GBP')).toBe(123450);
    expect(decimalToMinor('0.1', 'USD')).toBe(10);
    expect(decimalToMinor('19.99', 'EUR')).toBe(1999);
    expect(decimalToMinor('1500', 'JPY')).toBe(1500);
    expect(decimalToMinor('1.234', 'KWD')).toBe(1234);
    expect(decimalToMinor('-5.00', 'GBP')).toBe(-500);
    expect(decimalToMinor('', 'GBP')).toBe(0);
    expect(decimalToMinor(null, 'GBP')).toBe(0);
  });

  it('reads JSON numbers without float drift and rounds extra decimals half away from zero', () => {
    expect(decimalToMinor(0.29, 'USD')).toBe(29);
    expect(decimalToMinor(1.005, 'USD')).toBe(101);
    expect(decimalToMinor('0.125', 'GBP')).toBe(13);
    expect(decimalToMinor('0.124', 'GBP')).toBe(12);
    expect(minorDigits('JPY')).toBe(0);
  });

  it('rejects what is not an amount', () => {
    expect(() => decimalToMinor('12,50', 'EUR')).toThrow(MalformedResponseError);
    expect(() => decimalToMinor('abc', 'EUR')).toThrow(MalformedResponseError);
    expect(() => decimalToMinor('.', 'EUR')).toThrow(MalformedResponseError);
  });

  it('converts Google Ads micros', () => {
    expect(microsToMinor('12500000', 'USD')).toBe(1250);
    expect(microsToMinor('1234567', 'GBP')).toBe(123);
    expect(microsToMinor('5000', 'GBP')).toBe(1);
    expect(microsToMinor('0', 'GBP')).toBe(0);
    expect(microsToMinor('2000000000', 'JPY')).toBe(2000);
  });
});
