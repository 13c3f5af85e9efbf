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

/** Native lazy elements: Chromium loads only those in or near the viewport. */
const NATIVE_LAZY = 'img[loading=lazy],iframe[loading=lazy]';

/**
 * For a print: an image left lazy and never shown. Chromium's printing loads lazy elements itself
 * but does not wait for them reliably (issue 35: a lazy PNG below the fold was in 2 of 8 prints with
 * Playwright alone), so a PDF's are switched and awaited like a full page's. But once a real page had
 * none left lazy, its print waited ~2 s more (Chromium 156, Playwright alone, on six saved news
 * pages, whether their images loaded or failed; never on our small fixtures), and one `display:
 * none` lazy image left in the document keeps it at 45–90 ms. It has no box, so it changes no
 * layout; it is removed after printing (removePrintSentinel), before any other output is rendered.
 */
const PRINT_SENTINEL = `(() => {
  const img = document.createElement('img');
  img.loading = 'lazy';
  img.alt = '';
  img.style.display = 'none';
  img.setAttribute('data-shutter-print-sentinel', '');
  img.src = 'data:image/gif;base64,R0lGODlhAQABAAAAACw=';
  document.body?.append(img);
  return true;
})()`;

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
 * images and iframes are made eager (for a print, with PRINT_SENTINEL); then, when the page shows signs
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
  { forPrint }: { forPrint: boolean },
): Promise<{ printSentinel: boolean }> {
  const started = Date.now();
  // What the capture's deadline leaves: a page held by stalls has less.
  const growBudgetMs = clock.spareMs(PRELOAD_BUDGET_MS);
  // One round trip: native lazy elements switched to eager (only rendered ones: one without a box,
  // display: none on it or an ancestor, never shows), lazy-loader markup counted, the page's height read.
  const found = (await evaluate(
    cdp,
    `(() => {
      let markup = 0, switched = 0, sentinel = false;
      try {
        for (const el of document.querySelectorAll(${JSON.stringify(NATIVE_LAZY)})) {
          if (el.getClientRects().length > 0) { el.loading = 'eager'; switched++; }
        }
        if (${forPrint} && switched > 0) sentinel = ${PRINT_SENTINEL};
      } catch {}
      try { markup = document.querySelectorAll(${JSON.stringify(LAZY_MARKUP)}).length; } catch {}
      return { markup, sentinel, height: Math.ceil(document.documentElement.scrollHeight) };
    })()`,
  )) as { markup?: number; sentinel?: boolean; height?: number } | undefined;
  const viewport = page.viewportSize();
  let height = Math.min(maxHeight, Number(found?.height) || 0);
  // Native lazy elements are no sign: switched to eager they load without being in view. Observed
  // intersections cost three round trips: asked only when the markup did not decide.
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
  return { printSentinel: found?.sentinel === true };
}

/** After printing: the sentinel PRINT_SENTINEL added, gone again. */
export async function removePrintSentinel(cdp: CDPSession): Promise<void> {
  await evaluate(cdp, `document.querySelector('img[data-shutter-print-sentinel]')?.remove()`);
}
