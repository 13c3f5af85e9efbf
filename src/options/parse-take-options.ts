import type { z } from 'zod';
import { AppError, type ErrorDetail } from '../errors/app-error.js';
import type { ErrorCode } from '../errors/error-codes.js';
import { isValidAttachmentName } from './attachment-name.js';
import { didYouMean } from './did-you-mean.js';
import { formatOf } from '../formats/registry.js';
import { pixelBudgetProblems } from './pixel-budget.js';
import { parsePageRanges } from './pdf-values.js';
import { DEFAULT_TIMEOUT, MAX_HIDE_SELECTORS, TIMEOUT_CAP } from './limits.js';
import { hasShortCap } from './parameters/waits.js';
import { resolveScreen } from './parameters/emulation.js';
import type { AddProblem } from './rules/option-rule.js';
import { OPTION_RULES } from './rules/option-rules.js';
import { PARAMETER_NAMES, parameterMeta, takeParameters, takeSchema, type ParameterName, type TakeOptions } from './schema.js';
import { isValidSelector } from './selectors.js';

export interface ParseContext {
  /** Country codes with a proxy configured by the operator. */
  countries: readonly string[];
  /** SHUTTER_MAX_PIXELS: a viewport image over it is a 400 (checked when given). */
  maxPixels?: number;
}

/** Parameters that are accepted but belong to the transport, not to the capture. */
const TRANSPORT_PARAMETERS = new Set(['apikey']);

const ECHO_MAX_CHARS = 200;
const MAX_SUGGESTIONS = 20;

/** When one request has several kinds of problem, the top-level code is the first of these present. */
const CODE_PRIORITY: ErrorCode[] = [
  'missing_source',
  'conflicting_source',
  'unknown_parameter',
  'parameter_not_applicable',
  'invalid_parameter',
];

/** Folds `hide_selectors[]` into `hide_selectors` and drops transport parameters. */
export function normalize(raw: Record<string, unknown>): Record<string, unknown> {
  // No prototype: a parameter named __proto__ or constructor is just an unknown name.
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [key, value] of Object.entries(raw)) {
    if (TRANSPORT_PARAMETERS.has(key) || value === undefined) continue;
    const name = key.endsWith('[]') ? key.slice(0, -2) : key;
    if (Object.hasOwn(out, name)) {
      out[name] = ([] as unknown[]).concat(out[name], value);
    } else {
      out[name] = value;
    }
  }
  return out;
}

/** Other names accepted for a parameter. */
const PARAMETER_ALIASES: ReadonlyMap<string, ParameterName> = new Map([['image_quality', 'quality']]);

/**
 * Validates GET query or POST body parameters into TakeOptions. Every problem of the
 * request is collected and thrown together as one AppError with details.
 */
export function parseTakeOptions(raw: Record<string, unknown>, context: ParseContext): TakeOptions {
  const details: ErrorDetail[] = [];
  const options = collectTakeOptions(normalize(raw), context, details);
  if (details.length === 0) return options!;
  throw validationError(details);
}

/** How another endpoint's parse uses take's (parse-animate-options.ts). */
export interface TakeParseProfile {
  /** The time cap is the url capture's whatever the input: an animation plays for its duration, html or not. */
  longCapOnly?: boolean;
  /** Further names an unknown parameter may be a misspelling of. */
  otherNames?: readonly string[];
}

/**
 * take's parse of normalized input: every problem goes into `details`; the options when there is
 * none of its own (the caller decides whether others are).
 */
