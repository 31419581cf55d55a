import { describe, expect, it } from 'vitest';
import { analyticsHref, dayPartInZone, hourInZone, ltvMaturity } from './dashboard-figures.ts';

describe("the greeting follows the store's clock", () => {
  // 10:30 UTC on 10 June: 11:30 in London (BST), 06:30 in New York, 19:30 in Tokyo.
  const instant = new Date('2026-06-10T10:30:00Z');

  it('takes the hour in the store zone, not the browser or server one', () => {
    expect(hourInZone(instant, 'Europe/London')).toBe(11);
    expect(hourInZone(instant, 'America/New_York')).toBe(6);
    expect(hourInZone(instant, 'Asia/Tokyo')).toBe(19);
    expect(dayPartInZone(instant, 'Europe/London')).toBe('morning');
    expect(dayPartInZone(instant, 'Asia/Tokyo')).toBe('evening');
    // 12:00 and 18:00 start the afternoon and the evening (13:00 and 19:00 BST).
    expect(dayPartInZone(new Date('2026-06-10T11:00:00Z'), 'Europe/London')).toBe('afternoon');
    expect(dayPartInZone(new Date('2026-06-10T16:59:00Z'), 'Europe/London')).toBe('afternoon');
    expect(dayPartInZone(new Date('2026-06-10T17:00:00Z'), 'Europe/London')).toBe('evening');
  });

  it('counts midnight as hour 0, not 24', () => {
    expect(hourInZone(new Date('2026-06-09T23:15:00Z'), 'Europe/London')).toBe(0);
    expect(dayPartInZone(new Date('2026-06-09T23:15:00Z'), 'Europe/London')).toBe('morning');
  });
});

describe('LTV customers too recent to judge', () => {
  const today = '2026-06-10';

  it('is too recent when more than half of the new customers joined under 90 days ago', () => {
    // 12 March + 90 days = 10 June <= today: complete; 13 March + 90 = 11 June: still open.
    const result = ltvMaturity(
      [
        { day: '2026-03-12', newCustomers: 4 },
        { day: '2026-03-13', newCustomers: 5 },
      ],
      today,
    );
    // 5 of 9 = 55.6 % > 50 %.
    expect(result).toEqual({ customers: 9, recent: 5, recentShare: 5 / 9, tooRecent: true });
  });

  it('is judged when at most half are recent, or when there are no new customers', () => {
    // 5 of 10 = 50 %: not more than half.
    expect(ltvMaturity([{ day: '2026-01-01', newCustomers: 5 }, { day: '2026-06-01', newCustomers: 5 }], today).tooRecent).toBe(false);
    expect(ltvMaturity([{ day: '2026-06-10', newCustomers: 0 }], today)).toEqual({ customers: 0, recent: 0, recentShare: 0, tooRecent: false });
    // Today's own customers are all recent.
    expect(ltvMaturity([{ day: today, newCustomers: 3 }], today).tooRecent).toBe(true);
  });
});

describe('KPI tile click-through', () => {
  it('opens the analytics view of the metric over the same range and comparison', () => {
    expect(analyticsHref('roas', { from: '2026-05-12', to: '2026-06-10', compare: 'previous_year' })).toBe(
      '/analytics?kpi=roas&from=2026-05-12&to=2026-06-10&compare=previous_year',
    );
  });
});
