import { booleanField, textField } from '../fields.js';
import { meta } from './meta.js';

export const MAX_EXTERNAL_ID_CHARS = 128;
export const MAX_WEBHOOK_URL_CHARS = 2048;

/** Async captures (DESIGN.md §4.3): queue the capture as a job, store the result, report it by webhook. */
export const jobParameters = {
  async: meta('output', booleanField().default(false), {
    description:
      'Queue the capture as a job: 202 with job_id and status_url at once; the file is stored like upload=1 and ' +
      'GET /v1/jobs/{job_id} (or the webhook) gives its link. The quota unit is held while queued and charged on success only.',
    allowed: 'boolean',
    default: 'false',
  }),
  webhook_url: meta('output', textField(MAX_WEBHOOK_URL_CHARS, 'an absolute http(s) URL').optional(), {
    description:
      'With async=1: where the job JSON is POSTed when the job ends, signed with X-Shutter-Signature: t=<unix>,v1=<HMAC-SHA256 ' +
      'of "t.body" with the key’s signing secret>. Non-2xx or no answer in 10 s is retried with backoff (7 tries over about an hour). ' +
      'The address must be public, like a capture target.',
    allowed: `absolute http or https URL, at most ${MAX_WEBHOOK_URL_CHARS} characters`,
    example: 'https://example.com/hooks/shutter',
  }),
  external_id: meta('output', textField(MAX_EXTERNAL_ID_CHARS, 'text').optional(), {
    description: 'With async=1: your own reference, echoed in the job and its webhook.',
    allowed: `text, at most ${MAX_EXTERNAL_ID_CHARS} characters`,
    example: 'order-1234',
  }),
};
