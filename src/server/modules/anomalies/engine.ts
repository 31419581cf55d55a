import type {
  AnomalyEvidencePoint, AnomalyMetric, AnomalyRecommendationCode, AnomalyScope, AnomalySeverity,
} from '../../../shared/anomalies.ts';
import { addDays, daysBetween } from '../../../shared/date-ranges.ts';

// The anomaly detection engine (README, "Anomaly insights"): pure functions over daily series, so the
// job, the tests and bench:anomalies run the same code. One series is one metric of one scope (the
// store, a channel, a campaign) by day; a day is judged against a seasonal baseline fitted on the
// 12 weeks before it:
//
//   1. weekday index  s_w = median(y on weekday w) / median(y)          (additive s_w = median_w − median when median(y) = 0)
//   2. deseasonalised z_t = y_t / s_w(t)
//   3. trend          b = Theil–Sen slope of the 12 weekly medians of z (per day: b / 7), a = median(z_t − b·t)
//   4. expected       ŷ_t = max(0, (a + b·t) · s_w(t))
//   5. band           σ = 1.4826 · median|r_t − median(r)| over the window's residuals r_t = y_t − ŷ_t
//                     (counts: σ ≥ √ŷ, the Poisson floor), robust z = (y − ŷ) / σ
//
// Black Friday / Cyber Monday ± 3 days, and the whole week before Black Friday when early deals run
// (BF−7 … CM+3), are left out of every fit and judged with last year's shape: the lift
// L = y_ly / ŷ_ly of the same offset from last year's Black Friday (ŷ_ly fitted on the 12 weeks
// before last year's event days) multiplies ŷ, and the band widens with the lift's own uncertainty: σ_event = √((L·σ)² + (ŷ·σ_ly/ŷ_ly)²).
// Without last year's days, only drops below the ordinary baseline are reported on those days.
//
// Noise floors: a count's σ is at least √ŷ (Poisson) and a count is anomalous only when its Poisson
// tail probability is also below that of 3.5 σ (0.000233); a sum of order-sized amounts (net sales,
// refunds) has σ ≥ √(2·ŷ·ā), ā the store's average order value (compound Poisson with order values
// of coefficient of variation 1), because a few large orders make such sums skewed.

export const BASELINE_DAYS = 84;
export const MIN_BASELINE_POINTS = 28;
export const ROBUST_Z = 3.5;
export const MAD_SCALE = 1.4826;
export const MIN_RELATIVE_EFFECT = 0.15;
/** Money: the move must be worth at least this share of the store's average daily net sales. */
export const MIN_MONEY_EFFECT_SHARE = 0.01;
/** Counts (orders, conversions): at least this many. */
export const MIN_COUNT_EFFECT = 3;
/** An alert for the same metric and scope in the same direction within this many days before is the same episode (a budget changed for the month is one event, not four weekly ones). */
export const EPISODE_DAYS = 28;
/** Days of evidence shown with an anomaly. */
export const EVIDENCE_DAYS = 28;

export type SeriesKind = 'money' | 'count' | 'ratio';
/** Which moves are reported: both, or only the bad one (refunds and CAC up, ROAS down). */
export type Direction = 'both' | 'up' | 'down';

export interface MetricSeries {
  metric: AnomalyMetric;
  scope: AnomalyScope;
  kind: SeriesKind;
  direction: Direction;
  /** The value by day (YYYY-MM-DD); null or missing = not measurable that day (e.g. its denominator is too small). */
  values: Map<string, number | null>;
  /** Money made of orders (net sales, refunds): the average order value, for the compound-Poisson floor of σ. */
  unitValue?: number;
  /** The smallest relative move that counts (default MIN_RELATIVE_EFFECT). */
  minRelativeEffect?: number;
  /** Money: the smallest move as a share of the store's average daily net sales (default MIN_MONEY_EFFECT_SHARE). */
  minMoneyShare?: number;
}

/** The one-sided normal tail beyond 3.5 σ. */
export const TAIL_PROBABILITY = 0.000233;

