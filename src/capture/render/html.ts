import { selectElement } from '../steps/element.js';
import { mainContent, mainContentDocument } from './main-content.js';
import type { Renderer } from './render-context.js';

/**
 * The rendered DOM after every step (scripts, hide_selectors, styles, clicks), as the browser holds
 * it; with main_content, a small document of the article only.
 */
export const renderHtml: Renderer = async (ctx) => {
  const { page, timings, options } = ctx;
  const root = await selectElement(ctx);
  const article = options.main_content ? await timings.measure('capture', () => mainContent(page, root.selector)) : undefined;
  const markup = article?.found
    ? mainContentDocument(article)
    : await timings.measure('capture', () =>
        root.selector === undefined ? page.content() : page.$eval(`css=${root.selector}`, (el) => el.outerHTML),
      );
  return {
    body: Buffer.from(markup, 'utf8'),
    truncated: false,
    ...(root.missing ? { selectorMissing: true } : {}),
    ...(article && !article.found ? { warnings: ['main_content_not_found'] as const } : {}),
  };
};
