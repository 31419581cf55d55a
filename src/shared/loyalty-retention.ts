import { z } from 'zod';
import { monthString, monthsBetween } from './cohorts.ts';

// Cohort retention (issue 18, README "Customer loyalty: cohort retention"): customers grouped by the
// month of their first counted order, in the store's time zone, and for each month since then the
// share of the cohort who placed a counted order in it (month 0 = 100 %), with the cohort's net
// revenue per customer. Shared by the procedure loyalty.retention and the /customer-loyalty screen.

/** First-order months a request covers by default (the current month and the 11 before it). */
export const RETENTION_DEFAULT_MONTHS = 12;
/** The longest span of first-order months one request covers. */
export const RETENTION_MAX_MONTHS = 36;

export const loyaltyRetentionInput = z
  .object({
    /** First first-order month, 'YYYY-MM'; default: 11 months before `to`. */
    from: monthString.optional(),
    /** Last first-order month, 'YYYY-MM'; default: the store's current month. */
    to: monthString.optional(),
  })
  .superRefine((value, context) => {
    if (value.from === undefined || value.to === undefined) return;
    if (value.from > value.to) context.addIssue({ code: 'custom', path: ['from'], message: '"from" must not be after "to"' });
    else if (monthsBetween(value.from, value.to) > RETENTION_MAX_MONTHS) context.addIssue({ code: 'custom', path: ['to'], message: `A request covers at most ${RETENTION_MAX_MONTHS} months` });
  })
  .default({});
export type LoyaltyRetentionInput = z.input<typeof loyaltyRetentionInput>;

export const retentionCell = z.object({
  /** Whole calendar months after the cohort's month (0 = the month of the first order). */
  monthsSince: z.number().int().min(0),
  /** Customers of the cohort with a counted order in that month. */
  activeCustomers: z.number().int(),
  /** activeCustomers / the cohort's customers, 0..1 (4 decimals). */
  retention: z.number(),
  /** The cohort's net sales (after discounts and refunds) in that month per cohort customer, minor units of the store's currency. */
  revenuePerCustomerMinor: z.number(),
  /** The month is the store's current one, still under way. */
  partial: z.boolean(),
});
export type RetentionCell = z.infer<typeof retentionCell>;

export const retentionCohort = z.object({
  /** 'YYYY-MM' of the first counted order. */
  month: z.string(),
  customers: z.number().int(),
  /** Months 0 .. up to the store's current month; empty for a month without new customers. */
  cells: z.array(retentionCell),
});
export type RetentionCohort = z.infer<typeof retentionCohort>;

export const loyaltyRetentionOutput = z.object({
  currency: z.string(),
  timezone: z.string(),
  from: z.string(),
  to: z.string(),
  /** The store's current month, 'YYYY-MM'. */
  currentMonth: z.string(),
  cohorts: z.array(retentionCohort),
});
export type LoyaltyRetentionOutput = z.infer<typeof loyaltyRetentionOutput>;

