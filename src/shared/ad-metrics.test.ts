import { describe, expect, it } from 'vitest';
import { cpc, cpm, ctr, formatRatio } from './metrics.ts';

// The ad platform ratios at the end of metrics.ts (kept in their own test file: metrics.test.ts is the engine's).
describe('ad platform ratios', () => {
  it('CTR is clicks per impression, CPC spend per click, CPM spend per thousand impressions', () => {
    expect(ctr({ clicks: 50, impressions: 2_000 })).toBe(0.025);
    expect(cpc({ spendMinor: 3_000, clicks: 120 })).toBe(25);
    expect(cpm({ spendMinor: 3_000, impressions: 1_500 })).toBe(2_000);
  });

  it('have no value without impressions or clicks ("—", never Infinity or NaN)', () => {
    expect(ctr({ clicks: 0, impressions: 0 })).toBeNull();
    expect(cpc({ spendMinor: 500, clicks: 0 })).toBeNull();
    expect(cpm({ spendMinor: 500, impressions: 0 })).toBeNull();
    expect(formatRatio(cpc({ spendMinor: 500, clicks: 0 }))).toBe('—');
    expect(cpc({ spendMinor: 0, clicks: 10 })).toBe(0);
  });
});
