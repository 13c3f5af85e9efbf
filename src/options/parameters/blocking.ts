import { booleanField, listOf, textField } from '../fields.js';
import { MAX_BLOCK_REQUESTS, RESOURCE_TYPES } from '../limits.js';
import { enumField } from '../fields.js';
import { meta } from './meta.js';

/** What is kept off the page. */
export const blockingParameters = {
  block_ads: meta('blocking', booleanField().default(false), {
    description: 'Block ads and trackers.',
    allowed: 'boolean',
    default: 'false',
  }),
  block_cookie_banners: meta('blocking', booleanField().default(false), {
    description: 'Dismiss or hide cookie consent banners.',
    allowed: 'boolean',
    default: 'false',
  }),
  block_chats: meta('blocking', booleanField().default(false), {
    description: 'Hide live chat widgets.',
    allowed: 'boolean',
    default: 'false',
  }),
  block_trackers: meta('blocking', booleanField().default(false), {
    description: 'Block trackers only (EasyPrivacy); block_ads blocks ads and trackers.',
    allowed: 'boolean',
    default: 'false',
  }),
  block_requests: meta('blocking', listOf(textField(2000, 'a URL pattern'), MAX_BLOCK_REQUESTS).optional(), {
    description:
      'Abort requests whose URL matches one of these patterns; * matches any characters and the pattern covers the whole URL ' +
      '(*.woff2, https://cdn.example.com/*, *analytics*). Repeat the parameter.',
    allowed: `URL patterns with * wildcards, at most ${MAX_BLOCK_REQUESTS}`,
    example: '*/analytics.js*',
  }),
  block_resources: meta('blocking', listOf(enumField(RESOURCE_TYPES), RESOURCE_TYPES.length, { commas: true }).optional(), {
    description:
      'Abort requests of these resource types (the page’s own document is never blocked). Repeat the parameter or separate them with commas.',
    allowed: RESOURCE_TYPES.join(', '),
    example: 'font',
  }),
};
