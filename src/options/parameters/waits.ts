import { SHORT_CAP_FORMATS, type Format } from '../../formats/registry.js';
import { booleanField, enumField, integerField, numberField } from '../fields.js';
import { WAIT_UNTIL, TIMEOUT_CAP, DEFAULT_TIMEOUT } from '../limits.js';
import { meta } from './meta.js';

/** Where the short time cap and the short default timeout apply, as the docs state it. */
const SHORT_CAP_CASES = `format ${SHORT_CAP_FORMATS.join(', ').replace(/, ([^,]*)$/, ' or $1')}, and any html input`;

/** True where a capture gets the short time cap and the short default timeout: a whole-document format, or html input. */
export const hasShortCap = (format: Format | undefined, htmlInput: boolean): boolean =>
  htmlInput || (format !== undefined && SHORT_CAP_FORMATS.includes(format));

/** When the page counts as ready, and how long a capture may take. */
export const waitsParameters = {
  wait_until: meta('waits', enumField(WAIT_UNTIL, { networkidle: 'networkidle0' }).default('load'), {
    description:
      'When navigation counts as done: the load event, DOMContentLoaded, no more than 0 / 2 network connections for 500 ms, ' +
      'or ready: load, web fonts loaded, images decoded, no fetch/XHR for 500 ms and a still layout for 300 ms ("looks finished").',
    allowed: 'load, domcontentloaded, networkidle0, networkidle2, ready (networkidle = networkidle0)',
    choices: WAIT_UNTIL,
    default: 'load',
  }),
  delay: meta('waits', numberField(0, 30).default(0), {
    description: 'Extra wait in seconds after the page is ready, before capturing. Must be less than timeout.',
    allowed: 'number of seconds 0–30',
    default: '0',
  }),
  // The schema's default is the url image capture's; parse-take-options puts the short one
  // (defaultWhen) where hasShortCap holds, so the value still depends on the format and the input.
  timeout: meta('waits', integerField(1, TIMEOUT_CAP.url).default(DEFAULT_TIMEOUT.url), {
    description:
      'Time limit of the whole capture in seconds; past it the answer is 504 capture_timeout. ' +
      `Capped at ${TIMEOUT_CAP.short} for ${SHORT_CAP_CASES}.`,
    allowed: `integer seconds: 1–${TIMEOUT_CAP.url} for image captures of a url; 1–${TIMEOUT_CAP.short} for ${SHORT_CAP_CASES}`,
    default: `${DEFAULT_TIMEOUT.url}, or ${DEFAULT_TIMEOUT.short} where the cap is ${TIMEOUT_CAP.short}`,
    defaultWhen: [{ when: SHORT_CAP_CASES, default: DEFAULT_TIMEOUT.short }],
  }),
  stall_timeout: meta('waits', integerField(1, 60).default(5), {
    description:
      'Seconds after which a request that has received nothing (a tracking pixel or script whose host hangs) stops holding ' +
      'wait_until, once the main document has arrived: pending loads are stopped, the page is captured as it is, and the answer ' +
      'carries X-Shutter-Warning: partial_load.',
    allowed: 'integer seconds 1–60',
    default: '5',
  }),
  fail_on_partial_load: meta('waits', booleanField().default(false), {
    description:
      'Be strict: wait for wait_until itself until timeout, then answer 504 capture_timeout naming the pending requests, ' +
      'instead of capturing a partly loaded page with X-Shutter-Warning: partial_load.',
    allowed: 'boolean',
    default: 'false',
  }),
};
