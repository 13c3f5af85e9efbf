import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { withTimeout } from '../util/race-abort.js';

/**
 * What GET /metrics exports (DESIGN.md §4.4; docs/operations.md). The names and labels are those
 * deploy/grafana/shutter-dashboard.json reads. Labels are bounded sets — a format, a phase, an error
 * code, a reason — never a URL, a key or an account.
 */

/** Why a browser was replaced: its capture budget ran out, it crashed or disconnected, it stopped answering. */
export const RESTART_REASONS = ['capture_budget', 'crash', 'unresponsive'] as const;
export type RestartReason = (typeof RESTART_REASONS)[number];

/**
 * What the egress guard refused: `target`, the capture's own URL (before the browser, a 403);
 * `page_request`, a connection a page made (redirect, subresource, fetch…) to an address not
 * allowed; `proxy_port`, a page dialling the egress proxy itself.
 */
export const EGRESS_BLOCK_REASONS = ['target', 'page_request', 'proxy_port'] as const;
export type EgressBlockReason = (typeof EGRESS_BLOCK_REASONS)[number];

/**
 * Refusals by a limit, named by their error code: the plan's rate, concurrency and monthly quota, its
 * queue of async jobs (429 queue_full), and the node's full capture queue (503 overloaded).
 */
export const LIMIT_KINDS = ['rate_limited', 'concurrency_limited', 'quota_exceeded', 'queue_full', 'overloaded'] as const;
export type LimitKind = (typeof LIMIT_KINDS)[number];

export type CacheResult = 'hit' | 'miss';

/** What the metrics read from the capture engine at each scrape (its `status()`). */
export interface EngineGauges {
  pool: { busy: number; queued: number };
  /** Browser replacements since start, by reason. */
  restarts?: Partial<Record<RestartReason, number>>;
  /** Egress refusals since start, by reason. */
  egressBlocked?: Partial<Record<EgressBlockReason, number>>;
}

/** Seconds: from a cached or idle-slot capture (a few ms) to the longest timeout (120 s). */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120];
/** Seconds from a job's creation to its end: a second to a day. */
const JOB_AGE_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21_600, 86_400];
/** A scrape waits this long for the job queue's count, then reports the last one. */
const QUEUED_TIMEOUT_MS = 2_000;

