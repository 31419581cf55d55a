import { describe, expect, it } from 'vitest';
import { MalformedResponseError } from '../connector.ts';
import { fractionalCount, spendPerDay, wholeCount } from './counts.ts';
import { urlWithQuery } from './oauth2.ts';
import { dayCount, estimateWindowRows, nearestDay, reportingDays, sliceFrom } from './reporting-days.ts';

describe('reporting days of a sync window', () => {
  it('reads the window as days, until exclusive, whatever zone the day starts were taken in', () => {
    expect(reportingDays({ since: new Date('2026-01-01T00:00:00Z'), until: new Date('2026-02-01T00:00:00Z') })).toEqual({ from: '2026-01-01', to: '2026-01-31' });
    // Start of 2026-01-15 in Berlin and in New York.
    expect(nearestDay(new Date('2026-01-14T23:00:00Z'))).toBe('2026-01-15');
    expect(nearestDay(new Date('2026-01-15T05:00:00Z'))).toBe('2026-01-15');
    expect(reportingDays({ since: new Date('2026-01-01T00:00:00Z'), until: new Date('2026-01-01T00:00:00Z') })).toBeNull();
  });

  it('cuts a range into slices of at most N days', () => {
    const range = { from: '2026-01-01', to: '2026-02-28' };
    expect(sliceFrom(range, '2026-01-01', 30)).toEqual({ slice: { from: '2026-01-01', to: '2026-01-30' }, nextStart: '2026-01-31' });
    expect(sliceFrom(range, '2026-01-31', 30)).toEqual({ slice: { from: '2026-01-31', to: '2026-02-28' }, nextStart: null });
    expect(dayCount(range)).toBe(59);
    expect(estimateWindowRows(300, { from: '2026-01-01', to: '2026-01-30' }, range)).toBe(590);
  });
});

describe('counts and spend totals', () => {
  it('parses counts strictly, with "-" and absent as 0', () => {
    expect(wholeCount('5000', 'p', 'impressions')).toBe(5000);
    expect(wholeCount(120, 'p', 'clicks')).toBe(120);
    expect(wholeCount('-', 'p', 'clicks')).toBe(0);
    expect(wholeCount(undefined, 'p', 'clicks')).toBe(0);
    expect(() => wholeCount('12.5', 'p', 'clicks')).toThrow(MalformedResponseError);
    expect(() => wholeCount('1,000', 'p', 'clicks')).toThrow(MalformedResponseError);
    expect(fractionalCount('2.5', 'p', 'conversions')).toBe(2.5);
    expect(fractionalCount(15.0, 'p', 'conversions')).toBe(15);
    expect(() => fractionalCount('many', 'p', 'conversions')).toThrow(MalformedResponseError);
  });

  it('sums spend per day and currency', () => {
    const row = { platform: 'p', accountId: 'a', campaignId: 'c', campaignName: 'n', impressions: 0 };
    expect(
      spendPerDay([
        { ...row, day: '2026-01-02', currency: 'USD', spendMinor: 5 },
        { ...row, day: '2026-01-01', currency: 'USD', spendMinor: 7 },
        { ...row, day: '2026-01-02', currency: 'USD', spendMinor: 10 },
      ]),
    ).toEqual([
      { day: '2026-01-01', currency: 'USD', spendMinor: 7 },
      { day: '2026-01-02', currency: 'USD', spendMinor: 15 },
    ]);
    expect(urlWithQuery('https://example.com/auth?x=1', { a: 'b c', skip: undefined })).toBe('https://example.com/auth?x=1&a=b+c');
  });
});
