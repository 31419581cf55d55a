import {
  AT_RISK_CHURN, EXPECTED_ORDERS_DAYS, MIN_MODEL_CUSTOMERS, MIN_MODEL_HISTORY_DAYS, PREDICTED_VALUE_DAYS,
  frequencyScore, loyaltyScore, ntile, percentileRanks, segmentOf,
  type LoyaltyFallbackReason, type LoyaltyModel, type LoyaltySegment,
} from '../../../shared/loyalty.ts';
import { expectedPurchases, fitBgNbd, medianPurchases, probabilityAlive, type BgNbdParameters, type PurchaseHistory } from './statistics/bg-nbd.ts';
import { expectedAverageOrderValue, fitGammaGamma, type GammaGammaParameters } from './statistics/gamma-gamma.ts';

// Scores of a store's customers from their order histories (README, "Customer loyalty"). Pure: the
// job reads the histories (summaries.ts) and writes what this returns; the benchmark and the
// holdout call it on histories cut at an earlier day. Time unit: days (the store's days, so orders on
// the same day are one purchase occasion, as in the lifetimes package's daily frequency).

export interface CustomerHistory {
  customerId: number;
  /** Counted orders (all, including several on one day). */
  orders: number;
  /** Distinct days with a counted order. */
  orderDays: number;
  /** Day numbers (days since 1970-01-01) of the first and last order day. */
  firstDay: number;
  lastDay: number;
  firstOrderAt: Date;
  lastOrderAt: Date;
  /** Net of refunds, in the store's currency (minor units): all orders, and those of the first day. */
  spentMinor: number;
  firstDaySpentMinor: number;
}

export interface CustomerScore {
  customerId: number;
  repeatOrders: number;
  recencyDays: number;
  ageDays: number;
  daysSinceLastOrder: number;
  r: number;
  f: number;
  m: number;
  segment: LoyaltySegment;
  pAlive: number | null;
  churnRisk: number | null;
  expectedOrders90d: number | null;
  predictedValue12mMinor: number | null;
  valuePercentile: number | null;
  loyaltyScore: number;
}

export interface StoreModel {
  model: LoyaltyModel;
  fallbackReason: LoyaltyFallbackReason | null;
  bgnbd: BgNbdParameters | null;
  gammaGamma: GammaGammaParameters | null;
  customers: number;
  historyDays: number;
  /**
   * The store's seasonal index over the EXPECTED_ORDERS_DAYS after the end of observation
   * (statistics/seasonal-index.ts). The season scales every customer's purchase rate alike, so the
   * window counts as EXPECTED_ORDERS_DAYS × index days of an average season (a change of time,
   * exact in BG/NBD, whose drop-outs follow purchases, not days). Null when the store's history is
   * too short for one (then × 1). It does not touch the 12-month value: a whole year's index is 1.
   */
  seasonalIndex: number | null;
}

/** The BG/NBD inputs of a customer observed up to `endDay` (day number), in days. */
export function purchaseHistoryOf(history: CustomerHistory, endDay: number): PurchaseHistory {
  return { frequency: history.orderDays - 1, recency: history.lastDay - history.firstDay, age: endDay - history.firstDay };
}

/**
 * Churn risk: 1 − P(alive) for a repeat buyer. A one-time buyer is alive by the model's construction
 * (drop-out happens only just after a purchase), so for them it is the model's probability of no
 * second order within 365 days: while alive λ | (x = 0, T) ~ Gamma(r, α + T), and
 * P(no purchase in τ) = ((α + T) / (α + T + τ))^r.
 */
export function churnRiskOf(parameters: BgNbdParameters, history: PurchaseHistory): { pAlive: number; churnRisk: number } {
  if (history.frequency > 0) {
    const pAlive = probabilityAlive(parameters, history);
    return { pAlive, churnRisk: 1 - pAlive };
  }
  const { r, alpha } = parameters;
  const T = history.age;
  return { pAlive: 1, churnRisk: ((alpha + T) / (alpha + T + PREDICTED_VALUE_DAYS)) ** r };
}

/** RFM scores: R and M quintiles within the store (ntile, ties by customer id), F by order-count bands. */
export function rfmScores(histories: readonly CustomerHistory[], endDay: number): { r: number; f: number; m: number }[] {
  const n = histories.length;
  const byRecency = histories.map((_, i) => i).sort((a, b) => (endDay - histories[b]!.lastDay) - (endDay - histories[a]!.lastDay) || histories[a]!.customerId - histories[b]!.customerId);
  const bySpend = histories.map((_, i) => i).sort((a, b) => histories[a]!.spentMinor - histories[b]!.spentMinor || histories[a]!.customerId - histories[b]!.customerId);
  const tiles = ntile(n);
  const r = new Array<number>(n);
  const m = new Array<number>(n);
  // Longest since the last order first: R 1 is the least recent fifth, R 5 the most recent.
  byRecency.forEach((index, position) => { r[index] = tiles[position]!; });
  bySpend.forEach((index, position) => { m[index] = tiles[position]!; });
  return histories.map((history, i) => ({ r: r[i]!, f: frequencyScore(history.orders), m: m[i]! }));
}

