import { addDays, daysBetween } from '../../modules/commerce/days.ts';
import type { IngestAdMetric } from '../../modules/commerce/ingest.ts';
import type { IngestProductAdSlice } from '../../modules/commerce/product-ad-metrics.ts';
import type { ConnectorContext, SyncBatch, SyncWindow } from '../connector.ts';

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

interface SliceCursor {
  from: string;
}

function parseSliceCursor(platform: string, cursor: string | null): SliceCursor | null {
  if (!cursor) return null;
  const parsed = JSON.parse(cursor) as Partial<SliceCursor>;
  if (typeof parsed.from !== 'string') throw new Error(`not a ${platform} cursor: ${cursor}`);
  return { from: parsed.from };
}

/** What one slice read: its campaign days, and the product days of platforms that report them too. */
export type SliceRows = IngestAdMetric[] | { adMetrics: IngestAdMetric[]; productAdSlices: IngestProductAdSlice[] };

/**
 * A connector's fetchBatch for a platform whose daily report has no pages of its own: one batch is
 * one slice of at most `sliceDays` reporting days, read by `readSlice`. The cursor is the first day of
 * the next slice, so a resumed sync re-reads at most one slice.
 */
export function fetchBySlices(
  platform: string,
  sliceDays: number,
  readSlice: (ctx: ConnectorContext, slice: DayRange) => Promise<SliceRows>,
): (ctx: ConnectorContext, window: SyncWindow, cursor: string | null) => Promise<SyncBatch> {
  return async (ctx, window, cursor) => {
    const range = reportingDays(window);
    if (!range) return { adMetrics: [], nextCursor: null, estimatedTotal: 0 };
    const { slice, nextStart } = sliceFrom(range, parseSliceCursor(platform, cursor)?.from ?? range.from, sliceDays);
    const read = await readSlice(ctx, slice);
    const adMetrics = Array.isArray(read) ? read : read.adMetrics;
    return {
      adMetrics,
      ...(Array.isArray(read) ? {} : { productAdSlices: read.productAdSlices }),
      nextCursor: nextStart ? JSON.stringify({ from: nextStart } satisfies SliceCursor) : null,
      estimatedTotal: estimateWindowRows(adMetrics.length, slice, range),
    };
  };
}
