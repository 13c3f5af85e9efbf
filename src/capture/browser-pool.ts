import { chromium, type Browser, type BrowserContext, type BrowserContextOptions } from 'playwright-core';
import type { Logger } from 'pino';
import { AppError } from '../errors/app-error.js';
import { launchArgs } from './launch-args.js';

interface Generation {
  browser: Browser;
  captures: number;
  inFlight: number;
  retiring: boolean;
}

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

  /** Runs fn with a new context of the current browser; the context is always closed afterwards. */
  async withContext<T>(contextOptions: BrowserContextOptions, fn: (context: BrowserContext) => Promise<T>): Promise<T> {
    const gen = await this.generation();
    gen.inFlight++;
    gen.captures++;
    if (gen.captures >= this.options.maxCapturesPerBrowser) this.retire(gen);
    let context: BrowserContext | undefined;
    try {
      try {
        context = await gen.browser.newContext(contextOptions);
      } catch (error) {
        this.options.logger.warn({ err: error }, 'could not open a browser context');
        throw new AppError('browser_unavailable', 'the browser is restarting; retry shortly', { retryAfterSeconds: 2 });
      }
      return await fn(context);
    } finally {
      await context?.close().catch(() => undefined);
      gen.inFlight--;
      if (gen.retiring && gen.inFlight === 0) void gen.browser.close().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const gen = this.current ?? (await this.launching?.catch(() => undefined));
    this.current = undefined;
    await gen?.browser.close().catch(() => undefined);
  }

  private retire(gen: Generation): void {
    if (gen.retiring) return;
    gen.retiring = true;
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
