import type { CDPSession, Page, Request } from 'playwright-core';
import type { CaptureClock } from '../capture-clock.js';
import { LAZY_MARKUP, observedIntersections } from './lazy-loaders.js';

/** Time a full-page capture may spend growing the page to trigger lazy content. */
const PRELOAD_BUDGET_MS = 5_000;
/** Rounds of "show everything, see if the page grew" (infinite scroll adds a batch per round). */
const MAX_ROUNDS = 4;
/** Time to wait for images to finish loading and decoding afterwards. */
const IMAGE_WAIT_MS = 3_000;

/** How long one round waits for the fetches it set off (an infinite feed's next page) before looking again. */
const FETCH_WAIT_MS = 1_500;

/**
 * Which rendered native lazy elements are made eager (and awaited with the other images) first.
 * `all`: images and iframes, for a full-page screenshot, which nothing else loads. `plain_images`:
 * images outside <picture>, for a PDF. Chromium's printing loads lazy elements itself but does
 * not wait for them reliably (issue 35: a lazy PNG below the fold was in 2 of 8 prints with
 * Playwright alone, in 8 of 8 once switched and awaited), while switching the <picture> images of
 * two saved news pages made their prints wait ~2 s (their print-media sources are on hosts that
 * fail), and their plain prints took 80–170 ms. Lazy iframes and <picture>s stay Chromium's.
 */
export type NativeLazySwitch = 'all' | 'plain_images';
const SWITCHED: Record<NativeLazySwitch, string> = { all: 'img[loading=lazy],iframe[loading=lazy]', plain_images: 'img[loading=lazy]' };

/**
 * Expressions go over the capture's own CDP session: Playwright's first page.evaluate in a page
 * injects its utility script first (~10 ms, more under load).
 */
async function evaluate(cdp: CDPSession, expression: string): Promise<unknown> {
  const { result } = await cdp.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
  return result.value;
}

/**
 * One rendering update of the grown page, with the page's IntersectionObserver callbacks run: an
 * observer of our own, created after the page's, is notified in the same update and after them.
 * Two animation frames did the same but waited for the whole grown page to be painted (issue 35:
 * 30–590 ms on real pages); the loads the callbacks start are awaited afterwards anyway.
 */
const intersectionUpdate = (cdp: CDPSession) =>
  evaluate(
    cdp,
    'new Promise((r) => { const io = new IntersectionObserver(() => { io.disconnect(); setTimeout(r, 0); }); io.observe(document.documentElement); })',
  );

const pageHeight = async (cdp: CDPSession, max: number) =>
  Math.min(max, Number(await evaluate(cdp, 'Math.ceil(document.documentElement.scrollHeight)')) || 0);

/**
 * Makes lazy content load before a full-page capture or a PDF: rendered native `loading=lazy`
 * elements are made eager (`switchNative`, above); then, when the page shows signs
 * of a script loader (it observes intersections, or has lazy-loader markup: lazy-loaders.ts), the viewport is grown to the page's
 * height for a couple of frames, so every IntersectionObserver target is in view at once (one
 * round instead of a scroll step per viewport: ~400 ms less on a 20 000 px page). Infinite-scroll
 * pages grow; that is repeated a few times within the height cap and a time budget. The viewport
 * is restored and images are awaited. Growing costs a paint of the whole page (issue 35: 30–590 ms
 * on real pages, most of the preload), so a page without any of those signs is not grown.
 */
export async function preloadLazyContent(
  page: Page,
  cdp: CDPSession,
  maxHeight: number,
  clock: Pick<CaptureClock, 'spareMs'>,
  { switchNative }: { switchNative: NativeLazySwitch },
): Promise<void> {
  const started = Date.now();
  // What the capture's deadline leaves: a page held by stalls has less.
  const growBudgetMs = clock.spareMs(PRELOAD_BUDGET_MS);
  // One round trip: native lazy elements switched to eager (only rendered ones: one without a box,
  // display: none on it or an ancestor, never shows), lazy-loader markup counted, the page's height read.
  const found = (await evaluate(
    cdp,
    `(() => {
      let markup = 0;
      try {
        for (const el of document.querySelectorAll(${JSON.stringify(SWITCHED[switchNative])})) {
          if (el.getClientRects().length > 0 && !(${switchNative === 'plain_images'} && el.closest('picture'))) el.loading = 'eager';
        }
      } catch {}
      try { markup = document.querySelectorAll(${JSON.stringify(LAZY_MARKUP)}).length; } catch {}
      return { markup, height: Math.ceil(document.documentElement.scrollHeight) };
    })()`,
  )) as { markup?: number; height?: number } | undefined;
  const viewport = page.viewportSize();
  let height = Math.min(maxHeight, Number(found?.height) || 0);
  // Native lazy elements are no sign: switched to eager they load without being in view, and a
  // print loads those left lazy by itself. Observed intersections cost three round trips: asked only when the
  // markup did not decide.
  const hasLazyContent = async () => (found?.markup ?? 0) > 0 || (await observedIntersections(cdp)) > 0;
  if (viewport && height > viewport.height && (await hasLazyContent())) {
    // fetch/XHR set off by what came into view: an infinite feed's next batch arrives through them.
    const fetches = new Set<Request>();
    const onRequest = (request: Request) => {
      if (request.resourceType() === 'fetch' || request.resourceType() === 'xhr') fetches.add(request);
    };
    const onDone = (request: Request) => fetches.delete(request);
    page.on('request', onRequest);
    page.on('requestfinished', onDone);
    page.on('requestfailed', onDone);
    try {
      for (let round = 0; round < MAX_ROUNDS && Date.now() - started < growBudgetMs; round++) {
        fetches.clear();
        await page.setViewportSize({ width: viewport.width, height });
        await intersectionUpdate(cdp);
        let grown = await pageHeight(cdp, maxHeight);
        if (grown <= height && fetches.size > 0) {
          // Not grown yet, but the page asked for more: give the answers time to arrive and render.
          // Until the page grows or its fetches end (a response whose body the page never reads may
          // never count as finished: the height is what decides).
          const until = Math.min(Date.now() + FETCH_WAIT_MS, started + growBudgetMs);
          while (fetches.size > 0 && grown <= height && Date.now() < until) {
            await new Promise((r) => setTimeout(r, 50));
            grown = await pageHeight(cdp, maxHeight);
          }
          await intersectionUpdate(cdp);
          grown = await pageHeight(cdp, maxHeight);
        }
        if (grown <= height) break;
        height = grown;
      }
    } finally {
      page.off('request', onRequest);
      page.off('requestfinished', onDone);
      page.off('requestfailed', onDone);
      await page.setViewportSize(viewport);
    }
  }
  // Images still lazy are not rendered (left lazy above): they would never load.
  await evaluate(
    cdp,
    `(async () => {
      window.scrollTo(0, 0);
      const pending = Array.from(document.images)
        .filter((img) => img.src && img.loading !== 'lazy' && !(img.complete && img.naturalWidth > 0))
        .map((img) => img.decode().catch(() => undefined));
      await Promise.race([Promise.all(pending), new Promise((r) => setTimeout(r, ${Math.round(clock.spareMs(IMAGE_WAIT_MS))}))]);
    })()`,
  );
}
