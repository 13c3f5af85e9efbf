import { booleanField, enumField, selectorField, textField } from '../fields.js';
import { MAX_SCRIPT_CHARS, WAIT_UNTIL } from '../limits.js';
import { meta } from './meta.js';

/** What the capture does on the page before it is captured: wait for an element, run a script, click, hover. */
export const interactionParameters = {
  wait_for_selector: meta('waits', selectorField().optional(), {
    description:
      'Wait until an element matching this CSS selector is visible, after wait_until. One that never appears ends in 504 capture_timeout naming it.',
    allowed: 'CSS selector, at most 500 characters',
    example: '#content .loaded',
  }),
  scripts: meta('page', textField(MAX_SCRIPT_CHARS, 'JavaScript').optional(), {
    description:
      'JavaScript run in the page after it loads and after wait_for_selector, before hide_selectors, styles and click. ' +
      'The value of its last expression is awaited when it is a promise (top-level await works too); a thrown error is 422 script_failed with its message.',
    allowed: 'JavaScript, at most 100 KB',
    example: "document.querySelector('#banner')?.remove()",
  }),
  scripts_wait_until: meta('page', enumField(WAIT_UNTIL, { networkidle: 'networkidle0' }).optional(), {
    description: 'Wait again after the script, for scripts that navigate or fetch.',
    allowed: 'load, domcontentloaded, networkidle0, networkidle2, ready',
    choices: WAIT_UNTIL,
  }),
  click: meta('page', selectorField().optional(), {
    description: 'Click the first element matching this CSS selector (after scripts, hide_selectors and styles).',
    allowed: 'CSS selector, at most 500 characters',
    example: 'button.accept',
  }),
  hover: meta('page', selectorField().optional(), {
    description: 'Move the mouse over the first element matching this CSS selector (after click).',
    allowed: 'CSS selector, at most 500 characters',
    example: 'nav .menu',
  }),
  error_on_click_selector_not_found: meta('page', booleanField().default(true), {
    description: 'A click or hover selector that matches nothing is 422 selector_not_found; 0 skips it instead.',
    allowed: 'boolean',
    default: 'true',
  }),
};
