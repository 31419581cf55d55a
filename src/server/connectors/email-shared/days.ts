import type { SyncWindow } from '../connector.ts';

// E-mail platforms report per campaign, not per day: a campaign's numbers belong to the day it was
// sent, counted in the store's timezone so they line up with the store's orders on the dashboard.

const dayFormatters = new Map<string, Intl.DateTimeFormat>();

/** 'YYYY-MM-DD' of an instant in `timezone` (an IANA name; unknown names fall back to UTC). */
export function localDay(instant: Date | string, timezone: string): string {
  const date = typeof instant === 'string' ? new Date(instant) : instant;
  if (Number.isNaN(date.getTime())) throw new RangeError(`not an instant: ${String(instant)}`);
  let formatter = dayFormatters.get(timezone);
  if (!formatter) {
    try {
      formatter = new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' });
    } catch {
      formatter = new Intl.DateTimeFormat('en-CA', { timeZone: 'UTC', year: 'numeric', month: '2-digit', day: '2-digit' });
    }
    dayFormatters.set(timezone, formatter);
  }
  return formatter.format(date);
}

/** Whether a send time falls in the window: since <= instant < until. */
export function sentInWindow(instant: Date | string | null | undefined, window: SyncWindow): boolean {
  if (!instant) return false;
  const time = (typeof instant === 'string' ? new Date(instant) : instant).getTime();
  return !Number.isNaN(time) && time >= window.since.getTime() && time < window.until.getTime();
}

const HALF_DAY_MS = 43_200_000;

/**
 * The calendar days of a window whose bounds are day starts (until exclusive). Whichever timezone's
 * midnight the engine passes, it is within 12 hours of UTC midnight, so each bound is read as the day
 * whose UTC midnight is nearest (the same reading as ads-shared/reporting-days.ts).
 */
export function windowDays(window: SyncWindow): { firstDay: string; lastDay: string } {
  const nearestDay = (time: number) => new Date(time + HALF_DAY_MS).toISOString().slice(0, 10);
  return { firstDay: nearestDay(window.since.getTime()), lastDay: nearestDay(window.until.getTime() - 86_400_000) };
}
