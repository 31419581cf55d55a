import { describe, expect, it } from 'vitest';
import { addDays } from '../../../shared/date-ranges.ts';
import { seededRandom } from '../../random.ts';
import type { StoreData } from './detect.ts';
import { eventOffset } from './engine.ts';
import { measureQuality } from './quality.ts';

// The small version of bench:anomalies (BENCHMARKS.md, "i18-anomalies"): a store made here with the
// demo's shapes (weekday pattern, trend, Black Friday lift both years, Poisson orders, order values
// with coefficient of variation ~1, campaign budgets changed monthly by up to ±40 % and paced ±20 %
// daily), four months judged day by day including Black Friday; 3 injections of each kind. Fails when
// recall < 90 % or false alarms > 1 per store-month.

const WEEKDAY = [1.14, 1.06, 1.02, 1.0, 0.97, 0.91, 0.8];
const BF_LIFT: Record<number, number> = { 0: 3.4, 1: 1.9, 2: 1.8, 3: 2.3 };

function poisson(random: () => number, lambda: number): number {
  // Normal approximation above 30 (enough here), Knuth below.
  if (lambda > 30) return Math.max(0, Math.round(lambda + Math.sqrt(lambda) * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random())));
  const limit = Math.exp(-lambda);
  let k = 0;
  for (let p = random(); p > limit; p *= random()) k += 1;
  return k;
}

function syntheticStore(seed: number): StoreData {
  const random = seededRandom(seed);
  const channels = { googleads: 0.3, metaads: 0.2, organic_search: 0.25, direct: 0.25 } as const;
  const campaigns = [
    { channel: 'googleads', campaignId: 'g1', name: 'Search', share: 0.6 },
    { channel: 'googleads', campaignId: 'g2', name: 'Shopping', share: 0.4 },
    { channel: 'metaads', campaignId: 'm1', name: 'Prospecting', share: 0.7 },
    { channel: 'metaads', campaignId: 'm2', name: 'Retargeting', share: 0.3 },
  ];
  const data: StoreData = { storeName: 'Synthetic', store: new Map(), channels: new Map(), campaigns: new Map(), pixelPurchases: new Map() };
  for (const channel of Object.keys(channels)) data.channels.set(channel, new Map());
  for (const campaign of campaigns) data.campaigns.set(`${campaign.channel}:${campaign.campaignId}`, { channel: campaign.channel, campaignId: campaign.campaignId, name: campaign.name, days: new Map() });
  const levels = campaigns.map(() => 1);
  let index = 0;
  for (let day = '2025-08-01'; day <= '2026-12-05'; day = addDays(day, 1), index += 1) {
    if (day.endsWith('-01')) levels.forEach((_, i) => (levels[i] = 0.6 + random() * 0.8));
    const offset = eventOffset(day);
    const lift = offset === null ? 1 : (BF_LIFT[offset] ?? (offset < 0 ? 1.25 : 1));
    const mean = 80 * (1 + index / 1000) * WEEKDAY[new Date(`${day}T00:00:00Z`).getUTCDay()]! * lift;
    const storeDay = { orders: 0, netSalesMinor: 0, refundsMinor: 0, newCustomerOrders: 0, newCustomers: 0, spendMinor: 0, adSpendMinor: 0 };
    for (const [channel, share] of Object.entries(channels)) {
      const orders = poisson(random, mean * share);
      let net = 0;
      for (let order = 0; order < orders; order += 1) net += Math.round(-Math.log(1 - random()) * 8_000);
      const newCustomers = poisson(random, orders * 0.5);
      const spend = campaigns.filter((campaign) => campaign.channel === channel).reduce((sum, campaign) => {
        const i = campaigns.indexOf(campaign);
        const value = Math.round(mean * 2_000 * 0.25 * campaign.share * levels[i]! * (0.8 + random() * 0.4));
        const conversions = poisson(random, (orders * 1.2 * campaign.share * value) / Math.max(1, mean * 500 * campaign.share));
        data.campaigns.get(`${channel}:${campaign.campaignId}`)!.days.set(day, { spendMinor: value, conversions, conversionValueMinor: conversions * 8_000 });
        return sum + value;
      }, 0);
      data.channels.get(channel)!.set(day, { orders, netSalesMinor: net, newCustomers, spendMinor: spend });
      storeDay.orders += orders;
      storeDay.netSalesMinor += net;
      storeDay.newCustomerOrders += newCustomers;
      storeDay.newCustomers += newCustomers;
      storeDay.spendMinor += spend;
      storeDay.adSpendMinor += spend;
    }
    for (let refund = poisson(random, mean * 0.04); refund > 0; refund -= 1) storeDay.refundsMinor += Math.round(-Math.log(1 - random()) * 8_000);
    storeDay.netSalesMinor -= storeDay.refundsMinor;
    data.store.set(day, storeDay);
    data.pixelPurchases!.set(day, Math.round(storeDay.orders * (0.97 + random() * 0.02)));
  }
  return data;
}

// Both goals are met since the i18-anomaly-quality changes (README, "Anomaly insights"): the band per
// side from the residuals' tails, the store-wide (Bonferroni) threshold, spend's 4-week baseline and
// budget-change rule, the store's event shape for channels and campaigns, holidays against last year.
describe('the quality of anomaly detection on a synthetic store (small bench:anomalies)', () => {
  it('finds >= 90 % of the injected anomalies with <= 1 false alarm per store-month, Black Friday included', () => {
    const report = measureQuality(syntheticStore(7), '2026-12-05', 3, '2026-08-01');
    const misses = report.injected.filter((item) => !item.detected).map((item) => `${item.injection.kind} ${item.injection.scopeKey} ${item.injection.days[0]}`);
    const alarms = report.cleanAlerts.map((finding) => `${finding.day} ${finding.metric} ${finding.scope.label} z ${finding.robustZ.toFixed(1)}`);
    expect(report.injected).toHaveLength(12);
    expect(report.recall, misses.join('; ')).toBeGreaterThanOrEqual(0.9);
    expect(report.falseAlarmsPerStoreMonth, alarms.join('; ')).toBeLessThanOrEqual(1);
    expect(report.eventDaysJudged).toBe(14);
    expect(report.eventDayAlerts, alarms.join('; ')).toEqual([]);
  });
});
