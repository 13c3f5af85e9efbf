import type { Page, Response } from 'playwright-core';
import { navigationFailed } from '../../errors/navigation-failure.js';
import type { TakeOptions } from '../../options/schema.js';

/**
 * The origin html input is served from: an http origin of our own, never file://, so relative
 * and protocol-relative URLs in caller HTML cannot reach the local disk. `.invalid` never resolves.
 */
export const HTML_ORIGIN = 'http://html.shutter.invalid/';

/**
 * Loads the url or the caller's html until the document commits; answers the main document's
 * response (after redirects). Waiting for wait_until is the
 * next step (wait-for-page.ts), where stalled third parties are bounded.
 */
export async function navigate(page: Page, options: TakeOptions, signal: AbortSignal): Promise<Response | null> {
  let target = options.url;
  if (options.html !== undefined) {
    const html = options.html;
    await page.route(HTML_ORIGIN, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html }));
    target = HTML_ORIGIN;
  }
  // The main document's last status, for a navigation that fails after an answer arrived.
  let httpStatus: number | undefined;
  const onResponse = (response: Response) => {
    if (response.request().isNavigationRequest() && response.frame() === page.mainFrame()) httpStatus = response.status();
  };
  page.on('response', onResponse);
  try {
    // The capture deadline bounds navigation; Playwright's own timeout is disabled.
    return await page.goto(target!, { waitUntil: 'commit', timeout: 0 });
  } catch (error) {
    if (signal.aborted) throw error;
    // Chromium's net error name is safe to show (it says what failed, not what is behind it).
    const text = error instanceof Error ? error.message : String(error);
    throw navigationFailed(/net::(ERR_[A-Z_0-9]+)/.exec(text)?.[1], httpStatus !== undefined ? { httpStatus } : {});
  } finally {
    page.off('response', onResponse);
  }
}
