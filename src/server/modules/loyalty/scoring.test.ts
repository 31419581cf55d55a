import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LOYALTY_FALLBACK_REASONS, LOYALTY_MODELS, LOYALTY_SEGMENTS, frequencyScore, loyaltyScore, ntile, percentileRanks, segmentOf, type LoyaltySegment } from '../../../shared/loyalty.ts';
import { churnRiskOf, fitStoreModel, holdout, poissonMedian, purchaseHistoryOf, rfmScores, scoreCustomers, type CustomerHistory } from './scoring.ts';
import { expectedPurchases, medianPurchases, probabilityAlive } from './statistics/bg-nbd.ts';
import { expectedAverageOrderValue } from './statistics/gamma-gamma.ts';

// RFM, segments and scores on hand-computed stores; BG/NBD quantities checked against the formulas
// at the published CDNOW parameters (Fader, Hardie and Lee 2005; time in weeks there).

const history = (customerId: number, orderDays: number, firstDay: number, lastDay: number, spentMinor: number, firstDaySpentMinor = spentMinor / orderDays, orders = orderDays): CustomerHistory => ({
  customerId, orders, orderDays, firstDay, lastDay, spentMinor, firstDaySpentMinor,
  firstOrderAt: new Date(firstDay * 86_400_000), lastOrderAt: new Date(lastDay * 86_400_000),
});

describe('segments', () => {
  it('puts each of the 25 R × F cells in exactly one segment, by the README rules', () => {
    const expected: Record<string, LoyaltySegment> = {};
    for (let r = 1; r <= 5; r++) {
      for (let f = 1; f <= 5; f++) {
        // The README's rules, each checked on its own: exactly one must hold.
        const rules: [LoyaltySegment, boolean][] = [
          ['champions', r >= 4 && f >= 4],
          ['loyal', r === 3 && f >= 4],
          ['potential_loyalists', r >= 3 && f >= 2 && f <= 3],
          ['new', r >= 4 && f === 1],
          ['cant_lose_them', r <= 2 && f >= 4],
          ['at_risk', r <= 2 && f >= 2 && f <= 3],
          ['hibernating', r >= 2 && r <= 3 && f === 1],
          ['lost', r === 1 && f === 1],
        ];
        const holding = rules.filter(([, holds]) => holds).map(([segment]) => segment);
        expect(holding, `R${r} F${f}`).toHaveLength(1);
        expected[`${r}${f}`] = holding[0]!;
        expect(segmentOf(r, f), `R${r} F${f}`).toBe(holding[0]);
      }
    }
    expect(Object.keys(expected)).toHaveLength(25);
  });

  it('scores F by order-count bands: 1, 2, 3, 4–5, 6+', () => {
    expect([1, 2, 3, 4, 5, 6, 40].map(frequencyScore)).toEqual([1, 2, 3, 4, 4, 5, 5]);
  });

  it('splits like PostgreSQL ntile(5): the first n mod 5 buckets hold one more', () => {
    expect(ntile(7)).toEqual([1, 1, 2, 2, 3, 4, 5]);
    expect(ntile(5)).toEqual([1, 2, 3, 4, 5]);
    expect(ntile(3)).toEqual([1, 2, 3]);
  });
});

describe('a five-customer store (hand-computed)', () => {
  // End of observation: day 1000. Recency (days since the last order): 5, 100, 10, 400, 700; spent 600, 200, 50, 1000, 20.
  const store = [
    history(1, 6, 700, 995, 600),
    history(2, 2, 800, 900, 200),
    history(3, 1, 990, 990, 50),
    history(4, 4, 500, 600, 1000),
    history(5, 1, 300, 300, 20),
  ];

  it('gives R by recency quintile, F by band, M by spend quintile, and the segments', () => {
    expect(rfmScores(store, 1000)).toEqual([
      { r: 5, f: 5, m: 4 },
      { r: 3, f: 2, m: 3 },
      { r: 4, f: 1, m: 2 },
      { r: 2, f: 4, m: 5 },
      { r: 1, f: 1, m: 1 },
    ]);
    const scores = scoreCustomers(store, 1000);
    expect(scores.map((s) => s.segment)).toEqual(['champions', 'potential_loyalists', 'new', 'cant_lose_them', 'lost']);
  });

  it('falls back to RFM (too few customers) with the score 100 × (R + F + M − 3) / 12', () => {
    const model = fitStoreModel(store, 1000);
    expect(model).toMatchObject({ model: 'rfm', fallbackReason: 'too_few_customers', customers: 5, historyDays: 700 });
    const scores = scoreCustomers(store, 1000, model);
    expect(scores.map((s) => s.loyaltyScore)).toEqual([92, 42, 33, 67, 0]);
    expect(scores.every((s) => s.churnRisk === null && s.predictedValue12mMinor === null)).toBe(true);
    expect(scores[0]).toMatchObject({ repeatOrders: 5, recencyDays: 295, ageDays: 300, daysSinceLastOrder: 5 });
  });
});

