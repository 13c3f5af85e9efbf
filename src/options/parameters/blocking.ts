import { booleanField } from '../fields.js';
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
};
