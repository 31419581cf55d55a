// The one definition of every metric StorePulse shows (README, "Metrics"). Pure functions over
// totals, shared by the server (KPIs, reports) and the client (display). Money is in minor units of
// one currency; a ratio whose denominator is zero or unknown is null ("no value"), never Infinity or NaN.

/** What the UI shows for a value that is not defined (no spend, no orders, no previous period). */
export const NO_VALUE = '—';

type Maybe = number | null | undefined;

function known(value: Maybe): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** numerator / denominator, or null when either is unknown or the denominator is 0. */
export function ratio(numerator: Maybe, denominator: Maybe): number | null {
  if (!known(numerator) || !known(denominator) || denominator === 0) return null;
  const value = numerator / denominator;
  return Number.isFinite(value) ? value : null;
}

/** Net sales = gross sales - discounts - refunds (tax and shipping are not sales). */
export function netSales(totals: { grossMinor: number; discountsMinor: number; refundsMinor: number }): number {
  return totals.grossMinor - totals.discountsMinor - totals.refundsMinor;
}

/**
 * ROAS (blended) = net sales of every order of the store, whatever its channel / ad spend of the
 * advertising platforms (AD_CHANNELS; e-mail sending costs are not ad spend). Blended, because ad
 * platforms also drive orders they cannot claim (a click today, a direct visit and purchase later).
 */
export function roas(totals: { netSalesMinor: number; adSpendMinor: number }): number | null {
  return ratio(totals.netSalesMinor, totals.adSpendMinor);
}

/** Attributed ROAS of one channel = net sales of the orders attributed to that channel / its spend. */
export function attributedRoas(totals: { attributedNetSalesMinor: number; spendMinor: number }): number | null {
  return ratio(totals.attributedNetSalesMinor, totals.spendMinor);
}

/** The platform's own ROAS = conversion value it reports / spend (beside ours, never instead of it). */
export function platformRoas(totals: { conversionValueMinor: number; spendMinor: number }): number | null {
  return ratio(totals.conversionValueMinor, totals.spendMinor);
}

/**
 * CAC = marketing spend / new customers (minor units per customer). Without spend it is undefined,
 * not 0: a store whose ad accounts are not connected would otherwise acquire customers for free.
 */
export function cac(totals: { spendMinor: number; newCustomers: number }): number | null {
  if (!known(totals.spendMinor) || totals.spendMinor === 0) return null;
  return ratio(totals.spendMinor, totals.newCustomers);
}

/** Total revenue = net sales + shipping + taxes charged, of every counting order (what customers paid, after refunds). */
export function totalRevenue(totals: { netSalesMinor: number; shippingMinor: number; taxesMinor: number }): number {
  return totals.netSalesMinor + totals.shippingMinor + totals.taxesMinor;
}

/** MER = total revenue (see totalRevenue; every order, every channel) / total marketing spend (ads + e-mail). */
export function mer(totals: { totalRevenueMinor: number; totalSpendMinor: number }): number | null {
  return ratio(totals.totalRevenueMinor, totals.totalSpendMinor);
}

/** AOV = net sales / orders (minor units per order). */
export function aov(totals: { netSalesMinor: number; orders: number }): number | null {
  return ratio(totals.netSalesMinor, totals.orders);
}

export const LTV_HORIZONS = [30, 60, 90, 180, 365] as const;
export type LtvHorizon = (typeof LTV_HORIZONS)[number];

/**
 * A cohort: customers whose first order falls in one period (a month, or the KPI range), and the
 * net sales of all their orders placed within N days of each one's first order.
 */
export interface LtvCohort {
  customers: number;
  netSalesWithinMinor: Record<LtvHorizon, number>;
}

/** LTV(horizon) = average net sales per customer within `horizonDays` after their first order. */
export function ltv(cohort: LtvCohort, horizonDays: LtvHorizon): number | null {
  return ratio(cohort.netSalesWithinMinor[horizonDays], cohort.customers);
}

export interface Delta {
  absolute: number | null;
  /** Change in percent of the previous value (12.5 = +12.5 %); null when previous is 0 or unknown. */
  percent: number | null;
}

/** Change from the previous period to the current one. */
export function delta(current: Maybe, previous: Maybe): Delta {
  if (!known(current) || !known(previous)) return { absolute: null, percent: null };
  const percent = ratio(current - previous, Math.abs(previous));
  return { absolute: current - previous, percent: percent === null ? null : percent * 100 };
}

/** A ratio such as ROAS or MER: "3.25", or "—" when undefined. */
export function formatRatio(value: Maybe, fractionDigits = 2): string {
  return known(value) ? value.toFixed(fractionDigits) : NO_VALUE;
}

/** A ratio as a multiple: "3.25x", or "—". */
export function formatMultiple(value: Maybe, fractionDigits = 2): string {
  return known(value) ? `${value.toFixed(fractionDigits)}x` : NO_VALUE;
}

/** A delta's percent with its sign: "+12.5%", "-3.0%", "0.0%", or "—". */
export function formatPercentChange(percent: Maybe, fractionDigits = 1): string {
  if (!known(percent)) return NO_VALUE;
  const rounded = Number(percent.toFixed(fractionDigits));
  const sign = rounded > 0 ? '+' : rounded < 0 ? '-' : '';
  return `${sign}${Math.abs(rounded).toFixed(fractionDigits)}%`;
}

/**
 * Minor units as a plain major-unit amount ("1234.50"), or "—". Currency symbols and grouping belong
 * to the client's locale-aware formatter; this is for CSV and logs.
 */
export function formatMinorUnits(value: Maybe, fractionDigits = 2): string {
  return known(value) ? (value / 10 ** fractionDigits).toFixed(fractionDigits) : NO_VALUE;
}

// --- Ad platform ratios (campaign screens; added by the marketing screens) ---

/** CTR = clicks / impressions, a fraction (0.05 = 5 %); null without impressions. */
export function ctr(totals: { clicks: number; impressions: number }): number | null {
  return ratio(totals.clicks, totals.impressions);
}

/** CPC = spend / clicks (minor units per click); null without clicks. */
export function cpc(totals: { spendMinor: number; clicks: number }): number | null {
  return ratio(totals.spendMinor, totals.clicks);
}

/** CPM = spend per 1,000 impressions (minor units); null without impressions. */
export function cpm(totals: { spendMinor: number; impressions: number }): number | null {
  const perImpression = ratio(totals.spendMinor, totals.impressions);
  return perImpression === null ? null : perImpression * 1000;
}

// --- Return on investment (dashboard marketing performance; added by the dashboard screens) ---

/** ROI = (attributed net sales - spend) / spend, a fraction (0.5 = +50 %); null without spend. */
export function roi(totals: { attributedNetSalesMinor: number; spendMinor: number }): number | null {
  return ratio(totals.attributedNetSalesMinor - totals.spendMinor, totals.spendMinor);
}
