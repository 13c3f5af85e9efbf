import { z } from 'zod';
import { listOf, textField } from '../fields.js';
import { MAX_CONTENT_CHECKS } from '../limits.js';
import { meta } from './meta.js';

/** "404,5xx" → [[404, 404], [500, 599]]: statuses and classes, each 100–599. */
export function parseStatusList(text: string): Array<[number, number]> | null {
  const ranges: Array<[number, number]> = [];
  for (const part of text.split(',').map((p) => p.trim().toLowerCase())) {
    const code = /^([1-5])(\d\d)$/.exec(part);
    const cls = /^([1-5])xx$/.exec(part);
    if (code) ranges.push([Number(part), Number(part)]);
    else if (cls) ranges.push([Number(cls[1]) * 100, Number(cls[1]) * 100 + 99]);
    else return null;
  }
  return ranges;
}

const statusListField = textField(200, 'status codes').transform((text, ctx) => {
  const ranges = parseStatusList(text);
  if (ranges) return ranges;
  ctx.addIssue({ code: 'custom', message: 'must be status codes and classes separated by commas, e.g. 404,5xx' });
  return z.NEVER;
});

/** Checks on what was loaded: a capture of an error page or the wrong content fails instead of succeeding. */
export const checksParameters = {
  fail_if_content_contains: meta('waits', listOf(textField(500, 'text').min(1, 'must not be empty'), MAX_CONTENT_CHECKS).optional(), {
    description:
      'Fail with 422 content_check_failed when the page’s visible text (after every step) contains one of these texts (case-sensitive). Repeat the parameter.',
    allowed: `texts of at most 500 characters, at most ${MAX_CONTENT_CHECKS}`,
    example: 'Access denied',
  }),
  fail_if_content_missing: meta('waits', listOf(textField(500, 'text').min(1, 'must not be empty'), MAX_CONTENT_CHECKS).optional(), {
    description: 'Fail with 422 content_check_failed when the page’s visible text lacks one of these texts (case-sensitive).',
    allowed: `texts of at most 500 characters, at most ${MAX_CONTENT_CHECKS}`,
    example: 'Checkout',
  }),
  fail_on_http_status: meta('waits', statusListField.optional(), {
    description: 'Fail with 422 target_http_error when the main document’s HTTP status is one of these (checked right after it arrives).',
    allowed: 'status codes and classes separated by commas, e.g. 404,5xx',
    example: '404,5xx',
  }),
};
