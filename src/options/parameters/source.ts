import { textField } from '../fields.js';
import { MAX_URL_CHARS, MAX_HTML_CHARS } from '../limits.js';
import { meta } from './meta.js';

/** Where the page comes from: exactly one of url and html. */
export const sourceParameters = {
  url: meta('source', textField(MAX_URL_CHARS, 'an absolute http(s) URL').optional(), {
    description: 'Page to capture. Exactly one of url and html.',
    allowed: `absolute http or https URL, at most ${MAX_URL_CHARS} characters`,
    example: 'https://example.com',
  }),
  html: meta('source', textField(MAX_HTML_CHARS, 'HTML text').optional(), {
    description: 'HTML to render instead of a URL (usually in a POST body). Exactly one of url and html.',
    allowed: 'HTML text, at most 5 MB',
    example: '<h1>Hello</h1>',
  }),
};
