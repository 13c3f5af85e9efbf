import type { CDPSession } from 'playwright-core';
import { formatOf } from '../../formats/registry.js';
import type { TakeOptions } from '../../options/schema.js';

/** Longest wait for web fonts; a font that never loads must not cost the whole timeout. */
export const FONTS_MAX_MS = 3000;

/**
 * Waits until web fonts are ready. No animation-frame wait is needed: Page.captureScreenshot
 * renders a fresh frame, which includes styles injected just before (measured: two rAFs cost ~30 ms).
 *
 * Asked over the capture's own CDP session rather than page.evaluate: Playwright's first
 * evaluate in a page injects its utility script first, which cost ~10 ms a capture.
 */
export async function settle(cdp: CDPSession, maxMs = FONTS_MAX_MS): Promise<void> {
  await cdp.send('Runtime.evaluate', {
    expression: `Promise.race([document.fonts.ready.then(() => undefined), new Promise((r) => setTimeout(r, ${Math.round(maxMs)}))])`,
    awaitPromise: true,
    returnByValue: true,
  });
}

/**
 * Whether an output of the capture is drawn (an image, a PDF, a video): web fonts change how a page
 * looks, not what it says, so markdown and html alone do not wait for them (issue 35: 3 ms p50, 21 ms
 * p90 on real pages; up to FONTS_MAX_MS where a font never arrives).
 */
export const hasDrawnOutput = (options: Pick<TakeOptions, 'format' | 'extra_formats'>): boolean =>
  [options.format, ...(options.extra_formats ?? [])].some((format) => formatOf(format).kind !== 'text');
