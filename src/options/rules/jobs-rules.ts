import type { OptionRule } from './option-rule.js';

/** webhook_url and external_id describe a job; an async capture answers with a job, so the answer's shape and the cache do not apply. */
export const jobRules: OptionRule[] = [
  ({ o, given, add }) => {
    for (const name of ['webhook_url', 'external_id'] as const) {
      if (given(name) && !o.async) add('invalid_parameter', name, 'needs async=1 (it belongs to a job)', { conflicts_with: 'async' });
    }
    if (given('webhook_url') && o.webhook_url !== undefined) {
      let url: URL | undefined;
      try {
        url = new URL(o.webhook_url);
      } catch {
        url = undefined;
      }
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
        add('invalid_parameter', 'webhook_url', 'must be an absolute http or https URL');
      }
    }
  },
  ({ o, add }) => {
    if (!o.async) return;
    if (o.cache)
      add('invalid_parameter', 'cache', 'cannot be combined with async=1: a job stores its own result', { conflicts_with: 'async' });
    if (o.response_type !== undefined && o.response_type !== 'by_format') {
      add('invalid_parameter', 'response_type', 'cannot be combined with async=1: a job answers 202 with the job', {
        conflicts_with: 'async',
      });
    }
  },
];
