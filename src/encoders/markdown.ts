import type { CDPSession } from 'playwright-core';
import { highlightedCodeBlock, strikethrough, taskListItems } from '@joplin/turndown-plugin-gfm';
import TurndownService from 'turndown';
import { AppError } from '../errors/app-error.js';
import { gfmTables } from './markdown-tables.js';

/**
 * The rendered page's content as HTML: scripts, styles and elements that are hidden (display:
 * none, visibility: hidden, hidden, aria-hidden) left out, links and images made absolute.
 * Runs on the live DOM, so what hide_selectors and scripts did is respected.
 */
export async function renderedHtml(cdp: CDPSession, selector?: string): Promise<string> {
  // Over the capture's own CDP session, as one expression: Playwright's first page.evaluate in a
  // page injects its utility script first (~10 ms, more under load). `__name` is defined for code
  // compiled with keepNames (tsx).
  const { result, exceptionDetails } = await cdp.send('Runtime.evaluate', {
    expression: `(() => { const __name = (f) => f; return (${collectRenderedHtml.toString()})(${JSON.stringify(selector ?? null)}); })()`,
    returnByValue: true,
  });
  if (exceptionDetails) throw new Error(exceptionDetails.exception?.description ?? exceptionDetails.text);
  return String(result.value ?? '');
}

/** Runs in the page: the cleaned copy of the body (or the selected element) as HTML. */
function collectRenderedHtml(selector: string | null): string {
  // With `selector`, that element only (it was found before this runs).
  const root = selector ? document.querySelector(selector) : document.body;
  const live = Array.from(root?.querySelectorAll('*') ?? []);
  const clone = root ? (root.cloneNode(true) as HTMLElement) : document.createElement('body');
  const copies = Array.from(clone.querySelectorAll('*'));
  const drop = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'IFRAME', 'SVG', 'CANVAS', 'LINK', 'META']);
  // What turndown, its GFM rules and the table rules (markdown-table-*.ts) read.
  const keep = new Set([
    'href',
    'src',
    'alt',
    'title',
    'colspan',
    'rowspan',
    'start',
    'align',
    'role',
    'aria-checked',
    'type',
    'checked',
    'value',
  ]);
  live.forEach((el, i) => {
    const copy = copies[i] as HTMLElement | undefined;
    if (!copy) return;
    const style = getComputedStyle(el);
    if (
      drop.has(el.tagName.toUpperCase()) ||
      el.getAttribute('aria-hidden') === 'true' ||
      (el as HTMLElement).hidden ||
      style.display === 'none' ||
      style.visibility === 'hidden' ||
      // Tracking pixels: a loaded (or failed) image drawn at most 2×2 px, whose own size is at most
      // that, is no content. Lazy images not loaded yet (complete is false) stay.
      (el instanceof HTMLImageElement &&
        el.complete &&
        el.naturalWidth <= 2 &&
        el.naturalHeight <= 2 &&
        el.getBoundingClientRect().width <= 2 &&
        el.getBoundingClientRect().height <= 2)
    ) {
      copy.setAttribute('data-shutter-drop', '');
      return;
    }
    // Only what the converter reads stays: class, style and data-* make up most of a real page's
    // HTML (1.2 MB of it on one saved page), all serialized, sent over CDP and parsed again for nothing.
    for (const name of copy.getAttributeNames()) {
      if (keep.has(name)) continue;
      if (name === 'class' && /(^|\s)(language-|lang-|highlight-)/.test(copy.getAttribute('class') ?? '')) continue;
      copy.removeAttribute(name);
    }
    if (el instanceof HTMLAnchorElement && el.getAttribute('href')) copy.setAttribute('href', el.href);
    if (el instanceof HTMLImageElement) copy.setAttribute('src', el.currentSrc || el.src);
  });
  clone.querySelectorAll('[data-shutter-drop]').forEach((el) => el.remove());
  const title = document.title ? `<title>${document.title.replace(/</g, '&lt;')}</title>` : '';
  return `<html><head>${title}</head>${clone.outerHTML}</html>`;
}

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