describe('the fallback rules', () => {
  const many = (count: number, span: number) => Array.from({ length: count }, (_, i) => history(i + 1, 1 + (i % 3), 1000 - span, 1000 - span + (i % 3) * 10, 5_000));
  it('needs 200 customers and 90 days of history, and repeat buyers', () => {
    expect(fitStoreModel(many(199, 200), 1000).fallbackReason).toBe('too_few_customers');
    expect(fitStoreModel(many(200, 89), 1000).fallbackReason).toBe('too_little_history');
    const oneTimers = Array.from({ length: 250 }, (_, i) => history(i + 1, 1, 800 + (i % 50), 800 + (i % 50), 1_000));
    expect(fitStoreModel(oneTimers, 1000).fallbackReason).toBe('no_repeat_buyers');
  });
});

describe('BG/NBD quantities at the CDNOW parameters (weeks)', () => {
  const cdnow = { r: 0.243, alpha: 4.414, a: 0.793, b: 2.426 };

  it('churn risk of a repeat buyer is 1 − P(alive) = a/(b+x−1)·((α+T)/(α+t_x))^(r+x) / (1 + that)', () => {
    const h = { frequency: 2, recency: 30.43, age: 38.86 };
    const ratio = (0.793 / (2.426 + 2 - 1)) * ((4.414 + 38.86) / (4.414 + 30.43)) ** (0.243 + 2);
    const { pAlive, churnRisk } = churnRiskOf(cdnow, h);
    expect(pAlive).toBeCloseTo(1 / (1 + ratio), 12);
    expect(churnRisk).toBeCloseTo(ratio / (1 + ratio), 12);
    expect(pAlive).toBe(probabilityAlive(cdnow, h));
  });

  it('a one-time buyer is alive by construction; their churn risk is P(no order in 365) = ((α+T)/(α+T+365))^r', () => {
    const { pAlive, churnRisk } = churnRiskOf(cdnow, { frequency: 0, recency: 0, age: 20 });
    expect(pAlive).toBe(1);
    expect(churnRisk).toBeCloseTo(((4.414 + 20) / (4.414 + 20 + 365)) ** 0.243, 12);
    // By hand: (24.414 / 389.414)^0.243 = exp(0.243 × ln 0.062695) = exp(0.243 × −2.76950) = 0.51035
    expect(churnRisk).toBeCloseTo(0.5103, 3);
  });

  it('expected purchases in 39 weeks for x=2, t_x=30.43, T=38.86 is 1.226 (the paper\'s worked example)', () => {
    expect(expectedPurchases(cdnow, { frequency: 2, recency: 30.43, age: 38.86 }, 39)).toBeCloseTo(1.226, 2);
  });

  it('Gamma-Gamma: a one-time buyer gets the population mean pγ/(q − 1)', () => {
    const gg = { p: 6.25, q: 3.74, gamma: 15.44 };
    expect(expectedAverageOrderValue(gg, { frequency: 0, meanValue: 0 })).toBeCloseTo((6.25 * 15.44) / 2.74, 10);
  });
});

