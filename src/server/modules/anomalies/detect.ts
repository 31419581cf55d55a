import type { AnomalyMetric, AnomalyRecommendationCode, AnomalyScope } from '../../../shared/anomalies.ts';
import { addDays } from '../../../shared/date-ranges.ts';
import { attributedRoas, platformRoas, roas } from '../../../shared/metrics.ts';
import {
  BASELINE_DAYS, DEFAULT_THRESHOLD, fitBaseline, ROBUST_Z, SPEND_BASELINE_DAYS, EPISODE_DAYS, evidenceOf, expectationOf, judgeDay, minimumEffect, poissonCdf, scaledMad, severityOf, thresholdFor, type Threshold,
  type Direction, type Finding, type MetricSeries, type SeriesKind, type StoreContext,
} from './engine.ts';

// From a store's daily figures (read from the rollups by anomalies.service.ts, or made by
// bench/anomalies.ts) to the day's findings: the metric series of every scope, the two tracking
// rules, the recommendations, and one finding per metric and scope (README, "Anomaly insights").

export interface StoreDay {
  orders: number;
  netSalesMinor: number;
  refundsMinor: number;
  newCustomerOrders: number;
  newCustomers: number;
  spendMinor: number;
  adSpendMinor: number;
}

export interface ChannelDay {
  orders: number;
  netSalesMinor: number;
  newCustomers: number;
  spendMinor: number;
}

export interface CampaignDay {
  spendMinor: number;
  conversions: number;
  conversionValueMinor: number;
}

export interface StoreData {
  storeName: string;
  store: Map<string, StoreDay>;
  channels: Map<string, Map<string, ChannelDay>>;
  campaigns: Map<string, { channel: string; campaignId: string; name: string; days: Map<string, CampaignDay> }>;
  /** Pixel purchases by day; null when the store has no tracking installed. */
  pixelPurchases: Map<string, number> | null;
}

// Denominator minimums of the ratio metrics (README): AOV and the new-customer share need 10 orders
// that day; ROAS needs 10 orders (store, channel) or platform conversions (campaign) and spend of at
// least 1 % of the store's average daily net sales; CAC that spend and 10 new customers.
export const MIN_RATIO_ORDERS = 10;
export const MIN_CAC_NEW_CUSTOMERS = 10;
/** Budgets move by tens of percent as a routine: spend must move by half. */
export const MIN_SPEND_EFFECT = 0.5;
/** Money of a channel or campaign must move by at least 2.5 % of the store's average daily net sales (materiality). */
export const PART_MONEY_SHARE = 0.025;
/** Spend without conversions looks at runs of up to this many days ending on the day judged. */
export const TRACKING_RUN_DAYS = 7;
/** Tracking: pixel purchases and orders differing by more than this share of the orders. */
export const PIXEL_DIVERGENCE = 0.2;
/** Tracking: a day needs this many orders, and the 28 days before it purchases on at least 20 days. */
export const PIXEL_MIN_ORDERS = 20;
/** Spend without conversions: spend at least this share of its baseline, conversions at most this share of theirs. */
export const SPEND_FLOWING_SHARE = 0.8;
export const CONVERSIONS_FLAT_SHARE = 0.25;

export const scopeKeyOf = (scope: AnomalyScope) =>
  scope.level === 'store' ? 'store' : scope.level === 'channel' ? `channel:${scope.channel}` : `campaign:${scope.channel}:${scope.campaignId}`;

/** The store's average daily net sales over the BASELINE_DAYS before `day` (minor units). */
export function storeContextOf(data: StoreData, day: string): StoreContext {
  let sum = 0;
  for (let back = 1; back <= BASELINE_DAYS; back += 1) sum += data.store.get(addDays(day, -back))?.netSalesMinor ?? 0;
  return { averageDailyNetSalesMinor: sum / BASELINE_DAYS };
}

interface ScopeSeries {
  scope: AnomalyScope;
  series: MetricSeries[];
  /** For the tracking rule: spend and conversions (orders for a channel, platform conversions for a campaign). */
  spend?: MetricSeries;
  conversions?: MetricSeries;
}

