import { ANIMATION_FORMATS } from '../../formats/registry.js';
import { booleanField, enumField, integerField, numberField, selectorField } from '../fields.js';
import { meta } from './meta.js';

export const SCENARIOS = ['default', 'scroll'] as const;
export const EASINGS = ['linear', 'ease_in_out_quad', 'ease_in_out_cubic'] as const;
export type Easing = (typeof EASINGS)[number];

/** gif has no inter-frame compression worth the name: more frames make big files that play no smoother in most viewers. */
export const GIF_MAX_FPS = 15;

/**
 * The parameters only GET/POST /v1/animate has (DESIGN.md §5.3); the page's own options are take's,
 * picked in parse-animate-options.ts. `format` here replaces take's: the formats an animation makes.
 * Groups are take's (the playground and reference tables are /v1/take's; docs/api.md shows these).
 */
export const animateParameters = {
  format: meta('output', enumField(ANIMATION_FORMATS).default('mp4'), {
    description: 'Video format: mp4 (H.264), webm (VP9) or an animated gif.',
    allowed: ANIMATION_FORMATS.join(', '),
    choices: ANIMATION_FORMATS,
    default: 'mp4',
  }),
  duration: meta('output', numberField(1, 30).default(5), {
    description: 'Length of the video in seconds (exact to one frame).',
    allowed: 'number of seconds 1–30',
    default: '5',
  }),
  fps: meta('output', integerField(1, 30).default(25), {
    description: `Frames per second; at most ${GIF_MAX_FPS} for gif.`,
    allowed: `integer 1–30 (gif: 1–${GIF_MAX_FPS})`,
    default: '25',
  }),
  scenario: meta('page', enumField(SCENARIOS).default('default'), {
    description: 'default: the page as it plays, from where it loaded; scroll: down the page step by step, then optionally back.',
    allowed: SCENARIOS.join(', '),
    choices: SCENARIOS,
    default: 'default',
  }),
  scroll_by: meta('page', integerField(1, 100_000).optional(), {
    description: 'CSS px scrolled per step (scenario=scroll).',
    allowed: 'integer 1–100000',
    default: 'the viewport height',
  }),
  scroll_duration: meta('page', integerField(1, 30_000).default(1000), {
    description: 'Milliseconds each step takes (scenario=scroll).',
    allowed: 'integer ms 1–30000',
    default: '1000',
  }),
  scroll_delay: meta('page', integerField(0, 30_000).default(500), {
    description: 'Milliseconds the page rests between steps (scenario=scroll).',
    allowed: 'integer ms 0–30000',
    default: '500',
  }),
  scroll_easing: meta('page', enumField(EASINGS).default('ease_in_out_quad'), {
    description: 'How each step speeds up and slows down (scenario=scroll).',
    allowed: EASINGS.join(', '),
    choices: EASINGS,
    default: 'ease_in_out_quad',
  }),
  scroll_back: meta('page', booleanField().default(false), {
    description: 'After the last step, scroll back to the top (scenario=scroll).',
    allowed: 'boolean',
    default: 'false',
  }),
  scroll_till_selector: meta('page', selectorField().optional(), {
    description: 'Stop scrolling once this element is in view (scenario=scroll); one that matches nothing is 422 selector_not_found.',
    allowed: 'CSS selector, at most 500 characters',
    example: '#pricing',
  }),
};

/** The parameters that shape the scroll: they apply only with scenario=scroll. */
export const SCROLL_PARAMETERS = [
  'scroll_by',
  'scroll_duration',
  'scroll_delay',
  'scroll_easing',
  'scroll_back',
  'scroll_till_selector',
] as const satisfies ReadonlyArray<keyof typeof animateParameters>;
