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
/** The share of a window clamped at each end before means are taken (2 of 84 days). */
export const WINSOR_Q = 0.025;
/** The tails' spread: the 5 % and 95 % quantiles of the residuals, 1.645 σ from the centre under normal noise. */
export const TAIL_Q = 0.05;
export const TAIL_Z = 1.645;
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
  /** Days of the baseline window (default BASELINE_DAYS); spend, which follows the merchant's current budget, uses SPEND_BASELINE_DAYS. */
  windowDays?: number;
  /** The store's series of the same metric, whose last year's event shape (Black Friday, holidays) a channel's or campaign's series borrows: one channel's single draw from last year is too noisy a lift (2 orders instead of 3 is −33 %). */
  eventShape?: MetricSeries;
}

/** Spend's baseline: the last 4 weeks, so that it follows a budget changed for the month within days rather than weeks. */
export const SPEND_BASELINE_DAYS = 28;
/** A short window needs 3 weeks of values. */
export const MIN_SHORT_BASELINE_POINTS = 21;

/** The one-sided normal tail beyond 3.5 σ. */
export const TAIL_PROBABILITY = 0.000233;

/**
 * The false alarms a clean store may get from noise alone, per day (a third of the ≤ 1 per month
 * goal; the rest is left to what the noise model misses). A store judges N series a day (8 of the
 * store, up to 5 per channel, 2 per campaign): at a fixed 3.5 σ, N = 100 would give 100 × 2 × 0.000233
 * × 30 ≈ 1.4 false alarms a month from perfectly normal noise. So the per-series two-sided level is
 * α = NOISE_ALARMS_PER_DAY / N (Bonferroni) and the band is max(3.5, Φ⁻¹(1 − α/2)) σ.
 */
export const NOISE_ALARMS_PER_DAY = 1 / 90;

export interface Threshold {
  /** The robust z a point must reach. */
  z: number;
  /** The one-sided tail probability a count must fall below (Poisson). */
  tail: number;
}

export const DEFAULT_THRESHOLD: Threshold = { z: ROBUST_Z, tail: TAIL_PROBABILITY };

/** The threshold for a day on which `series` series of the store are judged. */
export function thresholdFor(series: number): Threshold {
  const tail = Math.min(TAIL_PROBABILITY, NOISE_ALARMS_PER_DAY / Math.max(1, series) / 2);
  return { z: Math.max(ROBUST_Z, normalQuantile(1 - tail)), tail };
}

/** The standard normal's upper tail P(Z > z) (erfc, Numerical Recipes' Chebyshev fit, relative error < 1.2e-7). */
export function normalTail(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * x);
  const erfc = t * Math.exp(-x * x - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
  return z >= 0 ? erfc / 2 : 1 - erfc / 2;
}

/** Φ⁻¹(p) by bisection on normalTail (p in (0.5, 1)). */
export function normalQuantile(p: number): number {
  let low = 0;
  let high = 40;
  for (let step = 0; step < 80; step += 1) {
    const middle = (low + high) / 2;
    if (normalTail(middle) > 1 - p) low = middle;
    else high = middle;
  }
  return (low + high) / 2;
}

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

/** Christmas Eve to Boxing Day and New Year's Eve and Day (MM-DD): left out of every fit, judged only against last year's same day. */
export const HOLIDAYS: ReadonlySet<string> = new Set(['12-24', '12-25', '12-26', '12-31', '01-01']);

export const isHoliday = (day: string) => HOLIDAYS.has(day.slice(5));

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

export function mean(values: readonly number[]): number {
  return values.length === 0 ? NaN : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** The q-quantile (linear interpolation). */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  return sorted[low]! + (sorted[Math.min(low + 1, sorted.length - 1)]! - sorted[low]!) * (at - low);
}

/** Clamps values to the WINSOR_Q … 1 − WINSOR_Q quantiles of `values`: a mean that a few outliers cannot drag, but that a skewed series (small counts, order-sized amounts) does not bias low as a median would. */
export function winsorizer(values: readonly number[]): (value: number) => number {
  const low = quantile(values, WINSOR_Q);
  const high = quantile(values, 1 - WINSOR_Q);
  return (value) => Math.min(high, Math.max(low, value));
}

