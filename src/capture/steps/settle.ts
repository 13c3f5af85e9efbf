import type { Page } from 'playwright-core';

/**
 * Waits until web fonts are ready and two frames have been painted, so injected styles and
 * late layout changes are on screen when the pixels are read.
 */
export async function settle(page: Page): Promise<void> {
  await page.evaluate(async () => {
    await Promise.race([document.fonts.ready, new Promise((r) => setTimeout(r, 3000))]);
    await new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve())));
  });
}
