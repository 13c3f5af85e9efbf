import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CaptureClock } from '../../src/capture/capture-clock.js';
import { printWithFallback } from '../../src/capture/render/print-fallback.js';
import { Timings } from '../../src/capture/timings.js';
import { launchBrowser } from '../helpers/browser.js';
import { startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { parseOptions } from '../helpers/options.js';
import { pdfText } from '../helpers/pdf-text.js';

/**
 * The print fallback's last way out (print-fallback.ts): the DOM as it was before printing, printed
 * from a new page with scripts disabled. No page we have hangs this Chromium's printing for a reason
 * stopping its scripts does not cure, so the hang is made here: the page's own page.pdf() never
 * settles. Everything else is real: the snapshot over CDP, the new page fed the snapshot at the
 * page's URL, and Chromium printing it.
 */
describe('print fallback: a print that stays hung is replaced by the DOM snapshot', () => {
  let browser: Browser;
  let fixtures: FixtureServer;

  beforeAll(async () => {
    [browser, fixtures] = await Promise.all([launchBrowser(), startFixtureServer()]);
  });
  afterAll(async () => {
    await browser?.close();
    await stopFixtureServer(fixtures);
  });

  /** The page, except that printing it never finishes (and is counted). */
  function hungPrinting(page: Page, prints: { count: number }): Page {
    return new Proxy(page, {
      get(target, key) {
        if (key === 'pdf') {
          return () => {
            prints.count += 1;
            return new Promise<never>(() => undefined);
          };
        }
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  it('prints what the live page showed (its script-written text), not the page fetched again, and no <noscript>', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${fixtures.baseUrl}/pdf/dom-snapshot.html`);
      const live = (await page.textContent('#token')) ?? '';
      expect(live).toMatch(/^written by the script: \w+$/);
      const cdp = await context.newCDPSession(page);
      const prints = { count: 0 };
      const before = fixtures.requests.filter((path) => path.startsWith('/pdf/dom-snapshot.html')).length;

      const started = performance.now();
      const { body, fallback } = await printWithFallback({
        page: hungPrinting(page, prints),
        cdp,
        options: parseOptions({ format: 'pdf' }),
        limits: { maxFullPageHeight: 16_384, maxPixels: 50_000_000 },
        timings: new Timings(),
        clock: new CaptureClock(6_000),
      });
      const elapsed = performance.now() - started;

      expect(fallback).toBe(true);
      expect(prints.count).toBe(1);
      expect(body.subarray(0, 5).toString()).toBe('%PDF-');
      const { text } = await pdfText(body);
      expect(text).toContain('Served heading');
      expect(text).toContain(live);
      expect(text).not.toContain('no script ran');
      expect(text).not.toContain('Please enable JavaScript');
      // The snapshot was served to the new page; the server was not asked for the page again.
      expect(fixtures.requests.filter((path) => path.startsWith('/pdf/dom-snapshot.html')).length).toBe(before);
      expect(elapsed).toBeLessThan(6_000);
    } finally {
      await context.close();
    }
  });
});
