import type { Page } from 'playwright-core';
import { AppError } from '../../errors/app-error.js';
import type { TakeOptions } from '../../options/schema.js';
import { printPdf } from './print-pdf.js';
import type { RenderContext } from './render-context.js';

/** The first print may take this share of the time left; a print taking longer is taken as hung. */
const FIRST_SHARE = 0.45;
/** After the scripts are stopped, the hung print is given this long to finish by itself. */
const STOPPED_WAIT_MS = 1_500;
/** The fallback ends this long before the deadline, so its own 504 says what failed. */
const END_MARGIN_MS = 300;
/** The DOM as HTML, doctype included (the page's own mode of layout). */
const SNAPSHOT = "(document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '') + document.documentElement.outerHTML";
/** The snapshot's subresources may load this long before it is printed as it is. */
const SNAPSHOT_LOAD_MS = 2_000;

/**
 * Prints the page; a print that does not finish is not a lost capture (issue 37). A `beforeprint`
 * handler that never returns, or a page Chromium cannot print, hangs page.pdf() until the deadline.
 * After part of the time left, the page's scripts are stopped (the running one terminated, new
 * ones disabled), which frees a print held by a script; if the print still does not come, the
 * DOM as it was before printing is printed from a new page of the same context (its egress and
 * proxy), scripts disabled. `fallback` says the file came from either way out.
 */
export async function printWithFallback(ctx: RenderContext): Promise<{ body: Buffer; fallback: boolean }> {
  const { page, cdp, options, limits, clock } = ctx;
  const left = () => clock.deadline - END_MARGIN_MS - performance.now();
  // Asked for before printing: a renderer that hangs in the print cannot serialize its DOM any more.
  // Not waited for: its transfer (5 ms p50, 20 ms p90 on real pages, issue 35) overlaps the print.
  // Over the capture's CDP session: page.content() first builds a utility world, 0.4–0.9 s under load.
  const snapshot = cdp
    .send('Runtime.evaluate', { expression: SNAPSHOT, returnByValue: true })
    .then(({ result }) => String(result.value ?? ''));
  snapshot.catch(() => undefined);
  const url = page.url();
  const first = printPdf(page, options, limits.maxFullPageHeight);
  first.catch(() => undefined);
  const printed = await within(first, left() * FIRST_SHARE);
  if (printed) return { body: printed.value, fallback: false };

  await within(
    Promise.all([cdp.send('Runtime.terminateExecution'), cdp.send('Emulation.setScriptExecutionDisabled', { value: true })]).catch(
      () => undefined,
    ),
    Math.min(STOPPED_WAIT_MS, left() / 4),
  );
  const freed = await within(first, Math.min(STOPPED_WAIT_MS, left() / 3)).catch(() => undefined);
  if (freed) return { body: freed.value, fallback: true };

  const dom = await within(snapshot, Math.min(STOPPED_WAIT_MS, left() / 3)).catch(() => undefined);
  const again = dom && (await within(printSnapshot(page, dom.value, url, options, limits.maxFullPageHeight), left()));
  if (again) return { body: again.value, fallback: true };
  throw new AppError(
    'capture_timeout',
    `the capture did not finish within the timeout of ${options.timeout} s (step: render; printing hung, ` +
      "and printing again with the page's scripts stopped did not finish either)",
    { facts: { step: 'render', pending_requests: [] } },
  );
}

/** The DOM taken before printing, served at the page's own URL to a new page that runs no script. */
async function printSnapshot(page: Page, snapshot: string, url: string, options: TakeOptions, maxHeightPx: number): Promise<Buffer> {
  const context = page.context();
  const fresh = await context.newPage();
  try {
    const viewport = page.viewportSize();
    if (viewport) await fresh.setViewportSize(viewport);
    const cdp = await context.newCDPSession(fresh);
    await cdp.send('Emulation.setScriptExecutionDisabled', { value: true });
    const target = url.split('#')[0]!;
    // With scripts off, <noscript> would show ("please enable JavaScript"), which the page as printed never did.
    const body = snapshot.replace(/<noscript\b[\s\S]*?<\/noscript>/gi, '');
    await fresh.route(
      (u) => u.href.split('#')[0] === target,
      (route) =>
        route.request().isNavigationRequest() && route.request().frame() === fresh.mainFrame()
          ? route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body })
          : route.fallback(),
    );
    await fresh.goto(target, { waitUntil: 'domcontentloaded', timeout: 0 });
    await fresh.waitForLoadState('load', { timeout: SNAPSHOT_LOAD_MS }).catch(() => undefined);
    return await printPdf(fresh, options, maxHeightPx);
  } finally {
    void fresh.close().catch(() => undefined);
  }
}

/** The promise's value when it settles within `ms`, undefined when it does not; a rejection is thrown. */
async function within<T>(promise: Promise<T>, ms: number): Promise<{ value: T } | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), Math.max(0, ms));
  });
  try {
    return await Promise.race([promise.then((value) => ({ value })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
