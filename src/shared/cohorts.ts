import { z } from 'zod';
import { attributionWindow } from './attribution.ts';
import { csvCell } from './csv.ts';

// Acquisition cohorts (README, "Attribution: acquisition cohorts"): customers grouped by the source
// of their first counted order (its first touch, or its own landing source without a visit) and by
// the month of that order, with what they went on to spend. Shared by the procedure, GET
// /api/attribution/cohorts and the touchpoints screen.

/** Days after the first order at which a cohort's value per customer is read. */
export const COHORT_HORIZONS = [30, 90, 180, 365] as const;
export type CohortHorizon = (typeof COHORT_HORIZONS)[number];
/** Days within which a second order makes a customer a repeat customer. */
export const REPEAT_HORIZONS = [90, 365] as const;

export const COHORT_GROUPINGS = ['channel', 'campaign'] as const;
export type CohortGrouping = (typeof COHORT_GROUPINGS)[number];

/** The longest span of first-order months one request covers. */
export const MAX_COHORT_MONTHS = 36;

export const monthString = z
  .string()
  .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'Use a month like 2026-01');

/** Months from `from` to `to`, both 'YYYY-MM', inclusive. */
export function monthsBetween(from: string, to: string): number {
  const [fy, fm] = from.split('-').map(Number) as [number, number];
  const [ty, tm] = to.split('-').map(Number) as [number, number];
  return (ty - fy) * 12 + (tm - fm) + 1;
}

export const acquisitionCohortsInput = z
  .object({
    from: monthString,
    to: monthString,
    group: z.enum(COHORT_GROUPINGS, { error: () => 'group must be channel or campaign' }).default('channel'),
    window: attributionWindow.optional(),
    channel: z.string().min(1).max(32).optional(),
  })
  .superRefine((value, context) => {
    if (value.from > value.to) context.addIssue({ code: 'custom', path: ['from'], message: '"from" must not be after "to"' });
    else if (monthsBetween(value.from, value.to) > MAX_COHORT_MONTHS) context.addIssue({ code: 'custom', path: ['to'], message: `A request covers at most ${MAX_COHORT_MONTHS} months` });
  });
export type AcquisitionCohortsInput = z.input<typeof acquisitionCohortsInput>;

const horizonValues = z.object({ 30: z.number().nullable(), 90: z.number().nullable(), 180: z.number().nullable(), 365: z.number().nullable() });

const cohortFigures = {
  customers: z.number().int(),
  /** Net of refunds, minor units of the store's currency. */
  firstOrderRevenueMinor: z.number(),
  /** Revenue (net of refunds) per customer within N days of the first order; null: not every customer has had N days yet. */
  ltvMinor: horizonValues,
  /** Gross profit (revenue net of refunds minus the cost of costed lines) per customer; null as above, or when the store has no costs. */
  grossProfitMinor: horizonValues,
  /** Share of customers with a second order within 90 / 365 days; null until every customer has had that long. */
  repeatRate: z.object({ 90: z.number().nullable(), 365: z.number().nullable() }),
  /** The source's spend in the months (ad and e-mail platforms); null for a source with no spend data (organic, direct, referral). */
  spendMinor: z.number().nullable(),
  /** spend / customers; null without spend. */
  cacMinor: z.number().nullable(),
  /** The first horizon whose cumulative value per customer (gross profit when the store has costs, else revenue) covers CAC; null when none does yet. */
  paybackDays: z.number().int().nullable(),
  /** Whether payback can no longer come within 365 days (the 365-day horizon is reached and still short of CAC). */
  paybackBeyondYear: z.boolean(),
};

export const cohortRow = z.object(cohortFigures);

