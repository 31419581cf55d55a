import { z } from 'zod';
import { COMPARISONS, dayString } from './commerce.ts';
import { RANGE_PRESETS } from './date-ranges.ts';
import { aov, attributedRoas, cac, mer, roas, totalRevenue } from './metrics.ts';
import { currencySchema } from './stores.ts';

// Saved and ad-hoc reports: metrics x dimension x range x granularity. Every metric value comes from
// the sums below through src/shared/metrics.ts.

export const REPORT_METRICS = ['netSales', 'orders', 'aov', 'units', 'refunds', 'newCustomers', 'spend', 'clicks', 'impressions', 'conversions', 'roas', 'mer', 'cac'] as const;
export type ReportMetric = (typeof REPORT_METRICS)[number];

export type MetricFormat = 'money' | 'count' | 'ratio';
export const METRIC_FORMATS: Record<ReportMetric, MetricFormat> = {
  netSales: 'money',
  orders: 'count',
  aov: 'money',
  units: 'count',
  refunds: 'money',
  newCustomers: 'count',
  spend: 'money',
  clicks: 'count',
  impressions: 'count',
  conversions: 'count',
  roas: 'ratio',
  mer: 'ratio',
  cac: 'money',
};

export const TIME_DIMENSIONS = ['day', 'week', 'month'] as const;
export const REPORT_DIMENSIONS = [...TIME_DIMENSIONS, 'channel', 'platform', 'product', 'campaign', 'customer_type'] as const;
export type ReportDimension = (typeof REPORT_DIMENSIONS)[number];
export type TimeDimension = (typeof TIME_DIMENSIONS)[number];

export function isTimeDimension(dimension: string): dimension is TimeDimension {
  return (TIME_DIMENSIONS as readonly string[]).includes(dimension);
}

/**
 * What each dimension can be measured by (what its source rows hold); other metrics show "—".
 * Products: net value of their order lines on the order's day (refunds are not split by line).
 * Campaigns: what the ad and e-mail platforms report. Customer type: the orders of new vs returning customers.
 */
export const DIMENSION_METRICS: Record<ReportDimension, readonly ReportMetric[]> = {
  day: REPORT_METRICS,
  week: REPORT_METRICS,
  month: REPORT_METRICS,
  channel: ['netSales', 'orders', 'aov', 'newCustomers', 'spend', 'clicks', 'impressions', 'conversions', 'roas', 'cac'],
  platform: ['netSales', 'orders', 'aov', 'newCustomers', 'spend', 'clicks', 'impressions', 'conversions', 'roas', 'cac'],
  product: ['netSales', 'orders', 'aov', 'units'],
  campaign: ['spend', 'clicks', 'impressions', 'conversions'],
  customer_type: ['netSales', 'orders', 'aov', 'refunds'],
};

/** 'total': one row per dimension value; otherwise each value split by period (time dimensions are their own period). */
export const REPORT_GRANULARITIES = ['total', 'day', 'week', 'month'] as const;
export type ReportGranularity = (typeof REPORT_GRANULARITIES)[number];


/** E-mail schedules: daily (every day), weekly (Mondays), monthly (the 1st), at 08:00 in the store's time zone. */
export const REPORT_SCHEDULES = ['none', 'daily', 'weekly', 'monthly'] as const;
export type ReportSchedule = (typeof REPORT_SCHEDULES)[number];

export const MAX_REPORT_METRICS = 8;
export const MAX_REPORT_RECIPIENTS = 10;
export const MAX_REPORT_RANGE_DAYS = 800;
export const REPORT_NAME_MAX = 120;

function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

export const reportRange = z.union([
  z.object({ preset: z.enum(RANGE_PRESETS, { error: 'Unknown range preset' }) }),
  z
    .object({ from: dayString, to: dayString })
    .refine((range) => range.from <= range.to, { message: 'The start date must not be after the end date', path: ['from'] })
    .refine((range) => daysBetween(range.from, range.to) < MAX_REPORT_RANGE_DAYS, { message: `A range can span at most ${MAX_REPORT_RANGE_DAYS} days`, path: ['to'] }),
]);
export type ReportRange = z.infer<typeof reportRange>;

export const reportDefinition = z.object({
  metrics: z
    .array(z.enum(REPORT_METRICS, { error: 'Unknown metric' }), { error: 'Choose at least one metric' })
    .min(1, 'Choose at least one metric')
    .max(MAX_REPORT_METRICS, `Choose at most ${MAX_REPORT_METRICS} metrics`)
    .refine((metrics) => new Set(metrics).size === metrics.length, 'Each metric can be chosen once'),
  dimension: z.enum(REPORT_DIMENSIONS, { error: 'Unknown dimension' }),
  range: reportRange,
  granularity: z.enum(REPORT_GRANULARITIES, { error: 'Unknown granularity' }).default('total'),
  compare: z.enum(COMPARISONS).default('none'),
});
export type ReportDefinition = z.infer<typeof reportDefinition>;
export type ReportDefinitionInput = z.input<typeof reportDefinition>;

export const runReportInput = reportDefinition.extend({
  /** Display currency; defaults to the store's. */
  currency: currencySchema.optional(),
});

const metricValues = z.record(z.string(), z.number().nullable());

