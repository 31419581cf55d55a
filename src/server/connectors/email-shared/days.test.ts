import { describe, expect, it } from 'vitest';
import { instantOfWallClock, isKnownTimezone, localDay, sentInWindow, wallClockIso, windowDays } from './days.ts';

describe('e-mail day helpers', () => {
  it("reads a send time as the store's calendar day", () => {
    expect(localDay('2026-01-10T23:30:00Z', 'UTC')).toBe('2026-01-10');
    expect(localDay('2026-01-10T23:30:00Z', 'Europe/Berlin')).toBe('2026-01-11');
    expect(localDay('2026-01-10T03:00:00Z', 'America/New_York')).toBe('2026-01-09');
    expect(localDay('2026-01-10T03:00:00Z', 'Not/AZone')).toBe('2026-01-10');
  });

  it('keeps send times in [since, until)', () => {
    const window = { since: new Date('2026-01-01T00:00:00Z'), until: new Date('2026-02-01T00:00:00Z') };
    expect(sentInWindow('2026-01-01T00:00:00Z', window)).toBe(true);
    expect(sentInWindow('2026-02-01T00:00:00Z', window)).toBe(false);
    expect(sentInWindow(null, window)).toBe(false);
  });

  it("reads window bounds as days whichever timezone's midnight they are", () => {
    const utc = { since: new Date('2026-01-01T00:00:00Z'), until: new Date('2026-02-01T00:00:00Z') };
    const newYork = { since: new Date('2026-01-01T05:00:00Z'), until: new Date('2026-02-01T05:00:00Z') };
    const tokyo = { since: new Date('2025-12-31T15:00:00Z'), until: new Date('2026-01-31T15:00:00Z') };
    for (const window of [utc, newYork, tokyo]) expect(windowDays(window)).toEqual({ firstDay: '2026-01-01', lastDay: '2026-01-31' });
  });

  it("writes an instant on a zone's wall clock with that zone's offset, and reads it back ignoring the offset", () => {
    // 2026-01-01T00:00Z is 19:00 the day before in New York (EST, UTC-5) and 09:00 in Tokyo (UTC+9)
    expect(wallClockIso(new Date('2026-01-01T00:00:00Z'), 'America/New_York')).toBe('2025-12-31T19:00:00-05:00');
    expect(wallClockIso(new Date('2026-01-01T00:00:00Z'), 'Asia/Tokyo')).toBe('2026-01-01T09:00:00+09:00');
    // July: New York is on EDT, UTC-4; a zone with a half-hour offset; sub-seconds are cut
    expect(wallClockIso(new Date('2026-07-01T12:00:00.900Z'), 'America/New_York')).toBe('2026-07-01T08:00:00-04:00');
    expect(wallClockIso(new Date('2026-01-01T00:00:00Z'), 'Asia/Kolkata')).toBe('2026-01-01T05:30:00+05:30');
    // the offset written after the wall clock does not matter when it is read in a zone
    expect(instantOfWallClock('2025-12-31T19:00:00+00:00', 'America/New_York')!.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(instantOfWallClock('2026-07-01T08:00:00-04:00', 'America/New_York')!.toISOString()).toBe('2026-07-01T12:00:00.000Z');
    expect(instantOfWallClock('2026-01-01', 'UTC')).toBeNull();
    expect(isKnownTimezone('US/Eastern')).toBe(true);
    expect(isKnownTimezone('Mars/Olympus')).toBe(false);
    expect(isKnownTimezone(null)).toBe(false);
  });
});
