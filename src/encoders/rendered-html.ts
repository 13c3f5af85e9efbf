import type { CDPSession } from 'playwright-core';

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
    expression: `(() => { const __name = (f) => f; return (${serializeRendered.toString()})(${JSON.stringify(selector ?? null)}); })()`,
    returnByValue: true,
  });
  if (exceptionDetails) throw new Error(exceptionDetails.exception?.description ?? exceptionDetails.text);
  return String(result.value ?? '');
}

/**
 * Runs in the page: the body (or the selected element) written out as HTML in one walk of the live
 * DOM. A hidden element's subtree is skipped without looking at it, and only what the converter
 * reads is written: cloning the whole tree, styling every element of it and serializing the clone
 * cost twice as much on real pages (issue 35). Iterative, so that no depth of DOM overflows the stack.
 */
function serializeRendered(selector: string | null): string {
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
  const codeClass = /(^|\s)(language-|lang-|highlight-)/;
  const voids = new Set(['AREA', 'BASE', 'BR', 'COL', 'EMBED', 'HR', 'IMG', 'INPUT', 'LINK', 'META', 'SOURCE', 'TRACK', 'WBR']);
  // Raw text: written as it is, as the HTML serializer does (their entities would not be decoded).
  const rawText = new Set(['XMP', 'NOEMBED', 'NOFRAMES', 'PLAINTEXT']);
  const escapeText = (s: string) =>
    s
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/\u00a0/g, '&nbsp;');
  const escapeAttr = (s: string) =>
    s
      .replace(/&/g, '&amp;')
      .replace(/"/g, '&quot;')
      .replace(/\u00a0/g, '&nbsp;');
  const nameOf = (el: Element) => (el.namespaceURI === 'http://www.w3.org/1999/xhtml' ? el.localName : el.tagName);

  const hidden = (el: Element): boolean => {
    if (drop.has(el.tagName.toUpperCase()) || el.getAttribute('aria-hidden') === 'true' || (el as HTMLElement).hidden) return true;
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility === 'hidden') return true;
    // Tracking pixels: a loaded (or failed) image drawn at most 2×2 px, whose own size is at most
    // that, is no content. Lazy images not loaded yet (complete is false) stay.
    if (el instanceof HTMLImageElement && el.complete && el.naturalWidth <= 2 && el.naturalHeight <= 2) {
      const box = el.getBoundingClientRect();
      return box.width <= 2 && box.height <= 2;
    }
    return false;
  };

  // Only what the converter reads: class, style and data-* make up most of a real page's HTML.
  const openTag = (el: Element, all: boolean): string => {
    let tag = `<${nameOf(el)}`;
    let hasSrc = false;
    for (const { name, value } of Array.from(el.attributes)) {
      if (!all && !keep.has(name) && !(name === 'class' && codeClass.test(value))) continue;
      let written = value;
      if (name === 'href' && el instanceof HTMLAnchorElement && value) written = el.href;
      if (name === 'src' && el instanceof HTMLImageElement) {
        written = el.currentSrc || el.src;
        hasSrc = true;
      }
      tag += ` ${name}="${escapeAttr(written)}"`;
    }
    if (el instanceof HTMLImageElement && !hasSrc) tag += ` src="${escapeAttr(el.currentSrc || el.src)}"`;
    return `${tag}>`;
  };

  const root = selector ? document.querySelector(selector) : document.body;
  const out: string[] = [];
  const title = document.title ? `<title>${document.title.replace(/</g, '&lt;')}</title>` : '';
  out.push(`<html><head>${title}</head>`);
  if (!root) out.push('<body></body>');
  else {
    // The root is written with all its attributes and is not checked itself (the caller chose it).
    // Work items: a node to write, or a closing tag.
    out.push(openTag(root, true));
    const work: Array<Node | string> = [];
    if (!voids.has(root.tagName)) {
      work.push(`</${nameOf(root)}>`);
      for (let child = root.lastChild; child; child = child.previousSibling) work.push(child);
    }
    while (work.length > 0) {
      const item = work.pop()!;
      if (typeof item === 'string') {
        out.push(item);
      } else if (item.nodeType === Node.TEXT_NODE) {
        const parent = item.parentNode as Element | null;
        const data = (item as Text).data;
        out.push(parent && rawText.has(parent.nodeName) ? data : escapeText(data));
      } else if (item.nodeType === Node.ELEMENT_NODE) {
        const el = item as Element;
        if (hidden(el)) continue;
        out.push(openTag(el, false));
        if (voids.has(el.tagName)) continue;
        work.push(`</${nameOf(el)}>`);
        for (let child = el.lastChild; child; child = child.previousSibling) work.push(child);
      }
      // Comments and processing instructions: nothing the converter reads.
    }
  }
  out.push('</html>');
  return out.join('');
}
