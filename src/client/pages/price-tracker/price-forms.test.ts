import { describe, expect, it } from 'vitest';
import { minorOfTyped } from './price-forms.tsx';

describe('minorOfTyped (the own price typed in the add form)', () => {
  it('reads a dot or a comma as the decimal separator', () => {
    expect(minorOfTyped('49.90')).toBe(4_990);
    expect(minorOfTyped('49,9')).toBe(4_990);
    expect(minorOfTyped(' 1200 ')).toBe(120_000);
    expect(minorOfTyped('1.299,00')).toBe(129_900);
    expect(minorOfTyped('1,299.00')).toBe(129_900);
  });
  it('refuses what is not a plain price', () => {
    for (const text of ['', 'abc', '-5', '12 €', 'EUR 5']) expect(minorOfTyped(text), text).toBeNull();
  });
});
