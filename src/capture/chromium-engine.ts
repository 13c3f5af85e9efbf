import type { BrowserContext, Page } from 'playwright-core';
import type { Logger } from 'pino';
import { AppError } from '../errors/app-error.js';
import type { ResolverStats } from '../egress/caching-resolver.js';
import type { EgressProxy } from '../egress/egress-proxy.js';
import { guardMainFrame } from '../egress/main-frame-guard.js';
import type { TargetCheck } from '../egress/target-check.js';
import { formatOf } from '../formats/registry.js';
import type { TakeOptions } from '../options/schema.js';
import { BrowserPool, type Session } from './browser-pool.js';
import type { CaptureEngine, CaptureResult, CaptureWarning, EngineStatus } from './engine.js';
import type { AdblockEngineStore } from './blocking/adblock-engine.js';
import { PageBlocking } from './blocking/page-blocking.js';
import { Limiter } from './limiter.js';
import { raceAbort } from '../util/race-abort.js';
import type { ImageLimits } from './image-limits.js';
import { contextOptions, defaultContextOptions } from './context-options.js';
import { RequestTracker } from './request-tracker.js';
import { CaptureClock } from './capture-clock.js';
import { CAPTURE_STEPS, stepsFor } from './capture-steps.js';
import type { VideoEncoding } from './render/animation.js';
import { LAZY_LOADER_PROBE } from './render/lazy-loaders.js';
import { DebugRecorder, type DebugTrace } from './debug-trace.js';
import type { CaptureContext } from './capture-step.js';
import type { Timings } from './timings.js';

export interface ChromiumEngineOptions {
  executablePath: string;
  concurrency: number;
  queueSize: number;
  maxCapturesPerBrowser: number;
  limits: ImageLimits;
  checkTarget: TargetCheck;
  /** The proxy every page request goes through (docs/security.md). */
  egress: EgressProxy;
  /** Filter engine for block_ads; without it block_ads answers 501. */
  adblock?: AdblockEngineStore;
  /** block_trackers: EasyPrivacy alone. */
  trackers?: AdblockEngineStore;
  /** The egress resolver's counters, for /v1/status. */
  resolverStats?: () => ResolverStats;
  /** JavaScript heap limit per page, MB. */
  jsHeapMb?: number;
  /** ffmpeg for animations (absent: /v1/animate answers 503 ffmpeg_unavailable). */
  ffmpegPath?: string;
  logger: Logger;
}

/**
 * Captures with one warm Chromium: a slot from the limiter, a fresh context from the pool,
 * then the steps in order, all under the capture's deadline.
 */
export class ChromiumEngine implements CaptureEngine {
  private readonly pool: BrowserPool;
  private readonly limiter: Limiter;
  /** Capture URLs the target check refused (403), for GET /metrics. */
  private targetRefusals = 0;

  constructor(private readonly options: ChromiumEngineOptions) {
    this.pool = new BrowserPool({
      executablePath: options.executablePath,
      maxCapturesPerBrowser: options.maxCapturesPerBrowser,
      logger: options.logger,
      egress: options.egress,
      jsHeapMb: options.jsHeapMb,
      warmContext: defaultContextOptions,
      // In every page, not only those of a pdf or full page that read it: installed with a spare
      // context, it costs a capture nothing; installed per capture before navigating, 5 ms p50 (issue 35).
      initScript: LAZY_LOADER_PROBE,
    });
    this.limiter = new Limiter(options.concurrency, options.queueSize);
  }

  start(): Promise<void> {
    return this.pool.start();
  }

