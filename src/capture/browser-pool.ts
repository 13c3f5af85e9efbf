import type { Browser, BrowserContext, BrowserContextOptions, CDPSession, Page } from 'playwright-core';
import type { Logger } from 'pino';
import { AppError } from '../errors/app-error.js';
import { closeBrowserProcess, isResponsive, killBrowserProcess, launchBrowserProcess, type BrowserProcess } from './browser-process.js';
import { launchArgs } from './launch-args.js';
import { raceAbort } from '../util/race-abort.js';
import type { RestartReason } from '../observability/metrics.js';

interface Generation {
  proc: BrowserProcess;
  browser: Browser;
  captures: number;
  inFlight: number;
  retiring: boolean;
  /** A context with a page, opened ahead of need and never used yet. */
  spare?: { key: string; ready: Promise<Session | undefined> };
  /** Aborted when this browser goes away unexpectedly, so in-flight captures end at once. */
  lost: AbortController;
  /** Killed by the health check for not answering. */
  unresponsive?: boolean;
}

export interface Session {
  context: BrowserContext;
  page: Page;
  /** The capture's own CDP session to the page: attaching one took 4–38 ms a capture (issue 35), so a spare has it ready. */
  cdp: CDPSession;
}

/** Contexts that differ only in viewport can share a spare: the viewport is set per page. */
const spareKey = (options: BrowserContextOptions) => JSON.stringify({ ...options, viewport: undefined });

/** The egress proxy as the pool sees it: started before Chromium, stopped after it. */
export interface EgressEndpoint {
  listen(): Promise<string>;
  close(): Promise<void>;
}

export interface BrowserPoolOptions {
  executablePath: string;
  /** Replace the browser after this many contexts, to bound slow leaks in long-lived renderers. */
  maxCapturesPerBrowser: number;
  logger: Logger;
  /** The proxy Chromium is launched behind. Only the pool's own tests run without one. */
  egress?: EgressEndpoint;
  /** V8 heap cap per renderer in MB (see launch-args). */
  jsHeapMb?: number;
  /** How often the browser is asked whether it still answers, and how long it may take. */
  healthCheck?: { intervalMs: number; timeoutMs: number };
  /** Back-off between failed launches: the first delay, doubled per failure up to max. */
  relaunchDelayMs?: { first: number; max: number };
  /**
   * The context options of a default capture, given the browser's version: each browser opens a
   * page with them as soon as it starts, so the first capture after a (re)start finds one ready.
   */
  warmContext?: (browserVersion: string) => BrowserContextOptions;
  /**
   * A script every page of every context runs before the page's own: installed when the context is
   * opened, which for a spare is before its capture is asked for.
   */
  initScript?: string;
}

/** Consecutive failed launches after which the pool reports itself not ready (/readyz 503). */
export const MAX_FAILED_LAUNCHES = 3;

const shuttingDown = () => new AppError('browser_unavailable', 'the service is shutting down', { retryAfterSeconds: 5 });
const restarting = () => new AppError('browser_unavailable', 'the browser is restarting; retry shortly', { retryAfterSeconds: 2 });

/**
 * Owns the one warm Chromium: hands out a fresh BrowserContext per capture, swaps in a new
 * browser after N captures while the old one drains, and supervises it — a crash or disconnect
 * ends in-flight captures at once with 503 and relaunches at once (with back-off while launches
 * fail); a browser that stops answering is killed and replaced.
 */
export class BrowserPool {
  private current?: Generation;
  private readonly live = new Set<Generation>();
  private launching?: Promise<Generation>;
  private relaunchTimer?: NodeJS.Timeout;
  private healthTimer?: NodeJS.Timeout;
  private probing = false;
  private failedLaunches = 0;
  private lastVersion?: string;
  private closed = false;
  private readonly replaced: Record<RestartReason, number> = { capture_budget: 0, crash: 0, unresponsive: 0 };

  constructor(private readonly options: BrowserPoolOptions) {}

  /** Browsers replaced since start, by reason (GET /metrics). */
  get restarts(): Record<RestartReason, number> {
    return { ...this.replaced };
  }

  async start(): Promise<void> {
    await this.generation();
  }

  /** Chromium's version, once a browser has started (kept across relaunches). */
  get version(): string | undefined {
    return this.current?.browser.version() ?? this.lastVersion;
  }

  get connected(): boolean {
    return this.current?.browser.isConnected() ?? false;
  }

  /** False once launches keep failing (or after close): the service cannot capture. */
  get ready(): boolean {
    return !this.closed && this.failedLaunches < MAX_FAILED_LAUNCHES;
  }

