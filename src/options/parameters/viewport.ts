import { integerField, numberField } from '../fields.js';
import { meta } from './meta.js';

/** The browser window the page is laid out in. */
export const viewportParameters = {
  viewport_width: meta('viewport', integerField(100, 3840).default(1280), {
    description: 'Viewport width in CSS pixels.',
    allowed: 'integer 100–3840',
    default: '1280',
  }),
  viewport_height: meta('viewport', integerField(100, 10000).default(800), {
    description: 'Viewport height in CSS pixels.',
    allowed: 'integer 100–10000',
    default: '800',
  }),
  device_scale_factor: meta('viewport', numberField(0.5, 3).default(1), {
    description: 'Device pixel ratio: 2 gives an image twice as wide and tall as the viewport.',
    allowed: 'number 0.5–3',
    default: '1',
  }),
};
