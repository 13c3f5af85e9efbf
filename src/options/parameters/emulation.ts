import { z } from 'zod';
import { SCREEN_FORMATS } from '../../formats/registry.js';
import { DEVICE_NAMES, DEVICES } from '../devices.js';
import { didYouMean } from '../did-you-mean.js';
import { booleanField, enumField, numberField, textField } from '../fields.js';
import { meta } from './meta.js';

const TIME_ZONES = new Set([...Intl.supportedValuesOf('timeZone'), 'UTC', 'Etc/UTC', 'GMT']);
const LOCALE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

const deviceField = textField(64, 'a device name').transform((text, ctx) => {
  const name = text.trim().toLowerCase();
  if (DEVICES.has(name)) return name;
  const hint = didYouMean(name, DEVICE_NAMES);
  ctx.addIssue({ code: 'custom', message: `unknown device${hint ? `; did you mean ${hint}?` : ''} (GET /v1/devices lists them)` });
  return z.NEVER;
});

const timeZoneField = textField(64, 'an IANA time zone').refine((tz) => TIME_ZONES.has(tz), {
  message: 'must be an IANA time zone name such as Europe/Berlin or America/New_York',
});

const localeField = textField(35, 'a BCP 47 language tag').transform((tag, ctx) => {
  try {
    if (LOCALE.test(tag)) return Intl.getCanonicalLocales(tag)[0]!;
  } catch {
    // falls through to the issue below
  }
  ctx.addIssue({ code: 'custom', message: 'must be a BCP 47 language tag such as de-DE or en' });
  return z.NEVER;
});

// eslint-disable-next-line no-control-regex
const userAgentField = textField(1024, 'a user agent').refine((ua) => !/[\u0000-\u001f\u007f]/.test(ua), {
  message: 'must not contain control characters (CR, LF, …)',
});

/** A real device, a phone or tablet, dark mode and the rest of what the page is told about its visitor. */
export const emulationParameters = {
  viewport_device: meta('viewport', deviceField.optional(), {
    description:
      'Emulate a real device: its viewport, pixel ratio, user agent, mobile and touch (Playwright’s descriptors; GET /v1/devices lists them). ' +
      'viewport_width, viewport_height, device_scale_factor, viewport_mobile, viewport_has_touch and user_agent, when given, override it.',
    allowed: 'a device name from GET /v1/devices, e.g. iphone_15_pro, pixel_7, ipad_pro_11',
    example: 'iphone_15_pro',
  }),
  viewport_mobile: meta('viewport', booleanField().optional(), {
    description: 'Mobile emulation: the meta viewport tag is honoured and the page may serve its mobile layout.',
    allowed: 'boolean',
    default: 'false, or the device’s',
  }),
  viewport_has_touch: meta('viewport', booleanField().optional(), {
    description: 'Report a touch screen to the page (touch events, pointer: coarse).',
    allowed: 'boolean',
    default: 'false, or the device’s',
  }),
  viewport_landscape: meta('viewport', booleanField().default(false), {
    description: 'Landscape: swaps the viewport’s width and height (the device’s or the given ones).',
    allowed: 'boolean',
    default: 'false',
  }),
  dark_mode: meta('page', booleanField().default(false), {
    description: 'Tell the page the visitor prefers a dark colour scheme (prefers-color-scheme: dark).',
    allowed: 'boolean',
    default: 'false',
  }),
  reduced_motion: meta('page', booleanField().default(false), {
    description: 'prefers-reduced-motion: reduce, and CSS animations and transitions paused, so the capture is steady.',
    allowed: 'boolean',
    default: 'false',
  }),
  media_type: meta('page', enumField(['screen', 'print'] as const).default('screen'), {
    description: 'CSS media type the page is rendered with (pdf has pdf_media_type).',
    allowed: 'screen, print',
    choices: ['screen', 'print'],
    default: 'screen',
    // pdf has its own pdf_media_type.
    formats: SCREEN_FORMATS,
  }),
  time_zone: meta('page', timeZoneField.optional(), {
    description: 'Time zone the page sees (Date, Intl).',
    allowed: 'IANA time zone name, e.g. Europe/Berlin',
    default: 'the server’s',
    example: 'Europe/Berlin',
  }),
  locale: meta('page', localeField.optional(), {
    description: 'Language of the visitor: navigator.language and the Accept-Language header.',
    allowed: 'BCP 47 language tag, e.g. de-DE',
    default: 'en-US',
    example: 'de-DE',
  }),
  geolocation_latitude: meta('page', numberField(-90, 90).optional(), {
    description: 'Position the page gets from navigator.geolocation (with geolocation_longitude); the permission is granted.',
    allowed: 'number −90 to 90',
  }),
  geolocation_longitude: meta('page', numberField(-180, 180).optional(), {
    description: 'Longitude of that position (with geolocation_latitude).',
    allowed: 'number −180 to 180',
  }),
  geolocation_accuracy: meta('page', numberField(0, 100_000).optional(), {
    description: 'Accuracy of that position in metres.',
    allowed: 'number of metres 0–100000',
    default: '0',
  }),
  user_agent: meta('request', userAgentField.optional(), {
    description: 'User-Agent header and navigator.userAgent.',
    allowed: 'text, at most 1024 characters, no control characters',
    default: 'Chromium’s, as a desktop Chrome on Linux (or the device’s)',
  }),
  bypass_csp: meta('request', booleanField().default(false), {
    description:
      'Ignore the page’s Content-Security-Policy, e.g. so scripts the page adds from elsewhere run. ' +
      'hide_selectors and styles work on strict-CSP pages without it.',
    allowed: 'boolean',
    default: 'false',
  }),
};

/** What a device decides, as the options carry it once resolved. */
interface ScreenOptions {
  viewport_device?: string | undefined;
  viewport_width: number;
  viewport_height: number;
  device_scale_factor: number;
  viewport_mobile?: boolean | undefined;
  viewport_has_touch?: boolean | undefined;
  viewport_landscape: boolean;
  user_agent?: string | undefined;
}

/**
 * The screen the capture gets: the device's values where the caller gave none, then landscape.
 * After this the options carry final values (the pixel budget and the engine read only these).
 */
export function resolveScreen<T extends ScreenOptions>(o: T, given: (name: keyof ScreenOptions) => boolean): T {
  const device = o.viewport_device ? DEVICES.get(o.viewport_device) : undefined;
  const out = { ...o };
  if (device) {
    if (!given('viewport_width')) out.viewport_width = device.viewport.width;
    if (!given('viewport_height')) out.viewport_height = device.viewport.height;
    if (!given('device_scale_factor')) out.device_scale_factor = device.device_scale_factor;
    if (!given('user_agent')) out.user_agent = device.user_agent;
  }
  out.viewport_mobile = o.viewport_mobile ?? device?.mobile ?? false;
  out.viewport_has_touch = o.viewport_has_touch ?? device?.has_touch ?? false;
  if (o.viewport_landscape) [out.viewport_width, out.viewport_height] = [out.viewport_height, out.viewport_width];
  return out;
}