  async capture(options: TakeOptions, timings: Timings, trace?: DebugTrace): Promise<CaptureResult> {
    const deadline = new AbortController();
    const clock = new CaptureClock(options.timeout * 1000, options.delay * 1000);
    // What the capture was doing when the deadline passed: named in the 504.
    const progress: CaptureProgress = { step: 'queue' };
    const timer = setTimeout(() => deadline.abort(timeoutError(options, progress)), options.timeout * 1000);
    try {
      if (options.url) await this.options.checkTarget(options.url).catch((error: unknown) => this.countRefusal(error));
      const release = await timings.measure('queue', () => this.limiter.acquire(deadline.signal));
      try {
        // ip_country_code: this context's requests leave through that country's egress listener.
        const proxy = options.ip_country_code ? { server: await this.options.egress.listenFor(options.ip_country_code) } : undefined;
        return await this.pool.withPage(contextOptions(options, this.pool.version, proxy), (session) =>
          this.withDeadline(session.context, deadline.signal, options, progress, () =>
            this.run(session, options, { timings, clock, progress, signal: deadline.signal, trace }),
          ),
        );
      } finally {
        release();
      }
    } finally {
      clearTimeout(timer);
    }
  }

  private async run({ context, page, cdp }: Session, options: TakeOptions, run: RunState): Promise<CaptureResult> {
    closeDialogsAndPopups(page);
    const blocking = new PageBlocking(page, options, this.options.adblock, this.options.trackers);
    const tracker = new RequestTracker(
      page,
      options.wait_until === 'networkidle2' || options.scripts_wait_until === 'networkidle2' ? 2 : 0,
    );
    run.progress.tracker = tracker;
    try {
      const ctx: CaptureContext = {
        context,
        page,
        cdp,
        options,
        limits: this.options.limits,
        timings: run.timings,
        clock: run.clock,
        signal: run.signal,
        blocking,
        // A main document the egress proxy refused (redirect, refresh, script navigation) is a 403.
        mainFrame: guardMainFrame(page, this.options.egress),
        tracker,
        // ffmpeg's threads bounded like Chromium's work: one per capture slot.
        video: { ffmpegPath: this.options.ffmpegPath, threads: this.options.concurrency } satisfies VideoEncoding,
        warnings: new Set(),
      };
      const recorder = run.trace && this.recorder(run.trace, page, blocking);
      let started = performance.now();
      if (recorder) {
        // The deadline passed during the current step: it is the failed one.
        run.progress.beforeClose = () => {
          recorder.step(run.progress.step, performance.now() - started, true);
          return recorder.snapshot(ctx.cdp);
        };
      }
      for (const step of stepsFor(options)) {
        run.progress.step = step.name;
        started = performance.now();
        try {
          await (step.phase ? run.timings.measure(step.phase, () => step.run(ctx)) : step.run(ctx));
        } catch (error) {
          if (recorder && !run.signal.aborted) {
            recorder.step(step.name, performance.now() - started, true);
            await recorder.snapshot(ctx.cdp);
          }
          throw error;
        }
        recorder?.step(step.name, performance.now() - started);
      }
      if (recorder) {
        run.progress.beforeClose = undefined;
        await recorder.snapshot(ctx.cdp);
      }
      const format = formatOf(options.format);
      return {
        body: ctx.output!.body,
        format: format.name,
        contentType: format.contentType,
        ...(ctx.output!.truncated ? { truncated: 'height' as const } : {}),
        ...(ctx.output!.selectorMissing ? { selector: 'not-found' as const } : {}),
        ...warningsOf(ctx),
        ...(ctx.metadata ? { metadata: ctx.metadata } : {}),
        ...(ctx.extra?.length ? { extra: ctx.extra } : {}),
      };
    } finally {
      tracker.dispose();
    }
  }

  /**
   * Races the steps against the deadline. On expiry the context is closed, which kills the
   * page's renderer whatever it is doing, and the steps' own errors are ignored.
   */
  private async withDeadline<T>(
    context: BrowserContext,
    signal: AbortSignal,
    options: TakeOptions,
    progress: CaptureProgress,
    fn: () => Promise<T>,
  ): Promise<T> {
    if (signal.aborted) throw timeoutError(options, progress);
    // debug=1: the page as it was when time ran out goes into the bundle before the context closes.
    let closing: Promise<void> | undefined;
    const closeOnAbort = () => {
      closing = (progress.beforeClose?.() ?? Promise.resolve()).finally(() => context.close().catch(() => undefined));
    };
    signal.addEventListener('abort', closeOnAbort, { once: true });
    try {
      return await raceAbort(fn(), signal);
    } catch (error) {
      if (!signal.aborted) throw toAppError(error);
      if (progress.beforeClose) await closing;
      throw signal.reason as AppError;
    } finally {
      signal.removeEventListener('abort', closeOnAbort);
    }
  }

