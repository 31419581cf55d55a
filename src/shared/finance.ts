import { z } from 'zod';
import { dayString, EXPENSE_RECURRENCES, type ExpenseRecurrence } from './commerce.ts';
import { ratio, totalRevenue } from './metrics.ts';
import { currencySchema } from './stores.ts';

// The profit-and-loss statement: one definition of each line (README, "Metrics" > "Profit and loss"),
// pure functions over one month's totals in the display currency, used by the server (statement,
// CSV) and the client (labels, order of lines).

export const MAX_STATEMENT_MONTHS = 24;

/** A calendar month 'YYYY-MM'. */
export const monthString = z
  .string()
  .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'Use a month like 2026-01');

function monthIndex(month: string): number {
  const [year, m] = month.split('-').map(Number) as [number, number];
  return year * 12 + m - 1;
}

/** Number of months from `from` to `to`, both included. */
export function monthsInRange(from: string, to: string): number {
  return monthIndex(to) - monthIndex(from) + 1;
}

/** 'YYYY-MM' + n months. */
export function addMonthsTo(month: string, count: number): string {
  const index = monthIndex(month) + count;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
}

/** Every month from `from` to `to`, both included. */
export function monthList(from: string, to: string): string[] {
  return Array.from({ length: Math.max(0, monthsInRange(from, to)) }, (_, i) => addMonthsTo(from, i));
}

export const statementInput = z
  .object({
    from: monthString,
    to: monthString,
    /** Display currency; defaults to the store's. */
    currency: currencySchema.optional(),
  })
  .refine((input) => input.from <= input.to, { message: 'The first month must not be after the last month', path: ['from'] })
  .refine((input) => monthsInRange(input.from, input.to) <= MAX_STATEMENT_MONTHS, {
    message: `A statement can cover at most ${MAX_STATEMENT_MONTHS} months`,
    path: ['to'],
  });

export type StatementInput = z.input<typeof statementInput>;

/** One month's totals, every amount already converted into the display currency (minor units, unrounded). */
export interface PnlMonthTotals {
  netSales: number;
  /** Quantity x unit cost of the lines whose cost is known. */
  knownCogs: number;
  /** Net value of the lines whose cost is unknown. */
  uncostedSales: number;
  orders: number;
  /** What customers paid for shipping, and the taxes on their orders (both outside net sales). */
  shippingCharged: number;
  taxes: number;
  /** Ad spend per advertising platform. */
  adSpend: Record<string, number>;
  emailSpend: number;
  customExpenses: number;
}

/** The store's cost settings, fixed amounts converted into the display currency. */
export interface PnlCostRates {
  paymentFeePercentBasisPoints: number;
  paymentFeeFixed: number;
  shippingCostPerOrder: number;
  /** Percent of the net value of lines without a cost; null: such lines cost nothing we know of. */
  defaultCogsPercent: number | null;
}

/** COGS = known line costs + default COGS % x net value of the lines without a cost (when a default is set). */
export function costOfGoods(totals: Pick<PnlMonthTotals, 'knownCogs' | 'uncostedSales'>, rates: Pick<PnlCostRates, 'defaultCogsPercent'>): number {
  const estimated = rates.defaultCogsPercent === null ? 0 : (totals.uncostedSales * rates.defaultCogsPercent) / 100;
  return totals.knownCogs + estimated;
}

/** Shipping costs = the store's shipping cost per order x orders. */
export function shippingCosts(totals: Pick<PnlMonthTotals, 'orders'>, rates: Pick<PnlCostRates, 'shippingCostPerOrder'>): number {
  return rates.shippingCostPerOrder * totals.orders;
}

/** Payment fees = fee % x what customers paid (net sales + shipping + taxes) + fixed fee x orders. */
export function paymentFees(
  totals: Pick<PnlMonthTotals, 'netSales' | 'shippingCharged' | 'taxes' | 'orders'>,
  rates: Pick<PnlCostRates, 'paymentFeePercentBasisPoints' | 'paymentFeeFixed'>,
): number {
  const charged = totalRevenue({ netSalesMinor: totals.netSales, shippingMinor: totals.shippingCharged, taxesMinor: totals.taxes });
  return (charged * rates.paymentFeePercentBasisPoints) / 10_000 + rates.paymentFeeFixed * totals.orders;
}

export function roundMinorUnits(value: number): number {
  return Math.sign(value) * Math.round(Math.abs(value));
}

/** One column of the statement, money in whole minor units. */
export interface PnlColumn {
  netSales: number;
  cogs: number;
  /** net sales - COGS */
  grossProfit: number;
  shippingCosts: number;
  paymentFees: number;
  adSpend: Record<string, number>;
  emailSpend: number;
  /** gross profit - shipping costs - payment fees - marketing (ads + e-mail) */
  contributionMargin: number;
  customExpenses: number;
  /** contribution margin - custom expenses */
  netProfit: number;
  /** net profit / net sales x 100; null without sales */
  marginPercent: number | null;
}

