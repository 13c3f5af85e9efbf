/** The benchmark's knobs, all from the environment (documented in docs/performance.md). */

export type EngineId = 'shutter' | 'floor' | 'bare' | 'launch' | 'capture-website';
export const ENGINE_IDS: readonly EngineId[] = ['shutter', 'floor', 'bare', 'launch', 'capture-website'];

export interface BenchOptions {
  /** Tiny run for CI: few requests, concurrency ≤ 2, no long run, no docs; exits 1 on any error. */
  smoke: boolean;
  /** Measured requests per scenario for Shutter and the floor (expensive pages get a share of it). */
  rounds: number;
  /** Measured requests per scenario for the per-request-launch baselines (each takes ~1 s). */
  slowRounds: number;
  /** Unmeasured requests before each scenario (at least the scenario's concurrency). */
  warmup: number;
  /** Rounds a scenario's measured requests are cut into; the engines take turns round by round (bench/lib/rounds.ts). */
  blocks: number;
  /** Scenario ids or id prefixes to run; empty means all. */
  scenarios: string[];
  engines: EngineId[];
  /** A fresh engine process per scenario: isolated memory figures and one cold start each. */
  fresh: boolean;
  /** The long run: memory after the first 50 and after `longCaptures` captures. */
  long: boolean;
  longCaptures: number;
  /** Time budget of one scenario's measured phase on one engine, and of the whole run. */
  scenarioTimeoutMs: number;
  runTimeoutMs: number;
  /** How long one request may take before it counts as an error (a scenario may raise it: minRequestTimeoutS). */
  requestTimeoutMs: number;
  /** The floor's bound on `page.goto` (load); past it, it captures anyway and flags the answer load_timeout. */
  floorGotoTimeoutS: number;
  /** Interval of the memory/CPU sampler. */
  sampleMs: number;
  /** Replace the results section of docs/performance.md. */
  writeDocs: boolean;
  /** Pass the engines' own output through. */
  verbose: boolean;
  /** Chromium for every engine; default: the one Shutter would pick. */
  chromium?: string;
}

const int = (name: string, fallback: number, min: number, max: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be an integer from ${min} to ${max}`);
  return value;
};
const flag = (name: string, fallback: boolean): boolean => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  return raw === '1' || raw === 'true' || raw === 'yes';
};
const list = (name: string): string[] =>
  (process.env[name] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** Reads BENCH_* variables; throws naming the variable when one is invalid. */
export function readOptions(): BenchOptions {
  const smoke = flag('BENCH_SMOKE', false);
  const scenarios = list('BENCH_SCENARIOS');
  const engines = list('BENCH_ENGINES');
  for (const e of engines)
    if (!ENGINE_IDS.includes(e as EngineId)) throw new Error(`BENCH_ENGINES: unknown engine ${e} (${ENGINE_IDS.join(', ')})`);
  return {
    smoke,
    rounds: int('BENCH_ROUNDS', smoke ? 2 : 100, 1, 100_000),
    slowRounds: int('BENCH_SLOW_ROUNDS', smoke ? 1 : 24, 1, 100_000),
    warmup: int('BENCH_WARMUP', smoke ? 0 : 5, 0, 1_000),
    blocks: int('BENCH_BLOCKS', smoke ? 2 : 10, 1, 1_000),
    scenarios,
    engines: engines.length ? (engines as EngineId[]) : [...ENGINE_IDS],
    fresh: flag('BENCH_FRESH', !smoke),
    long: !smoke && flag('BENCH_LONG', false),
    longCaptures: int('BENCH_LONG_CAPTURES', 1_000, 100, 1_000_000),
    scenarioTimeoutMs: int('BENCH_SCENARIO_TIMEOUT_S', smoke ? 30 : 180, 5, 3_600) * 1000,
    runTimeoutMs: int('BENCH_MAX_MINUTES', smoke ? 5 : 90, 1, 24 * 60) * 60_000,
    requestTimeoutMs: int('BENCH_REQUEST_TIMEOUT_S', 60, 1, 600) * 1000,
    floorGotoTimeoutS: int('BENCH_FLOOR_GOTO_TIMEOUT_S', smoke ? 10 : 30, 1, 300),
    sampleMs: int('BENCH_SAMPLE_MS', 250, 50, 10_000),
    writeDocs: flag('BENCH_WRITE_DOCS', !smoke && scenarios.length === 0 && engines.length === 0),
    verbose: flag('BENCH_VERBOSE', false),
    ...(process.env.BENCH_CHROMIUM ? { chromium: process.env.BENCH_CHROMIUM } : {}),
  };
}