export const acquisitionCohortsOutput = z.object({
  currency: z.string(),
  group: z.enum(COHORT_GROUPINGS),
  window: z.number().int(),
  from: z.string(),
  to: z.string(),
  /** The store's day the horizons are measured against. */
  today: z.string(),
  /** What payback compares with CAC: gross profit when the store has product costs, else revenue. */
  paybackBasis: z.enum(['gross_profit', 'revenue']),
  /** False while the attribution job has not yet credited every order for this window (first orders not yet credited use their own landing source). */
  attributionComplete: z.boolean(),
  total: cohortRow,
  sources: z.array(
    z.object({
      channel: z.string(),
      /** '' when grouped by channel, or for orders without a campaign. */
      campaign: z.string(),
      ...cohortFigures,
      months: z.array(z.object({ month: z.string(), ...cohortFigures })),
    }),
  ),
});
export type AcquisitionCohortsOutput = z.infer<typeof acquisitionCohortsOutput>;
export type CohortSource = AcquisitionCohortsOutput['sources'][number];

/** GET /api/attribution/cohorts: decimals in the store's currency. */
const restHorizon = z.object({ '30': z.number().nullable(), '90': z.number().nullable(), '180': z.number().nullable(), '365': z.number().nullable() });
export const acquisitionCohortsRestInput = z
  .object({ from: monthString, to: monthString, group: z.enum(COHORT_GROUPINGS, { error: () => 'group must be channel or campaign' }).default('channel'), channel: z.string().min(1).max(32).optional() })
  .superRefine((value, context) => {
    if (value.from > value.to) context.addIssue({ code: 'custom', path: ['from'], message: '"from" must not be after "to"' });
    else if (monthsBetween(value.from, value.to) > MAX_COHORT_MONTHS) context.addIssue({ code: 'custom', path: ['to'], message: `A request covers at most ${MAX_COHORT_MONTHS} months` });
  });
const restFigures = {
  customers: z.number().int(),
  firstOrderRevenue: z.number(),
  ltv: restHorizon,
  repeatRate90: z.number().nullable(),
  repeatRate365: z.number().nullable(),
  spend: z.number().nullable(),
  cac: z.number().nullable(),
  paybackDays: z.number().int().nullable(),
};
export const acquisitionCohortsRestOutput = z.object({
  currency: z.string(),
  group: z.enum(COHORT_GROUPINGS),
  paybackBasis: z.enum(['gross_profit', 'revenue']),
  sources: z.array(z.object({ channel: z.string(), campaign: z.string(), ...restFigures, months: z.array(z.object({ month: z.string(), ...restFigures })) })),
});

/** The month ('YYYY-MM') `n` months before `month`. */
export function monthsBefore(month: string, n: number): string {
  const [year, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(year, m - 1 - n, 1)).toISOString().slice(0, 7);
}

/** The CSV the screen exports: one line per source and first-order month, then one per source (month "all"). Amounts in decimals. */
export const COHORT_CSV_COLUMNS = ['channel', 'campaign', 'month', 'customers', 'first_order_revenue', 'spend', 'cac', 'ltv_30', 'ltv_90', 'ltv_180', 'ltv_365', 'repeat_rate_90', 'repeat_rate_365', 'payback_days'] as const;

type Figures = z.infer<typeof cohortRow>;
const decimal = (minor: number | null) => (minor === null ? '' : (Math.round(minor) / 100).toFixed(2));
const rate = (value: number | null) => (value === null ? '' : value.toFixed(4));

function csvLine(channel: string, campaign: string, month: string, row: Figures): string {
  return [
    csvCell(channel), csvCell(campaign), month, String(row.customers), decimal(row.firstOrderRevenueMinor), decimal(row.spendMinor), decimal(row.cacMinor),
    ...COHORT_HORIZONS.map((h) => decimal(row.ltvMinor[h])), rate(row.repeatRate[90]), rate(row.repeatRate[365]), row.paybackDays === null ? '' : String(row.paybackDays),
  ].join(',');
}

export function cohortsCsv(report: AcquisitionCohortsOutput): string {
  const lines = [COHORT_CSV_COLUMNS.join(',')];
  for (const source of report.sources) {
    for (const month of source.months) lines.push(csvLine(source.channel, source.campaign, month.month, month));
    lines.push(csvLine(source.channel, source.campaign, 'all', source));
  }
  return `${lines.join('\n')}\n`;
}