export const reportResult = z.object({
  currency: z.string(),
  range: z.object({ from: z.string(), to: z.string() }),
  previousRange: z.object({ from: z.string(), to: z.string() }).nullable(),
  dimension: z.enum(REPORT_DIMENSIONS),
  granularity: z.enum(REPORT_GRANULARITIES),
  metrics: z.array(z.enum(REPORT_METRICS)),
  /** Whether the rows carry a period besides the dimension value. */
  hasPeriod: z.boolean(),
  rows: z.array(
    z.object({
      /** Stable key of the dimension value (a day, a channel key, a product id...). */
      key: z.string(),
      /** Display label (for channels and platforms, the key: the client translates it). */
      label: z.string(),
      /** 'YYYY-MM-DD' (day, week start) or 'YYYY-MM' when hasPeriod. */
      period: z.string().nullable(),
      values: metricValues,
      previous: metricValues.nullable(),
    }),
  ),
  totals: z.object({ values: metricValues, previous: metricValues.nullable() }),
});
export type ReportResult = z.infer<typeof reportResult>;

/** Sums a report row is made of (money converted into the display currency, not yet rounded). */
export interface ReportSums {
  netSales: number;
  /** Net sales of the orders a marketing channel brought (channel and platform rows). */
  attributedNetSales: number;
  shipping: number;
  taxes: number;
  /** Spend of the advertising platforms only (blended ROAS); `spend` adds e-mail platforms. */
  adSpend: number;
  orders: number;
  units: number;
  refunds: number;
  newCustomers: number;
  spend: number;
  clicks: number;
  impressions: number;
  conversions: number;
}

export function emptySums(): ReportSums {
  return { netSales: 0, attributedNetSales: 0, shipping: 0, taxes: 0, adSpend: 0, orders: 0, units: 0, refunds: 0, newCustomers: 0, spend: 0, clicks: 0, impressions: 0, conversions: 0 };
}

function roundMoney(value: number | null): number | null {
  return value === null ? null : Math.sign(value) * Math.round(Math.abs(value));
}

/** A metric's value from a row's sums, through the one definition in metrics.ts; null where the dimension has no such data. */
export function reportMetricValue(metric: ReportMetric, sums: ReportSums, dimension: ReportDimension): number | null {
  if (!DIMENSION_METRICS[dimension].includes(metric)) return null;
  switch (metric) {
    case 'netSales':
      return roundMoney(sums.netSales);
    case 'orders':
      return sums.orders;
    case 'aov':
      return roundMoney(aov({ netSalesMinor: sums.netSales, orders: sums.orders }));
    case 'units':
      return sums.units;
    case 'refunds':
      return roundMoney(sums.refunds);
    case 'newCustomers':
      return sums.newCustomers;
    case 'spend':
      return roundMoney(sums.spend);
    case 'clicks':
      return sums.clicks;
    case 'impressions':
      return sums.impressions;
    case 'conversions':
      return Number(sums.conversions.toFixed(2));
    case 'roas':
      // A channel's own ROAS is attributed; over the whole store it is blended (metrics.ts).
      return dimension === 'channel' || dimension === 'platform'
        ? attributedRoas({ attributedNetSalesMinor: sums.attributedNetSales, spendMinor: sums.spend })
        : roas({ netSalesMinor: sums.netSales, adSpendMinor: sums.adSpend });
    case 'mer':
      return mer({ totalRevenueMinor: totalRevenue({ netSalesMinor: sums.netSales, shippingMinor: sums.shipping, taxesMinor: sums.taxes }), totalSpendMinor: sums.spend });
    case 'cac':
      return roundMoney(cac({ spendMinor: sums.spend, newCustomers: sums.newCustomers }));
  }
}

// Saved reports

const emailSchema = z.string().trim().toLowerCase().email('Enter valid e-mail addresses for the recipients');

const reportName = z
  .string({ error: 'Report name is required' })
  .trim()
  .min(1, 'Report name is required')
  .max(REPORT_NAME_MAX, `Report name must be at most ${REPORT_NAME_MAX} characters`);

export const saveReportInput = z.object({
  name: reportName,
  definition: reportDefinition,
  schedule: z.enum(REPORT_SCHEDULES, { error: 'Schedule must be none, daily, weekly or monthly' }).default('none'),
  recipients: z.array(emailSchema).max(MAX_REPORT_RECIPIENTS, `A report can be sent to at most ${MAX_REPORT_RECIPIENTS} recipients`).default([]),
}).refine((input) => input.schedule === 'none' || input.recipients.length > 0, {
  message: 'Add at least one recipient to schedule the report',
  path: ['recipients'],
});

const reportId = z.coerce.number({ error: 'Report id must be a number' }).int().positive('Report id must be a positive number');

/** Any of name, definition or schedule+recipients. */
export const updateReportInput = z
  .object({
    id: reportId,
    name: reportName.optional(),
    definition: reportDefinition.optional(),
    schedule: z.enum(REPORT_SCHEDULES, { error: 'Schedule must be none, daily, weekly or monthly' }).optional(),
    recipients: z.array(emailSchema).max(MAX_REPORT_RECIPIENTS, `A report can be sent to at most ${MAX_REPORT_RECIPIENTS} recipients`).optional(),
  });

export const reportIdInput = z.object({ id: reportId });

export const savedReportOutput = z.object({
  id: z.number(),
  name: z.string(),
  definition: reportDefinition,
  schedule: z.enum(REPORT_SCHEDULES),
  recipients: z.array(z.string()),
  lastSentAt: z.string().nullable(),
  createdBy: z.string().nullable(),
  updatedAt: z.string(),
});
export type SavedReport = z.infer<typeof savedReportOutput>;
