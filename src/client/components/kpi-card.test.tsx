import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Router } from 'wouter';
import { rangeFromSearch } from './date-range-picker.tsx';
import { deltaTone, KpiCard } from './kpi-card.tsx';

describe('KPI delta colour', () => {
  it('a rise is good and a fall bad, inverted for costs; under 0.05 % is no change', () => {
    expect(deltaTone(12.5)).toBe('good');
    expect(deltaTone(-3)).toBe('bad');
    expect(deltaTone(12.5, true)).toBe('bad');
    expect(deltaTone(-3, true)).toBe('good');
    expect(deltaTone(0.04)).toBe('neutral');
  });
});

describe('KpiCard', () => {
  it('shows the value and the signed change', () => {
    const html = renderToString(<KpiCard label="Net sales" value="£12,340" delta={-7.25} />);
    expect(html).toContain('£12,340');
    expect(html).toContain('-7.3%');
    expect(html).toContain('data-tone="bad"');
  });

  it('links to its analytics view, tells the previous value and puts a caveat in place of the hint', () => {
    const html = renderToString(
      <Router ssrPath="/dashboard">
        <KpiCard label="LTV" value="£115.71" delta={12.5} hint="90-day value" note="Too recent to judge" previous="Previous period: £98.00" href="/analytics?kpi=ltv" />
      </Router>,
    );
    expect(html).toContain('href="/analytics?kpi=ltv"');
    expect(html).toContain('Previous period: £98.00');
    expect(html).toContain('data-testid="kpi-note"');
    expect(html).toContain('Too recent to judge');
    expect(html).not.toContain('90-day value');
  });

  it('shows "—" without a value or a previous period', () => {
    const html = renderToString(<KpiCard label="ROAS" value={null} delta={null} />);
    expect(html).toContain('—');
    expect(html).toContain('data-tone="none"');
    expect(html).not.toContain('NaN');
  });
});

describe('range in the URL', () => {
  const today = '2026-03-15';

  it('reads from, to and compare from the query', () => {
    expect(rangeFromSearch('from=2026-01-01&to=2026-01-31&compare=previous_year', today)).toEqual({ from: '2026-01-01', to: '2026-01-31', compare: 'previous_year' });
  });

  it('falls back to the last 30 days and the previous period for a missing or invalid query', () => {
    const fallback = { from: '2026-02-14', to: '2026-03-15', compare: 'previous_period' };
    expect(rangeFromSearch('', today)).toEqual(fallback);
    expect(rangeFromSearch('from=2026-02-01&to=2026-01-01&compare=bogus', today)).toEqual(fallback);
  });

  it('uses the range last chosen in the tab when the URL has none', () => {
    expect(rangeFromSearch('', today, 'from=2026-01-01&to=2026-01-07&compare=none')).toEqual({ from: '2026-01-01', to: '2026-01-07', compare: 'none' });
  });
});