function seriesOf<D>(metric: AnomalyMetric, scope: AnomalyScope, kind: SeriesKind, direction: Direction, days: Map<string, D>, value: (day: D) => number | null): MetricSeries {
  const values = new Map<string, number | null>();
  for (const [day, figures] of days) values.set(day, value(figures));
  return { metric, scope, kind, direction, values };
}

/** The store's average order value over all its days (minor units). */
export function averageOrderValue(data: StoreData): number {
  let net = 0;
  let orders = 0;
  for (const day of data.store.values()) (net += day.netSalesMinor), (orders += day.orders);
  return orders > 0 ? net / orders : 0;
}

/** Every series of the store's scopes (ratio values null on days whose denominators are too small). */
export function storeSeries(data: StoreData, context: StoreContext): ScopeSeries[] {
  const minSpend = Math.max(1000, 0.01 * context.averageDailyNetSalesMinor);
  const aov = averageOrderValue(data);
  const store: AnomalyScope = { level: 'store', channel: null, campaignId: null, label: data.storeName };
  const scopes: ScopeSeries[] = [
    {
      scope: store,
      series: [
        { ...seriesOf('net_sales', store, 'money', 'both', data.store, (d) => d.netSalesMinor), unitValue: aov },
        seriesOf('orders', store, 'count', 'both', data.store, (d) => d.orders),
        seriesOf('aov', store, 'money', 'both', data.store, (d) => (d.orders >= MIN_RATIO_ORDERS ? d.netSalesMinor / d.orders : null)),
        { ...seriesOf('marketing_spend', store, 'money', 'both', data.store, (d) => d.spendMinor), minRelativeEffect: MIN_SPEND_EFFECT, windowDays: SPEND_BASELINE_DAYS },
        seriesOf('roas', store, 'ratio', 'down', data.store, (d) => (d.adSpendMinor >= minSpend && d.orders >= MIN_RATIO_ORDERS ? roas({ netSalesMinor: d.netSalesMinor, adSpendMinor: d.adSpendMinor }) : null)),
        seriesOf('cac', store, 'money', 'up', data.store, (d) => (d.spendMinor >= minSpend && d.newCustomers >= MIN_CAC_NEW_CUSTOMERS ? d.spendMinor / d.newCustomers : null)),
        { ...seriesOf('refunds', store, 'money', 'up', data.store, (d) => d.refundsMinor), unitValue: aov },
        seriesOf('new_customer_share', store, 'ratio', 'both', data.store, (d) => (d.orders >= MIN_RATIO_ORDERS ? d.newCustomerOrders / d.orders : null)),
      ],
    },
  ];
  /** A channel's or campaign's event days borrow the store's shape of the same metric. */
  const shapeOf = (metric: AnomalyMetric) => scopes[0]!.series.find((series) => series.metric === metric);
  for (const [channel, days] of data.channels) {
    const scope: AnomalyScope = { level: 'channel', channel, campaignId: null, label: channel };
    const hasSpend = [...days.values()].some((d) => d.spendMinor > 0);
    const series: MetricSeries[] = [
      { ...seriesOf('net_sales', scope, 'money', 'both', days, (d) => d.netSalesMinor), unitValue: aov, minMoneyShare: PART_MONEY_SHARE, eventShape: shapeOf('net_sales') },
      { ...seriesOf('orders', scope, 'count', 'both', days, (d) => d.orders), eventShape: shapeOf('orders') },
    ];
    if (hasSpend) {
      series.push(
        { ...seriesOf('marketing_spend', scope, 'money', 'both', days, (d) => d.spendMinor), minRelativeEffect: MIN_SPEND_EFFECT, windowDays: SPEND_BASELINE_DAYS, minMoneyShare: PART_MONEY_SHARE, eventShape: shapeOf('marketing_spend') },
        seriesOf('roas', scope, 'ratio', 'down', days, (d) => (d.spendMinor >= minSpend && d.orders >= MIN_RATIO_ORDERS ? attributedRoas({ attributedNetSalesMinor: d.netSalesMinor, spendMinor: d.spendMinor }) : null)),
        seriesOf('cac', scope, 'ratio', 'up', days, (d) => (d.spendMinor >= minSpend && d.newCustomers >= MIN_CAC_NEW_CUSTOMERS ? d.spendMinor / d.newCustomers : null)),
      );
    }
    scopes.push({ scope, series, ...(hasSpend ? { spend: series[2], conversions: series[1] } : {}) });
  }
  for (const campaign of data.campaigns.values()) {
    const scope: AnomalyScope = { level: 'campaign', channel: campaign.channel, campaignId: campaign.campaignId, label: campaign.name };
    const spend = { ...seriesOf('marketing_spend', scope, 'money', 'both', campaign.days, (d) => d.spendMinor), minRelativeEffect: MIN_SPEND_EFFECT, windowDays: SPEND_BASELINE_DAYS, minMoneyShare: PART_MONEY_SHARE, eventShape: shapeOf('marketing_spend') };
    const conversions = seriesOf('orders', scope, 'count', 'both', campaign.days, (d) => d.conversions);
    const roasSeries = seriesOf('roas', scope, 'ratio', 'down', campaign.days, (d) => (d.spendMinor >= minSpend && d.conversions >= MIN_RATIO_ORDERS ? platformRoas({ conversionValueMinor: d.conversionValueMinor, spendMinor: d.spendMinor }) : null));
    // A campaign's platform conversions feed the tracking rule only; its judged metrics are spend and ROAS.
    scopes.push({ scope, series: [spend, roasSeries], spend, conversions });
  }
  return scopes;
}

