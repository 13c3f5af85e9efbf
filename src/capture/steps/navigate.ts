import type { Page } from 'playwright-core';
import { AppError } from '../../errors/app-error.js';
import type { TakeOptions } from '../../options/schema.js';

/**
 * The origin html input is served from: an http origin of our own, never file://, so relative
 * and protocol-relative URLs in caller HTML cannot reach the local disk. `.invalid` never resolves.
 */
export const HTML_ORIGIN = 'http://html.shutter.invalid/';

/**
 * Loads the url or the caller's html until the document commits; answers the main document's
 * HTTP status (after redirects). Waiting for wait_until is the
 * next step (wait-for-page.ts), where stalled third parties are bounded.
 */
export async function navigate(page: Page, options: TakeOptions, signal: AbortSignal): Promise<number | undefined> {
  let target = options.url;
  if (options.html !== undefined) {
    const html = options.html;
    await page.route(HTML_ORIGIN, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html }));
    target = HTML_ORIGIN;
  }
  try {
    // The capture deadline bounds navigation; Playwright's own timeout is disabled.
    const response = await page.goto(target!, { waitUntil: 'commit', timeout: 0 });
    return response?.status();
  } catch (error) {
    if (signal.aborted) throw error;
    throw new AppError('navigation_failed', navigationMessage(error));
  }
}

/** Chromium's net error name is safe to show (it says what failed, not what is behind it). */
function navigationMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const net = /net::(ERR_[A-Z_]+)/.exec(text)?.[1];
  return net ? `the page could not be loaded (${net})` : 'the page could not be loaded';
}