  /** The running browser's process id, for supervision and chaos tests. */
  get browserPid(): number | undefined {
    return this.current?.proc.pid;
  }

  /** Resolves true once the page kept opened ahead is ready, false when none is kept (tests, supervision). */
  async spareOpened(): Promise<boolean> {
    return Boolean(await this.current?.spare?.ready);
  }

  /**
   * Runs fn with a page in a context of its own, used for this capture only. Opening a page
   * starts a renderer (~30 ms), so one is kept opened ahead; closing happens in the background.
   * If the browser dies or the page's renderer crashes meanwhile, this rejects at once, whatever fn is waiting for.
   */
  async withPage<T>(contextOptions: BrowserContextOptions, fn: (session: Session) => Promise<T>): Promise<T> {
    const gen = await this.generation();
    gen.inFlight++;
    gen.captures++;
    let session: Session | undefined;
    try {
      session = await raceAbort(this.takeSession(gen, contextOptions), gen.lost.signal);
      if (gen.captures >= this.options.maxCapturesPerBrowser) this.retire(gen);
      return await raceAbort(Promise.race([fn(session), crashOf(session.page)]), gen.lost.signal);
    } finally {
      void this.closeContext(gen, session?.context);
    }
  }

  private async takeSession(gen: Generation, contextOptions: BrowserContextOptions): Promise<Session> {
    const key = spareKey(contextOptions);
    // Claim the spare before any await, so no other caller (or retire) can take or close it.
    const claimed = gen.spare?.key === key ? gen.spare : undefined;
    if (claimed) gen.spare = undefined;
    const lastOfBudget = gen.captures >= this.options.maxCapturesPerBrowser;
    if (!gen.retiring && !lastOfBudget && !gen.spare) this.openSpare(gen, contextOptions);
    const spare = await claimed?.ready;
    if (spare) {
      try {
        const wanted = contextOptions.viewport;
        const current = spare.page.viewportSize();
        if (wanted && (wanted.width !== current?.width || wanted.height !== current?.height)) await spare.page.setViewportSize(wanted);
        return spare;
      } catch {
        // The spare's renderer died while it waited; open a fresh one below.
        void spare.context.close().catch(() => undefined);
      }
    }
    try {
      return await this.openSession(gen, contextOptions);
    } catch (error) {
      this.options.logger.warn({ err: error }, 'could not open a browser context');
      throw restarting();
    }
  }

  private openSpare(gen: Generation, contextOptions: BrowserContextOptions): void {
    gen.spare = { key: spareKey(contextOptions), ready: this.openSession(gen, contextOptions).catch(() => undefined) };
  }

  private async openSession(gen: Generation, contextOptions: BrowserContextOptions): Promise<Session> {
    const context = await gen.browser.newContext(contextOptions);
    try {
      if (this.options.initScript) await context.addInitScript(this.options.initScript);
      const page = await context.newPage();
      return { context, page, cdp: await context.newCDPSession(page) };
    } catch (error) {
      await context.close().catch(() => undefined);
      throw error;
    }
  }

  private async dropSpare(gen: Generation): Promise<void> {
    const spare = await gen.spare?.ready;
    gen.spare = undefined;
    await spare?.context.close().catch(() => undefined);
  }

  private async closeContext(gen: Generation, context: BrowserContext | undefined): Promise<void> {
    await context?.close().catch(() => undefined);
    gen.inFlight--;
    if (gen.retiring && gen.inFlight === 0) await this.closeGeneration(gen);
  }

