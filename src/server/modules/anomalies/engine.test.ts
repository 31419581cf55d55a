import { describe, expect, it } from 'vitest';
import type { AnomalyScope } from '../../../shared/anomalies.ts';
import { addDays } from '../../../shared/date-ranges.ts';
import { recommendationOf, spendWithoutConversions, type StoreData, detectDay, pixelDivergence } from './detect.ts';
import {
  blackFriday, cyberMonday, eventOffset, expectationOf, fitBaseline, judgeDay, poissonCdf, scaledMad, severityOf, theilSen, type MetricSeries, type SeriesKind,
} from './engine.ts';

// The engine on hand-made series (README, "Anomaly insights").

const scope: AnomalyScope = { level: 'store', channel: null, campaignId: null, label: 'Shop' };
const context = { averageDailyNetSalesMinor: 100_000 };
/** Sunday strongest, Saturday weakest (as the demo store). */
const WEEKDAY = [1.14, 1.06, 1.02, 1.0, 0.97, 0.91, 0.8];

/** A deterministic ±`noise` wobble per day. */
function wobble(index: number, noise: number): number {
  const x = Math.sin(index * 12.9898) * 43758.5453;
  return 1 + (x - Math.floor(x) - 0.5) * 2 * noise;
}

function series(from: string, to: string, value: (day: string, index: number) => number, kind: SeriesKind = 'money'): MetricSeries {
  const values = new Map<string, number | null>();
  let index = 0;
  for (let day = from; day <= to; day = addDays(day, 1)) values.set(day, value(day, index++));
  return { metric: 'net_sales', scope, kind, direction: 'both', values };
}

const weekday = (day: string) => WEEKDAY[new Date(`${day}T00:00:00Z`).getUTCDay()]!;
const weekly = (base: number, noise = 0.03) => (day: string, index: number) => base * weekday(day) * wobble(index, noise);

describe('the calendar', () => {
  it('finds Black Friday (the day after the 4th Thursday of November) and Cyber Monday', () => {
    expect(blackFriday(2024)).toBe('2024-11-29');
    expect(blackFriday(2025)).toBe('2025-11-28');
    expect(blackFriday(2026)).toBe('2026-11-27');
    expect(cyberMonday(2026)).toBe('2026-11-30');
    expect(eventOffset('2026-11-20')).toBe(-7);
    expect(eventOffset('2026-12-03')).toBe(6);
    expect(eventOffset('2026-12-04')).toBeNull();
    expect(eventOffset('2026-11-19')).toBeNull();
  });
});

describe('robust statistics', () => {
  it('scales the MAD by 1.4826 and takes the median slope', () => {
    expect(scaledMad([1, 2, 3, 4, 100])).toBeCloseTo(1.4826, 4);
    expect(theilSen([{ x: 0, y: 0 }, { x: 1, y: 2 }, { x: 2, y: 4 }, { x: 3, y: 6 }, { x: 4, y: 100 }])).toBe(2);
    expect(poissonCdf(0, 2)).toBeCloseTo(Math.exp(-2), 10);
  });

  it('grades severity by robust z and effect size', () => {
    expect(severityOf(8, 60)).toBe('high');
    expect(severityOf(-8, -60)).toBe('high');
    expect(severityOf(5.5, 20)).toBe('medium');
    expect(severityOf(3.6, 35)).toBe('medium');
    expect(severityOf(3.6, 18)).toBe('low');
  });
});

