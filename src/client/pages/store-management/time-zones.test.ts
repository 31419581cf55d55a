import { describe, expect, it } from 'vitest';
import { filterTimeZones, timeZoneOptions, utcOffset } from './time-zones.ts';

describe('time zone picker', () => {
  it('shows the offset in force at the moment: New York is UTC−05:00 in winter and UTC−04:00 from 8 March 2026 (07:00 UTC)', () => {
    expect(utcOffset('America/New_York', new Date('2026-01-15T12:00:00Z'))).toBe('\u221205:00');
    expect(utcOffset('America/New_York', new Date('2026-03-08T06:59:00Z'))).toBe('\u221205:00');
    expect(utcOffset('America/New_York', new Date('2026-03-08T07:00:00Z'))).toBe('\u221204:00');
    expect(utcOffset('Asia/Kolkata', new Date('2026-07-01T00:00:00Z'))).toBe('+05:30');
    expect(utcOffset('UTC', new Date('2026-07-01T00:00:00Z'))).toBe('+00:00');
    expect(utcOffset('Europe/London', new Date('2026-07-01T00:00:00Z'))).toBe('+01:00');
  });

  it('lists UTC and every IANA zone, and finds them by words of their name or by offset', () => {
    const options = timeZoneOptions(new Date('2026-01-15T12:00:00Z'));
    expect(options.map((option) => option.zone)).toEqual(expect.arrayContaining(['UTC', 'America/New_York', 'Europe/London', 'Australia/Sydney']));
    expect(options.length).toBeGreaterThan(400);
    expect(filterTimeZones(options, 'new york').map((option) => option.zone)).toEqual(['America/New_York']);
    expect(filterTimeZones(options, '  America   New_Y ').map((option) => option.zone)).toEqual(['America/New_York']);
    // Nepal alone is 5:45 ahead (ICU still names it Asia/Katmandu, newer lists Asia/Kathmandu).
    expect(filterTimeZones(options, 'utc+05:45').map((option) => option.zone)).toEqual([expect.stringMatching(/^Asia\/Kath?mandu$/)]);
    expect(filterTimeZones(options, 'no such place')).toEqual([]);
    expect(filterTimeZones(options, '')).toHaveLength(options.length);
  });
});
