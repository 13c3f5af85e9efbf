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
  ({ o, given, add }) => {
    if (!given('extra_formats') || !o.extra_formats) return;
    if (o.response_type !== 'json' && !o.upload && !o.async) {
      add('invalid_parameter', 'extra_formats', 'needs response_type=json, upload=1 or async=1: several files cannot be one answer', {
        conflicts_with: 'response_type',
      });
    }
    if (o.format !== undefined && o.extra_formats.includes(o.format)) {
      add('invalid_parameter', 'extra_formats', `holds ${o.format}, which is format already`, { conflicts_with: 'format' });
    }
    if (new Set(o.extra_formats).size !== o.extra_formats.length) add('invalid_parameter', 'extra_formats', 'names a format twice');
  },
];
