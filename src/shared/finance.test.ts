import { describe, expect, it } from 'vitest';
import { costOfGoods, expenseInMonth, monthList, paymentFees, pnlColumn, shippingCosts, statementInput, sumPnlColumns } from './finance.ts';

const rates = { paymentFeePercentBasisPoints: 290, paymentFeeFixed: 30, shippingCostPerOrder: 400, defaultCogsPercent: 50 };

describe('P&L line formulas', () => {
  it('COGS adds the default % of uncosted sales only when a default is set', () => {
    expect(costOfGoods({ knownCogs: 1_600, uncostedSales: 1_000 }, { defaultCogsPercent: 50 })).toBe(2_100);
    expect(costOfGoods({ knownCogs: 1_600, uncostedSales: 1_000 }, { defaultCogsPercent: null })).toBe(1_600);
  });

  it('payment fees: % of net sales + shipping + taxes, plus the fixed fee per order; shipping costs per order', () => {
    expect(paymentFees({ netSales: 10_000, shippingCharged: 500, taxes: 2_000, orders: 3 }, rates)).toBeCloseTo(362.5 + 90);
    expect(shippingCosts({ orders: 3 }, rates)).toBe(1_200);
  });

  it('a column: subtotals from rounded lines; margin % null without sales', () => {
    const column = pnlColumn(
      { netSales: 10_000.4, knownCogs: 3_000, uncostedSales: 0, orders: 2, shippingCharged: 0, taxes: 0, adSpend: { googleads: 1_000.6 }, emailSpend: 100, customExpenses: 500 },
      rates,
    );
    expect(column).toEqual({
      netSales: 10_000,
      cogs: 3_000,
      grossProfit: 7_000,
      shippingCosts: 800,
      paymentFees: 350, // 290.0116 + 60, rounded once
      adSpend: { googleads: 1_001 },
      emailSpend: 100,
      contributionMargin: 4_749,
      customExpenses: 500,
      netProfit: 4_249,
      marginPercent: 42.49,
    });
    const empty = pnlColumn({ netSales: 0, knownCogs: 0, uncostedSales: 0, orders: 0, shippingCharged: 0, taxes: 0, adSpend: {}, emailSpend: 0, customExpenses: 300 }, rates);
    expect(empty).toMatchObject({ netProfit: -300, marginPercent: null });
    const total = sumPnlColumns([column, empty], ['googleads', 'metaads']);
    expect(total).toMatchObject({ netSales: 10_000, netProfit: 3_949, adSpend: { googleads: 1_001, metaads: 0 } });
    expect(total.marginPercent).toBeCloseTo(39.49, 10);
  });

  it('expenses: monthly from the start month through the end month, one-offs in their month', () => {
    const monthly = { amountMinor: 100, recurrence: 'monthly' as const, startsOn: '2026-02-15', endsOn: '2026-04-01' };
    expect(['2026-01', '2026-02', '2026-03', '2026-04', '2026-05'].map((m) => expenseInMonth(monthly, m))).toEqual([0, 100, 100, 100, 0]);
    expect(expenseInMonth({ ...monthly, endsOn: null }, '2030-01')).toBe(100);
    const once = { amountMinor: 70, recurrence: 'one_off' as const, startsOn: '2026-03-31', endsOn: null };
    expect(['2026-02', '2026-03', '2026-04'].map((m) => expenseInMonth(once, m))).toEqual([0, 70, 0]);
  });

  it('month ranges: across a year end, at most 24 months', () => {
    expect(monthList('2025-11', '2026-02')).toEqual(['2025-11', '2025-12', '2026-01', '2026-02']);
    expect(statementInput.safeParse({ from: '2024-01', to: '2025-12' }).success).toBe(true);
    expect(statementInput.safeParse({ from: '2024-01', to: '2026-01' }).success).toBe(false);
  });
});
