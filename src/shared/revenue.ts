import { z } from 'zod';
import { kpisInput, kpiValueOutput } from './commerce.ts';

// /revenue: where net sales come from (channels, products, new vs returning customers) and what
// refunds take back. Same range, comparison and display currency as the dashboard KPIs.

export const revenueBreakdownInput = kpisInput;

export type RevenueBreakdownInput = z.input<typeof revenueBreakdownInput>;

/** Products listed one by one; the rest are summed into "others". */
export const TOP_PRODUCTS = 50;

const dayRange = z.object({ from: z.string(), to: z.string() });

const customerGroup = z.object({
  orders: z.number(),
  /** Net sales of the group's orders placed in the range, after their refunds (minor units). */
  netSales: z.number(),
  /** netSales / orders; null without orders. */
  aov: z.number().nullable(),
});

const productFigures = z.object({
  units: z.number(),
  /** Line value after line discounts (minor units); order-level discounts and refunds are not split over lines. */
  netSales: z.number(),
  /** Quantity x unit cost of the lines whose cost is known; null when none is. */
  cogs: z.number().nullable(),
  /** (net sales - COGS) / net sales of the lines whose cost is known, 0.25 = 25 %; null when none is. */
  margin: z.number().nullable(),
});

export const revenueBreakdownOutput = z.object({
  storeId: z.number(),
  /** Money is in minor units of this currency, each day converted at its own rate. */
  currency: z.string(),
  range: dayRange,
  previousRange: dayRange.nullable(),
  /** Orders count on their placed day; refunds on their refund day; net sales = gross - discounts - refunds. */
  kpis: z.object({
    gross: kpiValueOutput,
    discounts: kpiValueOutput,
    refunds: kpiValueOutput,
    netSales: kpiValueOutput,
    orders: kpiValueOutput,
  }),
  /** Every day of the range (zero when nothing happened). */
  series: z.array(z.object({ day: z.string(), gross: z.number(), discounts: z.number(), refunds: z.number(), netSales: z.number() })),
  /** By net sales, largest first; share of the range's net sales (0.4 = 40 %), null when that is 0. */
  channels: z.array(z.object({ channel: z.string(), netSales: z.number(), orders: z.number(), share: z.number().nullable() })),
  products: z.object({
    top: z.array(productFigures.extend({ productId: z.number().nullable(), title: z.string(), sku: z.string().nullable() })),
    /** Everything after the top TOP_PRODUCTS; null when there is nothing more. */
    others: productFigures.extend({ products: z.number() }).nullable(),
  }),
  customers: z.object({ new: customerGroup, returning: customerGroup }),
  refunds: z.object({
    /** Refunds made in the range (by refund day), of counting orders. */
    count: z.number(),
    amount: z.number(),
    /** refunds / gross sales of the range; null without gross sales. */
    rate: z.number().nullable(),
    reasons: z.array(z.object({ reason: z.string().nullable(), count: z.number(), amount: z.number() })),
  }),
});

export type RevenueBreakdownOutput = z.infer<typeof revenueBreakdownOutput>;
