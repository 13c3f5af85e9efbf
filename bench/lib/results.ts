/** What a run produces: the JSON file's shape and the report's input. */
import type { Machine } from './machine.js';
import type { BenchOptions, EngineId } from './options.js';

export interface ScenarioResult {
  scenario: string;
  title: string;
  engine: EngineId;
  concurrency: number;
  ok: number;
  errors: number;
  errorSamples: string[];
  /** Latency of successful requests, ms. */
  p50: number;
  p90?: number;
  p95: number;
  p99: number;
  mean: number;
  max: number;
  /** Successful captures per second over the measured phase. */
  throughput: number;
  /** Peak over the measured phase, of the engine's whole process tree, MiB. */
  peakRssMb: number;
  peakPssMb: number;
  peakProcesses: number;
  /** CPU time of the engine's tree per successful capture, ms (2 cores: 2 000 ms per wall second at most). */
  cpuMsPerCapture: number;
  medianBytes: number;
  /** Shutter only: median of each Server-Timing phase, ms. */
  phases?: Record<string, number>;
  /** Answers with a status the scenario tolerates (e.g. 504: a lost capture, measured, not an error), by status. */
  tolerated?: Record<string, number>;
  /** Median time to those answers, ms. */
  toleratedP50?: number;
  toleratedSamples?: string[];
  /** Successful answers carrying each warning: Shutter's X-Shutter-Warning (partial_load), the floor's X-Bench-Warning (load_timeout). */
  warnings?: Record<string, number>;
  /** Requests of the measured phase (successes, tolerated answers and errors). */
  requests?: number;
  /**
   * Shutter only, real-page scenarios: `service.resolver` of GET /v1/status before and after the
   * measured phase and their difference; null when the status has no such object.
   */
  resolver?: ResolverDelta | null;
  /** Why it was not measured. */
  skipped?: string;
  /** Each round's figures (engines take turns round by round within a scenario; bench/lib/rounds.ts). */
  rounds?: RoundFigure[];
  /** Requests per round (block) of this engine. */
  blockSize?: number;
  /** 1-minute load average of the machine when the scenario's measured phase began. */
  loadAvg?: number;
  /** Successful answers by X-Shutter-Cache (HIT, MISS), for requests with cache=1. */
  cache?: Record<string, number>;
  /** The page's height for a full-page row (CSS px), the x of the report's line fit. */
  fullPageHeight?: number;
}

/** One engine's block of requests in one round of a scenario. */
export interface RoundFigure {
  /** 0-based round of the scenario. */
  round: number;
  ok: number;
  errors: number;
  /** Median latency of the block's successes, ms. */
  p50: number;
  /** Successes per second over the block. */
  throughput: number;
  medianBytes: number;
}

export interface ResolverDelta {
  before: Record<string, number>;
  after: Record<string, number>;
  /** after − before, per counter. */
  delta: Record<string, number>;
}

export interface ColdStarts {
  engine: EngineId;
  /** Process start → first successful capture, ms, one per start. */
  ms: number[];
  failures: string[];
}

export interface LongRun {
  engine: EngineId;
  captures: number;
  errors: number;
  errorSamples: string[];
  concurrency: number;
  mix: string[];
  /** Tree memory after the first 50 captures and after all, each after 2 s idle, MiB. */
  pssAfter50Mb: number;
  pssAfterEndMb: number;
  rssAfter50Mb: number;
  rssAfterEndMb: number;
  peakPssMb: number;
  durationS: number;
}

export interface Target {
  name: string;
  measured: string;
  /** null: not measured in this run. */
  pass: boolean | null;
}

export interface RunReport {
  date: string;
  /** How it was run (BENCH_* variables and the make target), as the report shows it. */
  command?: string;
  /** What the reader should know about this run (BENCH_NOTE), shown under its first line. */
  note?: string;
  smoke: boolean;
  options: BenchOptions;
  machine: Machine;
  durationS: number;
  scenarios: ScenarioResult[];
  coldStarts: ColdStarts[];
  longRuns: LongRun[];
  targets: Target[];
  /** Failed requests plus engines that could not start. */
  problems: number;
}
