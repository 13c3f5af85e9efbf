import type { CDPSession } from 'playwright-core';

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