/** Which model a store gets, and its fitted parameters; `seasonalIndex` is the store's for the next EXPECTED_ORDERS_DAYS (see StoreModel). */
export function fitStoreModel(histories: readonly CustomerHistory[], endDay: number, seasonalIndex: number | null = null): StoreModel {
  const customers = histories.length;
  const firstDay = histories.reduce((min, h) => Math.min(min, h.firstDay), Number.POSITIVE_INFINITY);
  const historyDays = customers === 0 ? 0 : endDay - firstDay;
  const fallback = (reason: LoyaltyFallbackReason): StoreModel => ({ model: 'rfm', fallbackReason: reason, bgnbd: null, gammaGamma: null, customers, historyDays, seasonalIndex: null });
  if (customers < MIN_MODEL_CUSTOMERS) return fallback('too_few_customers');
  if (historyDays < MIN_MODEL_HISTORY_DAYS) return fallback('too_little_history');
  if (!histories.some((h) => h.orderDays > 1)) return fallback('no_repeat_buyers');
  let bgnbd: BgNbdParameters;
  try {
    const fit = fitBgNbd(histories.map((h) => purchaseHistoryOf(h, endDay)));
    if (![fit.r, fit.alpha, fit.a, fit.b].every(Number.isFinite)) return fallback('fit_failed');
    bgnbd = { r: fit.r, alpha: fit.alpha, a: fit.a, b: fit.b };
  } catch {
    return fallback('fit_failed');
  }
  let gammaGamma: GammaGammaParameters | null = null;
  try {
    const spend = histories
      .filter((h) => h.orderDays > 1)
      .map((h) => ({ frequency: h.orderDays - 1, meanValue: (h.spentMinor - h.firstDaySpentMinor) / (h.orderDays - 1) }));
    const fit = fitGammaGamma(spend);
    // q ≤ 1: the population's mean order value does not exist; the customers' own means are used instead.
    if (fit.q > 1 && [fit.p, fit.q, fit.gamma].every(Number.isFinite)) gammaGamma = { p: fit.p, q: fit.q, gamma: fit.gamma };
  } catch {
    gammaGamma = null;
  }
  return { model: 'bgnbd', fallbackReason: null, bgnbd, gammaGamma, customers, historyDays, seasonalIndex };
}

/** E[value of a future order]: Gamma-Gamma's conditional expectation (x = 0 gives the population mean pγ/(q − 1)), else the customer's own mean. */
function expectedOrderValue(model: StoreModel, history: CustomerHistory): number {
  const x = history.orderDays - 1;
  if (model.gammaGamma) {
    const meanValue = x > 0 ? (history.spentMinor - history.firstDaySpentMinor) / x : 0;
    return expectedAverageOrderValue(model.gammaGamma, { frequency: x, meanValue: Math.max(0, meanValue) });
  }
  return Math.max(0, history.spentMinor / Math.max(1, history.orderDays));
}

/** Every customer's scores under the store's model, as of `endDay`. */
export function scoreCustomers(histories: readonly CustomerHistory[], endDay: number, model: StoreModel = fitStoreModel(histories, endDay)): CustomerScore[] {
  const rfm = rfmScores(histories, endDay);
  const rows = histories.map((history, i) => {
    const inputs = purchaseHistoryOf(history, endDay);
    const { r, f, m } = rfm[i]!;
    const base = {
      customerId: history.customerId,
      repeatOrders: inputs.frequency,
      recencyDays: inputs.recency,
      ageDays: inputs.age,
      daysSinceLastOrder: endDay - history.lastDay,
      r, f, m,
      segment: segmentOf(r, f),
    };
    if (model.model === 'rfm' || !model.bgnbd) {
      return { ...base, pAlive: null, churnRisk: null, expectedOrders90d: null, predictedValue12mMinor: null, valuePercentile: null, loyaltyScore: loyaltyScore({ model: 'rfm', r, f, m }) };
    }
    const { pAlive, churnRisk } = churnRiskOf(model.bgnbd, inputs);
    const expected90 = expectedPurchases(model.bgnbd, inputs, EXPECTED_ORDERS_DAYS * (model.seasonalIndex ?? 1));
    const expected365 = expectedPurchases(model.bgnbd, inputs, PREDICTED_VALUE_DAYS);
    const predicted = Math.round(Math.max(0, expected365) * expectedOrderValue(model, history));
    return { ...base, pAlive, churnRisk, expectedOrders90d: expected90, predictedValue12mMinor: Number.isFinite(predicted) ? predicted : 0, valuePercentile: 0, loyaltyScore: 0 };
  });
  if (model.model === 'bgnbd') {
    const percentiles = percentileRanks(rows.map((row) => row.predictedValue12mMinor ?? 0));
    rows.forEach((row, i) => {
      row.valuePercentile = percentiles[i]!;
      row.loyaltyScore = loyaltyScore({ model: 'bgnbd', churnRisk: row.churnRisk!, valuePercentile: percentiles[i]! });
    });
  }
  return rows;
}