/** "Spend flowing, conversions flat": the scope spent at least its usual while its conversions all but stopped. */
export function spendWithoutConversions(scope: ScopeSeries, day: string, context: StoreContext, threshold: Threshold = DEFAULT_THRESHOLD): Omit<Finding, 'recommendation'> | null {
  if (!scope.spend || !scope.conversions) return null;
  const spend = scope.spend.values.get(day);
  const conversions = scope.conversions.values.get(day);
  if (spend === null || spend === undefined || conversions === null || conversions === undefined) return null;
  const spendExpectation = expectationOf(scope.spend, day);
  const conversionExpectation = expectationOf(scope.conversions, day);
  if (!spendExpectation || !conversionExpectation) return null;
  if (spend < SPEND_FLOWING_SHARE * spendExpectation.expected || spend < minimumEffect('money', context)) return null;
  if (conversions > CONVERSIONS_FLAT_SHARE * conversionExpectation.expected) return null;
  // The run of 1..7 days ending today with spend flowing every day whose conversions, summed, are
  // the least likely under Poisson(Σ expected): a campaign with 2 conversions a day is not judged
  // by one quiet day, but 5 days without any is a finding.
  let run = { conversions: 0, expected: 0, tail: 1 };
  let sum = { conversions: 0, expected: 0 };
  for (let back = 0; back < TRACKING_RUN_DAYS; back += 1) {
    const at = addDays(day, -back);
    const daySpend = scope.spend.values.get(at);
    const dayConversions = scope.conversions.values.get(at);
    if (daySpend == null || dayConversions == null) break;
    const dayExpectation = back === 0 ? conversionExpectation : expectationOf(scope.conversions, at);
    const daySpendExpectation = back === 0 ? spendExpectation : expectationOf(scope.spend, at);
    if (!dayExpectation || !daySpendExpectation || daySpend < SPEND_FLOWING_SHARE * daySpendExpectation.expected || dayConversions > CONVERSIONS_FLAT_SHARE * dayExpectation.expected) break;
    sum = { conversions: sum.conversions + dayConversions, expected: sum.expected + dayExpectation.expected };
    const tail = poissonCdf(Math.floor(sum.conversions), sum.expected);
    if (tail < run.tail) run = { ...sum, tail };
  }
  if (run.tail > threshold.tail || run.expected - run.conversions < minimumEffect('count', context)) return null;
  const expected = conversionExpectation.expected;
  // The Poisson tail stands in for the band here (a count at 0 has no room for 3.5 σ of a floored band).
  const robustZ = (conversions - expected) / Math.max(conversionExpectation.sigmaDown, 1e-9);
  const percentChange = expected > 0 ? Math.round(((conversions - expected) / expected) * 1000) / 10 : null;
  return {
    metric: 'spend_without_conversions', scope: scope.scope, day, kind: 'count', value: conversions, expected, percentChange, robustZ,
    severity: severityOf(robustZ, percentChange), evidence: evidenceOf(scope.conversions, day, conversionExpectation),
  };
}

