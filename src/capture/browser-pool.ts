import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import type { Logger } from 'pino';
import { AppError } from '../errors/app-error.js';
import { launchArgs } from './launch-args.js';

interface Generation {
  browser: Browser;
  captures: number;
  inFlight: number;
  retiring: boolean;
  /** A context with a page, opened ahead of need and never used yet. */
  spare?: { key: string; ready: Promise<Session | undefined> };
}

export interface Session {
  context: BrowserContext;
  page: Page;
}

/** Contexts that differ only in viewport can share a spare: the viewport is set per page. */
const spareKey = (options: BrowserContextOptions) => JSON.stringify({ ...options, viewport: undefined });

export interface BrowserPoolOptions {
  executablePath: string;
  /** Replace the browser after this many contexts, to bound slow leaks in long-lived renderers. */
  maxCapturesPerBrowser: number;
  logger: Logger;
}

/**
 * Owns the one warm Chromium: hands out a fresh BrowserContext per capture, relaunches on
 * crash or disconnect, and swaps in a new browser after N captures while the old one drains.
 */
export class BrowserPool {
  private current?: Generation;
  private launching?: Promise<Generation>;
  private closed = false;

  constructor(private readonly options: BrowserPoolOptions) {}

  async start(): Promise<void> {
    await this.generation();
  }

  /** Chromium's version, once a browser has started. */
  get version(): string | undefined {
    return this.current?.browser.version();
  }

  get connected(): boolean {
    return this.current?.browser.isConnected() ?? false;
  }

  /**
   * Runs fn with a page in a context of its own, used for this capture only. Opening a page
   * starts a renderer (~30 ms), so one is kept opened ahead; closing happens in the background.
   */
  async withPage<T>(contextOptions: BrowserContextOptions, fn: (session: Session) => Promise<T>): Promise<T> {
    const gen = await this.generation();
    gen.inFlight++;
    gen.captures++;
    let session: Session | undefined;
    try {
      session = await this.takeSession(gen, contextOptions);
      if (gen.captures >= this.options.maxCapturesPerBrowser) this.retire(gen);
      return await fn(session);
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
    if (!gen.retiring && !lastOfBudget && !gen.spare) {
      gen.spare = { key, ready: this.openSession(gen, contextOptions).catch(() => undefined) };
    }
    const spare = await claimed?.ready;
    if (spare) {
      try {
        if (contextOptions.viewport) await spare.page.setViewportSize(contextOptions.viewport);
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
      throw new AppError('browser_unavailable', 'the browser is restarting; retry shortly', { retryAfterSeconds: 2 });
    }
  }

  private async openSession(gen: Generation, contextOptions: BrowserContextOptions): Promise<Session> {
    const context = await gen.browser.newContext(contextOptions);
    try {
      return { context, page: await context.newPage() };
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
    if (gen.retiring && gen.inFlight === 0) await gen.browser.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    const gen = this.current ?? (await this.launching?.catch(() => undefined));
    this.current = undefined;
    if (gen) await this.dropSpare(gen);
    await gen?.browser.close().catch(() => undefined);
  }

  private retire(gen: Generation): void {
    if (gen.retiring) return;
    gen.retiring = true;
    void this.dropSpare(gen);
    if (this.current === gen) this.current = undefined;
    this.options.logger.info({ captures: gen.captures }, 'replacing the browser after its capture budget');
  }

  private async generation(): Promise<Generation> {
    if (this.closed) throw new AppError('browser_unavailable', 'the service is shutting down', { retryAfterSeconds: 5 });
    if (this.current?.browser.isConnected()) return this.current;
    this.launching ??= this.launch().finally(() => {
      this.launching = undefined;
    });
    return this.launching;
  }

  private async launch(): Promise<Generation> {
    const started = Date.now();
    let browser: Browser;
    try {
      browser = await chromium.launch({
        executablePath: this.options.executablePath,
        args: launchArgs(),
        // The service handles its own signals; Playwright must not kill the browser under it.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
        timeout: 30_000,
      });
    } catch (error) {
      this.options.logger.error({ err: error }, 'could not launch Chromium');
      throw new AppError('browser_unavailable', 'the browser could not be started', { retryAfterSeconds: 5 });
    }
    const gen: Generation = { browser, captures: 0, inFlight: 0, retiring: false };
    browser.on('disconnected', () => {
      if (this.current === gen) this.current = undefined;
      if (!gen.retiring && !this.closed) this.options.logger.warn('Chromium disconnected; the next capture relaunches it');
    });
    this.current = gen;
    this.options.logger.info({ ms: Date.now() - started, version: browser.version() }, 'Chromium ready');
    return gen;
  }
}
