import { highlightedCodeBlock, strikethrough, taskListItems } from '@joplin/turndown-plugin-gfm';
import TurndownService from 'turndown';
import { AppError } from '../errors/app-error.js';
import { gfmTables } from './markdown-tables.js';

let service: TurndownService | undefined;

/** Turndown with GitHub-flavoured tables, fenced code and ATX headings; built once. */
function converter(): TurndownService {
  if (service) return service;
  service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '*' });
  // The fork's table rules keep some tables as HTML and break others (spans, ragged rows): ours replace them.
  service.use([highlightedCodeBlock, strikethrough, taskListItems, gfmTables]);
  // Turndown pads list markers to four columns ("-   item"); one space is what people write.
  service.addRule('listItem', {
    filter: 'li',
    replacement(content, node, options) {
      const parent = node.parentNode as HTMLElement | null;
      let prefix = `${options.bulletListMarker} `;
      if (parent?.nodeName === 'OL') {
        const start = Number(parent.getAttribute('start') ?? 1);
        prefix = `${start + Array.prototype.indexOf.call(parent.children, node)}. `;
      }
      const body = content
        .replace(/^\n+/, '')
        .replace(/\n+$/, '\n')
        .replace(/\n/gm, `\n${' '.repeat(prefix.length)}`);
      return prefix + body + (node.nextSibling && !/\n$/.test(body) ? '\n' : '');
    },
  });
  service.remove(['script', 'style', 'noscript', 'title']);
  return service;
}

/** HTML to clean Markdown; should the converter fail, a 422 conversion_failed (never a 500). */
export function htmlToMarkdown(html: string): string {
  let markdown: string;
  try {
    markdown = converter().turndown(html);
  } catch (error) {
    throw conversionFailed(error);
  }
  return `${markdown.trim()}\n`;
}

/**
 * The caller's error for a converter failure. The converter's own message names its internals;
 * the caller gets the kind of failure in plain words, and the original stays on `cause`.
 */
function conversionFailed(error: unknown): AppError {
  const message = error instanceof Error ? error.message : '';
  // A stack overflow comes from the converter recursing through a very deep DOM (scripts can build one).
  const reason =
    error instanceof RangeError && /call stack/i.test(message)
      ? 'its elements are nested too deeply'
      : error instanceof RangeError && /string length/i.test(message)
        ? 'its text is too large'
        : 'the converter failed on its HTML';
  const appError = new AppError(
    'conversion_failed',
    `the page could not be converted to Markdown: ${reason}; leave the failing part out with hide_selectors, or take another format`,
  );
  appError.cause = error;
  return appError;
}
