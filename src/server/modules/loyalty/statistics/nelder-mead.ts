export interface MinimizeResult {
  point: number[];
  value: number;
  iterations: number;
  converged: boolean;
}

export interface NelderMeadOptions {
  /** Stop when the simplex's values differ by less than this fraction of their size (Numerical Recipes' ftol). */
  valueTolerance?: number;
  maxIterations?: number;
  /** Size of the first simplex's steps from the start point. */
  initialStep?: number;
}

/**
 * Nelder-Mead simplex minimisation with the standard coefficients (reflection 1, expansion 2,
 * contraction 0.5, shrink 0.5), as in Lagarias et al. (1998) and SciPy's `fmin`. Non-finite
 * values count as +∞, so a step into an impossible region is simply never taken.
 */
export function minimizeNelderMead(f: (point: number[]) => number, start: number[], options: NelderMeadOptions = {}): MinimizeResult {
  const valueTolerance = options.valueTolerance ?? 1e-10;
  const maxIterations = options.maxIterations ?? 500 * start.length;
  const step = options.initialStep ?? 0.25;
  const dimension = start.length;
  const evaluate = (point: number[]) => {
    const value = f(point);
    return Number.isFinite(value) ? value : Number.POSITIVE_INFINITY;
  };

  let simplex = [start.slice()];
  for (let i = 0; i < dimension; i++) {
    const vertex = start.slice();
    vertex[i] = vertex[i]! + (vertex[i] === 0 ? step : step * Math.max(1, Math.abs(vertex[i]!)));
    simplex.push(vertex);
  }
  let values = simplex.map(evaluate);

  const combine = (from: number[], toward: number[], factor: number) => from.map((x, i) => x + factor * (toward[i]! - x));

  let iterations = 0;
  for (; iterations < maxIterations; iterations++) {
    const order = values.map((_, i) => i).sort((i, j) => values[i]! - values[j]!);
    simplex = order.map((i) => simplex[i]!);
    values = order.map((i) => values[i]!);

    const best = simplex[0]!;
    // On the values only, as Numerical Recipes' amoeba: a likelihood flat along a ridge (the BG/NBD's
    // a, b → ∞ with a/(a+b) fixed) has no point to converge to, and every point of it fits as well.
    const spreadOfValues = (2 * Math.abs(values[dimension]! - values[0]!)) / (Math.abs(values[dimension]!) + Math.abs(values[0]!) + 1e-300);
    if (spreadOfValues <= valueTolerance) {
      return { point: best, value: values[0]!, iterations, converged: true };
    }

    const centroid = new Array<number>(dimension).fill(0);
    for (let v = 0; v < dimension; v++) for (let i = 0; i < dimension; i++) centroid[i]! += simplex[v]![i]! / dimension;
    const worst = simplex[dimension]!;

    const reflected = combine(centroid, worst, -1);
    const reflectedValue = evaluate(reflected);
    if (reflectedValue < values[0]!) {
      const expanded = combine(centroid, worst, -2);
      const expandedValue = evaluate(expanded);
      if (expandedValue < reflectedValue) {
        simplex[dimension] = expanded;
        values[dimension] = expandedValue;
      } else {
        simplex[dimension] = reflected;
        values[dimension] = reflectedValue;
      }
      continue;
    }
    if (reflectedValue < values[dimension - 1]!) {
      simplex[dimension] = reflected;
      values[dimension] = reflectedValue;
      continue;
    }
    const outside = reflectedValue < values[dimension]!;
    const contracted = outside ? combine(centroid, reflected, 0.5) : combine(centroid, worst, 0.5);
    const contractedValue = evaluate(contracted);
    if (contractedValue < (outside ? reflectedValue : values[dimension]!)) {
      simplex[dimension] = contracted;
      values[dimension] = contractedValue;
      continue;
    }
    for (let v = 1; v <= dimension; v++) {
      simplex[v] = combine(best, simplex[v]!, 0.5);
      values[v] = evaluate(simplex[v]!);
    }
  }
  const bestIndex = values.indexOf(Math.min(...values));
  return { point: simplex[bestIndex]!, value: values[bestIndex]!, iterations, converged: false };
}

/**
 * Nelder-Mead restarted from its best point until the value stops improving (by a billionth):
 * a simplex that collapsed early would otherwise stop short of the minimum (Numerical Recipes §10.5).
 */
export function minimizeWithRestarts(f: (point: number[]) => number, start: number[], restarts = 5): MinimizeResult {
  let result = minimizeNelderMead(f, start);
  for (let restart = 0; restart < restarts; restart++) {
    const again = minimizeNelderMead(f, result.point);
    const improvement = result.value - again.value;
    result = again;
    if (improvement <= 1e-9 * Math.abs(again.value)) break;
  }
  return result;
}
