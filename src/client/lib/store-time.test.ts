import { describe, expect, it } from 'vitest';
import { dateTimeInZone } from './store-time.ts';

describe("times on the store's clock", () => {
  it("writes a scheduled report's 08:00 London sending as 08:00 whatever the browser's zone", () => {
    // 1 June 2026 07:00 UTC = 08:00 BST (UTC+1) = 03:00 in New York (UTC-4).
    const sent = '2026-06-01T07:00:00Z';
    expect(dateTimeInZone('en-GB', 'Europe/London')(sent)).toBe('1 Jun 2026, 08:00');
    expect(dateTimeInZone('en-GB', 'America/New_York')(sent)).toBe('1 Jun 2026, 03:00');
    // In January London is on UTC: 08:00 UTC is 08:00 there.
    expect(dateTimeInZone('de', 'Europe/London')('2026-01-05T08:00:00Z')).toBe('05.01.2026, 08:00');
  });
});
