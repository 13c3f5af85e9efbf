import { preloadLazyContent, removePrintSentinel } from './preload-lazy-content.js';
import { printWithFallback } from './print-fallback.js';
import type { Renderer } from './render-context.js';

/** PDF printed by Chromium with the pdf_* options; a print that hangs is printed again (print-fallback.ts). */
export const renderPdf: Renderer = async (ctx) => {
  const { page, cdp, limits, timings, clock } = ctx;
  // Printing lays out the whole document: lazy content must be loaded first (Chromium's own loading
  // of lazy elements while printing misses some: preload-lazy-content.ts).
  const { printSentinel } = await timings.measure('wait', () =>
    preloadLazyContent(page, cdp, limits.maxFullPageHeight, clock, { forPrint: true }),
  );
  const { body, fallback } = await timings.measure('capture', () => printWithFallback(ctx));
  if (printSentinel) await removePrintSentinel(cdp).catch(() => undefined);
  return { body, truncated: false, ...(fallback ? { warnings: ['print_fallback' as const] } : {}) };
};
