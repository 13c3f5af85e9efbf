import type { Page } from 'playwright-core';

/** Time a full-page capture may spend scrolling to trigger lazy content. */
const PRELOAD_BUDGET_MS = 5_000;
/** Time to wait for images to finish loading and decoding after the scroll. */
const IMAGE_WAIT_MS = 3_000;

/**
 * Makes lazy content load before a full-page capture: native `loading=lazy` images are made eager,
 * then the page is scrolled a viewport at a time (IntersectionObserver-driven and infinite-scroll
 * sections load as they come into view), back to the top, and images are awaited.
 */
export async function preloadLazyContent(page: Page, maxHeight: number): Promise<void> {
  await page.evaluate(
    async ({ maxHeight, budgetMs, imageWaitMs }) => {
      const frame = () => new Promise<void>((r) => requestAnimationFrame(() => setTimeout(r, 16)));
      for (const img of Array.from(document.images)) if (img.loading === 'lazy') img.loading = 'eager';
      const started = performance.now();
      const step = Math.max(200, Math.floor(window.innerHeight * 0.9));
      const height = () => Math.min(maxHeight, document.documentElement.scrollHeight);
      for (let y = 0; y < height() && performance.now() - started < budgetMs; y += step) {
        window.scrollTo(0, y);
        await frame();
      }
      window.scrollTo(0, height());
      await frame();
      window.scrollTo(0, 0);
      await frame();
      const pending = Array.from(document.images)
        .filter((img) => img.src && !(img.complete && img.naturalWidth > 0))
        .map((img) =>
          img.decode().catch(() => undefined),
        );
      await Promise.race([Promise.all(pending), new Promise((r) => setTimeout(r, imageWaitMs))]);
    },
    { maxHeight, budgetMs: PRELOAD_BUDGET_MS, imageWaitMs: IMAGE_WAIT_MS },
  );
}
