import { z } from 'zod';
import { COMPARISONS, dayString, kpisOutput, kpiValueOutput, MAX_RANGE_DAYS } from './commerce.ts';
import { rangeProblem } from './date-ranges.ts';
import { currencySchema, STORE_ROLES } from './stores.ts';

// --- dashboard.todayVsYesterday ---

export const todayVsYesterdayInput = z
  .object({
    /** Display currency; defaults to the store's. */
    currency: currencySchema.optional(),
  })
  .optional();

const dayFigures = z.object({
  /** 'YYYY-MM-DD' in the store's time zone */
  day: z.string(),
  /** Net sales (gross - discounts - refunds made in the window), minor units of `currency`. */
  netSales: z.number(),
  /** Counting orders placed in the window (not cancelled, not test). */
  orders: z.number(),
  /** The window's end (ISO instant): now for today, the same local time yesterday. */
  until: z.string(),
});

export const todayVsYesterdayOutput = z.object({
  storeId: z.number(),
  currency: z.string(),
  timezone: z.string(),
  /** The store's local time the comparison stops at, 'HH:MM'. */
  localTime: z.string(),
  today: dayFigures,
  yesterday: dayFigures,
  delta: z.object({ netSales: kpiValueOutput.shape.delta, orders: kpiValueOutput.shape.delta }),
});
export type TodayVsYesterdayOutput = z.infer<typeof todayVsYesterdayOutput>;

// --- dashboard.day ---

export const dayKpisInput = z.object({
  /** The day, 'YYYY-MM-DD' in the store's time zone. */
  day: dayString,
  /** The day it is compared with: the day before (previous_period) or the same date a year earlier. */
  compare: z.enum(COMPARISONS).default('previous_period'),
  currency: currencySchema.optional(),
});
export type DayKpisInput = z.input<typeof dayKpisInput>;

export const dayKpisOutput = z.object({
  storeId: z.number(),
  currency: z.string(),
  timezone: z.string(),
  day: z.string(),
  /** null without a comparison */
  compareDay: z.string().nullable(),
  /** When the day is today: the store's local time ('HH:MM') both days stop at; null for whole days. */
  localTime: z.string().nullable(),
  /** The instant the comparison day's figures stop at. */
  compareUntil: z.string().nullable(),
  /**
   * Platforms report spend and clicks per day: the share of the comparison day's spend and clicks
   * counted up to the same local time (1 for whole days).
   */
  compareShare: z.number(),
  /** The KPIs of the day (so far) against the comparison day (up to the same time). */
  kpis: kpisOutput.shape.kpis,
  /** The 24 local hours: net sales (minor units) and orders; null for hours still to come today. */
  hours: z.array(
    z.object({
      hour: z.number(),
      netSales: z.number().nullable(),
      orders: z.number().nullable(),
      previousNetSales: z.number().nullable(),
      previousOrders: z.number().nullable(),
    }),
  ),
});
export type DayKpisOutput = z.infer<typeof dayKpisOutput>;

// --- dashboard.allStores ---

export const allStoresInput = z
  .object({
    from: dayString,
    to: dayString,
    compare: z.enum(COMPARISONS).default('previous_period'),
    /** Display currency of every store and the total; defaults to the active store's. */
    currency: currencySchema.optional(),
  })
  .superRefine((input, context) => {
    const problem = rangeProblem(input.from, input.to);
    if (problem === 'startAfterEnd') context.addIssue({ code: 'custom', message: 'The start date must not be after the end date', path: ['from'] });
    if (problem === 'tooLong') context.addIssue({ code: 'custom', message: `A range can span at most ${MAX_RANGE_DAYS} days`, path: ['to'] });
  });
export type AllStoresInput = z.input<typeof allStoresInput>;

/** The KPIs of the multi-store table (money in minor units of the display currency), as commerce.kpis gives them. */
export const storeKpisOutput = kpisOutput.shape.kpis;

const dayRange = z.object({ from: z.string(), to: z.string() });

export const allStoresOutput = z.object({
  /** Every money figure is in minor units of this currency. */
  currency: z.string(),
  range: dayRange,
  previousRange: dayRange.nullable(),
  activeStoreId: z.number().nullable(),
  stores: z.array(
    z.object({
      storeId: z.number(),
      name: z.string(),
      /** The store's own currency (its figures are converted from it). */
      storeCurrency: z.string(),
      role: z.enum(STORE_ROLES),
      ownerUsername: z.string(),
      kpis: storeKpisOutput,
    }),
  ),
  /** Sums of money and counts over the stores; ratios recomputed from those sums. */
  total: storeKpisOutput,
});
export type AllStoresOutput = z.infer<typeof allStoresOutput>;
