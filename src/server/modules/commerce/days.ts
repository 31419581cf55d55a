// Calendar days as 'YYYY-MM-DD' strings: the unit of every rollup and report range. The day helpers
// are the shared ones (src/shared/date-ranges.ts); this adds the months of the trend and LTV charts.
// PostgreSQL does the bucketing of stored rows (`(placed_at at time zone tz)::date`); dayInZone gives
// the same answer in JS for checks and "today".
import { addDays } from '../../../shared/date-ranges.ts';

export { addDays, dayInZone, daysBetween } from '../../../shared/date-ranges.ts';

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
