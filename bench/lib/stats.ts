/** Percentiles and summaries of latency samples, the spread of per-round ratios, and a straight-line fit. */

/** The q-quantile (0–1) by nearest rank; NaN for no samples. */
export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export const median = (values: readonly number[]): number => percentile(values, 0.5);

export const mean = (values: readonly number[]): number => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : Number.NaN);

/** Rounds for JSON and tables: integers above 10, one decimal below. */
export const round = (value: number): number =>
  Number.isFinite(value) ? (Math.abs(value) >= 10 ? Math.round(value) : Math.round(value * 10) / 10) : value;

/** The q-quantile (0–1) by linear interpolation between order statistics (type 7); NaN for no samples. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const at = (sorted.length - 1) * Math.min(1, Math.max(0, q));
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

/** Median and interquartile range of a set of per-round figures (e.g. ratios). */
export interface Spread {
  median: number;
  /** 25th and 75th percentiles (interpolated). */
  q1: number;
  q3: number;
  /** How many rounds it summarises. */
  n: number;
}

/** Median and IQR of the finite values; undefined when there are none. */
export function spread(values: readonly number[]): Spread | undefined {
  const finite = values.filter(Number.isFinite);
  if (finite.length === 0) return undefined;
  return { median: quantile(finite, 0.5), q1: quantile(finite, 0.25), q3: quantile(finite, 0.75), n: finite.length };
}

/** y = intercept + slope·x by least squares, with R² (1 when every point is on the line). */
export interface LinearFit {
  slope: number;
  intercept: number;
  r2: number;
  n: number;
}

/** The least-squares line through the points; undefined for fewer than two distinct x. */
export function linearFit(points: ReadonlyArray<readonly [number, number]>): LinearFit | undefined {
  const ok = points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
  const n = ok.length;
  if (n < 2) return undefined;
  const mx = ok.reduce((a, [x]) => a + x, 0) / n;
  const my = ok.reduce((a, [, y]) => a + y, 0) / n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (const [x, y] of ok) {
    sxx += (x - mx) ** 2;
    sxy += (x - mx) * (y - my);
    syy += (y - my) ** 2;
  }
  if (sxx === 0) return undefined;
  const slope = sxy / sxx;
  const intercept = my - slope * mx;
  const residual = ok.reduce((a, [x, y]) => a + (y - intercept - slope * x) ** 2, 0);
  return { slope, intercept, r2: syy === 0 ? 1 : 1 - residual / syy, n };
}
