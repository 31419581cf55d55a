import { addDays, daysBetween } from '../../modules/commerce/days.ts';
import type { SyncWindow } from '../connector.ts';

// Ads platforms report by calendar day in the ad account's own time zone, so a sync window of
// instants becomes a range of 'YYYY-MM-DD' days. The engine passes the start of each day; which time
// zone's start it is does not matter as long as it is within 12 hours of UTC midnight, so each
// instant is read as the calendar day whose UTC midnight is nearest. `until` is exclusive.

const HALF_DAY_MS = 43_200_000;

export interface DayRange {
  /** First day, inclusive. */
  from: string;
  /** Last day, inclusive. */
  to: string;
}

export function nearestDay(instant: Date): string {
  return new Date(instant.getTime() + HALF_DAY_MS).toISOString().slice(0, 10);
}

/** The reporting days of a window, or null when it holds none. */
export function reportingDays(window: SyncWindow): DayRange | null {
  const from = nearestDay(window.since);
  const to = addDays(nearestDay(window.until), -1);
  return from <= to ? { from, to } : null;
}

export function dayCount(range: DayRange): number {
  return daysBetween(range.from, range.to) + 1;
}

/**
 * The slice of `range` that starts at `start` and spans at most `maxDays` (platforms limit the span of
 * one daily report); the next slice starts the day after its `to`, none when that is past the range.
 */
export function sliceFrom(range: DayRange, start: string, maxDays: number): { slice: DayRange; nextStart: string | null } {
  const end = addDays(start, maxDays - 1);
  const to = end < range.to ? end : range.to;
  const nextStart = addDays(to, 1);
  return { slice: { from: start, to }, nextStart: nextStart <= range.to ? nextStart : null };
}

/** Rows a whole window will hold, extrapolated from one slice (for the engine's progress bar). */
export function estimateWindowRows(rowsInSlice: number, slice: DayRange, range: DayRange): number {
  return Math.round((rowsInSlice / dayCount(slice)) * dayCount(range));
}
