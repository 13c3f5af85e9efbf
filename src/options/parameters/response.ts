import { booleanField, enumField } from '../fields.js';
import { meta } from './meta.js';

export const RESPONSE_TYPES = ['by_format', 'json', 'empty'] as const;

/** How the answer is shaped: the file, JSON about it (with page metadata), or nothing. */
export const responseParameters = {
  response_type: meta('output', enumField(RESPONSE_TYPES).default('by_format'), {
    description:
      'by_format: the file itself; json: JSON with the request id, format, size, image width and height, timings and warnings, ' +
      'the file as data_base64 (up to 10 MB) or its url when stored (upload=1), and page metadata with metadata=1; ' +
      'empty: 200 without a body.',
    allowed: RESPONSE_TYPES.join(', '),
    choices: RESPONSE_TYPES,
    default: 'by_format',
  }),
  metadata: meta('output', booleanField().default(false), {
    description:
      'With response_type=json: the page’s title, description, Open Graph and Twitter card tags, icons, canonical and final URL, ' +
      'the main document’s HTTP status and headers (without Set-Cookie), the web fonts it used and its height.',
    allowed: 'boolean',
    default: 'false',
  }),
};