describe('a day judged against the seasonal baseline', () => {
  it('finds a spike on a flat weekday pattern, with its evidence', () => {
    const data = series('2026-01-01', '2026-06-30', weekly(100_000));
    const day = '2026-06-10';
    data.values.set(day, 100_000 * weekday(day) * 1.6);
    const finding = judgeDay(data, day, context);
    expect(finding).not.toBeNull();
    expect(finding!.percentChange).toBeGreaterThan(50);
    expect(finding!.percentChange).toBeLessThan(70);
    expect(finding!.robustZ).toBeGreaterThan(3.5);
    expect(finding!.evidence).toHaveLength(28);
    expect(finding!.evidence.at(-1)).toMatchObject({ at: day, value: 100_000 * weekday(day) * 1.6 / 100 });
    const last = finding!.evidence.at(-1)!;
    expect(last.lower!).toBeLessThan(last.expected!);
    expect(last.upper!).toBeGreaterThan(last.expected!);
  });

  it('leaves the same kind of spike alone under 15 %, even far outside the band', () => {
    const data = series('2026-01-01', '2026-06-30', weekly(100_000, 0.005));
    const day = '2026-06-10';
    data.values.set(day, 100_000 * weekday(day) * 1.12);
    const expectation = expectationOf(data, day)!;
    expect((data.values.get(day)! - expectation.expected) / expectation.sigma).toBeGreaterThan(3.5);
    expect(judgeDay(data, day, context)).toBeNull();
  });

  it('finds nothing in a weekly pattern with a trend and noise', () => {
    const data = series('2026-01-01', '2026-10-31', (day, index) => weekly(80_000 * (1 + index / 600), 0.06)(day, index));
    for (let day = '2026-04-01'; day <= '2026-10-31'; day = addDays(day, 1)) expect(judgeDay(data, day, context), day).toBeNull();
    // The trend is followed: the expected value at the end is near the series' level there.
    const fit = fitBaseline(data, '2026-10-31')!;
    expect(fit.expectedAt('2026-10-31') / (80_000 * (1 + 303 / 600) * weekday('2026-10-31'))).toBeCloseTo(1, 1);
  });

  it('judges Black Friday with last year\'s shape: a Black Friday like last year\'s is no anomaly', () => {
    const lift = (day: string) => ({ [-7]: 1.25, [-1]: 1.25, 0: 3.4, 1: 1.9, 2: 1.8, 3: 2.3 } as Record<number, number>)[eventOffset(day) ?? 99] ?? (eventOffset(day) !== null && eventOffset(day)! < 0 ? 1.25 : 1);
    const data = series('2025-08-01', '2026-12-10', (day, index) => weekly(100_000, 0.04)(day, index) * lift(day));
    for (let day = '2026-11-20'; day <= '2026-12-03'; day = addDays(day, 1)) expect(judgeDay(data, day, context), day).toBeNull();
    expect(expectationOf(data, '2026-11-27')!.rule).toBe('last_year');
    // The same Black Friday at half its usual lift is a drop.
    data.values.set('2026-11-27', 100_000 * weekday('2026-11-27') * 1.7);
    expect(judgeDay(data, '2026-11-27', context)).toMatchObject({ day: '2026-11-27' });
  });

  it('without last year, reports only drops on the event days (a rise is expected there)', () => {
    const data = series('2026-06-01', '2026-12-10', weekly(100_000));
    data.values.set('2026-11-27', 100_000 * weekday('2026-11-27') * 3.4);
    expect(expectationOf(data, '2026-11-27')!.rule).toBe('drops_only');
    expect(judgeDay(data, '2026-11-27', context)).toBeNull();
    data.values.set('2026-11-27', 100_000 * weekday('2026-11-27') * 0.3);
    expect(judgeDay(data, '2026-11-27', context)).toMatchObject({ day: '2026-11-27', severity: 'high' });
  });

  it('needs 28 days of baseline', () => {
    const data = series('2026-06-01', '2026-06-27', weekly(100_000));
    data.values.set('2026-06-27', 1_000_000);
    expect(fitBaseline(data, '2026-06-27')).toBeNull();
    expect(judgeDay(data, '2026-06-27', context)).toBeNull();
  });

  it('needs a count to move by at least 3 and beyond its Poisson tail', () => {
    const data = series('2026-01-01', '2026-06-30', () => 2, 'count');
    data.values.set('2026-06-10', 5);
    expect(judgeDay(data, '2026-06-10', context)).toBeNull();
    data.values.set('2026-06-10', 12);
    expect(judgeDay(data, '2026-06-10', context)).toMatchObject({ value: 12, expected: 2 });
  });
});

/** A store with one ad channel and one campaign, flat weekly figures, tracking installed. */
function storeData(): StoreData {
  const data: StoreData = { storeName: 'Shop', store: new Map(), channels: new Map([['googleads', new Map()]]), campaigns: new Map(), pixelPurchases: new Map() };
  data.campaigns.set('googleads:1', { channel: 'googleads', campaignId: '1', name: 'Brand', days: new Map() });
  let index = 0;
  for (let day = '2026-01-01'; day <= '2026-06-30'; day = addDays(day, 1), index += 1) {
    const f = weekday(day) * wobble(index, 0.03);
    const orders = Math.round(100 * f);
    data.store.set(day, { orders, netSalesMinor: orders * 10_000, refundsMinor: 30_000 * wobble(index + 7, 0.2), newCustomerOrders: Math.round(orders * 0.6), newCustomers: Math.round(orders * 0.55), spendMinor: 200_000 * f, adSpendMinor: 200_000 * f });
    data.channels.get('googleads')!.set(day, { orders: Math.round(30 * f), netSalesMinor: Math.round(30 * f) * 10_000, newCustomers: Math.round(15 * f), spendMinor: 200_000 * f });
    data.campaigns.get('googleads:1')!.days.set(day, { spendMinor: 200_000 * f, conversions: 40 * f, conversionValueMinor: 40 * f * 10_000 });
    data.pixelPurchases!.set(day, orders);
  }
  return data;
}

