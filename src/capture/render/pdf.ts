import { preloadLazyContent } from './preload-lazy-content.js';
import { printWithFallback } from './print-fallback.js';
import type { Renderer } from './render-context.js';

/** PDF printed by Chromium with the pdf_* options; a print that hangs is printed again (print-fallback.ts). */
export const renderPdf: Renderer = async (ctx) => {
  const { page, cdp, limits, timings, clock } = ctx;
  // Printing lays out the whole document: lazy content must be loaded first. Not native lazy images
  // and iframes: Chromium's printing loads those itself and waits for them (up to ~2 s). Switched
  // to eager first, some pages' prints waited those whole 2 s (reproduced with Playwright alone),
  // where printing them as they were took 60–90 ms (issue 35).
  await timings.measure('wait', () => preloadLazyContent(page, cdp, limits.maxFullPageHeight, clock, { switchNative: false }));
  const { body, fallback } = await timings.measure('capture', () => printWithFallback(ctx));
  return { body, truncated: false, ...(fallback ? { warnings: ['print_fallback' as const] } : {}) };
};
