import type { ErrorDetail } from '../errors/app-error.js';
import { animateParameters, GIF_MAX_FPS, SCROLL_PARAMETERS } from './parameters/animate.js';
import { collectTakeOptions, normalize, validationError, type ParseContext } from './parse-take-options.js';
import { PARAMETER_NAMES, type AnimationOptions, type ParameterName, type TakeOptions } from './schema.js';

/**
 * The take parameters that apply to an animation (DESIGN.md §5.3): what loads, lays out, shapes and
 * prepares the page, and how the answer is delivered. The others (quality, full_page, selector,
 * clip_*, pdf_*, …) describe one still image and are 400 parameter_not_applicable here.
 */
export const ANIMATE_TAKE_PARAMETERS = [
  'url',
  'html',
  'response_type',
  'upload',
  'attachment_name',
  'cache',
  'cache_ttl',
  'cache_key',
  'async',
  'webhook_url',
  'external_id',
  'viewport_width',
  'viewport_height',
  'device_scale_factor',
  'viewport_device',
  'viewport_mobile',
  'viewport_has_touch',
  'viewport_landscape',
  'dark_mode',
  'reduced_motion',
  'media_type',
  'time_zone',
  'locale',
  'geolocation_latitude',
  'geolocation_longitude',
  'geolocation_accuracy',
  'user_agent',
  'bypass_csp',
  'image_width',
  'image_height',
  'scroll_into_view',
  'scroll_into_view_adjust_top',
  'hide_selectors',
  'styles',
  'wait_for_selector',
  'scripts',
  'scripts_wait_until',
  'click',
  'hover',
  'error_on_click_selector_not_found',
  'block_ads',
  'block_cookie_banners',
  'block_chats',
  'block_trackers',
  'block_requests',
  'block_resources',
  'wait_until',
  'delay',
  'timeout',
  'stall_timeout',
  'fail_on_partial_load',
  'fail_if_content_contains',
  'fail_if_content_missing',
  'fail_on_http_status',
  'fail_on_bot_challenge',
  'debug',
  'ip_country_code',
  'headers',
  'cookies',
] as const satisfies readonly ParameterName[];

const APPLIES: ReadonlySet<string> = new Set(ANIMATE_TAKE_PARAMETERS);
type AnimateName = keyof typeof animateParameters;
const ANIMATE_NAMES = Object.keys(animateParameters) as AnimateName[];
const OWN: ReadonlySet<string> = new Set(ANIMATE_NAMES);

/**
 * Validates GET/POST /v1/animate parameters: the page's options by take's own parse (the same
 * schema entries, rules and messages), the animation's by parameters/animate.ts; every problem of
 * both goes into one 400. The result is take's options with the video's format and `animation`.
 */
export function parseAnimateOptions(raw: Record<string, unknown>, context: ParseContext): TakeOptions {
  const input = normalize(raw);
  const details: ErrorDetail[] = [];
  const page: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const own: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input)) {
    if (OWN.has(name)) own[name] = value;
    else if ((PARAMETER_NAMES as string[]).includes(name) && !APPLIES.has(name)) {
      details.push({ code: 'parameter_not_applicable', parameter: name, message: 'does not apply to an animation (/v1/animate)' });
    } else page[name] = value;
  }
  const options = collectTakeOptions(page, context, details, { longCapOnly: true, otherNames: ANIMATE_NAMES });
  const animation = parseOwn(own, details);
  checkTogether(animation, options, own, details);
  if (details.length > 0 || !options) throw validationError(details);
  return { ...options, format: animation.format!, animation: animation as AnimationOptions };
}

/** Each parameter on its own, so that the rules across them still run when one is bad. */
function parseOwn(own: Record<string, unknown>, details: ErrorDetail[]): Partial<AnimationOptions> {
  const values: Record<string, unknown> = {};
  for (const name of ANIMATE_NAMES) {
    const result = animateParameters[name].safeParse(own[name]);
    if (result.success) values[name] = result.data;
    else {
      details.push({
        code: 'invalid_parameter',
        parameter: name,
        message: result.error.issues[0]?.message ?? 'is invalid',
        value: typeof own[name] === 'string' ? (own[name] as string).slice(0, 200) : own[name],
      });
    }
  }
  return values as Partial<AnimationOptions>;
}

/** The rules that tie an animation's parameters to each other and to the page's. */
function checkTogether(
  a: Partial<AnimationOptions>,
  o: TakeOptions | undefined,
  own: Record<string, unknown>,
  details: ErrorDetail[],
): void {
  if (a.format === 'gif' && a.fps !== undefined && a.fps > GIF_MAX_FPS) {
    details.push({ code: 'invalid_parameter', parameter: 'fps', message: `must be at most ${GIF_MAX_FPS} for gif`, value: a.fps });
  }
  if (a.scenario === 'default') {
    for (const name of SCROLL_PARAMETERS.filter((n) => own[n] !== undefined)) {
      details.push({ code: 'parameter_not_applicable', parameter: name, message: 'applies only with scenario=scroll' });
    }
  }
  // The recording starts once the page is ready; what is left of the timeout must hold it.
  if (o && a.duration !== undefined && o.timeout <= a.duration + o.delay) {
    details.push({
      code: 'invalid_parameter',
      parameter: 'timeout',
      message: `must be more than duration + delay (${a.duration + o.delay} s): the recording and the page's load share it`,
      value: o.timeout,
    });
  }
}