/** P(X ≤ k) for X ~ Poisson(λ). */
export function poissonCdf(k: number, lambda: number): number {
  if (k < 0) return 0;
  let term = Math.exp(-lambda);
  let sum = term;
  for (let i = 1; i <= k; i += 1) {
    term *= lambda / i;
    sum += term;
  }
  return Math.min(1, sum);
}

// ---------------------------------------------------------------------------------------------
// Calendar

/** Black Friday: the day after the fourth Thursday of November. */
export function blackFriday(year: number): string {
  const firstWeekday = new Date(Date.UTC(year, 10, 1)).getUTCDay();
  const firstThursday = 1 + ((4 - firstWeekday + 7) % 7);
  return `${year}-11-${String(firstThursday + 21 + 1).padStart(2, '0')}`;
}

/** Cyber Monday: the Monday after Black Friday. */
export function cyberMonday(year: number): string {
  return addDays(blackFriday(year), 3);
}

/** Days judged with last year's shape: from the week before Black Friday to Cyber Monday + 3. */
export const EVENT_DAYS_BEFORE = 7;
export const EVENT_DAYS_AFTER_CYBER_MONDAY = 3;

const eventOffsets = new Map<string, number | null>();

/** The offset of a day from its year's Black Friday when it lies in BF−7 … CM+3, else null. */
export function eventOffset(day: string): number | null {
  let offset = eventOffsets.get(day);
  if (offset === undefined) {
    const from = daysBetween(blackFriday(Number(day.slice(0, 4))), day);
    offset = from >= -EVENT_DAYS_BEFORE && from <= 3 + EVENT_DAYS_AFTER_CYBER_MONDAY ? from : null;
    eventOffsets.set(day, offset);
  }
  return offset;
}

// ---------------------------------------------------------------------------------------------
// Robust statistics

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The median absolute deviation scaled by 1.4826 (a consistent estimate of σ for normal noise). */
export function scaledMad(values: readonly number[]): number {
  const centre = median(values);
  return MAD_SCALE * median(values.map((value) => Math.abs(value - centre)));
}

/** Theil–Sen slope: the median of the pairwise slopes. */
export function theilSen(points: readonly { x: number; y: number }[]): number {
  const slopes: number[] = [];
  for (let i = 0; i < points.length; i += 1) {
    for (let j = i + 1; j < points.length; j += 1) {
      const dx = points[j]!.x - points[i]!.x;
      if (dx !== 0) slopes.push((points[j]!.y - points[i]!.y) / dx);
    }
  }
  return slopes.length === 0 ? 0 : median(slopes);
}

// ---------------------------------------------------------------------------------------------
// The baseline

export interface BaselineFit {
  /** The expected value of any day (the fitted curve, continued past the window). */
  expectedAt: (day: string) => number;
  sigma: number;
  /** Days of the window with a value. */
  points: number;
}

const weekdayOf = (day: string) => new Date(`${day}T00:00:00Z`).getUTCDay();

/**
 * The seasonal baseline of `series` for `day`, fitted on the BASELINE_DAYS before it (event days left
 * out); null with fewer than MIN_BASELINE_POINTS values.
 */
export function fitBaseline(series: MetricSeries, day: string): BaselineFit | null {
  let fits = fitCache.get(series);
  if (!fits) fitCache.set(series, (fits = new Map()));
  if (!fits.has(day)) fits.set(day, fit(series, day));
  return fits.get(day)!;
}

/** Fits are pure functions of (series, day): detection asks for the same one several times a day. */
const fitCache = new WeakMap<MetricSeries, Map<string, BaselineFit | null>>();

