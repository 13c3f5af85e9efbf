import type { CDPSession, Page } from 'playwright-core';
import type { TakeOptions } from '../../options/schema.js';
import { pageSettled } from './page-ready.js';
import type { PendingRequest, RequestTracker } from '../request-tracker.js';

/** How often the stall rule and the deadline are checked while waiting. */
const TICK_MS = 100;

/** What the wait ended with: `partial` lists what was still pending when Shutter stopped waiting. */
export interface WaitOutcome {
  partial?: PendingRequest[];
}

export interface WaitContext {
  page: Page;
  cdp: CDPSession;
  tracker: RequestTracker;
  /** performance.now() past which an unmet wait captures what is there (ignored when strict). */
  giveUpAt: number;
  signal: AbortSignal;
}

/**
 * Waits for wait_until after the document has committed. Unless fail_on_partial_load is set, two
 * bounds keep a stalled third party from costing the capture (issue 23, DESIGN.md §4.5):
 * - once DOMContentLoaded has fired and every request still in flight has received nothing for
 *   stall_timeout, loading is stopped (Page.stopLoading: what a user's Stop button does) and the
 *   wait ends: nothing else was going to arrive;
 * - at `giveUpAt` (the capture's deadline less the time to render and encode), loading is stopped
 *   and the page is captured as it is.
 * Stopping also unblocks a page whose render-blocking stylesheet hangs (no frame is painted
 * before it: Page.captureScreenshot would wait forever) and printing, which waits up to 2 s for
 * `load`. Either way the outcome is `partial`, with the requests that were pending.
 */
export async function waitForPage(options: TakeOptions, context: WaitContext): Promise<WaitOutcome> {
  // Ends the idle polling when Shutter stops waiting before the condition is met.
  const done = new AbortController();
  try {
    return await waitOrStop(options, context, AbortSignal.any([context.signal, done.signal]));
  } finally {
    done.abort();
  }
}

async function waitOrStop(options: TakeOptions, context: WaitContext, signal: AbortSignal): Promise<WaitOutcome> {
  const { page, cdp, tracker } = context;
  const condition = waitCondition(options, page, tracker, signal);
  if (options.fail_on_partial_load) {
    await condition;
    return {};
  }
  let met = false;
  const settled = condition.then(
    () => (met = true),
    () => (met = true),
  );
  while (!met && !signal.aborted) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([settled, new Promise((r) => (timer = setTimeout(r, TICK_MS)))]);
    clearTimeout(timer);
    if (met) break;
    const giveUp = performance.now() >= context.giveUpAt;
    // Not only after DOMContentLoaded: a parser blocked by a stylesheet or script that never answers
    // never fires it. onlyStalled is false while the main document itself is still arriving.
    if (giveUp || tracker.onlyStalled(options.stall_timeout * 1000)) {
      // A stopped load never fires `load` (the HTML spec aborts the document's load): the wait ends here.
      const partial = tracker.pending();
      await cdp.send('Page.stopLoading').catch(() => undefined);
      return { partial };
    }
  }
  // The condition's own error (a crash) surfaces here.
  await condition;
  return {};
}

/** The wait_until condition itself: a load state, then network idle for networkidle0/2. */
async function waitCondition(options: TakeOptions, page: Page, tracker: RequestTracker, signal: AbortSignal): Promise<void> {
  if (options.wait_until === 'domcontentloaded') return page.waitForLoadState('domcontentloaded', { timeout: 0 });
  await page.waitForLoadState('load', { timeout: 0 });
  if (options.wait_until === 'ready') {
    await Promise.all([tracker.dataIdle(signal), pageSettled(page)]);
    return;
  }
  if (options.wait_until === 'networkidle0' || options.wait_until === 'networkidle2') await tracker.idle(signal);
}
