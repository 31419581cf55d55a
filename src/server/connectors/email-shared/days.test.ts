import { describe, expect, it } from 'vitest';
import { localDay, sentInWindow, windowDays } from './days.ts';

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
});