/** Pixel purchases and the shop's orders differing by more than 20 % on a day with enough orders. */
export function pixelDivergence(data: StoreData, day: string): Omit<Finding, 'recommendation'> | null {
  if (!data.pixelPurchases) return null;
  const orders = data.store.get(day)?.orders ?? 0;
  if (orders < PIXEL_MIN_ORDERS) return null;
  let trackedDays = 0;
  for (let back = 1; back <= 28; back += 1) if ((data.pixelPurchases.get(addDays(day, -back)) ?? 0) > 0) trackedDays += 1;
  if (trackedDays < 20) return null;
  const purchases = data.pixelPurchases.get(day) ?? 0;
  const divergence = (purchases - orders) / orders;
  if (Math.abs(divergence) <= PIXEL_DIVERGENCE) return null;
  const percentChange = Math.round(divergence * 1000) / 10;
  const severity = Math.abs(divergence) > 0.5 ? 'high' : Math.abs(divergence) > 0.35 ? 'medium' : 'low';
  const evidence = [];
  for (let back = 27; back >= 0; back -= 1) {
    const at = addDays(day, -back);
    const dayOrders = data.store.get(at)?.orders ?? null;
    evidence.push({
      at, value: data.pixelPurchases.get(at) ?? 0, expected: dayOrders,
      lower: dayOrders === null ? null : Math.round(dayOrders * (1 - PIXEL_DIVERGENCE) * 100) / 100,
      upper: dayOrders === null ? null : Math.round(dayOrders * (1 + PIXEL_DIVERGENCE) * 100) / 100,
    });
  }
  const deviations = evidence.map((point) => (point.expected ? (point.value - point.expected) / point.expected : 0));
  const robustZ = divergence / Math.max(scaledMad(deviations), 1e-9);
  return { metric: 'pixel_order_divergence', scope: { level: 'store', channel: null, campaignId: null, label: data.storeName }, day, kind: 'count', value: purchases, expected: orders, percentChange, robustZ, severity, evidence };
}

/** The sentences that say "changed by" take a signed change; those that say "rose" or "fell" its size. */
const SIGNED_CHANGE: readonly AnomalyRecommendationCode[] = ['check_bids_budget', 'check_discounts_pricing', 'check_spend_pacing', 'review_customer_mix', 'check_tracking_landing'];

export function changeParam(percent: number | null, signed: boolean): string {
  if (percent === null) return '—';
  const rounded = Math.round(percent);
  return signed ? `${rounded > 0 ? '+' : ''}${rounded}` : String(Math.abs(rounded));
}

/** The templated rules that turn a finding into a recommendation (README, "Anomaly insights"). */
export function recommendationOf(
  finding: Omit<Finding, 'recommendation'>,
  sameDay: readonly Omit<Finding, 'recommendation'>[],
  scopeSpend: { flowing: boolean; up: boolean },
): Finding['recommendation'] {
  const up = finding.value > finding.expected;
  const code = ((): AnomalyRecommendationCode => {
    switch (finding.metric) {
      case 'spend_without_conversions':
        return 'check_tracking_landing';
      case 'pixel_order_divergence':
        return 'check_pixel_installation';
      case 'refunds':
        return 'check_refund_reasons';
      case 'aov':
        return 'check_discounts_pricing';
      case 'cac':
        return 'review_acquisition_costs';
      case 'new_customer_share':
        return 'review_customer_mix';
      case 'marketing_spend': {
        const roasDown = sameDay.some((other) => other.metric === 'roas' && other.value < other.expected && sameScope(other, finding));
        return up && finding.scope.level !== 'store' && (roasDown || finding.scope.level === 'campaign') ? 'check_bids_budget' : 'check_spend_pacing';
      }
      case 'roas':
        return scopeSpend.up ? 'check_bids_budget' : 'review_targeting_creatives';
      case 'orders':
      case 'net_sales':
        if (up) return 'find_growth_source';
        return finding.scope.level === 'channel' && scopeSpend.flowing ? 'check_tracking_landing' : 'check_checkout_stock';
    }
  })();
  return { code, params: { scope: finding.scope.label, change: changeParam(finding.percentChange, SIGNED_CHANGE.includes(code)) } };
}

