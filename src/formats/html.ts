import type { OutputFormat } from './output-format.js';
import { selectElement } from '../capture/steps/element.js';

/** The rendered DOM after every step (scripts, hide_selectors, styles, clicks), as the browser holds it. */
export const html: OutputFormat<'html'> = {
  name: 'html',
  aliases: [],
  contentType: 'text/html; charset=utf-8',
  extension: 'html',
  kind: 'text',
  lossy: false,
  shortTimeCap: true,
  async render(ctx) {
    const { page, timings } = ctx;
    const root = await selectElement(ctx);
    const markup = await timings.measure('capture', () =>
      root.selector === undefined ? page.content() : page.$eval(`css=${root.selector}`, (el) => el.outerHTML),
    );
    return { body: Buffer.from(markup, 'utf8'), truncated: false, ...(root.missing ? { selectorMissing: true } : {}) };
  },
};
