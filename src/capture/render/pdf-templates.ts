import type { Page } from 'playwright-core';
import type { PdfMargin } from '../../options/pdf-values.js';

/**
 * Chromium prints an empty template as its own default (the date and the title), so a header or
 * footer the caller did not give is this.
 */
export const EMPTY_TEMPLATE = '<span></span>';

/** Side padding of a template when pdf_margin is not given: text at the paper's edge is cut by printers. */
const DEFAULT_SIDE_PADDING = '10mm';

/** Chromium pads its header box 0.4 cm from the paper's top edge (and the footer's from the bottom). */
const CHROMIUM_EDGE_PX = (0.4 / 2.54) * 96;
/** Space between a header or footer and the body, when the margin is grown to fit it. */
const GAP_PX = (0.4 / 2.54) * 96;

/**
 * A caller's template in Shutter's default style. Chromium lays templates out in 0-size default
 * text, an unstyled template would be unreadable; the wrapper's 10px across the page is only
 * inherited, so the template's own styles win.
 */
export function wrapTemplate(html: string | undefined, sides: { left: string; right: string } | undefined): string {
  if (html === undefined || html.trim() === '') return EMPTY_TEMPLATE;
  const left = sides ? sides.left : DEFAULT_SIDE_PADDING;
  const right = sides ? sides.right : DEFAULT_SIDE_PADDING;
  const style = `font-size:10px;width:100%;box-sizing:border-box;padding:0 ${right} 0 ${left};-webkit-print-color-adjust:exact;print-color-adjust:exact`;
  return `<div class="shutter-pdf-template" style="${style}">${html}</div>`;
}

/** The page's margin with room for the header and footer: each grows to the template's height, the sides stay 0. */
export function marginFor(heights: { header: number; footer: number }): PdfMargin {
  const room = (height: number) => (height > 0 ? `${Math.ceil(CHROMIUM_EDGE_PX + height + GAP_PX)}px` : '0px');
  return { top: room(heights.header), right: '0px', bottom: room(heights.footer), left: '0px' };
}

/**
 * Heights in CSS px of templates laid out at the paper's width, in a closed shadow root so the
 * page's styles do not reach them. Scripts in them do not run (innerHTML).
 */
export async function measureTemplates(page: Page, templates: { header: string; footer: string }, widthPx: number) {
  return page.evaluate(
    ({ header, footer, width }) => {
      const measure = (html: string) => {
        const host = document.createElement('div');
        host.style.cssText = `all:initial;position:absolute;left:-100000px;top:0;width:${width}px;visibility:hidden`;
        host.attachShadow({ mode: 'closed' }).innerHTML = html;
        document.documentElement.append(host);
        const height = host.getBoundingClientRect().height;
        host.remove();
        return height;
      };
      return { header: measure(header), footer: measure(footer) };
    },
    { ...templates, width: widthPx },
  );
}
