/** Percentiles and summaries of latency samples. */

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
