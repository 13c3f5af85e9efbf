/**
 * Interleaving (issue 21): within a scenario the engines take turns, one block of requests each per
 * round, the order rotating every round (A B, B A, A B …), so drift of a shared, busy machine
 * falls on every engine alike. A ratio between two engines is then taken round by round and
 * reported as its median and interquartile range.
 */
import type { RoundFigure, ScenarioResult } from './results.js';
import { spread, type Spread } from './stats.js';

/** How one engine's measured requests are cut into blocks and spread over the rounds. */
export interface BlockPlan {
  /** Requests per block (all at the scenario's concurrency). */
  size: number;
  /** The rounds (0-based, ascending) in which this engine measures a block. */
  rounds: number[];
}

/**
 * Cuts `total` requests at `concurrency` into blocks for `rounds` rounds: a block is a whole number
 * of waves of `concurrency` requests, and at concurrency above 1 at least two waves when there are
 * requests for two such blocks, so a block's throughput is not mostly ramp-up and drain. The total is rounded up to whole blocks. An engine
 * with fewer requests (the per-request-launch baselines) gets fewer blocks, spread evenly over the rounds.
 */
export function planBlocks(total: number, concurrency: number, rounds: number): BlockPlan {
  const r = Math.max(1, Math.floor(rounds));
  const c = Math.max(1, Math.floor(concurrency));
  const want = Math.max(1, Math.floor(total));
  // Two waves per block where that still leaves two rounds; else one wave, so the engines still alternate.
  const minBlock = Math.min(want, c === 1 ? 1 : want >= 4 * c ? 2 * c : c);
  const size = Math.max(minBlock, Math.ceil(Math.ceil(want / r) / c) * c);
  const n = Math.min(r, Math.ceil(want / size));
  return { size, rounds: Array.from({ length: n }, (_, i) => Math.floor((i * r) / n)) };
}

/** The order of the engines in round `round`: rotated by one each round. */
export function roundOrder<T>(items: readonly T[], round: number): T[] {
  if (items.length === 0) return [];
  const k = round % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

/** a's figure ÷ b's, for every round both measured with successes. */
export function perRoundRatios(a: readonly RoundFigure[], b: readonly RoundFigure[], pick: (r: RoundFigure) => number): number[] {
  const byRound = new Map(b.map((r) => [r.round, r]));
  const out: number[] = [];
  for (const ra of a) {
    const rb = byRound.get(ra.round);
    if (!rb || ra.ok === 0 || rb.ok === 0) continue;
    const x = pick(ra);
    const y = pick(rb);
    if (Number.isFinite(x) && Number.isFinite(y) && y > 0) out.push(x / y);
  }
  return out;
}

/** What a ratio compares. */
export type RatioKind = 'p50' | 'throughput' | 'bytes';

const PICK: Record<RatioKind, (r: RoundFigure) => number> = {
  p50: (r) => r.p50,
  throughput: (r) => r.throughput,
  bytes: (r) => r.medianBytes,
};

/** Median and IQR of a ÷ b over the rounds; undefined when they share no measured round. */
export function ratioSpread(a: ScenarioResult | undefined, b: ScenarioResult | undefined, kind: RatioKind): Spread | undefined {
  if (!a?.rounds?.length || !b?.rounds?.length || a.skipped || b.skipped) return undefined;
  return spread(perRoundRatios(a.rounds, b.rounds, PICK[kind]));
}
