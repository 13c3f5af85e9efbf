import { z } from 'zod';
import { FORMAT_ALIASES, FORMAT_NAMES_TEXT, FORMATS, QUALITY_FORMATS } from '../formats/registry.js';
import { parsePdfMargin } from './pdf-values.js';
import { booleanField, enumField, integerField, numberField, stringListField, textField } from './fields.js';

/** How the docs describe a parameter; read back by the docs and OpenAPI generators. */
export interface ParameterMeta {
  description: string;
  /** Type and allowed values, as the reference shows them. */
  allowed: string;
  /** Default as the reference shows it. */
  default?: string;
  /** Formats the parameter applies to; absent = all. */
  formats?: readonly string[];
  example?: string;
  /** A JSON Schema `default` for OpenAPI where the schema cannot hold one (it depends on other parameters). */
  jsonDefault?: unknown;
  [key: string]: unknown;
}

const meta = <T extends z.ZodType>(schema: T, m: ParameterMeta): T => schema.meta(m);

export const PAPER_FORMATS = ['a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'letter', 'legal', 'tabloid', 'ledger'] as const;
export const WAIT_UNTIL = ['load', 'domcontentloaded', 'networkidle0', 'networkidle2'] as const;
export const MAX_HIDE_SELECTORS = 50;
export const MAX_URL_CHARS = 2048;
export const MAX_HTML_CHARS = 5 * 1024 * 1024;
export const MAX_STYLES_CHARS = 100 * 1024;
/** Capture time caps of the spec, in seconds: url image captures, and pdf/markdown/html renders. */
export const TIMEOUT_CAP = { url: 90, short: 12 } as const;
export const DEFAULT_TIMEOUT = { url: 60, short: 12 } as const;

const PDF = ['pdf'] as const;

/**
 * Every parameter of GET/POST /v1/take: validation, defaults and docs in one place.
 * Rules that tie several parameters together live in parse-take-options.ts.
 */
export const takeParameters = {
  url: meta(textField(MAX_URL_CHARS, 'an absolute http(s) URL').optional(), {
    description: 'Page to capture. Exactly one of url and html.',
    allowed: `absolute http or https URL, at most ${MAX_URL_CHARS} characters`,
    example: 'https://example.com',
  }),
  html: meta(textField(MAX_HTML_CHARS, 'HTML text').optional(), {
    description: 'HTML to render instead of a URL (usually in a POST body). Exactly one of url and html.',
    allowed: 'HTML text, at most 5 MB',
    example: '<h1>Hello</h1>',
  }),
  format: meta(enumField(FORMATS, FORMAT_ALIASES).default('png'), {
    description: 'Output format.',
    allowed: FORMAT_NAMES_TEXT,
    default: 'png',
  }),
  quality: meta(integerField(0, 100).default(80), {
    description: 'Image quality of lossy formats.',
    allowed: 'integer 0–100',
    default: '80',
    formats: QUALITY_FORMATS,
  }),
  full_page: meta(booleanField().default(false), {
    description: 'Capture the whole scrollable page instead of the viewport (height capped by the operator).',
    allowed: 'boolean: 1, 0, true, false',
    default: 'false',
  }),
  viewport_width: meta(integerField(100, 3840).default(1280), {
    description: 'Viewport width in CSS pixels.',
    allowed: 'integer 100–3840',
    default: '1280',
  }),
  viewport_height: meta(integerField(100, 10000).default(800), {
    description: 'Viewport height in CSS pixels.',
    allowed: 'integer 100–10000',
    default: '800',
  }),
  device_scale_factor: meta(numberField(0.5, 3).default(1), {
    description: 'Device pixel ratio: 2 gives an image twice as wide and tall as the viewport.',
    allowed: 'number 0.5–3',
    default: '1',
  }),
  wait_until: meta(enumField(WAIT_UNTIL, { networkidle: 'networkidle0' }).default('load'), {
    description: 'When navigation counts as done: the load event, DOMContentLoaded, or no more than 0 / 2 network connections for 500 ms.',
    allowed: 'load, domcontentloaded, networkidle0, networkidle2 (networkidle = networkidle0)',
    default: 'load',
  }),
  delay: meta(numberField(0, 30).default(0), {
    description: 'Extra wait in seconds after the page is ready, before capturing. Must be less than timeout.',
    allowed: 'number of seconds 0–30',
    default: '0',
  }),
  timeout: meta(integerField(1, TIMEOUT_CAP.url).optional(), {
    description:
      'Time limit of the whole capture in seconds; past it the answer is 504 capture_timeout. ' +
      'Capped at 12 for pdf, markdown and any html input.',
    allowed: 'integer seconds: 1–90 for image captures of a url; 1–12 for pdf, markdown and html input',
    default: `${DEFAULT_TIMEOUT.url}, or ${DEFAULT_TIMEOUT.short} where the cap is ${TIMEOUT_CAP.short}`,
    // The JSON Schema default OpenAPI shows; parse-take-options picks the short one where it applies.
    jsonDefault: DEFAULT_TIMEOUT.url,
  }),
  stall_timeout: meta(integerField(1, 60).default(5), {
    description:
      'Seconds after which a request that has received nothing (a tracking pixel or script whose host hangs) stops holding ' +
      'wait_until, once the document is parsed: pending loads are stopped, the page is captured as it is, and the answer ' +
      'carries X-Shutter-Warning: partial_load.',
    allowed: 'integer seconds 1–60',
    default: '5',
  }),
  fail_on_partial_load: meta(booleanField().default(false), {
    description:
      'Be strict: wait for wait_until itself until timeout, then answer 504 capture_timeout naming the pending requests, ' +
      'instead of capturing a partly loaded page with X-Shutter-Warning: partial_load.',
    allowed: 'boolean',
    default: 'false',
  }),
  block_ads: meta(booleanField().default(false), {
    description: 'Block ads and trackers.',
    allowed: 'boolean',
    default: 'false',
  }),
  block_cookie_banners: meta(booleanField().default(false), {
    description: 'Dismiss or hide cookie consent banners.',
    allowed: 'boolean',
    default: 'false',
  }),
  block_chats: meta(booleanField().default(false), {
    description: 'Hide live chat widgets.',
    allowed: 'boolean',
    default: 'false',
  }),
  hide_selectors: meta(stringListField().default([]), {
    description:
      'CSS selectors of elements to hide (display: none), also when they are added later. ' +
      'Repeat the parameter: hide_selectors[]=.a&hide_selectors[]=.b (hide_selectors works too).',
    allowed: `CSS selectors, at most ${MAX_HIDE_SELECTORS}, each at most 500 characters`,
    default: 'none',
  }),
  styles: meta(textField(MAX_STYLES_CHARS, 'CSS text').optional(), {
    description: 'CSS injected into the page after it loads.',
    allowed: 'CSS text, at most 100 KB',
    example: 'body { background: #fff }',
  }),
  ip_country_code: meta(textField(16, 'a lowercase ISO 3166-1 alpha-2 code').optional(), {
    description: 'Load the page through a proxy in this country, as configured by the operator.',
    allowed: 'lowercase ISO 3166-1 alpha-2 code with a configured proxy',
  }),
  upload: meta(booleanField().default(false), {
    description: 'Store the file and answer JSON with a signed URL instead of the file.',
    allowed: 'boolean',
    default: 'false',
  }),
  attachment_name: meta(textField(255, 'a file name').optional(), {
    description: 'Download file name: sets Content-Disposition: attachment. The format extension is appended if missing.',
    allowed: 'file name, at most 255 characters, without / \\ or control characters',
    default: 'none (inline)',
  }),
  pdf_paper_format: meta(enumField(PAPER_FORMATS).default('a4'), {
    description: 'Paper size.',
    allowed: 'a0–a6, letter, legal, tabloid, ledger (case-insensitive)',
    default: 'a4',
    formats: PDF,
  }),
  pdf_landscape: meta(booleanField().default(false), {
    description: 'Landscape orientation.',
    allowed: 'boolean',
    default: 'false',
    formats: PDF,
  }),
  pdf_margin: meta(
    textField(100, 'CSS lengths')
      .default('0')
      .transform((text, ctx) => {
        const margin = parsePdfMargin(text);
        if (margin) return margin;
        ctx.addIssue({ code: 'custom', message: 'must be 1–4 lengths in px, mm, cm or in, e.g. 10mm or 0.5in 1in' });
        return z.NEVER;
      }),
    {
      description: 'Page margins: 1–4 CSS lengths in CSS shorthand order (top right bottom left).',
      allowed: 'lengths in px, mm, cm or in, e.g. 10mm or 0.5in 1in',
      default: '0',
      formats: PDF,
    },
  ),
  pdf_page_ranges: meta(textField(200, 'page ranges').optional(), {
    description: 'Pages to keep.',
    allowed: 'comma-separated pages and ranges, e.g. 1-3,5',
    default: 'all pages',
    formats: PDF,
  }),
  pdf_print_background: meta(booleanField().default(true), {
    description: 'Print background colours and images.',
    allowed: 'boolean',
    default: 'true',
    formats: PDF,
  }),
  pdf_media_type: meta(enumField(['print', 'screen'] as const).default('print'), {
    description: 'CSS media type the page is rendered with.',
    allowed: 'print, screen',
    default: 'print',
    formats: PDF,
  }),
  pdf_scale: meta(numberField(0.1, 2).default(1), {
    description: 'Rendering scale.',
    allowed: 'number 0.1–2',
    default: '1',
    formats: PDF,
  }),
  pdf_fit_one_page: meta(booleanField().default(false), {
    description: 'Put the whole page on a single PDF page as tall as the content.',
    allowed: 'boolean',
    default: 'false',
    formats: PDF,
  }),
};

export type ParameterName = keyof typeof takeParameters;
export const PARAMETER_NAMES = Object.keys(takeParameters) as ParameterName[];

export const takeSchema = z.object(takeParameters);

/** Options after validation, with every default applied. */
export type TakeOptions = Omit<z.output<typeof takeSchema>, 'timeout'> & { timeout: number };

/** Reads a parameter's docs metadata back from the schema. */
export function parameterMeta(name: ParameterName): ParameterMeta {
  return takeParameters[name].meta() as ParameterMeta;
}