function fit(series: MetricSeries, day: string): BaselineFit | null {
  const origin = addDays(day, -BASELINE_DAYS);
  const window: { day: string; t: number; weekday: number; y: number }[] = [];
  for (let t = 0; t < BASELINE_DAYS; t += 1) {
    const at = addDays(origin, t);
    const y = series.values.get(at);
    if (y === null || y === undefined || eventOffset(at) !== null) continue;
    window.push({ day: at, t, weekday: weekdayOf(at), y });
  }
  if (window.length < MIN_BASELINE_POINTS) return null;
  const overall = median(window.map((point) => point.y));
  const multiplicative = overall > 0;
  const seasonal = Array.from({ length: 7 }, (_, weekday) => {
    const values = window.filter((point) => point.weekday === weekday).map((point) => point.y);
    if (values.length < 2) return multiplicative ? 1 : 0;
    return multiplicative ? median(values) / overall : median(values) - overall;
  });
  const deseasonalise = (point: { weekday: number; y: number }) => (multiplicative ? (seasonal[point.weekday]! > 0 ? point.y / seasonal[point.weekday]! : null) : point.y - seasonal[point.weekday]!);
  const deseasonalised = window.flatMap((point) => {
    const z = deseasonalise(point);
    return z === null ? [] : [{ t: point.t, week: Math.floor(point.t / 7), z }];
  });
  const weeks = new Map<number, { t: number[]; z: number[] }>();
  for (const point of deseasonalised) {
    const week = weeks.get(point.week) ?? { t: [], z: [] };
    week.t.push(point.t);
    week.z.push(point.z);
    weeks.set(point.week, week);
  }
  const slope = theilSen([...weeks.values()].map((week) => ({ x: median(week.t), y: median(week.z) })));
  const intercept = median(deseasonalised.map((point) => point.z - slope * point.t));
  const expectedAt = (at: string) => {
    const t = daysBetween(origin, at);
    const level = intercept + slope * t;
    const value = multiplicative ? level * seasonal[weekdayOf(at)]! : level + seasonal[weekdayOf(at)]!;
    return Math.max(0, value);
  };
  let sigma = scaledMad(window.map((point) => point.y - expectedAt(point.day)));
  sigma = Math.max(sigma, noiseFloor(series, expectedAt(day)));
  return { expectedAt, sigma: Math.max(sigma, 1e-9), points: window.length };
}

/** The least σ a series of counts (Poisson) or of order-sized amounts (compound Poisson) can have at an expected value. */
export function noiseFloor(series: MetricSeries, expected: number): number {
  if (series.kind === 'count') return Math.sqrt(Math.max(1, expected));
  if (series.unitValue) return Math.sqrt(2 * Math.max(expected, series.unitValue) * series.unitValue);
  return 0;
}

export interface Expectation {
  expected: number;
  sigma: number;
  /** 'last_year': an event day judged with last year's shape; 'drops_only': an event day without it. */
  rule: 'baseline' | 'last_year' | 'drops_only';
  fit: BaselineFit;
  lift: number;
}

/** The expected value and band of a day, with the Black Friday rule. */
export function expectationOf(series: MetricSeries, day: string, fit: BaselineFit | null = fitBaseline(series, day)): Expectation | null {
  if (!fit) return null;
  const expected = fit.expectedAt(day);
  const offset = eventOffset(day);
  if (offset === null) return { expected, sigma: fit.sigma, rule: 'baseline', fit, lift: 1 };
  const lastYearDay = addDays(blackFriday(Number(day.slice(0, 4)) - 1), offset);
  const lastYearFit = fitBaseline(series, addDays(blackFriday(Number(day.slice(0, 4)) - 1), -EVENT_DAYS_BEFORE));
  const lastYearValue = series.values.get(lastYearDay);
  const lastYearExpected = lastYearFit ? lastYearFit.expectedAt(lastYearDay) : 0;
  if (!lastYearFit || lastYearValue === null || lastYearValue === undefined || lastYearExpected <= 0) return { expected, sigma: fit.sigma, rule: 'drops_only', fit, lift: 1 };
  const lift = lastYearValue / lastYearExpected;
  const sigma = Math.max(Math.hypot(lift * fit.sigma, (expected * lastYearFit.sigma) / lastYearExpected), noiseFloor(series, expected * lift));
  return { expected: expected * lift, sigma, rule: 'last_year', fit, lift };
}

// ---------------------------------------------------------------------------------------------
// Judging a day

export interface StoreContext {
  /** The store's average daily net sales over the baseline window (minor units). */
  averageDailyNetSalesMinor: number;
}

