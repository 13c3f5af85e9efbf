import { conflict, type OptionRule } from './option-rule.js';

const CLIP = ['clip_x', 'clip_y', 'clip_width', 'clip_height'] as const;

/** The rules that tie the element parameters together. */
export const elementRules: OptionRule[] = [
  conflict('selector', 'full_page', 'the element is captured whole already'),
  ...CLIP.map((c) => conflict('selector', c)),
  conflict('clip_x', 'full_page', 'clip_* names the area already'),
  ({ given, add }) => {
    const some = CLIP.filter((c) => given(c));
    if (some.length > 0 && some.length < CLIP.length) {
      for (const missing of CLIP.filter((c) => !given(c)))
        add('invalid_parameter', missing, `is required with ${some.join(', ')} (give all four clip_*)`);
    }
  },
  ({ given, add }) => {
    if (given('scroll_into_view_adjust_top') && !given('scroll_into_view')) {
      add('invalid_parameter', 'scroll_into_view_adjust_top', 'applies only with scroll_into_view');
    }
  },
];