export function isAtRisk(score: Pick<CustomerScore, 'churnRisk' | 'segment'>): boolean {
  return score.churnRisk === null ? score.segment === 'at_risk' || score.segment === 'cant_lose_them' : score.churnRisk >= AT_RISK_CHURN;
}

export interface HoldoutResult {
  customers: number;
  /** Per customer: predicted (model), naive baseline and actual repeat order days in the window. */
  predicted: number[];
  baseline: number[];
  actual: number[];
  /** Mean absolute errors of the mean forecasts (`predicted`, `baseline`). */
  modelMae: number;
  baselineMae: number;
  /**
   * Per customer, the forecasts with the least expected absolute error, the medians: of the model's
   * distribution of next-period purchases, and of a Poisson count at the naive rate.
   */
  predictedMedian: number[];
  baselineMedian: number[];
  /** Mean absolute errors of the median forecasts: what the store's holdout stores and shows. */
  modelMedianMae: number;
  baselineMedianMae: number;
  /** The store's seasonal index over the window, applied to the model's predictions (null: none, × 1). */
  seasonalIndex: number | null;
}

/**
 * The holdout: the model fitted on the histories cut at `cutDay` predicts each customer's repeat
 * order days in the next `days`; the naive baseline repeats the customer's past rate, x / T × days
 * (0 when T = 0). `actualAfter[i]` is customer i's order days in (cutDay, cutDay + days]. Both
 * are scored as mean forecasts and as median forecasts (see HoldoutResult). The
 * model's predictions are BG/NBD's over `days` × the store's `seasonalIndex` over those days (from
 * the orders up to cutDay only), as the scores' expected orders are (see StoreModel.seasonalIndex). Null when the model cannot be fitted on the cut data.
 */
export function holdout(
  histories: readonly CustomerHistory[], actualAfter: readonly number[], cutDay: number, days = EXPECTED_ORDERS_DAYS, seasonalIndex: number | null = null,
): HoldoutResult | null {
  const model = fitStoreModel(histories, cutDay, seasonalIndex);
  if (model.model !== 'bgnbd' || !model.bgnbd) return null;
  const predicted: number[] = [];
  const baseline: number[] = [];
  const predictedMedian: number[] = [];
  const baselineMedian: number[] = [];
  histories.forEach((history) => {
    const inputs = purchaseHistoryOf(history, cutDay);
    const horizon = days * (seasonalIndex ?? 1);
    const b = inputs.age > 0 ? (inputs.frequency / inputs.age) * days : 0;
    predicted.push(expectedPurchases(model.bgnbd!, inputs, horizon));
    baseline.push(b);
    predictedMedian.push(medianPurchases(model.bgnbd!, inputs, horizon));
    baselineMedian.push(poissonMedian(b));
  });
  const meanAbsoluteError = (forecasts: readonly number[]) =>
    forecasts.reduce((sum, forecast, i) => sum + Math.abs(forecast - actualAfter[i]!), 0) / forecasts.length;
  return {
    customers: histories.length, predicted, baseline, actual: [...actualAfter],
    modelMae: meanAbsoluteError(predicted), baselineMae: meanAbsoluteError(baseline),
    predictedMedian, baselineMedian,
    modelMedianMae: meanAbsoluteError(predictedMedian), baselineMedianMae: meanAbsoluteError(baselineMedian),
    seasonalIndex,
  };
}

/**
 * The median of a Poisson count with this mean (the smallest k with P(X ≤ k) ≥ ½): the naive
 * baseline's forecast under absolute error. Above a mean of 600 (e^−mean underflows) it uses the
 * bound mean − ln 2 ≤ median < mean + 1/3 (Choi 1994), as floor(mean + 1/3 − 0.02 / mean).
 */
export function poissonMedian(mean: number): number {
  if (!(mean > 0)) return 0;
  if (mean > 600) return Math.floor(mean + 1 / 3 - 0.02 / mean);
  let k = 0;
  let term = Math.exp(-mean);
  let cumulative = term;
  while (cumulative < 0.5) {
    k += 1;
    term *= mean / k;
    cumulative += term;
  }
  return k;
}
