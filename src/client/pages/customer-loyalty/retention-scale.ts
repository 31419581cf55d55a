import type { RetentionCohort } from '../../../shared/loyalty-retention.ts';

// The heat-map's colour scale (README, "Customer loyalty: cohort retention"). Month 0 is 100 % by
// definition and would flatten every other cell, so the scale runs from 0 to the highest share of
// the later months; a square root spreads the small shares that repeat purchases have (2-15 %).

/** The highest retention of months 1+ over the cohorts (0 when there is none). */
export function scaleTop(cohorts: readonly RetentionCohort[]): number {
  let top = 0;
  for (const cohort of cohorts) for (const cell of cohort.cells) if (cell.monthsSince > 0 && cell.retention > top) top = cell.retention;
  return top;
}

/** A cell's intensity, 0..1 (month 0 is 1). */
export function intensity(retention: number, monthsSince: number, top: number): number {
  if (monthsSince === 0) return 1;
  if (top <= 0 || retention <= 0) return 0;
  return Math.min(1, Math.sqrt(retention / top));
}

/**
 * The intensity from which a cell's text takes the primary colour's content colour, per theme: the
 * light theme's primary (orange-700) keeps dark text readable up to nearly full strength (white
 * text reaches 4.5:1 only on the full fill); the dark theme's orange-500 over a dark surface needs
 * its dark content colour from about 60 %, light text below.
 */
export const STRONG_FILL = { light: 0.9, dark: 0.6 } as const;

/** The most months since any cohort's first month shows (the heat-map's columns). */
export function columnCount(cohorts: readonly RetentionCohort[]): number {
  return cohorts.reduce((most, cohort) => Math.max(most, cohort.cells.length), 0);
}
