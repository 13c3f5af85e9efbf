import type { Page } from 'playwright-core';

/** The in-page part of wait_until=ready never takes longer than this: an endless animation must not hold a capture. */
export const READY_MAX_MS = 5_000;
/** No layout shift and no DOM change for this long counts as "looks finished". */
const STILL_MS = 300;

/**
 * After load: web fonts loaded, the document's images (those that load without scrolling)
 * decoded, and the layout still: no layout shift and no DOM mutation (other than a style
 * attribute) for 300 ms. Runs as DevTools'
 * evaluation, so the page's CSP does not apply; bounded by READY_MAX_MS.
 */
export async function pageSettled(page: Page): Promise<void> {
  await page.evaluate(
    async ({ maxMs, stillMs }) => {
      const deadline = performance.now() + maxMs;
      const bounded = <T>(p: Promise<T>) => Promise.race([p, new Promise((r) => setTimeout(r, Math.max(0, deadline - performance.now())))]);
      await bounded(document.fonts.ready);
      const images = Array.from(document.images).filter((img) => img.loading !== 'lazy' || img.complete);
      await bounded(
        Promise.all(
          images.map((img) =>
            (img.complete
              ? Promise.resolve()
              : new Promise((r) => {
                  img.addEventListener('load', r, { once: true });
                  img.addEventListener('error', r, { once: true });
                })
            ).then(() => img.decode().catch(() => undefined)),
          ),
        ),
      );
      await new Promise<void>((resolve) => {
        let last = performance.now();
        const moved = () => (last = performance.now());
        // A style attribute written on every frame (tickers, carousels driven by
        // requestAnimationFrame) is animation, not content arriving: it would hold the wait to its
        // cap. Layout it moves still counts, through the layout-shift entries.
        const mutations = new MutationObserver((records) => {
          if (records.some((r) => r.type !== 'attributes' || r.attributeName !== 'style')) moved();
        });
        mutations.observe(document.documentElement, { subtree: true, childList: true, attributes: true, characterData: true });
        let shifts: PerformanceObserver | undefined;
        try {
          shifts = new PerformanceObserver(moved);
          shifts.observe({ type: 'layout-shift' });
        } catch {
          // No layout-shift entries in this browser: DOM changes alone decide.
        }
        const tick = () => {
          const now = performance.now();
          if (now - last >= stillMs || now >= deadline) {
            mutations.disconnect();
            shifts?.disconnect();
            resolve();
          } else setTimeout(tick, 50);
        };
        setTimeout(tick, 50);
      });
    },
    { maxMs: READY_MAX_MS, stillMs: STILL_MS },
  );
}
