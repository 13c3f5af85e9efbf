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
      // An item left with nothing in it (a share button's, once its empty link is gone) is no item.
      if (content.trim() === '') return '';
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
  // A link with no text and no picture (share buttons, icons and logos drawn by CSS) would be written
  // `[](url)`, or `[\n\n](url)` around an empty box: nothing a reader can follow. Real pages carry
  // dozens; they are left out (a line break they held stays one).
  service.addRule('emptyLink', {
    filter: (node) => node.nodeName === 'A' && !/\S/.test(node.textContent ?? '') && node.getElementsByTagName('img').length === 0,
    replacement: (content) => (content.includes('\n') ? '\n\n' : ''),
  });
  // A heading that held only such a link (a logo's) is no heading.
  service.addRule('heading', {
    filter: ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'],
    replacement: (content, node) => (content.trim() === '' ? '\n\n' : `\n\n${'#'.repeat(Number(node.nodeName[1]))} ${content}\n\n`),
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
