import { REVIEW_CATEGORIES, type Finding, type FindingSeverity, type ReviewCategory, type ReviewMetrics, type ReviewScores } from '../../../shared/page-reviewer.ts';

// Every score of the landing page reviewer, in one place (README, "Landing page reviewer: scores").
//
// Performance follows Lighthouse 10+ (mobile): each metric is scored on a log-normal curve fixed by two
// control points, p10 (score 0.90) and the median (score 0.50), then weighted. Control points and weights
// from https://developer.chrome.com/docs/lighthouse/performance/performance-scoring and Lighthouse's
// core/audits/metrics/*.js (mobile): FCP 1800/3000 ms, LCP 2500/4000 ms, TBT 200/600 ms, CLS 0.1/0.25;
// weights FCP 10, Speed Index 10, LCP 25, TBT 30, CLS 25. We do not measure Speed Index (it needs a
// filmstrip), so its 10 are left out and the other weights renormalised over 90.
// The other categories are the share of their checks passed, a check counting by its severity.

interface LogNormalCurve {
  p10: number;
  median: number;
}

export const PERFORMANCE_CURVES = {
  fcpMs: { p10: 1800, median: 3000 },
  lcpMs: { p10: 2500, median: 4000 },
  tbtMs: { p10: 200, median: 600 },
  cls: { p10: 0.1, median: 0.25 },
} as const satisfies Record<string, LogNormalCurve>;

export const PERFORMANCE_WEIGHTS = { fcpMs: 10, lcpMs: 25, tbtMs: 30, cls: 25 } as const;

/** Abramowitz and Stegun 7.1.26, as Lighthouse's statistics.js uses it (error below 1.5e-7). */
function erf(x: number): number {
  const sign = Math.sign(x);
  const value = Math.abs(x);
  const t = 1 / (1 + 0.3275911 * value);
  const y = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  return sign * (1 - y * Math.exp(-value * value));
}

/**
 * Lighthouse's getLogNormalScore: 1 at 0, 0.9 at p10, 0.5 at the median, towards 0 beyond; clamped so
 * that a value on the good side of p10 never scores below 0.9 and one past the median never reaches 0.5.
 */
export function logNormalScore(curve: LogNormalCurve, value: number): number {
  if (value <= 0) return 1;
  const INVERSE_ERFC_ONE_FIFTH = 0.9061938024368232;
  const xLogRatio = Math.log(Math.max(Number.MIN_VALUE, value / curve.median));
  const p10LogRatio = -Math.log(Math.max(Number.MIN_VALUE, curve.p10 / curve.median));
  const standardizedX = (xLogRatio * INVERSE_ERFC_ONE_FIFTH) / p10LogRatio;
  const complementaryPercentile = (1 - erf(standardizedX)) / 2;
  if (value <= curve.p10) return Math.max(0.9, Math.min(1, complementaryPercentile));
  if (value <= curve.median) return Math.max(0.5, Math.min(0.89999999999999, complementaryPercentile));
  return Math.max(0, Math.min(0.49999999999999, complementaryPercentile));
}

/** 0-100; a metric that could not be measured is left out and the remaining weights renormalised; null if none was. */
export function performanceScore(metrics: Pick<ReviewMetrics, 'fcpMs' | 'lcpMs' | 'tbtMs' | 'cls'>): number | null {
  let weighted = 0;
  let weights = 0;
  for (const key of Object.keys(PERFORMANCE_WEIGHTS) as (keyof typeof PERFORMANCE_WEIGHTS)[]) {
    const value = metrics[key];
    if (value === null || value === undefined) continue;
    weighted += PERFORMANCE_WEIGHTS[key] * logNormalScore(PERFORMANCE_CURVES[key], value);
    weights += PERFORMANCE_WEIGHTS[key];
  }
  return weights === 0 ? null : Math.round((100 * weighted) / weights);
}

/** A performance metric's finding: high past the median (score < 0.5), medium past the "good" threshold p10, else pass. */
export function metricSeverity(curve: LogNormalCurve, value: number): FindingSeverity {
  if (value > curve.median) return 'high';
  if (value > curve.p10) return 'medium';
  return 'pass';
}

/** How much of a check's weight a finding keeps. */
export const SEVERITY_CREDIT: Record<FindingSeverity, number> = { pass: 1, low: 0.75, medium: 0.4, high: 0 };

/** How much each category counts in the overall score (sums to 100). */
export const CATEGORY_WEIGHTS: Record<ReviewCategory, number> = { performance: 30, seo: 20, conversion: 25, trust: 15, accessibility: 10 };

/** Scores per category (performance from the metrics, the others from their findings) and overall, each 0-100. */
export function reviewScores(findings: readonly Finding[], metrics: Pick<ReviewMetrics, 'fcpMs' | 'lcpMs' | 'tbtMs' | 'cls'>): ReviewScores {
  const byCategory = {} as Record<ReviewCategory, number>;
  for (const category of REVIEW_CATEGORIES) {
    if (category === 'performance') {
      byCategory.performance = performanceScore(metrics) ?? 0;
      continue;
    }
    const own = findings.filter((finding) => finding.category === category);
    byCategory[category] = own.length === 0 ? 100 : Math.round((100 * own.reduce((sum, finding) => sum + SEVERITY_CREDIT[finding.severity], 0)) / own.length);
  }
  const overall = Math.round(REVIEW_CATEGORIES.reduce((sum, category) => sum + CATEGORY_WEIGHTS[category] * byCategory[category], 0) / 100);
  return { overall, ...byCategory };
}

/** Flesch reading ease (1948): 206.835 - 1.015 x words per sentence - 84.6 x syllables per word. Higher is easier; 60-70 is plain English. */
export function fleschReadingEase(text: string): { score: number; words: number } | null {
  const sentences = text.split(/[.!?]+(?:\s|$)/).filter((sentence) => /[a-zà-ÿ]/i.test(sentence)).length;
  const words = text.match(/[a-zà-ÿ]+(?:['’-][a-zà-ÿ]+)*/gi) ?? [];
  if (words.length === 0 || sentences === 0) return null;
  const syllables = words.reduce((sum, word) => sum + syllableCount(word), 0);
  const score = 206.835 - 1.015 * (words.length / sentences) - 84.6 * (syllables / words.length);
  return { score: Math.round(score * 10) / 10, words: words.length };
}

/** Vowel groups, less a silent final "e" (at least one per word): the usual approximation. */
export function syllableCount(word: string): number {
  const lower = word.toLowerCase();
  const groups = lower.match(/[aeiouyà-ÿ]+/g)?.length ?? 0;
  const silentE = /[^aeiouy]e$/.test(lower) && groups > 1 ? 1 : 0;
  return Math.max(1, groups - silentE);
}
