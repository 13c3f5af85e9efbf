import { IMAGE_FORMATS, SCREEN_FORMATS, TEXT_FORMATS, TRANSPARENT_FORMATS } from '../../formats/registry.js';
import { booleanField, integerField, selectorField } from '../fields.js';
import { meta } from './meta.js';

/** Part of the page instead of the viewport, and the output image's own size. */
export const elementParameters = {
  selector: meta('output', selectorField().optional(), {
    description:
      'Capture only this element: its whole box, scrolled into view, also when it is taller than the viewport. ' +
      'With markdown and html, only its content. Not with full_page or clip_*.',
    allowed: 'CSS selector, at most 500 characters',
    example: '#pricing',
    formats: SCREEN_FORMATS,
  }),
  error_on_selector_not_found: meta('output', booleanField().default(true), {
    description:
      'A selector that matches nothing is 422 selector_not_found; 0 captures the page as if no selector was given, with X-Shutter-Selector: not-found.',
    allowed: 'boolean',
    default: 'true',
    formats: SCREEN_FORMATS,
  }),
  main_content: meta('output', booleanField().default(false), {
    description:
      'Keep only the main content, as a reader view does: the article or main body with its title, without navigation, ' +
      'header, footer, sidebars, related links, comments, share bars, cookie, newsletter and ad boxes. Decided on the ' +
      'rendered page. With selector, the main content inside that element. None found: the whole page and ' +
      'X-Shutter-Warning: main_content_not_found.',
    allowed: 'boolean',
    default: 'false',
    formats: TEXT_FORMATS,
  }),
  clip_x: meta('output', integerField(0, 100_000).optional(), {
    description: 'Left edge of the area to capture, in CSS px of the document (all four clip_* together).',
    allowed: 'integer 0–100000',
    formats: IMAGE_FORMATS,
  }),
  clip_y: meta('output', integerField(0, 1_000_000).optional(), {
    description: 'Top edge of the area to capture, in CSS px of the document.',
    allowed: 'integer 0–1000000',
    formats: IMAGE_FORMATS,
  }),
  clip_width: meta('output', integerField(1, 16_384).optional(), {
    description: 'Width of the area to capture, in CSS px.',
    allowed: 'integer 1–16384',
    formats: IMAGE_FORMATS,
  }),
  clip_height: meta('output', integerField(1, 100_000).optional(), {
    description: 'Height of the area to capture, in CSS px (cut at the pixel budget like a full page).',
    allowed: 'integer 1–100000',
    formats: IMAGE_FORMATS,
  }),
  omit_background: meta('output', booleanField().default(false), {
    description: 'Transparent where the page paints no background of its own.',
    allowed: 'boolean',
    default: 'false',
    formats: TRANSPARENT_FORMATS,
  }),
  image_width: meta('output', integerField(1, 7680).optional(), {
    description:
      'Resize the image to this width; alone it keeps the aspect ratio, with image_height the image is exactly that size, cropped from the top centre.',
    allowed: 'integer 1–7680',
    formats: IMAGE_FORMATS,
  }),
  image_height: meta('output', integerField(1, 7680).optional(), {
    description: 'Resize the image to this height (see image_width).',
    allowed: 'integer 1–7680',
    formats: IMAGE_FORMATS,
  }),
  scroll_into_view: meta('page', selectorField().optional(), {
    description:
      'Scroll this element to the top of the viewport before capturing (a selector that matches nothing is 422 selector_not_found).',
    allowed: 'CSS selector, at most 500 characters',
    example: '#footer',
  }),
  scroll_into_view_adjust_top: meta('page', integerField(-100_000, 100_000).default(0), {
    description: 'Then scroll this many CSS px further down (negative: up), e.g. to clear a fixed header.',
    allowed: 'integer px',
    default: '0',
  }),
};
