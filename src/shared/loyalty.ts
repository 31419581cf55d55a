import { z } from 'zod';

// Customer loyalty (README, "Customer loyalty"): RFM scores and segments, BG/NBD churn risk and
// expected orders, Gamma-Gamma predicted value, and the loyalty score that combines them. The rules
// and the score are defined here once; the loyalty job (server/modules/loyalty) computes them per
// customer, the procedures, GET /api/customers/loyalty and the screen read them.

export const LOYALTY_SEGMENTS = [
  'champions', 'loyal', 'potential_loyalists', 'new', 'cant_lose_them', 'at_risk', 'hibernating', 'lost',
] as const;
export type LoyaltySegment = (typeof LOYALTY_SEGMENTS)[number];
export const loyaltySegment = z.enum(LOYALTY_SEGMENTS);

export const LOYALTY_MODELS = ['bgnbd', 'rfm'] as const;
export type LoyaltyModel = (typeof LOYALTY_MODELS)[number];

/** Why a store is scored by RFM only. */
export const LOYALTY_FALLBACK_REASONS = ['too_few_customers', 'too_little_history', 'no_repeat_buyers', 'fit_failed'] as const;
export type LoyaltyFallbackReason = (typeof LOYALTY_FALLBACK_REASONS)[number];

/** The BG/NBD model needs at least this many customers and days of order history (Klaviyo asks 500 and 180). */
export const MIN_MODEL_CUSTOMERS = 200;
export const MIN_MODEL_HISTORY_DAYS = 90;
/** Churn risk at or above this makes a customer "at risk" (tiles, at-risk table). */
export const AT_RISK_CHURN = 0.5;
/** The window of the expected-orders figure and of the holdout. */
export const EXPECTED_ORDERS_DAYS = 90;
/** The window of the predicted value and of a one-time buyer's churn risk. */
export const PREDICTED_VALUE_DAYS = 365;
/** A customer with an order in this many days counts as active (tile). */
export const ACTIVE_CUSTOMER_DAYS = 365;

/** F score by order-count bands (quintiles of order counts are mostly ties at 1): 1, 2, 3, 4–5, 6+. */
export function frequencyScore(orders: number): number {
  if (orders <= 1) return 1;
  if (orders <= 3) return orders;
  if (orders <= 5) return 4;
  return 5;
}

/**
 * PostgreSQL's ntile(buckets) over values already in order: the first (n mod buckets) buckets hold
 * one row more. Returns the 1-based bucket of each position.
 */
export function ntile(count: number, buckets = 5): number[] {
  const out = new Array<number>(count);
  const small = Math.floor(count / buckets);
  const large = count % buckets;
  let position = 0;
  for (let bucket = 1; bucket <= buckets && position < count; bucket++) {
    const size = small + (bucket <= large ? 1 : 0);
    for (let i = 0; i < size; i++) out[position++] = bucket;
  }
  return out;
}

/**
 * The segment of an R and F score (1–5 each): every one of the 25 cells lands in exactly one segment.
 *   R≥4 & F≥4 Champions; R=3 & F≥4 Loyal; R≥3 & F 2–3 Potential loyalists; R≥4 & F=1 New;
 *   R≤2 & F≥4 Can't lose them; R≤2 & F 2–3 At risk; R 2–3 & F=1 Hibernating; R=1 & F=1 Lost.
 */
export function segmentOf(r: number, f: number): LoyaltySegment {
  if (f >= 4) return r >= 4 ? 'champions' : r === 3 ? 'loyal' : 'cant_lose_them';
  if (f >= 2) return r >= 3 ? 'potential_loyalists' : 'at_risk';
  if (r >= 4) return 'new';
  return r >= 2 ? 'hibernating' : 'lost';
}

/**
 * Percentile of each value within the list, 0–1, ties sharing their mid-rank: (values below +
 * (equal values − 1) / 2) / (n − 1); a single customer sits at 0.5.
 */
export function percentileRanks(values: readonly number[]): number[] {
  const n = values.length;
  if (n === 0) return [];
  if (n === 1) return [0.5];
  const order = values.map((_, i) => i).sort((a, b) => values[a]! - values[b]!);
  const out = new Array<number>(n);
  for (let start = 0; start < n; ) {
    let end = start;
    while (end + 1 < n && values[order[end + 1]!] === values[order[start]!]) end++;
    const rank = (start + end) / 2;
    for (let k = start; k <= end; k++) out[order[k]!] = rank / (n - 1);
    start = end + 1;
  }
  return out;
}

/**
 * THE loyalty score, 0–100. With the BG/NBD model: 100 × (0.5 × (1 − churn risk) + 0.5 × the
 * customer's percentile of predicted 12-month value in the store). In the RFM fallback: 100 × (R + F
 * + M − 3) / 12. Rounded to a whole number.
 */
export function loyaltyScore(input: { model: 'bgnbd'; churnRisk: number; valuePercentile: number } | { model: 'rfm'; r: number; f: number; m: number }): number {
  const raw = input.model === 'bgnbd'
    ? 100 * (0.5 * (1 - input.churnRisk) + 0.5 * input.valuePercentile)
    : (100 * (input.r + input.f + input.m - 3)) / 12;
  return Math.max(0, Math.min(100, Math.round(raw)));
}

/** The one-sentence explanation of the score, per model (i18n keys in the loyalty namespace; English here for the API). */
export const LOYALTY_SCORE_EXPLANATION: Record<LoyaltyModel, string> = {
  bgnbd: 'The loyalty score is half how likely the customer is to keep buying (1 − churn risk) and half how their predicted 12-month value ranks among the store’s customers, on a scale of 0 to 100.',
  rfm: 'The loyalty score adds the customer’s recency, frequency and spend scores (1 to 5 each) and rescales the sum to 0 to 100.',
};

