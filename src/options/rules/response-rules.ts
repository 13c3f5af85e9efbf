import type { OptionRule } from './option-rule.js';

/** metadata is part of the JSON answer: with any other response_type it would be computed and dropped. */
export const responseRules: OptionRule[] = [
  ({ o, given, add }) => {
    if (given('metadata') && o.metadata && o.response_type !== 'json') {
      add('invalid_parameter', 'metadata', 'needs response_type=json (metadata is part of the JSON answer)', {
        conflicts_with: 'response_type',
      });
    }
  },
];