  /** debug=1: the page's requests (and who blocked which), console and errors, into the trace. */
  private recorder(trace: DebugTrace, page: Page, blocking: PageBlocking): DebugRecorder {
    return new DebugRecorder(
      trace,
      page,
      (request) => blocking.blockedBy.get(request) ?? (this.options.egress.outcomeOf(request.url()) === 'forbidden' ? 'egress' : undefined),
      (request) => {
        const outcome = this.options.egress.outcomeOf(request.url());
        return outcome?.startsWith('ERR_') ? `net::${outcome}` : undefined;
      },
    );
  }

  status(): EngineStatus {
    return {
      browser: this.pool.version,
      pool: { size: this.limiter.concurrency, busy: this.limiter.busy, queued: this.limiter.queued },
      ...(this.options.resolverStats ? { resolver: this.options.resolverStats() } : {}),
      restarts: this.pool.restarts,
      egressBlocked: { target: this.targetRefusals, ...this.options.egress.refusals() },
    };
  }

  private countRefusal(error: unknown): never {
    if (error instanceof AppError && error.code === 'target_forbidden') this.targetRefusals++;
    throw error;
  }

  ready(): boolean {
    return this.pool.ready;
  }

  animationReady(): boolean {
    return this.options.ffmpegPath !== undefined;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/** Where a capture is: its phase and, once the page exists, its requests in flight. */
interface CaptureProgress {
  /** The step running (navigate, wait_until, render…); `queue` until the first. */
  step: string;
  tracker?: RequestTracker;
  /** debug=1: what to keep of the page when the deadline passes, before its context is closed. */
  beforeClose?: () => Promise<void>;
}

interface RunState {
  timings: Timings;
  clock: CaptureClock;
  progress: CaptureProgress;
  signal: AbortSignal;
  trace: DebugTrace | undefined;
}

/** 504 naming the step that ran out of time and the requests still pending (DESIGN.md §4.5). */
function timeoutError(options: TakeOptions, progress: CaptureProgress): AppError {
  const { step } = progress;
  const pending = progress.tracker?.pending() ?? [];
  const hint = CAPTURE_STEPS.find((s) => s.name === step)?.timeoutHint?.(options);
  const waitingOn = hint
    ? `; ${hint}`
    : pending.length > 0
      ? `; ${pending.length === 1 ? 'a request was' : 'requests were'} still pending, e.g. ${pending[0]!.url.slice(0, 120)}`
      : '';
  return new AppError(
    'capture_timeout',
    `the capture did not finish within the timeout of ${options.timeout} s (step: ${step}${waitingOn})`,
    {
      facts: { step, pending_requests: pending },
    },
  );
}

/** Dialogs would block the page; popups are closed at once. */
function closeDialogsAndPopups(page: Page): void {
  page.on('dialog', (dialog) => void dialog.dismiss().catch(() => undefined));
  page.on('popup', (popup) => void popup.close().catch(() => undefined));
}

/** Errors from Playwright carry internals; only AppErrors reach callers as they are. */
function toAppError(error: unknown): Error {
  if (error instanceof AppError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (/Target (page, context or browser )?(has been )?closed|crash/i.test(message)) {
    return new AppError('navigation_failed', 'the page crashed while rendering');
  }
  return error instanceof Error ? error : new Error(message);
}

function warningsOf(ctx: CaptureContext): Pick<CaptureResult, 'warnings' | 'pendingRequests'> {
  const warnings: CaptureWarning[] = [...(ctx.partial ? (['partial_load'] as const) : []), ...ctx.warnings];
  return {
    ...(warnings.length ? { warnings } : {}),
    ...(ctx.partial ? { pendingRequests: ctx.partial } : {}),
  };
}
