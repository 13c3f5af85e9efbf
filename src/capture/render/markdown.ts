import { renderedHtml } from '../../encoders/rendered-html.js';
import { selectElement } from '../steps/element.js';
import { mainContent, mainContentDocument } from './main-content.js';
import { preloadLazyContent } from './preload-lazy-content.js';
import type { Renderer } from './render-context.js';

/** The rendered page's content as Markdown (turndown); with main_content, its article only. */
export const renderMarkdown: Renderer = async (ctx) => {
  const { page, cdp, options, limits, timings, clock } = ctx;
  // turndown and its DOM are loaded on the first markdown capture, not at start.
  const { htmlToMarkdown } = await import('../../encoders/markdown.js');
  if (options.full_page) {
    await timings.measure('wait', () => preloadLazyContent(page, cdp, limits.maxFullPageHeight, clock, { forPrint: false }));
  }
  const selection = await selectElement(ctx);
  const article = options.main_content ? await timings.measure('capture', () => mainContent(page, selection.selector)) : undefined;
  const html = article?.found
    ? mainContentDocument(article)
    : await timings.measure('capture', () => renderedHtml(cdp, selection.selector));
  const body = await timings.measure('encode', async () => Buffer.from(htmlToMarkdown(html), 'utf8'));
  return {
    body,
    truncated: false,
    ...(selection.missing ? { selectorMissing: true } : {}),
    ...(article && !article.found ? { warnings: ['main_content_not_found'] as const } : {}),
  };
};