  /** Closes every browser and the egress proxy; captures still running fail with 503. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.relaunchTimer);
    clearInterval(this.healthTimer);
    await this.launching?.catch(() => undefined);
    this.current = undefined;
    // Closing a browser closes its contexts, the spare's included; nothing else is awaited.
    await Promise.all([...this.live].map((gen) => this.closeGeneration(gen)));
    await this.options.egress?.close();
  }

  private async closeGeneration(gen: Generation): Promise<void> {
    this.live.delete(gen);
    gen.lost.abort(shuttingDown());
    await closeBrowserProcess(gen.proc);
  }

  private retire(gen: Generation): void {
    if (gen.retiring) return;
    gen.retiring = true;
    this.replaced.capture_budget++;
    void this.dropSpare(gen);
    if (this.current === gen) this.current = undefined;
    this.options.logger.info({ captures: gen.captures }, 'replacing the browser after its capture budget');
    // Start the successor now, so the next capture does not wait for a launch.
    void this.generation().catch(() => undefined);
  }

  private async generation(): Promise<Generation> {
    if (this.closed) throw shuttingDown();
    if (this.current?.browser.isConnected()) return this.current;
    // After a failed launch a retry is scheduled; callers meanwhile get a fast 503, not a queue of launches.
    if (this.relaunchTimer) throw restarting();
    this.launching ??= this.launch().finally(() => {
      this.launching = undefined;
    });
    return this.launching;
  }

  private async launch(): Promise<Generation> {
    const started = Date.now();
    let proc: BrowserProcess;
    try {
      const proxyServer = await this.options.egress?.listen();
      proc = await launchBrowserProcess({
        executablePath: this.options.executablePath,
        args: launchArgs({ proxyServer, jsHeapMb: this.options.jsHeapMb }),
      });
    } catch (error) {
      this.failedLaunches++;
      this.options.logger.error({ err: error, failedLaunches: this.failedLaunches }, 'could not launch Chromium');
      this.scheduleRelaunch();
      throw new AppError('browser_unavailable', 'the browser could not be started', { retryAfterSeconds: 5 });
    }
    if (this.closed) {
      await closeBrowserProcess(proc);
      throw shuttingDown();
    }
    this.failedLaunches = 0;
    const gen: Generation = { proc, browser: proc.browser, captures: 0, inFlight: 0, retiring: false, lost: new AbortController() };
    proc.browser.on('disconnected', () => this.onDisconnected(gen));
    this.live.add(gen);
    this.current = gen;
    this.lastVersion = proc.browser.version();
    if (this.options.warmContext) this.openSpare(gen, this.options.warmContext(this.lastVersion));
    this.startHealthChecks();
    this.options.logger.info({ ms: Date.now() - started, version: this.lastVersion, pid: proc.pid }, 'Chromium ready');
    return gen;
  }

  private onDisconnected(gen: Generation): void {
    this.live.delete(gen);
    if (this.current === gen) this.current = undefined;
    // A no-op after an intentional close (already marked); otherwise in-flight captures end now.
    gen.lost.abort(new AppError('browser_unavailable', 'the browser stopped during the capture; retry shortly', { retryAfterSeconds: 2 }));
    if (gen.retiring || this.closed) return;
    this.replaced[gen.unresponsive ? 'unresponsive' : 'crash']++;
    this.options.logger.warn({ pid: gen.proc.pid }, 'Chromium disconnected unexpectedly; relaunching it');
    void this.generation().catch(() => undefined);
  }

  private scheduleRelaunch(): void {
    if (this.closed || this.relaunchTimer) return;
    const { first, max } = this.options.relaunchDelayMs ?? { first: 500, max: 10_000 };
    const delay = Math.min(first * 2 ** (this.failedLaunches - 1), max);
    this.relaunchTimer = setTimeout(() => {
      this.relaunchTimer = undefined;
      void this.generation().catch(() => undefined);
    }, delay);
    // A pending retry must not keep a CLI run (or a test worker) alive.
    this.relaunchTimer.unref();
  }

  /** Every interval, the browser must answer a trivial call in time; a hung one is killed (and relaunched). */
  private startHealthChecks(): void {
    if (this.healthTimer) return;
    const { intervalMs, timeoutMs } = this.options.healthCheck ?? { intervalMs: 5_000, timeoutMs: 10_000 };
    this.healthTimer = setInterval(() => void this.probe(timeoutMs), intervalMs);
    this.healthTimer.unref();
  }

  private async probe(timeoutMs: number): Promise<void> {
    const gen = this.current;
    if (!gen || this.probing || !gen.browser.isConnected()) return;
    this.probing = true;
    try {
      if (await isResponsive(gen.proc, timeoutMs)) return;
      if (this.current !== gen || !gen.browser.isConnected() || this.closed) return;
      this.options.logger.error({ pid: gen.proc.pid, timeoutMs }, 'Chromium stopped answering; killing it');
      gen.unresponsive = true;
      if (gen.proc.pid !== undefined) {
        killBrowserProcess(gen.proc);
      } else {
        // Without a pid, forget it and start another; the hung one is closed as far as it can be.
        this.onDisconnected(gen);
        void closeBrowserProcess(gen.proc);
      }
    } finally {
      this.probing = false;
    }
  }
}

/** Rejects when the page's renderer crashes (out of memory, killed): the capture fails alone, at once. */
function crashOf(page: Page): Promise<never> {
  return new Promise<never>((_, reject) => {
    page.once('crash', () => reject(new AppError('navigation_failed', 'the page crashed while rendering')));
  });
}
