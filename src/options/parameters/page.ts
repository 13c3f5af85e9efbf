import { stringListField, textField } from '../fields.js';
import { MAX_HIDE_SELECTORS, MAX_STYLES_CHARS } from '../limits.js';
import { meta } from './meta.js';

/** What is changed on the page before it is captured. */
export const pageParameters = {
  hide_selectors: meta('page', stringListField().default([]), {
    description:
      'CSS selectors of elements to hide (display: none), also when they are added later. ' +
      'Repeat the parameter: hide_selectors[]=.a&hide_selectors[]=.b (hide_selectors works too).',
    allowed: `CSS selectors, at most ${MAX_HIDE_SELECTORS}, each at most 500 characters`,
    default: 'none',
  }),
  styles: meta('page', textField(MAX_STYLES_CHARS, 'CSS text').optional(), {
    description: 'CSS injected into the page after it loads.',
    allowed: 'CSS text, at most 100 KB',
    example: 'body { background: #fff }',
  }),
};
