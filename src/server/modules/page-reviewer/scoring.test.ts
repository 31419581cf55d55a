import { describe, expect, it } from 'vitest';
import type { Finding } from '../../../shared/page-reviewer.ts';
import { totalBlockingTime } from './page-load.ts';
import { fleschReadingEase, logNormalScore, metricSeverity, PERFORMANCE_CURVES, performanceScore, reviewScores, syllableCount } from './scoring.ts';

// Hand-computed cases of the scores (scoring.ts) and of total blocking time (page-load.ts).

describe('Lighthouse log-normal metric scores', () => {
  it('is 0.9 at p10, 0.5 at the median, 1 at zero, and falls beyond', () => {
    expect(logNormalScore(PERFORMANCE_CURVES.lcpMs, 2500)).toBeCloseTo(0.9, 4);
    expect(logNormalScore(PERFORMANCE_CURVES.lcpMs, 4000)).toBeCloseTo(0.5, 4);
    expect(logNormalScore(PERFORMANCE_CURVES.tbtMs, 200)).toBeCloseTo(0.9, 4);
    expect(logNormalScore(PERFORMANCE_CURVES.cls, 0.25)).toBeCloseTo(0.5, 4);
    expect(logNormalScore(PERFORMANCE_CURVES.tbtMs, 0)).toBe(1);
    // 8000 ms LCP: ln(2) x 0.9062 / ln(1.6) = 1.3365; (1 - erf(1.3365)) / 2 = (1 - 0.9412) / 2 = 0.0294.
    expect(logNormalScore(PERFORMANCE_CURVES.lcpMs, 8000)).toBeCloseTo(0.0294, 3);
  });

  it('weights FCP 10, LCP 25, TBT 30, CLS 25 over 90, leaving out what was not measured', () => {
    expect(performanceScore({ fcpMs: 1800, lcpMs: 2500, tbtMs: 200, cls: 0.1 })).toBe(90);
    expect(performanceScore({ fcpMs: 3000, lcpMs: 4000, tbtMs: 600, cls: 0.25 })).toBe(50);
    // LCP at p10 (0.9 x 25) and TBT at its median (0.5 x 30), the rest unmeasured: (22.5 + 15) / 55 = 0.6818.
    expect(performanceScore({ fcpMs: null, lcpMs: 2500, tbtMs: 600, cls: null })).toBe(68);
    expect(performanceScore({ fcpMs: null, lcpMs: null, tbtMs: null, cls: null })).toBeNull();
  });

  it('grades a metric: pass up to the good threshold, medium up to the median, high beyond', () => {
    expect(metricSeverity(PERFORMANCE_CURVES.lcpMs, 2500)).toBe('pass');
    expect(metricSeverity(PERFORMANCE_CURVES.lcpMs, 2501)).toBe('medium');
    expect(metricSeverity(PERFORMANCE_CURVES.lcpMs, 4001)).toBe('high');
  });
});

it('scores each category by its findings and the overall by the category weights', () => {
  const finding = (category: Finding['category'], severity: Finding['severity']): Finding => ({ code: 'h1', category, severity, evidence: { element: null, value: null } });
  const scores = reviewScores(
    [finding('seo', 'pass'), finding('seo', 'high'), finding('conversion', 'medium'), finding('trust', 'low'), finding('accessibility', 'pass')],
    { fcpMs: 1800, lcpMs: 2500, tbtMs: 200, cls: 0.1 },
  );
  // seo (1 + 0) / 2 = 50; conversion 40; trust 75; accessibility 100; performance 90.
  // overall (30 x 90 + 20 x 50 + 25 x 40 + 15 x 75 + 10 x 100) / 100 = 68.25.
  expect(scores).toEqual({ overall: 68, performance: 90, seo: 50, conversion: 40, trust: 75, accessibility: 100 });
});

it('counts total blocking time as the part of each long task past 50 ms, after the first contentful paint', () => {
  expect(totalBlockingTime([[100, 200], [900, 70], [1200, 40]], 500)).toBe(20);
  expect(totalBlockingTime([[100, 200], [900, 70]], null)).toBe(170);
});

it('computes Flesch reading ease by hand-checkable counts', () => {
  // 6 words, 1 sentence, 6 syllables: 206.835 - 1.015 x 6 - 84.6 x 1 = 116.145.
  expect(fleschReadingEase('The cat sat on the mat.')).toEqual({ score: 116.1, words: 6 });
  expect(syllableCount('conversion')).toBe(3);
  expect(syllableCount('make')).toBe(1);
  expect(fleschReadingEase('   ')).toBeNull();
});