/**
 * The weekday pattern, shrunk towards none by how noisy it is (empirical Bayes): each weekday's raw
 * index r_w = mean_w / mean (or mean_w − mean) has sampling variance v_w = s² / n_w (s² the pooled
 * within-weekday variance, over mean²); the spread of true indices τ² = max(0, var(r_w) − mean(v_w));
 * the index used is 1 + τ²/(τ² + v_w) · (r_w − 1). A channel with 2 orders a day gets (almost) no
 * weekday pattern from 12 noisy Thursdays; the store with 100 a day keeps its own.
 */
export function weekdayPattern(points: readonly { weekday: number; y: number }[], overall: number, multiplicative: boolean): number[] {
  const neutral = multiplicative ? 1 : 0;
  const groups = Array.from({ length: 7 }, (_, weekday) => points.filter((point) => point.weekday === weekday).map((point) => point.y));
  const usable = groups.filter((values) => values.length >= 2);
  if (usable.length < 7) return Array(7).fill(neutral);
  const within = usable.reduce((sum, values) => sum + values.reduce((inner, y) => inner + (y - mean(values)) ** 2, 0), 0) / usable.reduce((sum, values) => sum + values.length - 1, 0);
  const scale = multiplicative ? overall * overall : 1;
  const raw = groups.map((values) => (multiplicative ? mean(values) / overall : mean(values) - overall));
  const sampling = groups.map((values) => within / values.length / scale);
  const spread = Math.max(0, raw.reduce((sum, r) => sum + (r - mean(raw)) ** 2, 0) / 6 - mean(sampling));
  return raw.map((r, weekday) => neutral + (spread + sampling[weekday]! > 0 ? spread / (spread + sampling[weekday]!) : 0) * (r - neutral));
}

// ---------------------------------------------------------------------------------------------
// The baseline

export interface BaselineFit {
  /** The expected value of any day (the fitted curve, continued past the window). */
  expectedAt: (day: string) => number;
  /** σ from the MAD of the window's residuals (with the noise floor). */
  sigma: number;
  /** The band's σ above and below: at least `sigma`, and at least each tail's own spread (TAIL_Q quantile of the residuals from their median / 1.645), so a skewed or heavy-tailed series gets a wider band on the side where its normal days already reach far. */
  sigmaUp: number;
  sigmaDown: number;
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
  const windowDays = series.windowDays ?? BASELINE_DAYS;
  const origin = addDays(day, -windowDays);
  const window: { day: string; t: number; weekday: number; y: number }[] = [];
  for (let t = 0; t < windowDays; t += 1) {
    const at = addDays(origin, t);
    const y = series.values.get(at);
    if (y === null || y === undefined || eventOffset(at) !== null || isHoliday(at)) continue;
    window.push({ day: at, t, weekday: weekdayOf(at), y });
  }
  if (window.length < Math.min(MIN_BASELINE_POINTS, windowDays < BASELINE_DAYS ? MIN_SHORT_BASELINE_POINTS : Infinity)) return null;
  const clip = winsorizer(window.map((point) => point.y));
  const overall = mean(window.map((point) => clip(point.y)));
  const multiplicative = overall > 0;
  const seasonal = weekdayPattern(window.map((point) => ({ weekday: point.weekday, y: clip(point.y) })), overall, multiplicative);
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
  const slope = theilSen([...weeks.values()].map((week) => ({ x: mean(week.t), y: mean(week.z.map(clip)) })));
  const levels = deseasonalised.map((point) => point.z - slope * point.t);
  const intercept = mean(levels.map(winsorizer(levels)));
  const expectedAt = (at: string) => {
    const t = daysBetween(origin, at);
    const level = intercept + slope * t;
    const value = multiplicative ? level * seasonal[weekdayOf(at)]! : level + seasonal[weekdayOf(at)]!;
    return Math.max(0, value);
  };
  const residuals = window.map((point) => point.y - expectedAt(point.day));
  const sigma = Math.max(scaledMad(residuals), noiseFloor(series, expectedAt(day)), 1e-9);
  const centre = median(residuals);
  const sigmaUp = Math.max(sigma, (quantile(residuals, 1 - TAIL_Q) - centre) / TAIL_Z);
  const sigmaDown = Math.max(sigma, (centre - quantile(residuals, TAIL_Q)) / TAIL_Z);
  return { expectedAt, sigma, sigmaUp, sigmaDown, points: window.length };
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
  sigmaUp: number;
  sigmaDown: number;
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
  const holiday = isHoliday(day);
  if (offset === null && !holiday) return { expected, sigma: fit.sigma, sigmaUp: fit.sigmaUp, sigmaDown: fit.sigmaDown, rule: 'baseline', fit, lift: 1 };
  const lastYear = Number(day.slice(0, 4)) - 1;
  const lastYearDay = holiday ? `${lastYear}${day.slice(4)}` : addDays(blackFriday(lastYear), offset!);
  const shape = series.eventShape ?? series;
  const lastYearFit = fitBaseline(shape, holiday ? lastYearDay : addDays(blackFriday(lastYear), -EVENT_DAYS_BEFORE));
  const lastYearValue = shape.values.get(lastYearDay);
  const lastYearExpected = lastYearFit ? lastYearFit.expectedAt(lastYearDay) : 0;
  if (!lastYearFit || lastYearValue === null || lastYearValue === undefined || lastYearExpected <= 0) {
    // A holiday without last year's: the shop may well close, nothing to judge it by.
    if (holiday) return null;
    return { expected, sigma: fit.sigma, sigmaUp: fit.sigmaUp, sigmaDown: fit.sigmaDown, rule: 'drops_only', fit, lift: 1 };
  }
  const lift = lastYearValue / lastYearExpected;
  // Last year's event value is itself one noisy draw: its σ is at least the noise floor at its own level (a count at 1.8× its usual level is √1.8 times as noisy).
  const lastYearNoise = noiseFloor(shape, lastYearValue);
  const band = (own: number, lastYears: number) => Math.max(Math.hypot(lift * own, (expected * Math.max(lastYears, lastYearNoise)) / lastYearExpected), noiseFloor(series, expected * lift));
  return {
    expected: expected * lift, sigma: band(fit.sigma, lastYearFit.sigma), sigmaUp: band(fit.sigmaUp, lastYearFit.sigmaUp), sigmaDown: band(fit.sigmaDown, lastYearFit.sigmaDown),
    rule: 'last_year', fit, lift,
  };
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
    const up = at === day ? expectation.sigmaUp : expectation.fit.sigmaUp;
    const down = at === day ? expectation.sigmaDown : expectation.fit.sigmaDown;
    points.push({
      at,
      value: value === null || value === undefined ? null : round(value),
      expected: round(expected),
      lower: round(Math.max(0, expected - ROBUST_Z * down)),
      upper: round(expected + ROBUST_Z * up),
    });
  }
  return points;
}

