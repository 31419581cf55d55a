import { addDays } from '../../../shared/date-ranges.ts';

// Pure rules of the dashboard screen, apart so that they are tested without a browser.

export type DayPart = 'morning' | 'afternoon' | 'evening';

/** The hour (0-23) of an instant on the clock of an IANA time zone. */
export function hourInZone(instant: Date, timeZone: string): number {
  const hour = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', hourCycle: 'h23', timeZone }).format(instant);
  return Number(hour);
}

/** The greeting's part of the day in the store's time zone: morning before 12:00, afternoon before 18:00, evening after. */
export function dayPartInZone(instant: Date, timeZone: string): DayPart {
  const hour = hourInZone(instant, timeZone);
  if (hour < 12) return 'morning';
  if (hour < 18) return 'afternoon';
  return 'evening';
}

/** The LTV tile's horizon: the value of a new customer's first 90 days (daily_rollups.ltv_net_90). */
export const LTV_TILE_HORIZON_DAYS = 90;

/**
 * "Too recent to judge": more than half of the range's new customers placed their first order fewer
 * than 90 days before today (in the store's time zone), so most of their 90-day window is still open
 * and the LTV tile understates what they will be worth. A customer who joined on day d has had the
 * whole window once d + 90 <= today (as LTV cohorts count a horizon complete).
 */
export const LTV_TOO_RECENT_SHARE = 0.5;

export interface LtvMaturity {
  customers: number;
  /** new customers whose 90-day window is still open */
  recent: number;
  /** recent / customers, 0 without customers */
  recentShare: number;
  tooRecent: boolean;
}

export function ltvMaturity(days: readonly { day: string; newCustomers: number }[], today: string): LtvMaturity {
  let customers = 0;
  let recent = 0;
  for (const { day, newCustomers } of days) {
    customers += newCustomers;
    if (addDays(day, LTV_TILE_HORIZON_DAYS) > today) recent += newCustomers;
  }
  const recentShare = customers === 0 ? 0 : recent / customers;
  return { customers, recent, recentShare, tooRecent: customers > 0 && recentShare > LTV_TOO_RECENT_SHARE };
}

/** The analytics view of one KPI over the same range and comparison (the tiles' click-through). */
export function analyticsHref(kpi: string, range: { from: string; to: string; compare: string }): string {
  return `/analytics?${new URLSearchParams({ kpi, from: range.from, to: range.to, compare: range.compare }).toString()}`;
}
