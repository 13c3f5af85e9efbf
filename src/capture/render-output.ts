import type { CDPSession, Page } from 'playwright-core';
import { imageEncoders } from '../encoders/index.js';
import { renderPdf } from '../encoders/pdf.js';
import type { TakeOptions } from '../options/schema.js';
import { preloadLazyContent } from './steps/preload-lazy-content.js';
import { allowedCssHeight, captureRaw, type ImageLimits } from './steps/screenshot.js';
import type { CaptureClock } from './capture-clock.js';
import type { Timings } from './timings.js';

export interface RenderedOutput {
  body: Buffer;
  truncated: boolean;
}

/**
 * The last steps of a capture, per format: pixels and an encoder for images, Chromium's
 * printer for PDF, the rendered DOM through turndown for markdown.
 */
export async function renderOutput(
  page: Page,
  cdp: CDPSession,
  options: TakeOptions,
  limits: ImageLimits,
  timings: Timings,
  clock: CaptureClock,
): Promise<RenderedOutput> {
  const budget = (capMs: number) => clock.spareMs(capMs);
  if (options.format === 'pdf') {
    // Printing lays out the whole document: lazy content must be loaded first.
    await timings.measure('wait', () => preloadLazyContent(page, limits.maxFullPageHeight, budget));
    const body = await timings.measure('capture', () => renderPdf(page, options, limits.maxFullPageHeight));
    return { body, truncated: false };
  }
  if (options.format === 'markdown') {
    // turndown and its DOM are loaded on the first markdown capture, not at start.
    const { htmlToMarkdown, renderedHtml } = await import('../encoders/markdown.js');
    if (options.full_page) await timings.measure('wait', () => preloadLazyContent(page, limits.maxFullPageHeight, budget));
    const html = await timings.measure('capture', () => renderedHtml(page));
    const body = await timings.measure('encode', async () => Buffer.from(htmlToMarkdown(html), 'utf8'));
    return { body, truncated: false };
  }
  const encoder = imageEncoders[options.format]!;
  const request = encoder.raw(options);
  if (options.full_page) {
    await timings.measure('wait', () => preloadLazyContent(page, allowedCssHeight(options, limits, request), budget));
  }
  const raw = await timings.measure('capture', () => captureRaw(cdp, options, request, limits));
  const body = await timings.measure('encode', () => encoder.encode(raw.image, options));
  return { body, truncated: raw.truncated };
}