export function collectTakeOptions(
  input: Record<string, unknown>,
  context: ParseContext,
  details: ErrorDetail[],
  profile: TakeParseProfile = {},
): TakeOptions | undefined {
  const before = details.length;
  const add: AddProblem = (code, parameter, message, extra = {}) => {
    details.push({ code, parameter, message, ...extra });
  };
  const suggestable = profile.otherNames ? [...PARAMETER_NAMES, ...profile.otherNames] : PARAMETER_NAMES;

  const known: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  let unknownCount = 0;
  for (const [given, value] of Object.entries(input)) {
    // ScreenshotOne's names for ours (docs/migrating-from-screenshotone.md); ours win a tie.
    const alias = PARAMETER_ALIASES.get(given);
    const key = alias !== undefined && input[alias] === undefined ? alias : given;
    if ((PARAMETER_NAMES as string[]).includes(key)) {
      known[key] = value;
    } else {
      // Suggestions cost an edit distance per known name: a flood of unknown names gets them for the first few only.
      const suggestion = unknownCount++ < MAX_SUGGESTIONS ? didYouMean(key, suggestable) : undefined;
      add('unknown_parameter', key, `unknown parameter${suggestion ? `; did you mean ${suggestion}?` : ''}`, {
        ...(suggestion ? { suggestion } : {}),
      });
    }
  }

  // Each field is parsed on its own so that rules across fields still run when one field is bad.
  const values: Record<string, unknown> = {};
  for (const name of PARAMETER_NAMES) {
    const result = takeParameters[name].safeParse(known[name]);
    if (result.success) {
      values[name] = result.data;
    } else {
      add('invalid_parameter', name, result.error.issues[0]?.message ?? 'is invalid', { value: echo(known[name]) });
    }
  }
  const o = values as Partial<z.output<typeof takeSchema>>;
  const given = (name: ParameterName) => known[name] !== undefined;
  const valid = (name: ParameterName) => values[name] !== undefined;

  if (!given('url') && !given('html')) {
    add('missing_source', 'url', 'give either url or html');
  } else if (given('url') && given('html')) {
    add('conflicting_source', 'html', 'give either url or html, not both');
  }
  checkUrl(o.url, add);

  if (o.format !== undefined) {
    for (const name of PARAMETER_NAMES) {
      const formats = parameterMeta(name).formats;
      if (given(name) && formats && !formats.includes(o.format)) {
        add('parameter_not_applicable', name, `applies only to format ${formats.join(', ')}, not ${o.format}`);
      }
    }
  }
  const shortCap = !profile.longCapOnly && hasShortCap(o.format, given('html'));
  const cap = shortCap ? TIMEOUT_CAP.short : TIMEOUT_CAP.url;
  // The schema's default (o.timeout when not given) is the url capture's; pdf, markdown and html input get the short one.
  const timeout = shortCap && !given('timeout') ? DEFAULT_TIMEOUT.short : o.timeout;
  if (timeout !== undefined) {
    if (timeout > cap) {
      add('invalid_parameter', 'timeout', `must be at most ${cap} seconds for pdf, markdown and html input`, { value: o.timeout });
    } else if (o.delay !== undefined && o.delay >= timeout) {
      add('invalid_parameter', 'delay', `must be less than timeout (${timeout} s)`, { value: echo(o.delay) });
    }
  }
  if (o.hide_selectors) checkSelectors(o.hide_selectors, add);
  if (o.ip_country_code !== undefined) checkCountry(o.ip_country_code, context.countries, add);
  if (o.attachment_name !== undefined && !isValidAttachmentName(o.attachment_name)) {
    add('invalid_parameter', 'attachment_name', 'must be a file name without / \\ or control characters');
  }
  if (o.pdf_page_ranges !== undefined && !parsePageRanges(o.pdf_page_ranges)) {
    add('invalid_parameter', 'pdf_page_ranges', 'must be pages and ascending ranges from 1, e.g. 1-3,5', {
      value: echo(o.pdf_page_ranges),
    });
  }
  for (const rule of OPTION_RULES) rule({ o, given, add });
  const viewportValid = ['viewport_width', 'viewport_height', 'device_scale_factor', 'viewport_device'].every(
    (name) => valid(name as ParameterName) || !given(name as ParameterName),
  );
  // The device's screen where the caller gave none: the budget and the engine see final values.
  const screen = viewportValid ? resolveScreen(o as z.output<typeof takeSchema>, given) : undefined;
  if (screen && context.maxPixels !== undefined && o.format !== undefined && formatOf(o.format).kind === 'image') {
    details.push(...pixelBudgetProblems(screen, context.maxPixels));
  }
  return details.length === before ? { ...(screen as TakeOptions), timeout: timeout! } : undefined;
}

let defaults: Readonly<TakeOptions> | undefined;

/**
 * Every option at the schema's default, the screen resolved as for a request that gives none: what a
 * url capture with no options uses (no source is set). Derived once from the schema.
 */
export function defaultTakeOptions(): Readonly<TakeOptions> {
  defaults ??= Object.freeze(resolveScreen(takeSchema.parse({}), () => false) as TakeOptions);
  return defaults;
}

function checkUrl(url: string | undefined, add: AddProblem) {
  if (url === undefined) return;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    add('invalid_parameter', 'url', 'must be an absolute http or https URL', { value: echo(url) });
    return;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    add('invalid_parameter', 'url', `the scheme ${parsed.protocol} is not allowed; use http or https`, { value: echo(url) });
  }
}

function checkSelectors(selectors: string[], add: AddProblem) {
  if (selectors.length > MAX_HIDE_SELECTORS) {
    add('invalid_parameter', 'hide_selectors', `at most ${MAX_HIDE_SELECTORS} selectors, got ${selectors.length}`);
    return;
  }
  for (const selector of selectors) {
    if (selector.length > 500) {
      add('invalid_parameter', 'hide_selectors', 'each selector must be at most 500 characters', { value: echo(selector) });
    } else if (!isValidSelector(selector)) {
      add('invalid_parameter', 'hide_selectors', 'is not a valid CSS selector', { value: echo(selector) });
    }
  }
}

function checkCountry(code: string, countries: readonly string[], add: AddProblem) {
  const list = countries.length ? countries.join(', ') : 'none (the operator has configured no proxies)';
  if (!/^[a-z]{2}$/.test(code)) {
    add('invalid_parameter', 'ip_country_code', `must be a lowercase ISO 3166-1 alpha-2 code; available: ${list}`, {
      value: code,
    });
  } else if (!countries.includes(code)) {
    add('invalid_parameter', 'ip_country_code', `no proxy is configured for ${code}; available: ${list}`, { value: echo(code) });
  }
}

/** Echoes a bad value back, cut short: a 6 MB html must not come back in the error. */
function echo(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return value.length > ECHO_MAX_CHARS ? `${value.slice(0, ECHO_MAX_CHARS)}…` : value;
  if (Array.isArray(value)) {
    if (value.length > MAX_HIDE_SELECTORS) return `[${value.length} values]`;
    return depth > 2 ? '[…]' : value.map((v) => echo(v, depth + 1));
  }
  if (value !== null && typeof value === 'object') {
    // Every string inside is cut too; nesting is kept shallow and wide objects are summarised.
    const entries = Object.entries(value);
    if (depth > 2 || entries.length > MAX_HIDE_SELECTORS) return `{${entries.length} fields}`;
    return Object.fromEntries(entries.map(([k, v]) => [echo(k, depth + 1) as string, echo(v, depth + 1)]));
  }
  return value;
}

/** One 400 for every problem of a request, its code the most telling of theirs. */
export function validationError(details: ErrorDetail[]): AppError {
  const code = CODE_PRIORITY.find((c) => details.some((d) => d.code === c)) ?? 'invalid_parameter';
  const first = details.find((d) => d.code === code)!;
  const more = details.length > 1 ? ` (and ${details.length - 1} more problem${details.length > 2 ? 's' : ''})` : '';
  return new AppError(code, `${first.parameter}: ${first.message}${more}`, { details });
}