describe('the score with the model', () => {
  it('is 100 × (0.5 × (1 − churn) + 0.5 × value percentile), percentiles by mid-rank', () => {
    expect(percentileRanks([10, 30, 20, 20])).toEqual([0, 1, 0.5, 0.5]);
    expect(percentileRanks([7])).toEqual([0.5]);
    expect(loyaltyScore({ model: 'bgnbd', churnRisk: 0.2, valuePercentile: 0.5 })).toBe(65);
    expect(loyaltyScore({ model: 'bgnbd', churnRisk: 0, valuePercentile: 1 })).toBe(100);
    expect(loyaltyScore({ model: 'rfm', r: 1, f: 1, m: 1 })).toBe(0);
  });
});

describe('a store the model fits', () => {
  // 400 customers over two years: a third buy every ~30 days and stay, a third bought twice and
  // stopped long ago, a third bought once. Deterministic.
  const end = 1000;
  const store: CustomerHistory[] = [];
  for (let i = 0; i < 400; i++) {
    const first = 300 + ((i * 37) % 600);
    if (i % 3 === 0) {
      const days = Math.max(1, Math.floor((end - first) / 30));
      store.push(history(i + 1, days, first, first + (days - 1) * 30, days * 4_000 + (i % 7) * 100, 4_000));
    } else if (i % 3 === 1) {
      store.push(history(i + 1, 2, first, Math.min(first + 20, end), 6_000, 3_000));
    } else {
      store.push(history(i + 1, 1, first, first, 2_500));
    }
  }
  const model = fitStoreModel(store, end);
  const scores = scoreCustomers(store, end, model);

  it('uses BG/NBD and Gamma-Gamma, and ranks regular buyers above lapsed ones', () => {
    expect(model.model).toBe('bgnbd');
    expect(model.gammaGamma).not.toBeNull();
    const regular = scores.filter((_, i) => i % 3 === 0 && store[i]!.orderDays > 5);
    const lapsed = scores.filter((_, i) => i % 3 === 1 && end - store[i]!.lastDay > 300);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mean(regular.map((s) => s.churnRisk!))).toBeLessThan(mean(lapsed.map((s) => s.churnRisk!)));
    expect(mean(regular.map((s) => s.loyaltyScore))).toBeGreaterThan(mean(lapsed.map((s) => s.loyaltyScore)));
    for (const s of scores) {
      expect(s.loyaltyScore).toBeGreaterThanOrEqual(0);
      expect(s.loyaltyScore).toBeLessThanOrEqual(100);
      expect(s.predictedValue12mMinor).toBeGreaterThanOrEqual(0);
    }
  });

  it('predicted value = E[orders in 365 days] × Gamma-Gamma E[order value]', () => {
    const i = 3; // a regular buyer
    const h = store[i]!;
    const x = h.orderDays - 1;
    const inputs = { frequency: x, recency: h.lastDay - h.firstDay, age: end - h.firstDay };
    const value = expectedAverageOrderValue(model.gammaGamma!, { frequency: x, meanValue: (h.spentMinor - h.firstDaySpentMinor) / x });
    expect(scores[i]!.predictedValue12mMinor).toBe(Math.round(expectedPurchases(model.bgnbd!, inputs, 365) * value));
    expect(scores[i]!.expectedOrders90d).toBeCloseTo(expectedPurchases(model.bgnbd!, inputs, 90), 12);
  });

  it('the store\'s seasonal index stretches the next 90 days (expected orders and the holdout\'s predictions), not the 12-month value', () => {
    const seasonal = fitStoreModel(store, end, 1.25);
    expect(seasonal.seasonalIndex).toBe(1.25);
    expect(seasonal.bgnbd).toEqual(model.bgnbd);
    const scaled = scoreCustomers(store, end, seasonal);
    for (const i of [0, 1, 2, 3]) {
      const h = store[i]!;
      expect(scaled[i]!.expectedOrders90d).toBeCloseTo(expectedPurchases(model.bgnbd!, { frequency: h.orderDays - 1, recency: h.lastDay - h.firstDay, age: end - h.firstDay }, 112.5), 12);
      expect(scaled[i]!.expectedOrders90d).toBeGreaterThan(scores[i]!.expectedOrders90d!);
      expect(scaled[i]!.predictedValue12mMinor).toBe(scores[i]!.predictedValue12mMinor);
    }
    const actual = store.map((_, i) => (i % 3 === 0 ? 3 : 0));
    const plain = holdout(store, actual, end)!;
    const adjusted = holdout(store, actual, end, 90, 0.8)!;
    expect(plain.seasonalIndex).toBeNull();
    expect(adjusted.seasonalIndex).toBe(0.8);
    const h = store[3]!;
    expect(adjusted.predicted[3]).toBeCloseTo(expectedPurchases(model.bgnbd!, { frequency: h.orderDays - 1, recency: h.lastDay - h.firstDay, age: end - h.firstDay }, 72), 12);
    expect(adjusted.predicted[3]).toBeLessThan(plain.predicted[3]!);
    expect(adjusted.baseline).toEqual(plain.baseline);
  });

  it('holdout: MAEs of the model and of the naive baseline x / T × 90', () => {
    const actual = store.map((_, i) => (i % 3 === 0 ? 3 : 0));
    const result = holdout(store, actual, end)!;
    expect(result.customers).toBe(400);
    const h = store[3]!;
    expect(result.baseline[3]).toBeCloseTo(((h.orderDays - 1) / (end - h.firstDay)) * 90, 12);
    expect(result.baseline[2]).toBe(0);
    const mae = (predicted: number[]) => predicted.reduce((sum, p, i) => sum + Math.abs(p - actual[i]!), 0) / predicted.length;
    expect(result.modelMae).toBeCloseTo(mae(result.predicted), 12);
    expect(result.baselineMae).toBeCloseTo(mae(result.baseline), 12);
  });

  it('holdout: the median forecasts, the model distribution\'s and a Poisson at the naive rate, and their MAEs', () => {
    const actual = store.map((_, i) => (i % 3 === 0 ? 3 : 0));
    const result = holdout(store, actual, end, 90, 1.1)!;
    const model = fitStoreModel(store, end, 1.1);
    store.forEach((h, i) => {
      expect(result.predictedMedian[i]).toBe(medianPurchases(model.bgnbd!, purchaseHistoryOf(h, end), 99));
      expect(result.baselineMedian[i]).toBe(poissonMedian(result.baseline[i]!));
    });
    // The frequent buyers' medians are above 0, the one-time buyers' are 0.
    expect(result.predictedMedian.some((m) => m > 0)).toBe(true);
    expect(result.predictedMedian[2]).toBe(0);
    const mae = (forecast: number[]) => forecast.reduce((sum, p, i) => sum + Math.abs(p - actual[i]!), 0) / forecast.length;
    expect(result.modelMedianMae).toBeCloseTo(mae(result.predictedMedian), 12);
    expect(result.baselineMedianMae).toBeCloseTo(mae(result.baselineMedian), 12);
  });

  it('poissonMedian: the smallest k with P(X ≤ k) ≥ ½', () => {
    // By hand: P(0) = e^−0.5 = 0.607; e^−0.7 = 0.497 < ½ and P(≤ 1) = 0.844; mean 3.5: P(≤ 2) = 0.321, P(≤ 3) = 0.537.
    expect([0, 0.5, 0.7, 1, 3.5].map(poissonMedian)).toEqual([0, 0, 1, 1, 3]);
    expect(poissonMedian(1_000)).toBe(1_000);
  });
});

describe('translations', () => {
  it.each(['en', 'es', 'fr', 'de'])('%s names every segment, model and fallback reason, and explains the score', (language) => {
    const texts = JSON.parse(readFileSync(new URL(`../../../client/locales/${language}/loyalty-segments.json`, import.meta.url), 'utf8'));
    expect(Object.keys(texts.segments).sort()).toEqual([...LOYALTY_SEGMENTS].sort());
    expect(Object.keys(texts.models).sort()).toEqual([...LOYALTY_MODELS].sort());
    expect(Object.keys(texts.fallbackReasons).sort()).toEqual([...LOYALTY_FALLBACK_REASONS].sort());
    expect(Object.keys(texts.scoreExplanation).sort()).toEqual([...LOYALTY_MODELS].sort());
  });
});
