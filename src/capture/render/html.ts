import { selectElement } from '../steps/element.js';
import type { Renderer } from './render-context.js';

/** The rendered DOM after every step (scripts, hide_selectors, styles, clicks), as the browser holds it. */
export const renderHtml: Renderer = async (ctx) => {
  const { page, timings } = ctx;
  const root = await selectElement(ctx);
  const markup = await timings.measure('capture', () =>
    root.selector === undefined ? page.content() : page.$eval(`css=${root.selector}`, (el) => el.outerHTML),
  );
  return { body: Buffer.from(markup, 'utf8'), truncated: false, ...(root.missing ? { selectorMissing: true } : {}) };
};
