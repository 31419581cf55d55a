import { minimizeWithRestarts } from './nelder-mead.ts';
import { logGamma, signedLogHypergeometric2F1 } from './special-functions.ts';

// The BG/NBD model ("Counting Your Customers the Easy Way", Fader, Hardie and Lee, 2005): while
// alive a customer buys at a Poisson rate λ ~ Gamma(r, α); after each purchase they drop out with
// probability p ~ Beta(a, b). Fitted by maximum likelihood with Hardie's formulation of the
// log-likelihood (brucehardie.com/notes/004), minimised by Nelder-Mead on the log-parameters, as
// the reference implementations do (Hardie's spreadsheet uses Solver; `lifetimes` SciPy's
// Nelder-Mead). Times may be in any unit; α comes out in the same unit.

/** One customer's history: repeat purchases, time of the last one and age, measured from the first. */
export interface PurchaseHistory {
  /** Repeat purchases: all purchases after the first (x). */
  frequency: number;
  /** Time from the first purchase to the last one (t_x; 0 when frequency is 0). */
  recency: number;
  /** Time from the first purchase to the end of the observation (T). */
  age: number;
}

export interface BgNbdParameters {
  r: number;
  alpha: number;
  a: number;
  b: number;
}

export interface BgNbdFit extends BgNbdParameters {
  /** Total log-likelihood of the sample at the fitted parameters. */
  logLikelihood: number;
  customers: number;
  converged: boolean;
}

/** Identical histories weigh as one (a store's customers share many (x, t_x, T) triples). */
function compress(histories: readonly PurchaseHistory[]) {
  const index = new Map<string, number>();
  const frequency: number[] = [];
  const recency: number[] = [];
  const age: number[] = [];
  const weight: number[] = [];
  for (const history of histories) {
    const key = `${history.frequency}|${history.recency}|${history.age}`;
    const at = index.get(key);
    if (at !== undefined) {
      weight[at]! += 1;
      continue;
    }
    index.set(key, frequency.length);
    frequency.push(history.frequency);
    recency.push(history.recency);
    age.push(history.age);
    weight.push(1);
  }
  return { frequency, recency, age, weight };
}

/** Hardie's log-likelihood (note 004, eq. 7 with the log-sum-exp of its last two terms). */
function logLikelihood(parameters: BgNbdParameters, sample: ReturnType<typeof compress>): number {
  const { r, alpha, a, b } = parameters;
  const maxFrequency = Math.max(...sample.frequency);
  // The gamma-function terms depend on x only: computed once per distinct frequency.
  const termsOfFrequency = new Float64Array(maxFrequency + 1);
  const logGammaR = logGamma(r);
  const logGammaB = logGamma(b);
  const logGammaAB = logGamma(a + b);
  const seen = new Uint8Array(maxFrequency + 1);
  for (const x of sample.frequency) {
    if (seen[x]) continue;
    seen[x] = 1;
    termsOfFrequency[x] = logGamma(r + x) - logGammaR + r * Math.log(alpha) + logGammaAB + logGamma(b + x) - logGammaB - logGamma(a + b + x);
  }
  const logA = Math.log(a);
  let total = 0;
  for (let i = 0; i < sample.frequency.length; i++) {
    const x = sample.frequency[i]!;
    const a3 = -(r + x) * Math.log(alpha + sample.age[i]!);
    let combined = a3;
    if (x > 0) {
      const a4 = logA - Math.log(b + x - 1) - (r + x) * Math.log(alpha + sample.recency[i]!);
      const max = Math.max(a3, a4);
      combined = max + Math.log(Math.exp(a3 - max) + Math.exp(a4 - max));
    }
    total += sample.weight[i]! * (termsOfFrequency[x]! + combined);
  }
  return total;
}

function validate(histories: readonly PurchaseHistory[]): void {
  for (const { frequency, recency, age } of histories) {
    if (!Number.isInteger(frequency) || frequency < 0) throw new RangeError(`frequency must be a whole number >= 0, not ${frequency}`);
    if (!(recency >= 0 && age >= recency)) throw new RangeError(`need 0 <= recency <= age, not recency ${recency}, age ${age}`);
    if (frequency === 0 && recency !== 0) throw new RangeError('a customer without repeat purchases has recency 0');
  }
}

