import type { Page } from 'playwright-core';
import { AppError } from '../../errors/app-error.js';
import type { TakeOptions } from '../../options/schema.js';

/** fail_on_http_status: the main document's status in the caller's list is a 422, before any waiting. */
export function checkStatus(status: number | undefined, ranges: TakeOptions['fail_on_http_status']): void {
  if (status === undefined || !ranges?.some(([from, to]) => status >= from && status <= to)) return;
  throw new AppError('target_http_error', `the page answered HTTP ${status}, which fail_on_http_status refuses`, {
    details: [{ parameter: 'fail_on_http_status', message: `the main document's status was ${status}`, value: status }],
  });
}

/** fail_if_content_contains / fail_if_content_missing on the page's visible text after every step. */
export async function checkContent(page: Page, options: TakeOptions): Promise<void> {
  const present = options.fail_if_content_contains ?? [];
  const required = options.fail_if_content_missing ?? [];
  if (present.length === 0 && required.length === 0) return;
  const text = await page.evaluate(() => document.body?.innerText ?? '');
  const found = present.find((t) => text.includes(t));
  if (found !== undefined) {
    throw new AppError('content_check_failed', `the page contains ${JSON.stringify(found)} (fail_if_content_contains)`, {
      details: [{ parameter: 'fail_if_content_contains', message: 'is on the page', value: found }],
    });
  }
  const missing = required.find((t) => !text.includes(t));
  if (missing !== undefined) {
    throw new AppError('content_check_failed', `the page does not contain ${JSON.stringify(missing)} (fail_if_content_missing)`, {
      details: [{ parameter: 'fail_if_content_missing', message: 'is not on the page', value: missing }],
    });
  }
}