describe('the day\'s findings of a store', () => {
  it('finds nothing in clean figures', () => {
    const data = storeData();
    for (let day = '2026-05-01'; day <= '2026-06-30'; day = addDays(day, 1)) expect(detectDay(data, day), day).toEqual([]);
  });

  it('flags spend flowing while the channel\'s orders stop, and leaves its orders and ROAS to that finding', () => {
    const data = storeData();
    const day = '2026-06-10';
    Object.assign(data.channels.get('googleads')!.get(day)!, { orders: 0, netSalesMinor: 0, newCustomers: 0 });
    const findings = detectDay(data, day);
    const channel = findings.filter((finding) => finding.scope.level === 'channel');
    expect(channel.map((finding) => finding.metric)).toEqual(['spend_without_conversions']);
    expect(channel[0]!.recommendation).toEqual({ code: 'check_tracking_landing', params: { scope: 'googleads', change: '-100' } });
  });

  it('flags a campaign that stops converting while it spends', () => {
    const data = storeData();
    const day = '2026-06-10';
    Object.assign(data.campaigns.get('googleads:1')!.days.get(day)!, { conversions: 0, conversionValueMinor: 0 });
    expect(detectDay(data, day).filter((finding) => finding.scope.level === 'campaign')).toMatchObject([{ metric: 'spend_without_conversions', recommendation: { code: 'check_tracking_landing' } }]);
  });

  it('flags a spend spike with ROAS down on a campaign as a matter of bids and budget', () => {
    const data = storeData();
    const day = '2026-06-10';
    data.campaigns.get('googleads:1')!.days.get(day)!.spendMinor *= 3;
    const campaign = detectDay(data, day).filter((finding) => finding.scope.level === 'campaign');
    expect(campaign.find((finding) => finding.metric === 'marketing_spend')?.recommendation.code).toBe('check_bids_budget');
    expect(campaign.find((finding) => finding.metric === 'roas')?.recommendation).toEqual({ code: 'check_bids_budget', params: { scope: 'Brand', change: '-67' } });
  });

  it('flags a refund surge with its recommendation', () => {
    const data = storeData();
    data.store.get('2026-06-10')!.refundsMinor = 300_000;
    expect(detectDay(data, '2026-06-10')).toMatchObject([{ metric: 'refunds', recommendation: { code: 'check_refund_reasons' } }]);
  });

  it('flags pixel purchases more than 20 % away from the orders, only with tracking installed', () => {
    const data = storeData();
    const orders = data.store.get('2026-06-10')!.orders;
    data.pixelPurchases!.set('2026-06-10', Math.round(orders * 0.82));
    expect(pixelDivergence(data, '2026-06-10')).toBeNull();
    data.pixelPurchases!.set('2026-06-10', Math.round(orders * 0.7));
    expect(pixelDivergence(data, '2026-06-10')).toMatchObject({ metric: 'pixel_order_divergence', value: Math.round(orders * 0.7), expected: orders });
    expect(recommendationOf(pixelDivergence(data, '2026-06-10')!, [], { flowing: false, up: false }).code).toBe('check_pixel_installation');
    expect(pixelDivergence({ ...data, pixelPurchases: null }, '2026-06-10')).toBeNull();
  });

  it('recommends checking bids and budget for a ROAS drop only when the scope spent more than usual, not merely as much', () => {
    const scope = { level: 'campaign' as const, channel: 'googleads', campaignId: 'g1', label: 'Search' };
    const roasDown = { metric: 'roas' as const, scope, day: '2026-06-10', kind: 'ratio' as const, value: 1, expected: 3, percentChange: -66.7, robustZ: -5, severity: 'medium' as const, evidence: [] };
    expect(recommendationOf(roasDown, [roasDown], { flowing: true, up: true }).code).toBe('check_bids_budget');
    expect(recommendationOf(roasDown, [roasDown], { flowing: true, up: false }).code).toBe('review_targeting_creatives');
    const channelOrdersDown = { ...roasDown, metric: 'orders' as const, kind: 'count' as const, scope: { level: 'channel' as const, channel: 'googleads', campaignId: null, label: 'googleads' } };
    expect(recommendationOf(channelOrdersDown, [], { flowing: true, up: false }).code).toBe('check_tracking_landing');
  });

  it('does not call spend without conversions when spend stopped too', () => {
    const data = storeData();
    const day = '2026-06-10';
    Object.assign(data.campaigns.get('googleads:1')!.days.get(day)!, { spendMinor: 0, conversions: 0 });
    const scopes = detectDay(data, day).filter((finding) => finding.metric === 'spend_without_conversions');
    expect(scopes).toEqual([]);
    expect(spendWithoutConversions({ scope, series: [] }, day, context)).toBeNull();
  });
});