export function bgNbdLogLikelihood(parameters: BgNbdParameters, histories: readonly PurchaseHistory[]): number {
  validate(histories);
  return logLikelihood(parameters, compress(histories));
}

const LOG_PARAMETER_BOUND = 20;

/** Maximum-likelihood fit. Needs at least one customer with a repeat purchase. */
export function fitBgNbd(histories: readonly PurchaseHistory[]): BgNbdFit {
  validate(histories);
  if (!histories.some((history) => history.frequency > 0)) throw new RangeError('no repeat purchases: the BG/NBD model cannot be fitted');
  // Fit in a time unit where the mean age is 1, so that every log-parameter starts near 0 whatever
  // unit the caller uses; α scales with the unit and is converted back at the end.
  const timeScale = histories.reduce((sum, history) => sum + history.age, 0) / histories.length || 1;
  const sample = compress(histories.map((h) => ({ frequency: h.frequency, recency: h.recency / timeScale, age: h.age / timeScale })));
  // The search runs on log r, log α and, for the dropout's Beta, on log a − log b (its mean's
  // log-odds) and log a + log b. A store whose customers all drop out alike has its maximum at
  // a, b → ∞ with a/b fixed (a Beta collapsed onto one p): along the last coordinate only, where the
  // search stops at a bound, instead of on a diagonal ridge that Nelder-Mead crawls along for ever.
  const toParameters = ([logR, logAlpha, logOdds, logProduct]: number[]) => ({
    r: Math.exp(logR!),
    alpha: Math.exp(logAlpha!),
    a: Math.exp((logProduct! + logOdds!) / 2),
    b: Math.exp((logProduct! - logOdds!) / 2),
  });
  const objective = (point: number[]) => {
    if (point.some((value) => Math.abs(value) > LOG_PARAMETER_BOUND)) return Number.POSITIVE_INFINITY;
    return -logLikelihood(toParameters(point), sample);
  };
  const result = minimizeWithRestarts(objective, [0, 0, 0, 0]);
  const { r, alpha: alphaScaled, a, b } = toParameters(result.point);
  const alpha = alphaScaled * timeScale;
  return {
    r,
    alpha,
    a,
    b,
    // The likelihood of the data in the caller's unit: the density of each observed time changes by
    // the scale once per purchase after the first, i.e. x times per customer.
    logLikelihood: -result.value - Math.log(timeScale) * histories.reduce((sum, h) => sum + h.frequency, 0),
    customers: histories.length,
    converged: result.converged,
  };
}

/** P(alive | x, t_x, T) (Hardie, note 021). A customer with no repeat purchase is alive by the model's assumption. */
export function probabilityAlive(parameters: BgNbdParameters, history: PurchaseHistory): number {
  const { r, alpha, a, b } = parameters;
  const { frequency: x, recency, age } = history;
  if (x === 0) return 1;
  const logRatio = (r + x) * Math.log((alpha + age) / (alpha + recency)) + Math.log(a / (b + x - 1));
  return 1 / (1 + Math.exp(logRatio));
}

/** E[purchases in (T, T + t] | x, t_x, T] (Fader, Hardie and Lee 2005, eq. 10). */
export function expectedPurchases(parameters: BgNbdParameters, history: PurchaseHistory, horizon: number): number {
  if (horizon <= 0) return 0;
  const { r, alpha, a, b } = parameters;
  const { frequency: x, recency, age } = history;
  const z = horizon / (alpha + age + horizon);
  // c = a + b + x − 1 is negative for x = 0 when a + b < 1: the series then has terms of both signs.
  const hypergeometric = signedLogHypergeometric2F1(r + x, b + x, a + b + x - 1, z);
  const first = (a + b + x - 1) / (a - 1);
  const second = 1 - hypergeometric.sign * Math.exp(hypergeometric.log + (r + x) * Math.log((alpha + age) / (alpha + age + horizon)));
  const denominator = 1 + (x > 0 ? (a / (b + x - 1)) * ((alpha + age) / (alpha + recency)) ** (r + x) : 0);
  return (first * second) / denominator;
}