/**
 * The derived lines from rounded components: every subtotal equals the sum of the lines shown above
 * it, in every column and in the totals column.
 */
export function derivePnlColumn(parts: Pick<PnlColumn, 'netSales' | 'cogs' | 'shippingCosts' | 'paymentFees' | 'adSpend' | 'emailSpend' | 'customExpenses'>): PnlColumn {
  const grossProfit = parts.netSales - parts.cogs;
  const marketing = Object.values(parts.adSpend).reduce((sum, value) => sum + value, 0) + parts.emailSpend;
  const contributionMargin = grossProfit - parts.shippingCosts - parts.paymentFees - marketing;
  const netProfit = contributionMargin - parts.customExpenses;
  const margin = ratio(netProfit, parts.netSales);
  return { ...parts, grossProfit, contributionMargin, netProfit, marginPercent: margin === null ? null : margin * 100 };
}

/** One month of the statement from its totals and the cost settings. */
export function pnlColumn(totals: PnlMonthTotals, rates: PnlCostRates): PnlColumn {
  return derivePnlColumn({
    netSales: roundMinorUnits(totals.netSales),
    cogs: roundMinorUnits(costOfGoods(totals, rates)),
    shippingCosts: roundMinorUnits(shippingCosts(totals, rates)),
    paymentFees: roundMinorUnits(paymentFees(totals, rates)),
    adSpend: Object.fromEntries(Object.entries(totals.adSpend).map(([platform, value]) => [platform, roundMinorUnits(value)])),
    emailSpend: roundMinorUnits(totals.emailSpend),
    customExpenses: roundMinorUnits(totals.customExpenses),
  });
}

/** The totals column: the sum of the months' lines (margin % recomputed from the sums). */
export function sumPnlColumns(columns: PnlColumn[], adPlatforms: readonly string[]): PnlColumn {
  const sum = (pick: (column: PnlColumn) => number) => columns.reduce((total, column) => total + pick(column), 0);
  return derivePnlColumn({
    netSales: sum((c) => c.netSales),
    cogs: sum((c) => c.cogs),
    shippingCosts: sum((c) => c.shippingCosts),
    paymentFees: sum((c) => c.paymentFees),
    adSpend: Object.fromEntries(adPlatforms.map((platform) => [platform, sum((c) => c.adSpend[platform] ?? 0)])),
    emailSpend: sum((c) => c.emailSpend),
    customExpenses: sum((c) => c.customExpenses),
  });
}

export interface ExpenseSchedule {
  amountMinor: number;
  recurrence: ExpenseRecurrence;
  startsOn: string;
  endsOn: string | null;
}

/**
 * What an expense costs in a month, in its own currency: a monthly one every month from its start
 * month to its end month (both included), a one-off in the month of its date.
 */
export function expenseInMonth(expense: ExpenseSchedule, month: string): number {
  const startMonth = expense.startsOn.slice(0, 7);
  if (expense.recurrence === 'one_off') return startMonth === month ? expense.amountMinor : 0;
  if (month < startMonth) return 0;
  if (expense.endsOn !== null && month > expense.endsOn.slice(0, 7)) return 0;
  return expense.amountMinor;
}

const pnlColumnOutput = z.object({
  netSales: z.number(),
  cogs: z.number(),
  grossProfit: z.number(),
  shippingCosts: z.number(),
  paymentFees: z.number(),
  adSpend: z.record(z.string(), z.number()),
  emailSpend: z.number(),
  contributionMargin: z.number(),
  customExpenses: z.number(),
  netProfit: z.number(),
  marginPercent: z.number().nullable(),
});

export const statementOutput = z.object({
  /** Money in minor units of this currency. */
  currency: z.string(),
  from: z.string(),
  to: z.string(),
  /** Platforms with an ad spend row (those with spend in the range). */
  adPlatforms: z.array(z.string()),
  months: z.array(z.object({ month: z.string(), column: pnlColumnOutput })),
  total: pnlColumnOutput,
});
export type StatementOutput = z.infer<typeof statementOutput>;

// Expenses

export const EXPENSE_NAME_MAX = 120;
export const EXPENSE_CATEGORY_MAX = 64;
/** 100 million in major units: far above any plausible monthly cost, well below bigint limits. */
export const EXPENSE_AMOUNT_MAX_MINOR = 10_000_000_000;

const expenseFields = {
  name: z
    .string({ error: 'Name is required' })
    .trim()
    .min(1, 'Name is required')
    .max(EXPENSE_NAME_MAX, `Name must be at most ${EXPENSE_NAME_MAX} characters`),
  category: z
    .string({ error: 'Category is required' })
    .trim()
    .min(1, 'Category is required')
    .max(EXPENSE_CATEGORY_MAX, `Category must be at most ${EXPENSE_CATEGORY_MAX} characters`),
  amountMinor: z
    .number({ error: 'Amount must be a number' })
    .int('Amount must be in whole minor units (cents)')
    .positive('Amount must be more than 0')
    .max(EXPENSE_AMOUNT_MAX_MINOR, 'Amount is too large'),
  currency: currencySchema,
  recurrence: z.enum(EXPENSE_RECURRENCES, { error: 'Recurrence must be monthly or one_off' }),
  startsOn: dayString,
  endsOn: dayString.nullable().default(null),
};

