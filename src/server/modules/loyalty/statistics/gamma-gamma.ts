import { minimizeWithRestarts } from './nelder-mead.ts';
import { logGamma } from './special-functions.ts';

// The Gamma-Gamma model of spend per order (Fader, Hardie and Lee, "RFM and CLV: Using Iso-Value
// Curves for Customer Base Analysis", 2005; Hardie's note 025): a customer's orders have values
// ~ Gamma(p, ν), and ν ~ Gamma(q, γ) across customers. Fitted on repeat buyers only (x ≥ 1 repeat
// purchases, with the mean value of those repeat purchases), as the note prescribes; it assumes
// spend and purchase frequency are independent (check: their correlation is printed by the loyalty
// benchmark).

export interface SpendHistory {
  /** Repeat purchases (x ≥ 1). */
  frequency: number;
  /** Mean value of those purchases (m_x > 0). */
  meanValue: number;
}

export interface GammaGammaParameters {
  p: number;
  q: number;
  gamma: number;
}

export interface GammaGammaFit extends GammaGammaParameters {
  logLikelihood: number;
  customers: number;
  converged: boolean;
}

function logLikelihood({ p, q, gamma }: GammaGammaParameters, histories: readonly SpendHistory[], valueScale: number): number {
  const logGammaQ = logGamma(q);
  let total = 0;
  for (const { frequency: x, meanValue } of histories) {
    const m = meanValue / valueScale;
    total +=
      logGamma(p * x + q) - logGamma(p * x) - logGammaQ + q * Math.log(gamma) + (p * x - 1) * Math.log(m) + p * x * Math.log(x) - (p * x + q) * Math.log(x * m + gamma);
  }
  return total;
}

export function fitGammaGamma(histories: readonly SpendHistory[]): GammaGammaFit {
  const repeat = histories.filter((history) => history.frequency >= 1 && history.meanValue > 0);
  if (repeat.length === 0) throw new RangeError('no repeat purchases with a value: the Gamma-Gamma model cannot be fitted');
  // Values in units of their mean, for the same reason as the BG/NBD's time scale; γ scales with them.
  const valueScale = repeat.reduce((sum, history) => sum + history.meanValue, 0) / repeat.length;
  const objective = (logParameters: number[]) => {
    if (logParameters.some((value) => Math.abs(value) > 12)) return Number.POSITIVE_INFINITY; // as the BG/NBD's search
    const [p, q, gamma] = logParameters.map(Math.exp) as [number, number, number];
    return -logLikelihood({ p, q, gamma }, repeat, valueScale);
  };
  const result = minimizeWithRestarts(objective, [0, 0, 0]);
  const [p, q, gammaScaled] = result.point.map(Math.exp) as [number, number, number];
  const gamma = gammaScaled * valueScale;
  return {
    p,
    q,
    gamma,
    // Each customer's density of m_x is in 1/value units once: scaling values by s adds −log s each.
    logLikelihood: -result.value - repeat.length * Math.log(valueScale),
    customers: repeat.length,
    converged: result.converged,
  };
}

/** E[M | x, m_x]: the expected value of a customer's future orders (note 025, eq. 5). */
export function expectedAverageOrderValue({ p, q, gamma }: GammaGammaParameters, history: SpendHistory): number {
  if (q <= 1) return Number.NaN; // the population mean p γ / (q − 1) does not exist
  const { frequency: x, meanValue } = history;
  return (p * (gamma + x * meanValue)) / (p * x + q - 1);
}
