import type { OptionRule } from './option-rule.js';

/** The rules that tie the interaction parameters together. */
export const interactionRules: OptionRule[] = [
  ({ given, add }) => {
    if (given('scripts_wait_until') && !given('scripts')) add('invalid_parameter', 'scripts_wait_until', 'applies only with scripts');
  },
];
