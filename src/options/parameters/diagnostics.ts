import { IMAGE_FORMATS } from '../../formats/registry.js';
import { booleanField } from '../fields.js';
import { meta } from './meta.js';

/** Know why a capture looks wrong: blank and bot-wall checks that can fail the capture, and debug bundles. */
export const diagnosticsParameters = {
  fail_if_blank: meta('waits', booleanField().default(false), {
    description:
      'Fail with 422 blank_capture (not charged) when the image is a single colour. Without it a blank image is answered ' +
      'with X-Shutter-Warning: blank.',
    allowed: 'boolean',
    default: 'false',
    formats: IMAGE_FORMATS,
  }),
  fail_on_bot_challenge: meta('waits', booleanField().default(false), {
    description:
      'Fail with 422 bot_challenge (not charged) when the page is a bot wall: a Cloudflare interstitial, an hCaptcha, ' +
      'reCAPTCHA or Turnstile challenge as the main content, or an "access denied" page answered with 403, 429 or 503. ' +
      'Without it such a capture is answered with X-Shutter-Warning: bot_challenge.',
    allowed: 'boolean',
    default: 'false',
  }),
  debug: meta('request', booleanField().default(false), {
    description:
      'Keep a debug bundle for 24 hours, readable by the same account at GET /v1/requests/{request_id} and in the ' +
      'dashboard: options (secrets redacted), step timeline, every network request of the page, console messages and ' +
      'page errors, a screenshot (also of a failed capture) and the main document’s HTML.',
    allowed: 'boolean',
    default: 'false',
  }),
};
