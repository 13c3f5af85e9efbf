import type { Page } from 'playwright-core';

/** Longest wait for web fonts; a font that never loads must not cost the whole timeout. */
const FONTS_MAX_MS = 3000;

/**
 * Waits until web fonts are ready. No animation-frame wait is needed: Page.captureScreenshot
 * renders a fresh frame, which includes styles injected just before (measured: two rAFs cost ~30 ms).
 */
export async function settle(page: Page): Promise<void> {
  await page.evaluate(
    (maxMs) => Promise.race([document.fonts.ready.then(() => undefined), new Promise((r) => setTimeout(r, maxMs))]),
    FONTS_MAX_MS,
  );
}