/** E[X(t)]: expected purchases of a new customer in their first t (eq. 9), for calibration plots. */
export function expectedPurchasesOfNewCustomer(parameters: BgNbdParameters, t: number): number {
  const { r, alpha, a, b } = parameters;
  const z = t / (alpha + t);
  const signed = signedLogHypergeometric2F1(r, b, a + b - 1, z);
  const hypergeometric = signed.sign * Math.exp(signed.log);
  return ((a + b - 1) / (a - 1)) * (1 - (alpha / (alpha + t)) ** r * hypergeometric);
}

/**
 * P(X(T, T + t) = k | x, t_x, T) for k = 0..maxCount: the distribution of a customer's purchases in
 * the next t, not only its mean (used for the forecast that minimises the expected absolute error,
 * its median). Derived from the joint posterior of λ and p, as eq. 10 is. Given (λ, p) and alive at
 * T, as for a new customer (Fader, Hardie and Lee 2005, eq. 8):
 *   P(k) = (1 − p)^k Poisson(k; λt) + [k > 0] p (1 − p)^(k−1) P(Poisson(λt) ≥ k),
 * and a customer already gone buys nothing. Integrating over λ ~ Gamma(r + x, α + T) and the Beta
 * weights of p that keep the customer alive after x repeat purchases gives, with
 * q_j = NegBin(j; r + x, (α + T) / (α + T + t)) and B_k = Π_{i<k} (b + x + i) / (a + b + x + i):
 *   P(k | alive) = B_k q_k + [k > 0] B_(k−1) a / (a + b + x + k − 1) (1 − Σ_{j<k} q_j),
 *   P(k) = P(alive) P(k | alive) + [k = 0] (1 − P(alive)).
 * Sums to 1 over all k and its mean is eq. 10 (tests).
 */
export function purchaseCountProbabilities(parameters: BgNbdParameters, history: PurchaseHistory, horizon: number, maxCount: number): number[] {
  const { r, alpha, a, b } = parameters;
  const { frequency: x, age } = history;
  const pAlive = probabilityAlive(parameters, history);
  const probabilities = new Array<number>(maxCount + 1).fill(0);
  if (horizon <= 0) {
    probabilities[0] = 1;
    return probabilities;
  }
  const shape = r + x;
  const u = (alpha + age) / (alpha + age + horizon);
  const v = horizon / (alpha + age + horizon);
  let q = Math.exp(shape * Math.log(u)); // q_0
  let below = 0; // Σ_{j<k} q_j
  let survive = 1; // B_k
  for (let k = 0; k <= maxCount; k++) {
    let alive = survive * q;
    if (k > 0) {
      const previous = survive / ((b + x + k - 1) / (a + b + x + k - 1)); // B_(k−1)
      alive += previous * (a / (a + b + x + k - 1)) * Math.max(0, 1 - below);
    }
    probabilities[k] = pAlive * alive + (k === 0 ? 1 - pAlive : 0);
    below += q;
    q *= ((shape + k) / (k + 1)) * v;
    survive *= (b + x + k) / (a + b + x + k);
  }
  return probabilities;
}

/** The median of the purchases in the next t (the smallest k with P(X ≤ k) ≥ ½): the forecast with the least expected absolute error. */
export function medianPurchases(parameters: BgNbdParameters, history: PurchaseHistory, horizon: number): number {
  let maxCount = 16;
  for (;;) {
    const probabilities = purchaseCountProbabilities(parameters, history, horizon, maxCount);
    let cumulative = 0;
    for (let k = 0; k <= maxCount; k++) {
      cumulative += probabilities[k]!;
      if (cumulative >= 0.5) return k;
    }
    maxCount *= 4;
  }
}
