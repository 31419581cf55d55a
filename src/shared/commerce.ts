import { z } from 'zod';
import { AD_CHANNELS, EMAIL_CHANNELS, COMPARISONS, MAX_RANGE_DAYS } from './commerce-constants.ts';
import { currencySchema, storeIdSchema } from './stores.ts';

export * from './commerce-constants.ts';

/** A calendar day 'YYYY-MM-DD' (in the store's time zone when it buckets orders). */
export const dayString = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'Use a date like 2026-01-31')
  .refine((value) => {
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
  }, 'Not a valid date');


function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

export const kpisInput = z
  .object({
    from: dayString,
    to: dayString,
    compare: z.enum(COMPARISONS).default('previous_period'),
    /** Display currency; defaults to the store's. */
    currency: currencySchema.optional(),
    /** Another store the caller may see (multi-store views); defaults to the active store. */
    storeId: storeIdSchema.optional(),
  })
  .refine((input) => input.from <= input.to, { message: 'The start date must not be after the end date', path: ['from'] })
  .refine((input) => daysBetween(input.from, input.to) < MAX_RANGE_DAYS, { message: `A range can span at most ${MAX_RANGE_DAYS} days`, path: ['to'] });

export type KpisInput = z.input<typeof kpisInput>;

const deltaOutput = z.object({ absolute: z.number().nullable(), percent: z.number().nullable() });

export const kpiValueOutput = z.object({
  current: z.number().nullable(),
  previous: z.number().nullable(),
  delta: deltaOutput,
});

const dayRange = z.object({ from: z.string(), to: z.string() });

export const kpisOutput = z.object({
  storeId: z.number(),
  /** Money values are in minor units of this currency. */
  currency: z.string(),
  range: dayRange,
  previousRange: dayRange.nullable(),
  kpis: z.object({
    /** minor units */
    netSales: kpiValueOutput,
    /** ads + e-mail, minor units */
    spend: kpiValueOutput,
    clicks: kpiValueOutput,
    orders: kpiValueOutput,
    /** blended: net sales of every order / ad spend (advertising platforms only) */
    roas: kpiValueOutput,
    /** minor units per new customer */
    cac: kpiValueOutput,
    /** (net sales + shipping + taxes) / marketing spend (ads + e-mail) */
    mer: kpiValueOutput,
    /** minor units per order */
    aov: kpiValueOutput,
    /** 90-day LTV of the customers acquired in the range, minor units per customer */
    ltv: kpiValueOutput,
  }),
  /** One entry per day of the range (days without data are zero), for sparklines. */
  series: z.array(
    z.object({
      day: z.string(),
      netSales: z.number(),
      spend: z.number(),
      clicks: z.number(),
      orders: z.number(),
      newCustomers: z.number(),
      roas: z.number().nullable(),
      cac: z.number().nullable(),
      mer: z.number().nullable(),
      aov: z.number().nullable(),
    }),
  ),
  /** Marketing and unpaid channels of the range, by spend then net sales. */
  channels: z.array(
    z.object({
      channel: z.string(),
      spend: z.number(),
      netSales: z.number(),
      orders: z.number(),
      newCustomers: z.number(),
      impressions: z.number(),
      clicks: z.number(),
      platformConversions: z.number(),
      platformConversionValue: z.number(),
      /** attributed ROAS: net sales of the orders attributed to this channel / the channel's spend */
      roas: z.number().nullable(),
      /** the platform's own: its conversion value / spend */
      platformRoas: z.number().nullable(),
      cac: z.number().nullable(),
    }),
  ),
});

export type KpisOutput = z.infer<typeof kpisOutput>;

export const ltvCohortsInput = z.object({
  /** How many monthly cohorts, ending with the current month. */
  months: z.number().int().min(1).max(36).default(12),
  currency: currencySchema.optional(),
  storeId: storeIdSchema.optional(),
});

export const ltvCohortsOutput = z.object({
  storeId: z.number(),
  currency: z.string(),
  cohorts: z.array(
    z.object({
      /** 'YYYY-MM' */
      month: z.string(),
      customers: z.number(),
      /** horizon in days -> average net sales per customer (minor units), null without customers */
      ltv: z.record(z.string(), z.number().nullable()),
      /** horizon -> whether every customer of the cohort has been a customer that long */
      complete: z.record(z.string(), z.boolean()),
    }),
  ),
});

export type LtvCohortsOutput = z.infer<typeof ltvCohortsOutput>;

export const dataStatusInput = z
  .object({
    /** Another store the caller may see; defaults to the active store. */
    storeId: storeIdSchema.optional(),
  })
  .optional();

/** Whether a store has commerce data yet, read from the rollups (cheap at any size). */
export const dataStatusOutput = z.object({
  storeId: z.number(),
  /** Any counting order, or any ad or e-mail metrics. */
  hasData: z.boolean(),
  /** Counting orders (not cancelled, not test) over all time. */
  orders: z.number(),
  /** First and last store day with data, 'YYYY-MM-DD'. */
  firstDay: z.string().nullable(),
  lastDay: z.string().nullable(),
  /** Advertising platforms (AD_CHANNELS) that reported spend, clicks or impressions. */
  adPlatforms: z.array(z.string()),
  /** E-mail platforms (EMAIL_CHANNELS) that reported metrics. */
  emailPlatforms: z.array(z.string()),
});

export type DataStatusOutput = z.infer<typeof dataStatusOutput>;
