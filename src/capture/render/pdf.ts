import { preloadLazyContent } from './preload-lazy-content.js';
import { printPdf } from './print-pdf.js';
import type { Renderer } from './render-context.js';

/** PDF printed by Chromium with the pdf_* options. */
export const renderPdf: Renderer = async ({ page, options, limits, timings, clock }) => {
  // Printing lays out the whole document: lazy content must be loaded first.
  await timings.measure('wait', () => preloadLazyContent(page, limits.maxFullPageHeight, clock));
  const body = await timings.measure('capture', () => printPdf(page, options, limits.maxFullPageHeight));
  return { body, truncated: false };
};
