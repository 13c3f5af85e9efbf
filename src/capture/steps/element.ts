import type { Page } from 'playwright-core';
import { AppError } from '../../errors/app-error.js';
import { rethrowSelectorError } from './selector-error.js';
import type { RenderContext } from '../render/render-context.js';

/** A rectangle of the document in CSS px (not of the viewport: scrolling does not move it). */
export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What `selector` picked: the element, or the whole page when it matched nothing and that is allowed. */
export interface Selection {
  /** The selector to use (undefined: the whole page). */
  selector?: string;
  /** The element's box, for images. */
  region?: Region;
  /** selector matched nothing and error_on_selector_not_found=0: X-Shutter-Selector: not-found. */
  missing: boolean;
}

/**
 * The element `selector` names, scrolled into view (lazy content inside it loads) with its whole
 * box in document coordinates, even where it is taller than the viewport. None matching is 422
 * selector_not_found, or the whole page when error_on_selector_not_found=0.
 */
export async function selectElement({ page, options }: Pick<RenderContext, 'page' | 'options'>): Promise<Selection> {
  const selector = options.selector;
  if (selector === undefined) return { missing: false };
  const box = await boxOf(page, selector);
  if (box) return { selector, region: box, missing: false };
  if (!options.error_on_selector_not_found) return { missing: true };
  throw new AppError('selector_not_found', `no element matches the selector ${JSON.stringify(selector)}`, {
    details: [{ parameter: 'selector', message: 'matches no element', value: selector }],
  });
}

async function boxOf(page: Page, selector: string): Promise<Region | undefined> {
  const found = await page
    .evaluate((s) => {
      const el = document.querySelector(s);
      if (!el) return null;
      el.scrollIntoView({ block: 'start', inline: 'start' });
      const r = el.getBoundingClientRect();
      return { x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height };
    }, selector)
    .catch((error: unknown) => rethrowSelectorError(error, 'selector', selector));
  if (!found) return undefined;
  // Device pixels come from whole CSS px here; an empty box still yields a 1×1 image.
  const x = Math.floor(found.x);
  const y = Math.floor(found.y);
  return {
    x,
    y,
    width: Math.max(1, Math.ceil(found.x + found.width) - x),
    height: Math.max(1, Math.ceil(found.y + found.height) - y),
  };
}

/** scroll_into_view: the element at the top of the viewport, then `adjustTop` px further down the page. */
export async function scrollIntoView(page: Page, selector: string | undefined, adjustTop: number): Promise<void> {
  if (selector === undefined) return;
  const found = await page.evaluate(
    ([s, adjust]) => {
      const el = document.querySelector(s);
      if (!el) return false;
      el.scrollIntoView({ block: 'start' });
      if (adjust) scrollBy(0, adjust);
      return true;
    },
    [selector, adjustTop] as const,
  );
  if (!found) {
    throw new AppError('selector_not_found', `no element matches the scroll_into_view selector ${JSON.stringify(selector)}`, {
      details: [{ parameter: 'scroll_into_view', message: 'matches no element', value: selector }],
    });
  }
}