const END_BEFORE_START = { message: 'The end date must not be before the start date', path: ['endsOn'] };
const endAfterStart = (input: { startsOn: string; endsOn: string | null }) => input.endsOn === null || input.endsOn >= input.startsOn;

export const createExpenseInput = z.object(expenseFields).refine(endAfterStart, END_BEFORE_START);
export const updateExpenseInput = z
  .object({ id: z.coerce.number().int().positive('Expense id must be a positive number'), ...expenseFields })
  .refine(endAfterStart, END_BEFORE_START);
export const expenseIdInput = z.object({ id: z.coerce.number().int().positive('Expense id must be a positive number') });

export const expenseOutput = z.object({
  id: z.number(),
  name: z.string(),
  category: z.string(),
  amountMinor: z.number(),
  currency: z.string(),
  recurrence: z.enum(EXPENSE_RECURRENCES),
  startsOn: z.string(),
  endsOn: z.string().nullable(),
});
export type Expense = z.infer<typeof expenseOutput>;

// Cost settings

export const costSettingsSchema = z.object({
  /** 290 = 2.9 % */
  paymentFeePercentBasisPoints: z
    .number({ error: 'Payment fee % must be a number' })
    .int('Payment fee % can have at most two decimals')
    .min(0, 'Payment fee % must not be negative')
    .max(10_000, 'Payment fee % must be at most 100'),
  paymentFeeFixedMinor: z
    .number({ error: 'Fixed fee must be a number' })
    .int('Fixed fee must be in whole minor units (cents)')
    .min(0, 'Fixed fee must not be negative')
    .max(100_000, 'Fixed fee is too large'),
  shippingCostPerOrderMinor: z
    .number({ error: 'Shipping cost must be a number' })
    .int('Shipping cost must be in whole minor units (cents)')
    .min(0, 'Shipping cost must not be negative')
    .max(10_000_000, 'Shipping cost is too large'),
  defaultCogsPercent: z
    .number({ error: 'Default COGS % must be a number' })
    .min(0, 'Default COGS % must not be negative')
    .max(100, 'Default COGS % must be at most 100')
    .multipleOf(0.01, 'Default COGS % can have at most two decimals')
    .nullable(),
});
export type CostSettings = z.infer<typeof costSettingsSchema>;

export const costSettingsOutput = costSettingsSchema.extend({
  /** Fixed amounts are in this currency (the store's). */
  currency: z.string(),
});

// Products and their COGS

export const PRODUCTS_PAGE_SIZE_MAX = 100;

export const productsListInput = z.object({
  page: z.number().int().min(1).default(1),
  pageSize: z.number().int().min(1).max(PRODUCTS_PAGE_SIZE_MAX).default(20),
  /** Part of the title or SKU, case-insensitive. */
  search: z.string().trim().max(200, 'Search is too long').optional(),
});

export const productCostRow = z.object({
  id: z.number(),
  title: z.string(),
  sku: z.string().nullable(),
  priceMinor: z.number(),
  currency: z.string(),
  unitCostMinor: z.number().nullable(),
  imageUrl: z.string().nullable(),
  /** Units sold in the last 30 days (orders that count). */
  unitsSold30d: z.number(),
  /** Net line value of those units in the store's currency. */
  netSales30d: z.number(),
});

export const productsListOutput = z.object({
  items: z.array(productCostRow),
  total: z.number(),
  page: z.number(),
  pageSize: z.number(),
  /** Currency of netSales30d. */
  currency: z.string(),
});
export type ProductCostRow = z.infer<typeof productCostRow>;

export const updateProductCostInput = z.object({
  productId: z.coerce.number().int().positive('Product id must be a positive number'),
  unitCostMinor: z
    .number({ error: 'Unit cost must be a number' })
    .int('Unit cost must be in whole minor units (cents)')
    .min(0, 'Unit cost must not be negative')
    .max(1_000_000_000, 'Unit cost is too large')
    .nullable(),
  /** Also re-cost the lines of orders already placed (in the product's currency). */
  applyToPastOrders: z.boolean().default(true),
});

export const updateProductCostOutput = z.object({
  product: productCostRow.pick({ id: true, title: true, sku: true, currency: true, unitCostMinor: true }),
  /** Order lines whose cost snapshot changed. */
  updatedLines: z.number(),
  /** Units of those lines in orders that count (not cancelled, not test): COGS moved by units x the cost change. */
  updatedUnits: z.number(),
});
