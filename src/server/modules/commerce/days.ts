// Calendar days as 'YYYY-MM-DD' strings: the unit of every rollup and report range.

const DAY_MS = 86_400_000;

export function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** Number of days from `from` to `to` (0 for the same day). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

/**
 * The day of an instant in an IANA time zone. PostgreSQL does the bucketing of stored rows
 * (`(placed_at at time zone tz)::date`); this gives the same answer in JS for checks and "today".
 */
export function dayInZone(instant: string | Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(instant));
}

/** The same date a year earlier; 29 February steps back to the 28th. */
export function sameDayLastYear(day: string): string {
  const [year, month, date] = day.split('-');
  return month === '02' && date === '29' ? `${Number(year) - 1}-02-28` : `${Number(year) - 1}-${month}-${date}`;
}

export function monthOf(day: string): string {
  return day.slice(0, 7);
}

export function addMonths(month: string, count: number): string {
  const [year, m] = month.split('-').map(Number) as [number, number];
  const index = year * 12 + (m - 1) + count;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
}

export function lastDayOfMonth(month: string): string {
  return addDays(`${addMonths(month, 1)}-01`, -1);
}
