import { describe, expect, it } from 'vitest';
import {
  aov,
  attributedRoas,
  cac,
  delta,
  formatMinorUnits,
  formatMultiple,
  formatPercentChange,
  formatRatio,
  ltv,
  mer,
  netSales,
  NO_VALUE,
  platformRoas,
  ratio,
  roas,
  totalRevenue,
} from './metrics.ts';

describe('metric definitions', () => {
  it('net sales = gross - discounts - refunds', () => {
    expect(netSales({ grossMinor: 100_00, discountsMinor: 10_00, refundsMinor: 25_00 })).toBe(65_00);
    expect(netSales({ grossMinor: 0, discountsMinor: 0, refundsMinor: 30_00 })).toBe(-30_00);
  });

  it('ROAS = net sales of every order / ad spend; per channel the attributed ROAS and the platform ROAS beside it', () => {
    expect(roas({ netSalesMinor: 1000_00, adSpendMinor: 400_00 })).toBe(2.5);
    expect(attributedRoas({ attributedNetSalesMinor: 900_00, spendMinor: 300_00 })).toBe(3);
    expect(platformRoas({ conversionValueMinor: 1200_00, spendMinor: 300_00 })).toBe(4);
  });

  it('CAC = spend / new customers', () => {
    expect(cac({ spendMinor: 500_00, newCustomers: 4 })).toBe(125_00);
  });

  it('MER = total revenue (net sales + shipping + taxes) / total spend', () => {
    expect(totalRevenue({ netSalesMinor: 1700_00, shippingMinor: 100_00, taxesMinor: 200_00 })).toBe(2000_00);
    expect(mer({ totalRevenueMinor: 2000_00, totalSpendMinor: 400_00 })).toBe(5);
  });

  it('AOV = net sales / orders', () => {
    expect(aov({ netSalesMinor: 250_00, orders: 4 })).toBe(62_50);
  });

  it('LTV = average net sales per customer within the horizon', () => {
    const cohort = { customers: 4, netSalesWithinMinor: { 30: 400_00, 60: 500_00, 90: 520_00, 180: 600_00, 365: 800_00 } };
    expect(ltv(cohort, 30)).toBe(100_00);
    expect(ltv(cohort, 90)).toBe(130_00);
    expect(ltv(cohort, 365)).toBe(200_00);
  });

  it('every ratio is null, never Infinity or NaN, when its denominator is zero or unknown', () => {
    expect(roas({ netSalesMinor: 100, adSpendMinor: 0 })).toBeNull();
    expect(attributedRoas({ attributedNetSalesMinor: 100, spendMinor: 0 })).toBeNull();
    expect(platformRoas({ conversionValueMinor: 100, spendMinor: 0 })).toBeNull();
    expect(cac({ spendMinor: 100, newCustomers: 0 })).toBeNull();
    expect(cac({ spendMinor: 0, newCustomers: 3 })).toBeNull();
    expect(mer({ totalRevenueMinor: 100, totalSpendMinor: 0 })).toBeNull();
    expect(aov({ netSalesMinor: 0, orders: 0 })).toBeNull();
    expect(ltv({ customers: 0, netSalesWithinMinor: { 30: 0, 60: 0, 90: 0, 180: 0, 365: 0 } }, 90)).toBeNull();
    expect(ratio(1, null)).toBeNull();
    expect(ratio(Number.NaN, 1)).toBeNull();
    expect(ratio(1, Number.POSITIVE_INFINITY)).toBeNull();
    expect(ratio(0, 5)).toBe(0);
  });
});

describe('delta', () => {
  it('gives the absolute and percent change', () => {
    expect(delta(150, 120)).toEqual({ absolute: 30, percent: 25 });
    expect(delta(90, 120)).toEqual({ absolute: -30, percent: -25 });
    expect(delta(-50, -100)).toEqual({ absolute: 50, percent: 50 });
  });

  it('has no percent when the previous value is 0 or unknown', () => {
    expect(delta(100, 0)).toEqual({ absolute: 100, percent: null });
    expect(delta(100, null)).toEqual({ absolute: null, percent: null });
    expect(delta(null, 100)).toEqual({ absolute: null, percent: null });
  });
});

describe('display helpers', () => {
  it('show "—" for undefined values', () => {
    expect(NO_VALUE).toBe('—');
    for (const format of [formatRatio, formatMultiple, formatPercentChange, formatMinorUnits]) {
      expect(format(null)).toBe('—');
      expect(format(undefined)).toBe('—');
      expect(format(Number.POSITIVE_INFINITY)).toBe('—');
      expect(format(Number.NaN)).toBe('—');
    }
    expect(formatRatio(roas({ netSalesMinor: 100, adSpendMinor: 0 }))).toBe('—');
  });

  it('format defined values', () => {
    expect(formatRatio(3.14159)).toBe('3.14');
    expect(formatMultiple(2.5)).toBe('2.50x');
    expect(formatPercentChange(12.345)).toBe('+12.3%');
    expect(formatPercentChange(-3)).toBe('-3.0%');
    expect(formatPercentChange(0.01)).toBe('0.0%');
    expect(formatMinorUnits(123456)).toBe('1234.56');
    expect(formatMinorUnits(-5)).toBe('-0.05');
  });
});
