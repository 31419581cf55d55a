// The two special functions the BG/NBD model needs. Written here rather than installed: the
// maintained implementations (stdlib's) come as ~190 packages for these two functions.

// Lanczos approximation, g = 7, n = 9 (Numerical Recipes' coefficients; relative error < 1e-15).
const LANCZOS_G = 7;
const LANCZOS_COEFFICIENTS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];
const HALF_LOG_TWO_PI = 0.5 * Math.log(2 * Math.PI);

/** ln Γ(x) for x > 0. */
export function logGamma(x: number): number {
  if (!(x > 0)) return Number.NaN;
  if (x < 0.5) {
    // Reflection keeps the approximation in its accurate range: Γ(x)Γ(1−x) = π / sin(πx).
    return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  }
  const z = x - 1;
  let sum = LANCZOS_COEFFICIENTS[0]!;
  for (let i = 1; i < LANCZOS_G + 2; i++) sum += LANCZOS_COEFFICIENTS[i]! / (z + i);
  const t = z + LANCZOS_G + 0.5;
  return HALF_LOG_TWO_PI + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/**
 * ln ₂F₁(a, b; c; z) for 0 ≤ z < 1 and a, b, c > 0, by its power series. Terms are summed in log
 * space relative to the largest so far: with the BG/NBD's arguments (a frequent buyer's r + x and
 * b + x in the hundreds) the series itself overflows a double long before it converges.
 */
export function logHypergeometric2F1(a: number, b: number, c: number, z: number): number {
  if (!(z >= 0 && z < 1)) throw new RangeError(`2F1 is summed here for 0 <= z < 1 only, not ${z}`);
  if (z === 0) return 0;
  const logZ = Math.log(z);
  let logTerm = 0;
  let scale = 0; // log of the largest term seen; the sum is kept divided by exp(scale)
  let scaledSum = 1;
  for (let n = 0; n < 100_000; n++) {
    logTerm += Math.log(((a + n) * (b + n)) / ((c + n) * (n + 1))) + logZ;
    if (logTerm > scale) {
      scaledSum = scaledSum * Math.exp(scale - logTerm) + 1;
      scale = logTerm;
    } else {
      const relative = Math.exp(logTerm - scale);
      scaledSum += relative;
      // Terms shrink geometrically once n passes the point where (a+n)(b+n)z < (c+n)(n+1).
      if (relative < 1e-17 * scaledSum && (a + n) * (b + n) * z < (c + n) * (n + 1)) break;
    }
  }
  return scale + Math.log(scaledSum);
}

/**
 * ₂F₁(a, b; c; z) for 0 ≤ z < 1 and a, b > 0 with any c that is not 0 or a negative whole number,
 * as its sign and the log of its absolute value. The BG/NBD's expectation for a customer without a
 * repeat purchase needs c = a + b − 1, which is negative when the fitted Beta's a + b < 1 (a store
 * whose customers either stay or leave after their first order): its first terms then change sign.
 */
export function signedLogHypergeometric2F1(a: number, b: number, c: number, z: number): { sign: 1 | -1; log: number } {
  if (!(z >= 0 && z < 1)) throw new RangeError(`2F1 is summed here for 0 <= z < 1 only, not ${z}`);
  if (c <= 0 && Number.isInteger(c)) throw new RangeError(`2F1 is undefined for c = ${c}`);
  if (z === 0) return { sign: 1, log: 0 };
  const logZ = Math.log(z);
  let logTerm = 0;
  let sign = 1;
  let scale = 0;
  let scaledSum = 1;
  for (let n = 0; n < 100_000; n++) {
    const ratio = ((a + n) * (b + n)) / ((c + n) * (n + 1));
    if (ratio < 0) sign = -sign;
    logTerm += Math.log(Math.abs(ratio)) + logZ;
    if (logTerm > scale) {
      scaledSum = scaledSum * Math.exp(scale - logTerm) + sign;
      scale = logTerm;
    } else {
      const relative = Math.exp(logTerm - scale);
      scaledSum += sign * relative;
      if (c + n > 0 && relative < 1e-17 * Math.abs(scaledSum) && Math.abs(ratio) * z < 1) break;
    }
  }
  return { sign: scaledSum < 0 ? -1 : 1, log: scale + Math.log(Math.abs(scaledSum)) };
}