/** Whether the day of a series is anomalous, and how: null when it is not (or cannot be judged). */
export function judgeDay(series: MetricSeries, day: string, context: StoreContext, threshold: Threshold = DEFAULT_THRESHOLD): Omit<Finding, 'recommendation'> | null {
  const value = series.values.get(day);
  if (value === null || value === undefined) return null;
  const expectation = expectationOf(series, day);
  if (!expectation) return null;
  const { expected } = expectation;
  const difference = value - expected;
  const robustZ = difference / (difference >= 0 ? expectation.sigmaUp : expectation.sigmaDown);
  const direction = expectation.rule === 'drops_only' ? (series.direction === 'up' ? null : 'down') : series.direction;
  if (direction === null) return null;
  if (direction === 'up' && difference <= 0) return null;
  if (direction === 'down' && difference >= 0) return null;
  if (Math.abs(robustZ) < threshold.z) return null;
  if (expected > 0 && Math.abs(difference) / expected < (series.minRelativeEffect ?? MIN_RELATIVE_EFFECT)) return null;
  if (Math.abs(difference) < minimumEffect(series.kind, context, series.minMoneyShare)) return null;
  if (series.kind === 'count') {
    const tail = difference > 0 ? 1 - poissonCdf(Math.ceil(value) - 1, expected) : poissonCdf(Math.floor(value), expected);
    if (tail > threshold.tail) return null;
  }
  const percentChange = expected > 0 ? Math.round((difference / expected) * 1000) / 10 : null;
  return {
    metric: series.metric, scope: series.scope, day, kind: series.kind, value, expected, percentChange, robustZ,
    severity: severityOf(robustZ, percentChange), evidence: evidenceOf(series, day, expectation, series.kind === 'money' ? 100 : 1),
  };
}