/**
 * The process metrics (CPU, memory, event loop, GC) belong to the process, not to a service: one
 * registry for them, started with the first service, so several services in one process (tests)
 * neither collide nor add observers each.
 */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/**
 * One service's metrics: a prom-client registry of its own (not the global default one), fed by
 * the instrumented engine, the HTTP layer's hooks, the jobs code, and read from the engine at scrape time.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly captures: Counter<'format' | 'outcome'>;
  private readonly durations: Histogram<'format' | 'phase'>;
  private readonly cache: Counter<'result'>;
  private readonly refusals: Counter<'kind'>;
  private readonly jobs: Counter<'outcome'>;
  private readonly jobAge: Histogram;
  private engine?: () => EngineGauges;
  private queued?: () => Promise<number> | number;

  constructor() {
    processMetrics();
    const registers = [this.registry];
    this.captures = new Counter({
      name: 'shutter_captures_total',
      help: 'Captures rendered by the engine, by format and outcome (ok, or the error code). Cache hits are not renders.',
      labelNames: ['format', 'outcome'],
      registers,
    });
    this.durations = new Histogram({
      name: 'shutter_capture_duration_seconds',
      help: 'Time of each phase of a capture (queue, navigate, wait, capture, encode), as in Server-Timing.',
      labelNames: ['format', 'phase'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    const gauges = () => this.engine?.();
    new Gauge({
      name: 'shutter_queue_depth',
      help: 'Captures waiting for a free slot of the browser pool.',
      registers,
      collect() {
        const engine = gauges();
        if (engine) this.set(engine.pool.queued);
      },
    });
    new Gauge({
      name: 'shutter_pool_in_use',
      help: 'Slots of the browser pool rendering a capture now.',
      registers,
      collect() {
        const engine = gauges();
        if (engine) this.set(engine.pool.busy);
      },
    });
    startAtZero(
      new Counter({
        name: 'shutter_browser_restarts_total',
        help: 'Browsers replaced, by reason: capture_budget (SHUTTER_BROWSER_MAX_CAPTURES), crash, unresponsive.',
        labelNames: ['reason'],
        registers,
        collect() {
          setCumulative(this, RESTART_REASONS, gauges()?.restarts);
        },
      }),
      'reason',
      RESTART_REASONS,
    );
    startAtZero(
      new Counter({
        name: 'shutter_egress_blocked_total',
        help: 'Connections the egress guard refused, by reason: target (the capture URL), page_request, proxy_port.',
        labelNames: ['reason'],
        registers,
        collect() {
          setCumulative(this, EGRESS_BLOCK_REASONS, gauges()?.egressBlocked);
        },
      }),
      'reason',
      EGRESS_BLOCK_REASONS,
    );
    this.refusals = startAtZero(
      new Counter({
        name: 'shutter_limit_refusals_total',
        help: "Requests refused by a limit, by error code: the plan's rate_limited, concurrency_limited, quota_exceeded, queue_full (jobs); overloaded (the capture queue).",
        labelNames: ['kind'],
        registers,
      }),
      'kind',
      LIMIT_KINDS,
    );
    this.cache = startAtZero(
      new Counter({
        name: 'shutter_cache_total',
        help: 'cache=1 answers: hit (a stored or shared render) or miss (rendered now).',
        labelNames: ['result'],
        registers,
      }),
      'result',
      ['hit', 'miss'],
    );
    this.jobs = new Counter({
      name: 'shutter_jobs_total',
      help: 'Async jobs finished, by outcome.',
      labelNames: ['outcome'],
      registers,
    });
    const queued = () => this.queued;
    new Gauge({
      name: 'shutter_jobs_queued',
      help: 'Async jobs waiting to run.',
      registers,
      async collect() {
        const count = queued();
        if (!count) return;
        // A slow or failing queue store leaves the last value; it never fails the scrape.
        const value = await withTimeout(Promise.resolve(count()), QUEUED_TIMEOUT_MS).catch(() => undefined);
        if (typeof value === 'number' && Number.isFinite(value)) this.set(value);
      },
    });
    this.jobAge = new Histogram({
      name: 'shutter_job_age_seconds',
      help: "Seconds from a job's creation to its end.",
      buckets: JOB_AGE_BUCKETS,
      registers,
    });
  }

  /** One capture the engine ran: its outcome and the milliseconds of each phase it reached. */
  captureFinished(format: string, outcome: string, phases: Readonly<Partial<Record<string, number>>>): void {
    this.captures.inc({ format, outcome });
    for (const [phase, ms] of Object.entries(phases)) {
      if (ms !== undefined) this.durations.observe({ format, phase }, ms / 1000);
    }
  }

  cacheLookup(result: CacheResult): void {
    this.cache.inc({ result });
  }

  limitRefused(kind: LimitKind): void {
    this.refusals.inc({ kind });
  }

  /** An async job ended (`outcome`: a small fixed set, e.g. succeeded / failed), `ageSeconds` after it was created. */
  jobFinished(outcome: string, ageSeconds: number): void {
    this.jobs.inc({ outcome });
    if (Number.isFinite(ageSeconds) && ageSeconds >= 0) this.jobAge.observe(ageSeconds);
  }

  /** How shutter_jobs_queued is counted at each scrape (the last callback given wins). */
  onCollectQueued(count: () => Promise<number> | number): void {
    this.queued = count;
  }

  /** The engine whose pool, restarts and egress refusals are read at each scrape. */
  watchEngine(status: () => EngineGauges): void {
    this.engine = status;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** The Prometheus text: this service's metrics, then the process's. */
  async text(): Promise<string> {
    const [own, process] = await Promise.all([this.registry.metrics(), processMetrics().metrics()]);
    return `${own}\n${process}`;
  }
}

/** Starts each label value at 0, so rate() sees a series from the first scrape, not from the first event. */
function startAtZero<T extends string>(counter: Counter<T>, label: T, values: readonly string[]): Counter<T> {
  for (const value of values) counter.inc({ [label]: value } as Partial<Record<T, string>>, 0);
  return counter;
}

/** A counter whose totals are kept elsewhere (the engine's): set to them at scrape time. */
function setCumulative(counter: Counter<'reason'>, reasons: readonly string[], totals: Partial<Record<string, number>> | undefined): void {
  if (!totals) return;
  counter.reset();
  for (const reason of reasons) counter.inc({ reason }, totals[reason] ?? 0);
}