// ---- procedures and REST ----

export const LOYALTY_SORTS = ['predicted_value', 'spent', 'churn_risk', 'loyalty_score', 'last_order', 'orders'] as const;
export type LoyaltySort = (typeof LOYALTY_SORTS)[number];
export const LOYALTY_PAGE_SIZE_MAX = 100;

export const loyaltyCustomersInput = z.object({
  segment: loyaltySegment.optional(),
  /** Only customers with churn risk ≥ 0.5 (in the RFM fallback: the segments At risk and Can't lose them). */
  atRisk: z.boolean().optional(),
  /** Part of the customer's platform id, or their full e-mail address (only its hash is stored). */
  search: z.string().trim().max(200).optional(),
  sort: z.enum(LOYALTY_SORTS).default('predicted_value'),
  direction: z.enum(['asc', 'desc']).default('desc'),
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(LOYALTY_PAGE_SIZE_MAX).default(25),
});
export type LoyaltyCustomersInput = z.input<typeof loyaltyCustomersInput>;

const loyaltyCustomerRow = z.object({
  id: z.number().int(),
  platform: z.string(),
  externalId: z.string(),
  /** The app keeps no customer names and only a hash of the e-mail: null until a connector stores them. */
  name: z.string().nullable(),
  email: z.string().nullable(),
  orders: z.number().int(),
  /** Net of refunds, in the store's currency, minor units. */
  spentMinor: z.number(),
  firstOrderAt: z.string(),
  lastOrderAt: z.string(),
  r: z.number().int(),
  f: z.number().int(),
  m: z.number().int(),
  segment: loyaltySegment,
  pAlive: z.number().nullable(),
  churnRisk: z.number().nullable(),
  expectedOrders90d: z.number().nullable(),
  predictedValue12mMinor: z.number().nullable(),
  loyaltyScore: z.number().int(),
});
export type LoyaltyCustomerRow = z.infer<typeof loyaltyCustomerRow>;

export const loyaltyModelInfo = z.object({
  model: z.enum(LOYALTY_MODELS),
  fallbackReason: z.enum(LOYALTY_FALLBACK_REASONS).nullable(),
  customers: z.number().int(),
  historyDays: z.number().int(),
  parameters: z.record(z.string(), z.number()).nullable(),
  /** Holdout: mean absolute error of the predicted repeat orders over 90 days, model and naive baseline (null when not measurable). */
  holdoutMae: z.number().nullable(),
  baselineMae: z.number().nullable(),
  holdoutCustomers: z.number().int().nullable(),
  fittedAt: z.string(),
});
export type LoyaltyModelInfo = z.infer<typeof loyaltyModelInfo>;

export const loyaltyCustomersOutput = z.object({
  currency: z.string(),
  model: loyaltyModelInfo.nullable(),
  customers: z.array(loyaltyCustomerRow),
  total: z.number().int(),
  page: z.number().int(),
  pageSize: z.number().int(),
});

export const loyaltySummaryOutput = z.object({
  currency: z.string(),
  /** null until the loyalty job has run for the store. */
  model: loyaltyModelInfo.nullable(),
  scoreExplanation: z.string(),
  activeCustomers: z.number().int(),
  customers: z.number().int(),
  /** Share of customers with two orders or more. */
  repeatRate: z.number().nullable(),
  /** Predicted 12-month value of the customers with churn risk ≥ 0.5 (null in the RFM fallback). */
  atRiskRevenueMinor: z.number().nullable(),
  atRiskCustomers: z.number().int(),
  segments: z.array(z.object({ segment: loyaltySegment, customers: z.number().int(), spentMinor: z.number(), predictedValue12mMinor: z.number().nullable() })),
  computedAt: z.string().nullable(),
});
export type LoyaltySummaryOutput = z.infer<typeof loyaltySummaryOutput>;

export const loyaltyCustomerOutput = z.object({
  currency: z.string(),
  model: loyaltyModelInfo.nullable(),
  customer: loyaltyCustomerRow.extend({ valuePercentile: z.number().nullable() }),
  /** The BG/NBD inputs, in days from the first order: repeat orders x, last order t_x, age T. */
  inputs: z.object({ repeatOrders: z.number().int(), recencyDays: z.number(), ageDays: z.number(), daysSinceLastOrder: z.number() }),
  scoreExplanation: z.string(),
  orders: z.array(z.object({
    id: z.number().int(), orderNumber: z.string().nullable(), placedAt: z.string(), placedDay: z.string(), status: z.string(), counts: z.boolean(),
    currency: z.string(), netSalesMinor: z.number(),
  })),
});

export const loyaltyRestInput = z.object({
  segment: loyaltySegment.optional(),
  sort: z.enum(LOYALTY_SORTS).default('predicted_value'),
  page: z.coerce.number().int().min(1).max(100_000).default(1),
});

export const loyaltyRestOutput = z.object({
  model: z.enum(LOYALTY_MODELS),
  customers: z.array(z.object({
    id: z.number().int(),
    name: z.string().nullable(),
    email: z.string().nullable(),
    orders: z.number().int(),
    spent: z.number(),
    lastOrderAt: z.string(),
    loyaltyScore: z.number().int(),
    churnRisk: z.number().nullable(),
    predictedValue: z.number().nullable(),
    segment: loyaltySegment,
  })),
  total: z.number().int(),
});

export const LOYALTY_CSV_HEADER = [
  'Customer ID', 'Platform', 'External ID', 'Name', 'E-mail', 'Orders', 'Spent', 'First order (UTC)', 'Last order (UTC)', 'R', 'F', 'M', 'Segment',
  'P(alive)', 'Churn risk', 'Expected orders (90 days)', 'Predicted value (12 months)', 'Loyalty score', 'Currency',
] as const;