export interface Finding {
  metric: AnomalyMetric;
  scope: AnomalyScope;
  day: string;
  kind: SeriesKind;
  value: number;
  expected: number;
  /** (value − expected) / expected × 100, null when expected is 0. */
  percentChange: number | null;
  robustZ: number;
  severity: AnomalySeverity;
  recommendation: { code: AnomalyRecommendationCode; params: Record<string, string | number> };
  evidence: AnomalyEvidencePoint[];
}

/** The smallest absolute move that counts for a series of this kind. */
export function minimumEffect(kind: SeriesKind, context: StoreContext, moneyShare = MIN_MONEY_EFFECT_SHARE): number {
  if (kind === 'money') return Math.max(100, moneyShare * context.averageDailyNetSalesMinor);
  if (kind === 'count') return MIN_COUNT_EFFECT;
  return 0;
}

/**
 * Severity from the robust z and the effect size: high when |z| ≥ 7 and the move is ≥ 50 % (or the
 * expected value was 0), medium when |z| ≥ 5 or the move is ≥ 30 %, else low.
 */
export function severityOf(robustZ: number, percentChange: number | null): AnomalySeverity {
  const z = Math.abs(robustZ);
  const effect = percentChange === null ? Infinity : Math.abs(percentChange);
  if (z >= 7 && effect >= 50) return 'high';
  if (z >= 5 || effect >= 30) return 'medium';
  return 'low';
}

/** The 28 days of evidence up to `day`: each value with the expected value and band of the same fit. */
export function evidenceOf(series: MetricSeries, day: string, expectation: Expectation, scale = 1): AnomalyEvidencePoint[] {
  const points: AnomalyEvidencePoint[] = [];
  const round = (value: number) => Math.round((value / scale) * 10_000) / 10_000;
  for (let back = EVIDENCE_DAYS - 1; back >= 0; back -= 1) {
    const at = addDays(day, -back);
    const value = series.values.get(at);
    const isEvent = eventOffset(at) !== null;
    const expected = at === day ? expectation.expected : expectation.fit.expectedAt(at) * (isEvent && expectation.rule === 'last_year' ? expectation.lift : 1);
    const sigma = at === day ? expectation.sigma : expectation.fit.sigma;
    points.push({
      at,
      value: value === null || value === undefined ? null : round(value),
      expected: round(expected),
      lower: round(Math.max(0, expected - ROBUST_Z * sigma)),
      upper: round(expected + ROBUST_Z * sigma),
    });
  }
  return points;
}

/** Whether the day of a series is anomalous, and how: null when it is not (or cannot be judged). */
export function judgeDay(series: MetricSeries, day: string, context: StoreContext): Omit<Finding, 'recommendation'> | null {
  const value = series.values.get(day);
  if (value === null || value === undefined) return null;
  const expectation = expectationOf(series, day);
  if (!expectation) return null;
  const { expected, sigma } = expectation;
  const difference = value - expected;
  const robustZ = difference / sigma;
  const direction = expectation.rule === 'drops_only' ? (series.direction === 'up' ? null : 'down') : series.direction;
  if (direction === null) return null;
  if (direction === 'up' && difference <= 0) return null;
  if (direction === 'down' && difference >= 0) return null;
  if (Math.abs(robustZ) < ROBUST_Z) return null;
  if (expected > 0 && Math.abs(difference) / expected < (series.minRelativeEffect ?? MIN_RELATIVE_EFFECT)) return null;
  if (Math.abs(difference) < minimumEffect(series.kind, context, series.minMoneyShare)) return null;
  if (series.kind === 'count') {
    const tail = difference > 0 ? 1 - poissonCdf(Math.ceil(value) - 1, expected) : poissonCdf(Math.floor(value), expected);
    if (tail > TAIL_PROBABILITY) return null;
  }
  const percentChange = expected > 0 ? Math.round((difference / expected) * 1000) / 10 : null;
  return {
    metric: series.metric, scope: series.scope, day, kind: series.kind, value, expected, percentChange, robustZ,
    severity: severityOf(robustZ, percentChange), evidence: evidenceOf(series, day, expectation, series.kind === 'money' ? 100 : 1),
  };
}