const sameScope = (a: { scope: AnomalyScope }, b: { scope: AnomalyScope }) => scopeKeyOf(a.scope) === scopeKeyOf(b.scope);

/**
 * The findings of one settled day: every series judged, the tracking rules applied, and the metrics a
 * tracking problem explains (the scope's orders, net sales, ROAS and CAC) left to it.
 */
export function detectDay(data: StoreData, day: string, scopes: ScopeSeries[] = storeSeries(data, storeContextOf(data, day))): Finding[] {
  const context = storeContextOf(data, day);
  const threshold = thresholdFor(scopes.reduce((sum, scope) => sum + scope.series.length + (scope.spend && scope.conversions ? 1 : 0), 0));
  const raw: Omit<Finding, 'recommendation'>[] = [];
  /** Scopes whose spend kept flowing (≥ 80 % of its baseline), and those whose spend was above it. */
  const spendFlowing = new Set<string>();
  const spendUp = new Set<string>();
  for (const scope of scopes) {
    const tracking = spendWithoutConversions(scope, day, context, threshold);
    if (tracking) raw.push(tracking);
    for (const series of scope.series) {
      if (tracking && ['orders', 'net_sales', 'roas', 'cac'].includes(series.metric)) continue;
      const finding = judgeDay(series, day, context, threshold);
      if (finding && !(series.metric === 'marketing_spend' && budgetChange(series, finding))) raw.push(finding);
    }
    if (scope.spend) {
      const spend = scope.spend.values.get(day);
      const expectation = expectationOf(scope.spend, day);
      if (spend != null && expectation && spend >= SPEND_FLOWING_SHARE * expectation.expected && spend > 0) spendFlowing.add(scopeKeyOf(scope.scope));
      if (spend != null && expectation && spend > expectation.expected && spend > 0) spendUp.add(scopeKeyOf(scope.scope));
    }
  }
  const pixel = pixelDivergence(data, day);
  if (pixel) raw.push(pixel);
  return raw.map((finding) => {
    const key = scopeKeyOf(finding.scope);
    return { ...finding, recommendation: recommendationOf(finding, raw, { flowing: spendFlowing.has(key), up: spendUp.has(key) }) };
  });
}

/**
 * Spend is the merchant's own input: a move that holds the next day is a budget change, not an
 * anomaly (its effects show in ROAS, CAC and sales, which are judged on their own). So a day's spend
 * move is reported once the next day has settled and fell back inside the band (a spike, a runaway
 * bid), or moved the other way; while the next day is not there yet it waits (returns true).
 */
export function budgetChange(series: MetricSeries, finding: Omit<Finding, 'recommendation'>): boolean {
  const next = addDays(finding.day, 1);
  const value = series.values.get(next);
  if (value === null || value === undefined) return true;
  // Judged by the same fit as the day itself (the next day's own window already holds the new level).
  const fit = fitBaseline(series, finding.day);
  if (!fit) return true;
  const difference = value - fit.expectedAt(next);
  const up = finding.value > finding.expected;
  const z = difference / (difference >= 0 ? fit.sigmaUp : fit.sigmaDown);
  // Still as far out the same way (at least half the move, beyond the ordinary band): the new level.
  return (up ? z >= ROBUST_Z : z <= -ROBUST_Z) && Math.abs(difference) >= 0.5 * Math.abs(finding.value - finding.expected);
}

/** An earlier alert, as the episode rule needs it. */
export interface PriorAlert {
  metric: AnomalyMetric;
  scopeKey: string;
  day: string;
  up: boolean;
}

/** Leaves out findings that continue an episode: the same metric and scope moved the same way in the EPISODE_DAYS before. */
export function newEpisodes(findings: readonly Finding[], prior: readonly PriorAlert[]): Finding[] {
  return findings.filter((finding) => {
    const key = scopeKeyOf(finding.scope);
    const up = finding.value > finding.expected;
    const from = addDays(finding.day, -EPISODE_DAYS);
    return !prior.some((alert) => alert.metric === finding.metric && alert.scopeKey === key && alert.up === up && alert.day >= from && alert.day < finding.day);
  });
}
