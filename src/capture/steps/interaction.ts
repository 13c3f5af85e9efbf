import type { CDPSession, Page } from 'playwright-core';
import { AppError } from '../../errors/app-error.js';
import { rethrowSelectorError } from './selector-error.js';

/** Longest script error message passed on: enough to debug, not a page's worth. */
const MESSAGE_MAX_CHARS = 500;

/** Playwright reads `text=`, `xpath=`… as its own engines: the caller's selector is always CSS. */
const css = (selector: string) => `css=${selector}`;

/** wait_for_selector: until one match is visible; only the capture's deadline ends the wait (504 naming it). */
export async function waitForSelector(page: Page, selector: string | undefined): Promise<void> {
  if (selector === undefined) return;
  await page
    .waitForSelector(css(selector), { state: 'visible', timeout: 0 })
    .catch((error) => rethrowSelectorError(error, 'wait_for_selector', selector));
}

/**
 * scripts: evaluated as DevTools' console does (replMode: top-level await, the last expression's
 * value, awaited when it is a promise), so it is not the page's script and its CSP does not apply.
 */
export async function runScript(cdp: CDPSession, script: string | undefined): Promise<void> {
  if (script === undefined) return;
  const evaluated = await cdp.send('Runtime.evaluate', {
    expression: script,
    awaitPromise: true,
    replMode: true,
    userGesture: true,
    returnByValue: false,
  });
  let { exceptionDetails } = evaluated;
  // REPL mode awaits its own top-level await, not a promise the last expression evaluates to.
  if (!exceptionDetails && evaluated.result.subtype === 'promise' && evaluated.result.objectId) {
    ({ exceptionDetails } = await cdp.send('Runtime.awaitPromise', { promiseObjectId: evaluated.result.objectId }));
  }
  if (exceptionDetails) {
    const thrown = exceptionDetails.exception?.description ?? exceptionDetails.exception?.value ?? exceptionDetails.text;
    const message = String(thrown).split('\n')[0]!.slice(0, MESSAGE_MAX_CHARS);
    throw new AppError('script_failed', `the script threw: ${message}`, { details: [{ parameter: 'scripts', message }] });
  }
}

/** click or hover on the first match; a selector that matches nothing is 422 unless told to skip it. */
export async function pointAt(
  page: Page,
  action: 'click' | 'hover',
  selector: string | undefined,
  errorWhenMissing: boolean,
): Promise<void> {
  if (selector === undefined) return;
  const target = page.locator(css(selector)).first();
  const count = await target.count().catch((error) => rethrowSelectorError(error, action, selector));
  if (count === 0) {
    if (!errorWhenMissing) return;
    throw new AppError('selector_not_found', `no element matches the ${action} selector ${JSON.stringify(selector)}`, {
      details: [{ parameter: action, message: 'matches no element', value: selector }],
    });
  }
  // force: an overlay or an animation must not make Playwright wait for "actionability" until the deadline.
  if (action === 'click') await target.click({ force: true, timeout: 5_000 });
  else await target.hover({ force: true, timeout: 5_000 });
}
