import { preloadLazyContent } from '../capture/steps/preload-lazy-content.js';
import { renderPdf } from '../encoders/pdf.js';
import type { OutputFormat } from './output-format.js';

/** PDF printed by Chromium with the pdf_* options. */
export const pdf: OutputFormat<'pdf'> = {
  name: 'pdf',
  aliases: [],
  contentType: 'application/pdf',
  extension: 'pdf',
  kind: 'document',
  lossy: false,
  shortTimeCap: true,
  async render({ page, options, limits, timings, clock }) {
    // Printing lays out the whole document: lazy content must be loaded first.
    await timings.measure('wait', () => preloadLazyContent(page, limits.maxFullPageHeight, clock));
    const body = await timings.measure('capture', () => renderPdf(page, options, limits.maxFullPageHeight));
    return { body, truncated: false };
  },
};
