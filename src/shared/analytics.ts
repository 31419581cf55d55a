import { z } from 'zod';
import { dayString, KPI_KEYS, kpisInput, MAX_RANGE_DAYS } from './commerce.ts';
import { currencySchema, storeIdSchema } from './stores.ts';

export const GRANULARITIES = ['day', 'week', 'month'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

/** KPIs whose value splits into channels that add up to it (ratios and per-customer values do not). */
export const KPIS_WITH_CHANNEL_BREAKDOWN = ['netSales', 'spend', 'clicks', 'orders'] as const;

export const trendInput = kpisInput.safeExtend({
  kpi: z.enum(KPI_KEYS, { error: 'Unknown KPI' }),
  granularity: z.enum(GRANULARITIES, { error: 'Granularity must be day, week or month' }).default('day'),
});
export type TrendInput = z.input<typeof trendInput>;

const dayRange = z.object({ from: z.string(), to: z.string() });
const nullableNumber = z.number().nullable();

export const trendOutput = z.object({
  storeId: z.number(),
  /** Money KPIs are in minor units of this currency. */
  currency: z.string(),
  kpi: z.enum(KPI_KEYS),
  granularity: z.enum(GRANULARITIES),
  range: dayRange,
  previousRange: dayRange.nullable(),
  /** The KPI over the whole range and the comparison range. */
  total: z.object({ current: nullableNumber, previous: nullableNumber, delta: z.object({ absolute: nullableNumber, percent: nullableNumber }) }),
  /**
   * One point per day, week (Monday to Sunday) or calendar month of the range, clipped to it; the
   * comparison range is cut the same way and its buckets are aligned by position (null where it has fewer).
   */
  points: z.array(
    z.object({
      from: z.string(),
      to: z.string(),
      value: nullableNumber,
      previousFrom: z.string().nullable(),
      previousTo: z.string().nullable(),
      previousValue: nullableNumber,
    }),
  ),
  /** For netSales, spend, clicks and orders: the KPI per channel and bucket (aligned with points); null otherwise. */
  breakdown: z
    .array(z.object({ channel: z.string(), total: z.number(), values: z.array(z.number()) }))
    .nullable(),
});
export type TrendOutput = z.infer<typeof trendOutput>;

export const distributionInput = z
  .object({
    from: dayString,
    to: dayString,
    currency: currencySchema.optional(),
    storeId: storeIdSchema.optional(),
  })
  .refine((input) => input.from <= input.to, { message: 'The start date must not be after the end date', path: ['from'] })
  .refine((input) => Date.parse(`${input.to}T00:00:00Z`) - Date.parse(`${input.from}T00:00:00Z`) < MAX_RANGE_DAYS * 86_400_000, {
    message: `A range can span at most ${MAX_RANGE_DAYS} days`,
    path: ['to'],
  });
export type DistributionInput = z.input<typeof distributionInput>;

/** Campaign ROAS buckets of the histogram: [from, to) in ROAS, the last open-ended; campaigns without spend apart. */
export const ROAS_BUCKETS = [
  { key: '0-0.5', from: 0, to: 0.5 },
  { key: '0.5-1', from: 0.5, to: 1 },
  { key: '1-2', from: 1, to: 2 },
  { key: '2-3', from: 2, to: 3 },
  { key: '3-5', from: 3, to: 5 },
  { key: '5+', from: 5, to: null },
] as const;
export const NO_SPEND_BUCKET = 'no_spend';

/** Points of a Pareto chart beyond this many are summed into one "others" point. */
export const PARETO_MAX_POINTS = 50;

const paretoPoint = z.object({
  key: z.string(),
  label: z.string(),
  /** minor units */
  value: z.number(),
  /** this item's share of the total, 0..1 */
  share: z.number(),
  /** share of the total of this item and every larger one, 0..1 */
  cumulativeShare: z.number(),
  /** how many items the point stands for (1, or the rest for the "others" point) */
  items: z.number(),
});

const topShare = z.object({
  /** the top 10 % of items, at least one: ceil(count / 10) */
  count: z.number(),
  /** their share of the total, 0..1; null when the total is 0 */
  share: nullableNumber,
});

const pareto = z.object({
  /** items with a value, largest first */
  count: z.number(),
  total: z.number(),
  points: z.array(paretoPoint),
  top10: topShare,
});

export const distributionOutput = z.object({
  storeId: z.number(),
  currency: z.string(),
  range: dayRange,
  campaigns: z.object({
    /** Every campaign of every ad platform with data in the range. */
    count: z.number(),
    totalSpend: z.number(),
    /** Platform-reported conversion value. */
    totalRevenue: z.number(),
    /** Pareto of platform-reported revenue (conversion value) across campaigns. */
    revenue: pareto,
    /** Pareto of spend across campaigns. */
    spend: pareto,
    /** Campaigns by platform ROAS bucket, and what they spent. */
    roasHistogram: z.array(z.object({ bucket: z.string(), campaigns: z.number(), spend: z.number() })),
  }),
  products: z.object({
    /** Net line sales (quantity x price - line discounts) of counting orders placed in the range, by product. */
    revenue: pareto,
  }),
});
export type DistributionOutput = z.infer<typeof distributionOutput>;
export type ParetoPoint = z.infer<typeof paretoPoint>;
