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

const wallClockFormatters = new Map<string, Intl.DateTimeFormat>();

function wallClockFormatter(timezone: string): Intl.DateTimeFormat {
  let formatter = wallClockFormatters.get(timezone);
  if (!formatter) {
    const options: Intl.DateTimeFormatOptions = { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' };
    try {
      formatter = new Intl.DateTimeFormat('en-CA', { ...options, timeZone: timezone });
    } catch {
      formatter = new Intl.DateTimeFormat('en-CA', { ...options, timeZone: 'UTC' });
    }
    wallClockFormatters.set(timezone, formatter);
  }
  return formatter;
}

/** Whether `timezone` is an IANA name this runtime knows (platforms send e.g. "US/Eastern"). */
export function isKnownTimezone(timezone: string | null | undefined): timezone is string {
  if (!timezone) return false;
  try {
    new Intl.DateTimeFormat('en-CA', { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/**
 * An instant as the wall clock of `timezone` shows it, with that zone's offset at the instant:
 * '2025-12-31T19:00:00-05:00' for 2026-01-01T00:00:00Z in America/New_York. A platform that reads the
 * offset and one that ignores it and reads the wall clock in that zone (Klaviyo's reports) both get
 * the same instant. Whole seconds; unknown zones are read as UTC.
 */
export function wallClockIso(instant: Date, timezone: string): string {
  const seconds = Math.floor(instant.getTime() / 1000) * 1000;
  const parts = Object.fromEntries(wallClockFormatter(timezone).formatToParts(new Date(seconds)).map((part) => [part.type, part.value]));
  const wall = `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`;
  const offsetMinutes = Math.round((Date.parse(`${wall}Z`) - seconds) / 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const absolute = Math.abs(offsetMinutes);
  return `${wall}${sign}${String(Math.floor(absolute / 60)).padStart(2, '0')}:${String(absolute % 60).padStart(2, '0')}`;
}

/**
 * The instant a wall-clock time 'YYYY-MM-DDTHH:MM:SS' (any offset after it ignored) denotes in
 * `timezone`; null when the text is not such a time. In a DST gap or overlap it picks one of the
 * candidates, as platforms that read wall clocks do.
 */
export function instantOfWallClock(text: string, timezone: string): Date | null {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})/.exec(text);
  if (!match) return null;
  const asUtc = Date.parse(`${match[1]}Z`);
  if (Number.isNaN(asUtc)) return null;
  let guess = asUtc;
  for (let step = 0; step < 3; step++) {
    const shown = Date.parse(`${wallClockIso(new Date(guess), timezone).slice(0, 19)}Z`);
    guess += asUtc - shown;
  }
  return new Date(guess);
}
