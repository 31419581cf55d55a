import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bgNbdLogLikelihood, expectedPurchases, expectedPurchasesOfNewCustomer, fitBgNbd, medianPurchases, probabilityAlive, purchaseCountProbabilities, type PurchaseHistory } from './bg-nbd.ts';
import { expectedAverageOrderValue, fitGammaGamma } from './gamma-gamma.ts';
import { minimizeNelderMead } from './nelder-mead.ts';
import { logGamma, logHypergeometric2F1, signedLogHypergeometric2F1 } from './special-functions.ts';

// The CDNOW sample (test/fixtures/README.md), in weeks.
const cdnow = readFileSync(new URL('../../../../../test/fixtures/cdnow-sample-summary.csv', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => {
    const [, x, tx, T, zbar] = line.split(',').map(Number) as [number, number, number, number, number];
    return { frequency: x, recency: tx, age: T, meanValue: zbar };
  });

describe('special functions', () => {
  it('ln Γ matches factorials and Γ(1/2) = √π', () => {
    expect(logGamma(10)).toBeCloseTo(Math.log(362_880), 12);
    expect(logGamma(1)).toBeCloseTo(0, 14);
    expect(logGamma(0.5)).toBeCloseTo(0.5 * Math.log(Math.PI), 12);
    expect(logGamma(0.1)).toBeCloseTo(2.252712651734206, 12); // ln Γ(0.1), by reflection
    expect(logGamma(171)).toBeCloseTo(706.5730622457874, 8); // ln(170!)
  });

  it('₂F₁ matches its closed forms, and stays finite where the series overflows a double', () => {
    const z = 0.6;
    expect(Math.exp(logHypergeometric2F1(1, 1, 2, z))).toBeCloseTo(-Math.log(1 - z) / z, 12);
    expect(logHypergeometric2F1(2.5, 3, 3, z)).toBeCloseTo(-2.5 * Math.log(1 - z), 10);
    // 2F1(a, b; b; z) = (1 − z)^−a with a = 900: ~1e358, beyond a double, fine as a logarithm.
    expect(logHypergeometric2F1(900, 5, 5, z)).toBeCloseTo(-900 * Math.log(1 - z), 6);
    expect(logHypergeometric2F1(3, 4, 5, 0)).toBe(0);
    expect(() => logHypergeometric2F1(1, 1, 2, 1)).toThrow(RangeError);
  });

  it('₂F₁ with a negative c (a fitted Beta with a + b < 1): matches the plain series, sign included', () => {
    const plain = (a: number, b: number, c: number, z: number) => {
      let term = 1;
      let sum = 1;
      for (let n = 0; n < 5_000; n++) {
        term *= ((a + n) * (b + n) * z) / ((c + n) * (n + 1));
        sum += term;
      }
      return sum;
    };
    for (const [a, b, c, z] of [[0.5, 0.3, -0.4, 0.3], [0.52, 0.0001, -0.9999, 0.8], [2, 3, -1.5, 0.5], [0.3, 0.2, 0.7, 0.9]] as const) {
      const exact = plain(a, b, c, z);
      const signed = signedLogHypergeometric2F1(a, b, c, z);
      expect(signed.sign * Math.exp(signed.log), `${a} ${b} ${c} ${z}`).toBeCloseTo(exact, 10);
    }
    expect(signedLogHypergeometric2F1(900, 5, 5, 0.6).log).toBeCloseTo(-900 * Math.log(0.4), 6);
    expect(() => signedLogHypergeometric2F1(1, 1, -2, 0.5)).toThrow(RangeError);
  });

  it('expected purchases stay finite and positive for one-time buyers when a + b < 1', () => {
    const parameters = { r: 0.52, alpha: 25, a: 0.00004, b: 0.00005 };
    const value = expectedPurchases(parameters, { frequency: 0, recency: 0, age: 300 }, 90);
    expect(Number.isFinite(value)).toBe(true);
    expect(value).toBeGreaterThan(0);
  });
});

describe('Nelder-Mead', () => {
  it('finds the minimum of the Rosenbrock valley', () => {
    const rosenbrock = ([x, y]: number[]) => (1 - x!) ** 2 + 100 * (y! - x! * x!) ** 2;
    const result = minimizeNelderMead(rosenbrock, [-1.2, 1]);
    expect(result.converged).toBe(true);
    expect(result.point[0]).toBeCloseTo(1, 4);
    expect(result.point[1]).toBeCloseTo(1, 4);
  });

  it('never steps where the function is not finite', () => {
    const result = minimizeNelderMead(([x]) => (x! < 0 ? Number.NaN : (x! - 2) ** 2), [5]);
    expect(result.point[0]).toBeCloseTo(2, 4);
  });
});

describe('BG/NBD on the CDNOW sample', () => {
  const fit = fitBgNbd(cdnow);

  it('reproduces the published maximum-likelihood fit (Hardie, note 004)', () => {
    expect(fit.customers).toBe(2357);
    expect(fit.r).toBeCloseTo(0.243, 3);
    expect(fit.alpha).toBeCloseTo(4.414, 2);
    expect(fit.a).toBeCloseTo(0.793, 3);
    expect(fit.b).toBeCloseTo(2.426, 2);
    expect(fit.logLikelihood).toBeCloseTo(-9582.4, 1);
    expect(bgNbdLogLikelihood(fit, cdnow)).toBeCloseTo(fit.logLikelihood, 6);
  });

  it('gives the same fit whatever the time unit (days instead of weeks: α × 7)', () => {
    const inDays = fitBgNbd(cdnow.map((c) => ({ frequency: c.frequency, recency: c.recency * 7, age: c.age * 7 })));
    expect(inDays.r).toBeCloseTo(fit.r, 3);
    expect(inDays.alpha / 7).toBeCloseTo(fit.alpha, 2);
    expect(inDays.a).toBeCloseTo(fit.a, 3);
  });

  it('predicts as the paper does', () => {
    const published = { r: 0.243, alpha: 4.414, a: 0.793, b: 2.426 };
    // The paper's worked example (section 4): x = 2, t_x = 30.43, T = 38.86 → 1.226 purchases in the next 39 weeks.
    expect(expectedPurchases(published, { frequency: 2, recency: 30.43, age: 38.86 }, 39)).toBeCloseTo(1.226, 2);
    // A new customer's expected purchases grow with time, ever more slowly (customers drop out).
    const [x13, x26, x39] = [13, 26, 39].map((weeks) => expectedPurchasesOfNewCustomer(published, weeks)) as [number, number, number];
    expect(x13).toBeGreaterThan(0);
    expect(x26 - x13).toBeGreaterThan(x39 - x26);
    expect(x39 - x26).toBeGreaterThan(0);
    // Someone who bought often and then stopped long ago is less likely alive than someone who just bought.
    const lapsed = probabilityAlive(published, { frequency: 10, recency: 5, age: 38.86 });
    const recent = probabilityAlive(published, { frequency: 10, recency: 38, age: 38.86 });
    expect(lapsed).toBeLessThan(0.05);
    expect(recent).toBeGreaterThan(0.9);
    expect(probabilityAlive(published, { frequency: 0, recency: 0, age: 38.86 })).toBe(1);
  });

  it('gives the distribution of next-period purchases: hand-checked, summing to 1, with eq. 10 and eq. 9 as its mean', () => {
    // By hand, a new customer (x = 0, T = 0) with r = α = 1 (λ ~ Exp(1)) and a = b = 1 (E[p] = ½), t = 1:
    // P(0) = E[e^−λ] = ½; P(1) = E[1 − p] E[λ e^−λ] + E[p] P(λ-Poisson ≥ 1) = ½ × ¼ + ½ × ½ = 0.375.
    const simple = purchaseCountProbabilities({ r: 1, alpha: 1, a: 1, b: 1 }, { frequency: 0, recency: 0, age: 0 }, 1, 3);
    expect(simple[0]).toBeCloseTo(0.5, 12);
    expect(simple[1]).toBeCloseTo(0.375, 12);
    const published = { r: 0.243, alpha: 4.414, a: 0.793, b: 2.426 };
    const mean = (probabilities: number[]) => probabilities.reduce((sum, p, k) => sum + k * p, 0);
    for (const history of [
      { frequency: 2, recency: 30.43, age: 38.86 }, // the paper's worked example: mean 1.226
      { frequency: 0, recency: 0, age: 20 },
      { frequency: 10, recency: 5, age: 38.86 }, // lapsed: almost surely 0
      { frequency: 25, recency: 38, age: 38.86 },
    ]) {
      const probabilities = purchaseCountProbabilities(published, history, 39, 400);
      expect(probabilities.reduce((sum, p) => sum + p, 0)).toBeCloseTo(1, 10);
      expect(probabilities.every((p) => p >= 0)).toBe(true);
      expect(mean(probabilities)).toBeCloseTo(expectedPurchases(published, history, 39), 8);
    }
    // P(0) of a customer who just bought: alive, no purchase in 39 weeks: E[e^{−λt}] with λ ~ Gamma(r + x, α + T).
    const justBought = { frequency: 3, recency: 38.86, age: 38.86 };
    const pAlive = probabilityAlive(published, justBought);
    expect(purchaseCountProbabilities(published, justBought, 39, 5)[0]).toBeCloseTo(1 - pAlive + pAlive * ((4.414 + 38.86) / (4.414 + 38.86 + 39)) ** (0.243 + 3), 12);
    // A new customer: the mean of the distribution is eq. 9.
    expect(mean(purchaseCountProbabilities(published, { frequency: 0, recency: 0, age: 0 }, 39, 400))).toBeCloseTo(expectedPurchasesOfNewCustomer(published, 39), 8);
    // Medians: the lapsed buyer 0; a frequent recent buyer well above 0; the worked example 1 (mean 1.226).
    expect(medianPurchases(published, { frequency: 10, recency: 5, age: 38.86 }, 39)).toBe(0);
    expect(medianPurchases(published, { frequency: 25, recency: 38, age: 38.86 }, 39)).toBeGreaterThan(10);
    const example = purchaseCountProbabilities(published, { frequency: 2, recency: 30.43, age: 38.86 }, 39, 400);
    const median = medianPurchases(published, { frequency: 2, recency: 30.43, age: 38.86 }, 39);
    expect(example.slice(0, median + 1).reduce((sum, p) => sum + p, 0)).toBeGreaterThanOrEqual(0.5);
    expect(example.slice(0, median).reduce((sum, p) => sum + p, 0)).toBeLessThan(0.5);
  });

  it('sums its predictions to the sample’s repeat purchases in the calibration period (the model’s own check)', () => {
    // Σ E[X(T_i)] over the customers (each of age T_i) ≈ the 2,457 repeat purchases observed in the 39 weeks.
    const predicted = cdnow.reduce((sum, c) => sum + expectedPurchasesOfNewCustomer(fit, c.age), 0);
    const observed = cdnow.reduce((sum, c) => sum + c.frequency, 0);
    expect(Math.abs(predicted - observed) / observed).toBeLessThan(0.02);
  });

  it('fits a store whose customers all drop out alike (the Beta collapses onto one p) and finds that p', () => {
    // Simulated: purchase rates vary (Gamma), every purchase is followed by a drop-out with p = 0.3.
    let seed = 7;
    const random = () => (seed = (seed * 16_807) % 2_147_483_647) / 2_147_483_647;
    const histories: PurchaseHistory[] = [];
    for (let i = 0; i < 3000; i++) {
      const age = Math.floor(random() * 730);
      const rate = -Math.log(random()) * 0.01;
      let time = 0;
      let frequency = 0;
      let last = 0;
      for (;;) {
        time += -Math.log(random()) / rate;
        if (time > age || random() < 0.3) break;
        frequency++;
        last = time;
      }
      histories.push({ frequency, recency: frequency ? Math.floor(last) : 0, age });
    }
    const homogeneous = fitBgNbd(histories);
    expect(homogeneous.a / (homogeneous.a + homogeneous.b)).toBeCloseTo(0.3, 1);
    expect(homogeneous.a + homogeneous.b).toBeGreaterThan(100);
  });

  it('refuses histories that cannot be', () => {
    expect(() => fitBgNbd([{ frequency: 0, recency: 0, age: 10 }])).toThrow(/no repeat purchases/);
    expect(() => fitBgNbd([{ frequency: 1, recency: 12, age: 10 } as PurchaseHistory])).toThrow(/recency/);
    expect(() => fitBgNbd([{ frequency: 1.5, recency: 1, age: 10 }])).toThrow(/whole number/);
  });
});

describe('Gamma-Gamma on the CDNOW sample', () => {
  const fit = fitGammaGamma(cdnow);

  it('reproduces the published fit on the 946 repeat buyers (Hardie, note 025)', () => {
    expect(fit.customers).toBe(946);
    expect(fit.p).toBeCloseTo(6.25, 1);
    expect(fit.q).toBeCloseTo(3.74, 1);
    expect(fit.gamma).toBeCloseTo(15.44, 0);
  });

  it('shrinks a customer’s own mean toward the population’s, less the more orders they have', () => {
    const populationMean = (fit.p * fit.gamma) / (fit.q - 1);
    const fewOrders = expectedAverageOrderValue(fit, { frequency: 1, meanValue: 100 });
    const manyOrders = expectedAverageOrderValue(fit, { frequency: 20, meanValue: 100 });
    expect(fewOrders).toBeGreaterThan(populationMean);
    expect(fewOrders).toBeLessThan(manyOrders);
    expect(manyOrders).toBeLessThan(100);
    expect(expectedAverageOrderValue(fit, { frequency: 0, meanValue: 0 })).toBeCloseTo(populationMean, 10);
  });
});
