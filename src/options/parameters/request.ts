import { textField } from '../fields.js';
import { meta } from './meta.js';

/** How the page is requested. */
export const requestParameters = {
  ip_country_code: meta('request', textField(16, 'a lowercase ISO 3166-1 alpha-2 code').optional(), {
    description: 'Load the page through a proxy in this country, as configured by the operator.',
    allowed: 'lowercase ISO 3166-1 alpha-2 code with a configured proxy',
  }),
};
