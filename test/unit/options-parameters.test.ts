import { describe, expect, it } from 'vitest';
import { AppError, type ErrorDetail } from '../../src/errors/app-error.js';
import type { ErrorCode } from '../../src/errors/error-codes.js';
import { defaultTakeOptions, parseTakeOptions } from '../../src/options/parse-take-options.js';
import { parsePdfMargin } from '../../src/options/pdf-values.js';
import { PARAMETER_NAMES, type ParameterName, type TakeOptions } from '../../src/options/schema.js';

type Raw = Record<string, unknown>;

const URL_ = 'https://example.com/';

function parse(raw: Raw, countries: readonly string[] = []): TakeOptions {
  return parseTakeOptions(raw, { countries });
}

/** The AppError parseTakeOptions throws for raw; fails the test when it does not throw one. */
function failure(raw: Raw, countries: readonly string[] = []): AppError {
  let thrown: unknown;
  try {
    parse(raw, countries);
  } catch (e) {
    thrown = e;
  }
  if (thrown === undefined) throw new Error(`expected a validation error for ${JSON.stringify(raw).slice(0, 200)}`);
  expect(thrown).toBeInstanceOf(AppError);
  const error = thrown as AppError;
  expect(error.status).toBe(400);
  return error;
}

function detailsOf(raw: Raw, countries: readonly string[] = []): ErrorDetail[] {
  const details = failure(raw, countries).extra.details;
  expect(details).toBeDefined();
  return details!;
}

/** Exactly one problem, with this code and parameter. */
function expectOneProblem(raw: Raw, parameter: string, code: ErrorCode = 'invalid_parameter', countries: string[] = []) {
  const error = failure(raw, countries);
  expect(error.code).toBe(code);
  expect(error.extra.details).toHaveLength(1);
  expect(error.extra.details![0]).toMatchObject({ code, parameter });
  return error.extra.details![0]!;
}

/** A short test title for a value that may be megabytes long. */
function label(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 30)}… (${text.length} chars)` : text;
}

const BOOLEAN_VALID: Array<[unknown, boolean]> = [
  ['1', true],
  ['0', false],
  ['true', true],
  ['false', false],
  [true, true],
  [false, false],
  [1, true],
  [0, false],
];
const BOOLEAN_INVALID: unknown[] = ['yes', 'no', 'TRUE', 'on', '', '2', 2, -1, 'null', ['1']];

interface ParameterCase {
  name: ParameterName;
  /** Other parameters the case needs (a source, a format the parameter applies to). */
  base: Raw;
  valid: Array<[unknown, unknown]>;
  invalid: unknown[];
  default: unknown;
}

const IMAGE: Raw = { url: URL_ };
const JPG: Raw = { url: URL_, format: 'jpg' };
const PDF: Raw = { url: URL_, format: 'pdf' };
const bool = (name: ParameterName, base: Raw, def: boolean): ParameterCase => ({
  name,
  base,
  valid: BOOLEAN_VALID,
  invalid: BOOLEAN_INVALID,
  default: def,
});

/** Wave 2's parameters, each with its parse rules tested in the file named. */
const TESTED_ELSEWHERE: ParameterName[] = [
  // test/e2e/extra-formats.test.ts
  'extra_formats',
  // test/unit/pdf-templates.test.ts, test/e2e/pdf-documents.test.ts and the parameter_not_applicable cases below
  'pdf_header',
  'pdf_footer',
  'pdf_outline',
  'pdf_tagged',
  // test/e2e/response-type.test.ts, test/integration/cache.test.ts and the cases below
  'response_type',
  'metadata',
  'cache',
  'cache_ttl',
  'cache_key',
  // test/e2e/jobs.test.ts
  'async',
  'webhook_url',
  'external_id',
  // test/unit/emulation-options.test.ts
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
  // test/unit/element-options.test.ts
  'selector',
  'error_on_selector_not_found',
  'clip_x',
  'clip_y',
  'clip_width',
  'clip_height',
  'omit_background',
  'image_width',
  'image_height',
  'scroll_into_view',
  'scroll_into_view_adjust_top',
  // test/unit/main-content-options.test.ts
  'main_content',
  // test/unit/blocking-checks-options.test.ts
  'block_trackers',
  'block_requests',
  'block_resources',
  'fail_if_content_contains',
  'fail_if_content_missing',
  'fail_on_http_status',
  // test/unit/request-options.test.ts
  'headers',
  'cookies',
  // test/unit/interaction-options.test.ts
  'wait_for_selector',
  'scripts',
  'scripts_wait_until',
  'click',
  'hover',
  'error_on_click_selector_not_found',
];

const CASES: ParameterCase[] = [
  {
    name: 'url',
    base: {},
    valid: [
      [URL_, URL_],
      ['http://example.com/a?b=1#c', 'http://example.com/a?b=1#c'],
      ['HTTPS://EXAMPLE.COM/', 'HTTPS://EXAMPLE.COM/'],
    ],
    invalid: ['example.com', '/relative/path', 'ftp://example.com/', 'not a url', '', 42, ['https://a.example/', 'https://b.example/']],
    default: undefined,
  },
  {
    name: 'html',
    base: {},
    valid: [
      ['<h1>Hello</h1>', '<h1>Hello</h1>'],
      ['x'.repeat(5 * 1024 * 1024), 'x'.repeat(5 * 1024 * 1024)],
    ],
    invalid: [42, { h1: 'x' }, 'x'.repeat(5 * 1024 * 1024 + 1)],
    default: undefined,
  },
  {
    name: 'format',
    base: IMAGE,
    valid: [
      ['png', 'png'],
      ['jpg', 'jpg'],
      ['jpeg', 'jpg'],
      ['JPEG', 'jpg'],
      ['webp', 'webp'],
      ['gif', 'gif'],
      ['pdf', 'pdf'],
      ['PDF', 'pdf'],
      ['markdown', 'markdown'],
      ['md', 'markdown'],
      ['Md', 'markdown'],
      [' webp ', 'webp'],
      ['avif', 'avif'],
      ['HTML', 'html'],
    ],
    invalid: ['bmp', 'tiff', 'htm', 'jpgg', '', 5, true],
    default: 'png',
  },
  {
    name: 'quality',
    base: JPG,
    valid: [
      ['0', 0],
      ['100', 100],
      ['55', 55],
      [' 70 ', 70],
      [42, 42],
    ],
    invalid: ['101', '-1', '50.5', 50.5, 'high', '', '1e2', true],
    default: 80,
  },
  bool('full_page', IMAGE, false),
  {
    name: 'viewport_width',
    base: IMAGE,
    valid: [
      ['100', 100],
      ['3840', 3840],
      [1920, 1920],
    ],
    invalid: ['99', '3841', '12.5', 'wide', 0, 4000],
    default: 1280,
  },
  {
    name: 'viewport_height',
    base: IMAGE,
    valid: [
      ['100', 100],
      ['10000', 10000],
      [1080, 1080],
    ],
    invalid: ['99', '10001', '800px', 800.5],
    default: 800,
  },
  {
    name: 'device_scale_factor',
    base: IMAGE,
    valid: [
      ['0.5', 0.5],
      ['3', 3],
      ['1.5', 1.5],
      ['.75', 0.75],
      [2, 2],
    ],
    invalid: ['0.4', '3.1', '2x', 'retina', 0, 4],
    default: 1,
  },
  {
    name: 'wait_until',
    base: IMAGE,
    valid: [
      ['load', 'load'],
      ['domcontentloaded', 'domcontentloaded'],
      ['DOMContentLoaded', 'domcontentloaded'],
      ['networkidle0', 'networkidle0'],
      ['networkidle2', 'networkidle2'],
      ['networkidle', 'networkidle0'],
      ['NetworkIdle', 'networkidle0'],
      ['LOAD', 'load'],
      ['ready', 'ready'],
    ],
    invalid: ['idle', 'networkidle1', 'readyish', '', 0],
    default: 'load',
  },
  {
    name: 'delay',
    base: IMAGE,
    valid: [
      ['0', 0],
      ['2.5', 2.5],
      ['30', 30],
      [1, 1],
    ],
    invalid: ['-1', '31', '30.5', 'soon', '1s'],
    default: 0,
  },
  {
    name: 'timeout',
    base: IMAGE,
    valid: [
      ['1', 1],
      ['90', 90],
      [45, 45],
    ],
    invalid: ['0', '91', '1.5', 'forever', -5],
    default: 60,
  },
  {
    name: 'stall_timeout',
    base: IMAGE,
    valid: [
      ['1', 1],
      ['60', 60],
      [12, 12],
    ],
    invalid: ['0', '61', '2.5', 'soon', -1],
    default: 5,
  },
  bool('fail_on_partial_load', IMAGE, false),
  bool('fail_if_blank', IMAGE, false),
  bool('fail_on_bot_challenge', IMAGE, false),
  bool('debug', IMAGE, false),
  bool('block_ads', IMAGE, false),
  bool('block_cookie_banners', IMAGE, false),
  bool('block_chats', IMAGE, false),
  {
    name: 'hide_selectors',
    base: IMAGE,
    valid: [
      ['.ad', ['.ad']],
      [
        ['.ad', '#banner > div', 'div[data-x="1"]'],
        ['.ad', '#banner > div', 'div[data-x="1"]'],
      ],
      [[], []],
    ],
    invalid: ['div[', '..x', '> div', '', 42, [1, 2], { a: '.b' }],
    default: [],
  },
  {
    name: 'styles',
    base: IMAGE,
    valid: [
      ['body { color: red }', 'body { color: red }'],
      ['x'.repeat(100 * 1024), 'x'.repeat(100 * 1024)],
    ],
    invalid: ['x'.repeat(100 * 1024 + 1), 5, ['a', 'b']],
    default: undefined,
  },
  {
    name: 'ip_country_code',
    base: IMAGE,
    valid: [],
    // No proxies are configured in these cases, so every code is refused.
    invalid: ['de', 'us', 'DE', 'deu', 'd', 1],
    default: undefined,
  },
  bool('upload', IMAGE, false),
  {
    name: 'attachment_name',
    base: IMAGE,
    valid: [
      ['report', 'report'],
      ['my report.png', 'my report.png'],
      ['résumé', 'résumé'],
      ['x'.repeat(255), 'x'.repeat(255)],
    ],
    invalid: ['a/b', 'a\\b', '../etc/passwd', 'x'.repeat(256), '', '   ', 'a\nb', 'a\u0000b', 'a\u007fb', '..', '.', 7],
    default: undefined,
  },
  {
    name: 'pdf_paper_format',
    base: PDF,
    valid: [
      ['a0', 'a0'],
      ['a4', 'a4'],
      ['A4', 'a4'],
      ['a6', 'a6'],
      ['letter', 'letter'],
      ['Letter', 'letter'],
      ['legal', 'legal'],
      ['TABLOID', 'tabloid'],
      ['ledger', 'ledger'],
    ],
    invalid: ['a7', 'b5', 'letterx', 'a', '', 4],
    default: 'a4',
  },
  bool('pdf_landscape', PDF, false),
  {
    name: 'pdf_margin',
    base: PDF,
    valid: [
      // Carried parsed: top, right, bottom, left as CSS shorthand spreads them.
      ['10mm', { top: '10mm', right: '10mm', bottom: '10mm', left: '10mm' }],
      ['0.5in 1in', { top: '0.5in', right: '1in', bottom: '0.5in', left: '1in' }],
      ['0', { top: '0px', right: '0px', bottom: '0px', left: '0px' }],
      ['1px 2px 3px 4px', { top: '1px', right: '2px', bottom: '3px', left: '4px' }],
      ['1cm 2cm 3cm', { top: '1cm', right: '2cm', bottom: '3cm', left: '2cm' }],
    ],
    invalid: ['10', '10pt', '1px 2px 3px 4px 5px', '-1mm', 'auto', '', '10 mm', 10],
    // Not given: 0, or room for pdf_header and pdf_footer (print-pdf.ts).
    default: undefined,
  },
  {
    name: 'pdf_page_ranges',
    base: PDF,
    valid: [
      ['1-3,5', '1-3,5'],
      ['2', '2'],
      ['1-1', '1-1'],
    ],
    invalid: ['0', '3-1', 'a', '1-', '-2', '1,,2', '', 1],
    default: undefined,
  },
  bool('pdf_print_background', PDF, true),
  {
    name: 'pdf_media_type',
    base: PDF,
    valid: [
      ['print', 'print'],
      ['screen', 'screen'],
      ['SCREEN', 'screen'],
    ],
    invalid: ['tv', 'all', '', 1],
    default: 'print',
  },
  {
    name: 'pdf_scale',
    base: PDF,
    valid: [
      ['0.1', 0.1],
      ['2', 2],
      [1.5, 1.5],
    ],
    invalid: ['0.09', '2.01', 'big', 0, 3],
    default: 1,
  },
  bool('pdf_fit_one_page', PDF, false),
];

describe('every parameter of the DESIGN.md table', () => {
  it('has a case for every parameter of the schema (wave 2’s in their own test files)', () => {
    expect([...CASES.map((c) => c.name), ...TESTED_ELSEWHERE].sort()).toEqual([...PARAMETER_NAMES].sort());
    expect(CASES).toHaveLength(32);
  });

  describe.each(CASES)('$name', ({ name, base, valid, invalid, default: def }) => {
    // url and html are each other's alternative; every other parameter rides on a url capture.
    const withSource = (value: unknown): Raw =>
      name === 'url' ? { [name]: value } : name === 'html' ? { html: value } : { ...base, [name]: value };

    it.each(valid.map(([input, output]) => ({ label: label(input), input, output })))('accepts $label', ({ input, output }) => {
      const options = parse(withSource(input));
      expect(options[name]).toEqual(output);
    });

    it.each(invalid.map((input) => ({ label: label(input), input })))('rejects $label with 400 naming the parameter', ({ input }) => {
      const detail = expectOneProblem(withSource(input), name);
      expect(detail.message).toEqual(expect.any(String));
      expect(detail.message.length).toBeGreaterThan(0);
    });

    it(`defaults to ${JSON.stringify(def)}`, () => {
      const options = parse(name === 'url' ? { html: '<p>x</p>' } : name === 'html' ? { url: URL_ } : base);
      expect(options[name]).toEqual(def);
    });
  });
});

describe('response_type and metadata', () => {
  it('response_type takes by_format, json or empty, and names them when wrong', () => {
    expect(parse({ url: URL_, response_type: 'json' }).response_type).toBe('json');
    expect(parse({ url: URL_, response_type: 'empty' }).response_type).toBe('empty');
    expect(expectOneProblem({ url: URL_, response_type: 'xml' }, 'response_type').message).toMatch(/by_format, json, empty|by_format/);
  });

  it('cache_ttl is 60–2592000 seconds and cache_key at most 64 of A-Za-z0-9_-', () => {
    expect(parse({ url: URL_, cache: '1', cache_ttl: '60' }).cache_ttl).toBe(60);
    expect(expectOneProblem({ url: URL_, cache_ttl: '59' }, 'cache_ttl').message).toMatch(/60 to 2592000/);
    expect(expectOneProblem({ url: URL_, cache_ttl: '2592001' }, 'cache_ttl').message).toMatch(/60 to 2592000/);
    expect(parse({ url: URL_, cache_key: 'v2_a-B' }).cache_key).toBe('v2_a-B');
    expect(expectOneProblem({ url: URL_, cache_key: 'a b' }, 'cache_key').message).toMatch(/A–Z/);
    expect(expectOneProblem({ url: URL_, cache_key: 'x'.repeat(65) }, 'cache_key').message).toMatch(/at most 64/);
  });

  it('metadata needs response_type=json', () => {
    expect(parse({ url: URL_, response_type: 'json', metadata: '1' }).metadata).toBe(true);
    expect(expectOneProblem({ url: URL_, metadata: '1' }, 'metadata').conflicts_with).toBe('response_type');
    expect(parse({ url: URL_, metadata: '0' }).metadata).toBe(false);
  });
});

describe('defaults', () => {
  it('a bare url capture gets every documented default', () => {
    expect(parse({ url: URL_ })).toEqual({
      url: URL_,
      html: undefined,
      format: 'png',
      quality: 80,
      full_page: false,
      viewport_width: 1280,
      viewport_height: 800,
      device_scale_factor: 1,
      viewport_mobile: false,
      viewport_has_touch: false,
      viewport_landscape: false,
      dark_mode: false,
      reduced_motion: false,
      media_type: 'screen',
      bypass_csp: false,
      error_on_click_selector_not_found: true,
      error_on_selector_not_found: true,
      omit_background: false,
      main_content: false,
      scroll_into_view_adjust_top: 0,
      wait_until: 'load',
      delay: 0,
      timeout: 60,
      stall_timeout: 5,
      fail_on_partial_load: false,
      fail_if_blank: false,
      fail_on_bot_challenge: false,
      debug: false,
      block_ads: false,
      block_cookie_banners: false,
      block_chats: false,
      block_trackers: false,
      hide_selectors: [],
      styles: undefined,
      ip_country_code: undefined,
      upload: false,
      response_type: 'by_format',
      metadata: false,
      cache: false,
      cache_ttl: 86400,
      async: false,
      cache_key: undefined,
      attachment_name: undefined,
      pdf_paper_format: 'a4',
      pdf_landscape: false,
      pdf_margin: undefined,
      pdf_page_ranges: undefined,
      pdf_print_background: true,
      pdf_media_type: 'print',
      pdf_scale: 1,
      pdf_fit_one_page: false,
      pdf_header: undefined,
      pdf_footer: undefined,
      pdf_outline: false,
      pdf_tagged: true,
    });
  });

  it('defaultTakeOptions is a bare url capture’s options without the source, derived once', () => {
    const { url, ...parsed } = parse({ url: URL_ });
    expect(url).toBe(URL_);
    expect(defaultTakeOptions()).toEqual(parsed);
    expect(defaultTakeOptions().url).toBeUndefined();
    expect(defaultTakeOptions()).toBe(defaultTakeOptions());
    expect(Object.isFrozen(defaultTakeOptions())).toBe(true);
  });

  it('parameters given as undefined count as absent', () => {
    const options = parse({ url: URL_, quality: undefined, pdf_landscape: undefined, html: undefined });
    expect(options.quality).toBe(80);
    expect(options.format).toBe('png');
  });
});

describe('booleans', () => {
  it.each(['full_page', 'block_ads', 'block_cookie_banners', 'block_chats', 'upload'] as const)(
    '%s accepts the query string and the JSON forms alike',
    (name) => {
      expect(parse({ url: URL_, [name]: '1' })[name]).toBe(true);
      expect(parse({ url: URL_, [name]: 'true' })[name]).toBe(true);
      expect(parse({ url: URL_, [name]: true })[name]).toBe(true);
      expect(parse({ url: URL_, [name]: 1 })[name]).toBe(true);
      expect(parse({ url: URL_, [name]: '0' })[name]).toBe(false);
      expect(parse({ url: URL_, [name]: 'false' })[name]).toBe(false);
      expect(parse({ url: URL_, [name]: false })[name]).toBe(false);
      expect(parse({ url: URL_, [name]: 0 })[name]).toBe(false);
    },
  );

  it('the error message names the accepted values and echoes the value', () => {
    const detail = expectOneProblem({ url: URL_, full_page: 'yes' }, 'full_page');
    expect(detail.message).toBe('must be a boolean: 1, 0, true or false');
    expect(detail.value).toBe('yes');
  });

  it('pdf_print_background can be switched off', () => {
    expect(parse({ url: URL_, format: 'pdf', pdf_print_background: '0' }).pdf_print_background).toBe(false);
    expect(parse({ url: URL_, format: 'pdf', pdf_print_background: false }).pdf_print_background).toBe(false);
  });
});

describe('hide_selectors', () => {
  it('hide_selectors[] and hide_selectors are the same parameter', () => {
    expect(parse({ url: URL_, 'hide_selectors[]': '.a' }).hide_selectors).toEqual(['.a']);
    expect(parse({ url: URL_, 'hide_selectors[]': ['.a', '.b'] }).hide_selectors).toEqual(['.a', '.b']);
    expect(parse({ url: URL_, hide_selectors: ['.a', '.b'] }).hide_selectors).toEqual(['.a', '.b']);
  });

  it('both spellings in one request are merged', () => {
    expect(parse({ url: URL_, 'hide_selectors[]': ['.a', '.b'], hide_selectors: '.c' }).hide_selectors).toEqual(['.a', '.b', '.c']);
  });

  it('accepts 50 selectors and rejects 51', () => {
    const fifty = Array.from({ length: 50 }, (_, i) => `.s${i}`);
    expect(parse({ url: URL_, hide_selectors: fifty }).hide_selectors).toHaveLength(50);

    const detail = expectOneProblem({ url: URL_, 'hide_selectors[]': [...fifty, '.s50'] }, 'hide_selectors');
    expect(detail.message).toBe('at most 50 selectors, got 51');
  });

  it('counts selectors across both spellings', () => {
    const thirty = Array.from({ length: 30 }, (_, i) => `.a${i}`);
    const thirtyMore = Array.from({ length: 30 }, (_, i) => `.b${i}`);
    expectOneProblem({ url: URL_, 'hide_selectors[]': thirty, hide_selectors: thirtyMore }, 'hide_selectors');
  });

  it('accepts a selector of 500 characters and rejects one of 501', () => {
    const fiveHundred = '.' + 'a'.repeat(499);
    expect(parse({ url: URL_, hide_selectors: fiveHundred }).hide_selectors).toEqual([fiveHundred]);
    const detail = expectOneProblem({ url: URL_, hide_selectors: fiveHundred + 'a' }, 'hide_selectors');
    expect(detail.message).toBe('each selector must be at most 500 characters');
  });

  it('reports each invalid selector with its value', () => {
    const details = detailsOf({ url: URL_, 'hide_selectors[]': ['.ok', 'div[', '#fine', 'a..b'] });
    expect(details).toEqual([
      expect.objectContaining({ code: 'invalid_parameter', parameter: 'hide_selectors', value: 'div[' }),
      expect.objectContaining({ code: 'invalid_parameter', parameter: 'hide_selectors', value: 'a..b' }),
    ]);
    expect(details[0]!.message).toBe('is not a valid CSS selector');
  });
});

describe('format', () => {
  it('aliases jpeg → jpg and md → markdown', () => {
    expect(parse({ url: URL_, format: 'jpeg' }).format).toBe('jpg');
    expect(parse({ url: URL_, format: 'md' }).format).toBe('markdown');
  });

  it('the error names the valid values', () => {
    const detail = expectOneProblem({ url: URL_, format: 'bmp' }, 'format');
    expect(detail.message).toBe('must be one of: png, jpg, webp, avif, gif, pdf, markdown, html, jpeg, md');
    expect(detail.value).toBe('bmp');
  });
});

describe('wait_until', () => {
  it('networkidle is networkidle0, case-insensitively', () => {
    expect(parse({ url: URL_, wait_until: 'networkidle' }).wait_until).toBe('networkidle0');
    expect(parse({ url: URL_, wait_until: 'NETWORKIDLE' }).wait_until).toBe('networkidle0');
  });
});

describe('source', () => {
  it('neither url nor html → missing_source', () => {
    const error = failure({});
    expect(error.code).toBe('missing_source');
    expect(error.extra.details).toEqual([expect.objectContaining({ code: 'missing_source', parameter: 'url' })]);
  });

  it('other parameters without a source → still missing_source', () => {
    const error = failure({ format: 'png', full_page: '1' });
    expect(error.code).toBe('missing_source');
    expect(error.extra.details).toHaveLength(1);
  });

  it('both url and html → conflicting_source', () => {
    const error = failure({ url: URL_, html: '<p>x</p>' });
    expect(error.code).toBe('conflicting_source');
    expect(error.extra.details).toEqual([expect.objectContaining({ code: 'conflicting_source', parameter: 'html' })]);
  });

  it('html alone is a source', () => {
    const options = parse({ html: '<p>x</p>' });
    expect(options.html).toBe('<p>x</p>');
    expect(options.url).toBeUndefined();
  });
});

describe('parameter_not_applicable', () => {
  it('quality with png (the default format)', () => {
    const detail = expectOneProblem({ url: URL_, quality: '50' }, 'quality', 'parameter_not_applicable');
    expect(detail.message).toContain('jpg, webp');
  });

  it.each(['png', 'gif', 'pdf', 'markdown'])('quality with %s', (format) => {
    expectOneProblem({ url: URL_, format, quality: 50 }, 'quality', 'parameter_not_applicable');
  });

  it.each(['jpg', 'jpeg', 'webp'])('quality applies to %s', (format) => {
    expect(parse({ url: URL_, format, quality: '50' }).quality).toBe(50);
  });

  const pdfParameters: Array<[ParameterName, unknown]> = [
    ['pdf_paper_format', 'a4'],
    ['pdf_landscape', '1'],
    ['pdf_margin', '10mm'],
    ['pdf_page_ranges', '1-2'],
    ['pdf_print_background', 'false'],
    ['pdf_media_type', 'screen'],
    ['pdf_scale', '1.5'],
    ['pdf_fit_one_page', true],
    ['pdf_header', '<b>Acme</b>'],
    ['pdf_footer', 'Page <span class="pageNumber"></span>'],
    ['pdf_outline', '1'],
    ['pdf_tagged', '0'],
  ];

  it.each(pdfParameters)('%s with png', (name, value) => {
    expectOneProblem({ url: URL_, format: 'png', [name]: value }, name, 'parameter_not_applicable');
  });

  it.each(pdfParameters)('%s with the default format (png) and with jpg', (name, value) => {
    expectOneProblem({ url: URL_, [name]: value }, name, 'parameter_not_applicable');
    expectOneProblem({ url: URL_, format: 'jpg', [name]: value }, name, 'parameter_not_applicable');
  });

  it('every pdf_* parameter together with png is reported, one detail each', () => {
    const raw: Raw = { url: URL_, format: 'png', ...Object.fromEntries(pdfParameters) };
    const error = failure(raw);
    expect(error.code).toBe('parameter_not_applicable');
    expect(error.extra.details!.map((d) => [d.code, d.parameter])).toEqual(
      pdfParameters.map(([name]) => ['parameter_not_applicable', name]),
    );
  });
});

describe('unknown_parameter', () => {
  it.each([
    ['widht', 'viewport_width'],
    ['fullpage', 'full_page'],
    ['qualty', 'quality'],
    ['timout', 'timeout'],
    ['width', 'viewport_width'],
  ])('%s → did you mean %s', (unknown, suggestion) => {
    const detail = expectOneProblem({ url: URL_, [unknown]: '1' }, unknown, 'unknown_parameter');
    expect(detail.suggestion).toBe(suggestion);
    expect(detail.message).toBe(`unknown parameter; did you mean ${suggestion}?`);
  });

  it('no suggestion when nothing is close', () => {
    const detail = expectOneProblem({ url: URL_, frobnicate: '1' }, 'frobnicate', 'unknown_parameter');
    expect(detail.message).toBe('unknown parameter');
    expect(detail).not.toHaveProperty('suggestion');
  });

  it('the top-level message carries the suggestion', () => {
    const error = failure({ url: URL_, widht: '1024' });
    expect(error.message).toBe('widht: unknown parameter; did you mean viewport_width?');
  });

  it('apikey in the input is ignored, not an unknown parameter', () => {
    const options = parse({ url: URL_, apikey: 'shk_whatever' });
    expect(options).not.toHaveProperty('apikey');
    expect(options.url).toBe(URL_);
  });

  it('apikey without a source yields only missing_source', () => {
    const error = failure({ apikey: 'shk_whatever' });
    expect(error.code).toBe('missing_source');
    expect(error.extra.details).toHaveLength(1);
  });
});

describe('all problems of one request are reported together', () => {
  it('collects unknown, invalid and scheme problems into one error', () => {
    const error = failure({
      url: 'ftp://example.com/',
      format: 'jpg',
      quality: '500',
      widht: '1024',
      viewport_height: '5',
    });
    expect(error.code).toBe('unknown_parameter');
    expect(error.extra.details!.map((d) => [d.code, d.parameter])).toEqual(
      expect.arrayContaining([
        ['unknown_parameter', 'widht'],
        ['invalid_parameter', 'quality'],
        ['invalid_parameter', 'viewport_height'],
        ['invalid_parameter', 'url'],
      ]),
    );
    expect(error.extra.details).toHaveLength(4);
    expect(error.message).toContain('widht');
    expect(error.message).toContain('(and 3 more problems)');
  });

  it('keeps the offending value in each detail', () => {
    const details = detailsOf({ url: URL_, format: 'jpg', quality: '150', viewport_width: '50' });
    expect(details).toEqual([
      expect.objectContaining({ parameter: 'quality', value: '150', message: 'must be an integer from 0 to 100' }),
      expect.objectContaining({ parameter: 'viewport_width', value: '50', message: 'must be an integer from 100 to 3840' }),
    ]);
  });

  it('a missing source is reported along with invalid values, and takes the top-level code', () => {
    const error = failure({ viewport_width: 'huge', delay: '-1' });
    expect(error.code).toBe('missing_source');
    expect(error.extra.details!.map((d) => d.parameter).sort()).toEqual(['delay', 'url', 'viewport_width']);
  });

  it('parameter_not_applicable outranks invalid_parameter for the top-level code', () => {
    const error = failure({ url: URL_, quality: '50', viewport_width: '5' });
    expect(error.code).toBe('parameter_not_applicable');
    expect(error.extra.details).toHaveLength(2);
    expect(error.message).toBe('quality: applies only to format jpg, webp, avif, not png (and 1 more problem)');
  });
});

describe('timeout and delay', () => {
  it.each([
    [{ url: URL_ }, 60],
    [{ url: URL_, format: 'jpg' }, 60],
    [{ url: URL_, format: 'webp' }, 60],
    [{ url: URL_, format: 'gif' }, 60],
    [{ url: URL_, format: 'pdf' }, 12],
    [{ url: URL_, format: 'markdown' }, 12],
    [{ url: URL_, format: 'md' }, 12],
    [{ url: URL_, format: 'html' }, 12],
    [{ html: '<p>x</p>' }, 12],
    [{ html: '<p>x</p>', format: 'jpg' }, 12],
    [{ html: '<p>x</p>', format: 'pdf' }, 12],
  ])('default timeout for %j is %i', (raw, expected) => {
    expect(parse(raw).timeout).toBe(expected);
  });

  it('url image captures allow up to 90 seconds', () => {
    expect(parse({ url: URL_, timeout: '90' }).timeout).toBe(90);
    expectOneProblem({ url: URL_, timeout: '91' }, 'timeout');
  });

  it.each([[{ html: '<p>x</p>' }], [{ url: URL_, format: 'pdf' }], [{ url: URL_, format: 'markdown' }]])(
    'timeout above 12 is refused for %j',
    (raw) => {
      expect(parse({ ...raw, timeout: '12' }).timeout).toBe(12);
      const detail = expectOneProblem({ ...raw, timeout: '13' }, 'timeout');
      expect(detail.message).toContain('12');
      expectOneProblem({ ...raw, timeout: 60 }, 'timeout');
    },
  );

  it('delay equal to the timeout is refused', () => {
    const detail = expectOneProblem({ url: URL_, timeout: '5', delay: '5' }, 'delay');
    expect(detail.value).toBe(5);
    expect(detail.message).toBe('must be less than timeout (5 s)');
  });

  it('delay above the timeout is refused', () => {
    expectOneProblem({ url: URL_, timeout: 3, delay: 4.5 }, 'delay');
  });

  it('delay just below the timeout is accepted', () => {
    const options = parse({ url: URL_, timeout: '5', delay: '4.9' });
    expect(options.delay).toBe(4.9);
    expect(options.timeout).toBe(5);
  });

  it('delay is compared with the default timeout too', () => {
    expectOneProblem({ html: '<p>x</p>', delay: '12' }, 'delay');
    expect(parse({ html: '<p>x</p>', delay: '11.5' }).delay).toBe(11.5);
    expect(parse({ url: URL_, delay: '30' }).delay).toBe(30);
    expectOneProblem({ url: URL_, delay: '30', timeout: '30' }, 'delay');
  });
});

describe('url', () => {
  it.each(['file:///etc/passwd', 'javascript:alert(1)', 'data:text/html,<h1>x</h1>', 'ftp://example.com/', 'chrome://settings'])(
    'the scheme of %s is refused',
    (url) => {
      const detail = expectOneProblem({ url }, 'url');
      expect(detail.message).toContain('scheme');
      expect(detail.value).toBe(url);
    },
  );

  it('accepts 2048 characters and refuses 2049', () => {
    const prefix = 'https://example.com/';
    const max = prefix + 'a'.repeat(2048 - prefix.length);
    expect(max).toHaveLength(2048);
    expect(parse({ url: max }).url).toBe(max);
    expectOneProblem({ url: max + 'a' }, 'url');
  });

  it('a relative url is refused', () => {
    const detail = expectOneProblem({ url: 'example.com/page' }, 'url');
    expect(detail.message).toBe('must be an absolute http or https URL');
  });
});

describe('attachment_name', () => {
  it.each(['a/b', 'a\\b', 'dir/file.png', 'C:\\x.png'])('%s is refused', (name) => {
    const detail = expectOneProblem({ url: URL_, attachment_name: name }, 'attachment_name');
    expect(detail.message).toContain('/');
  });

  it('a plain name is kept as given (the extension is added when the response is built)', () => {
    expect(parse({ url: URL_, attachment_name: 'report' }).attachment_name).toBe('report');
  });
});

describe('pdf_margin and pdf_page_ranges', () => {
  it.each(['10mm', '0.5in 1in', '0', '1px 2px 3px', '1cm 2cm 3cm 4cm', '2.5MM'])('pdf_margin %s is accepted', (m) => {
    expect(parse({ url: URL_, format: 'pdf', pdf_margin: m }).pdf_margin).toEqual(parsePdfMargin(m));
  });

  it.each(['10', '10pt', '1px 2px 3px 4px 5px', '-1mm', 'auto', 'calc(1px)', '1mm,2mm'])('pdf_margin %s is refused', (m) => {
    const detail = expectOneProblem({ url: URL_, format: 'pdf', pdf_margin: m }, 'pdf_margin');
    expect(detail.value).toBe(m);
  });

  it.each(['1-3,5', '1', '2-2', '1-3, 5-7'])('pdf_page_ranges %s is accepted', (r) => {
    expect(parse({ url: URL_, format: 'pdf', pdf_page_ranges: r }).pdf_page_ranges).toBe(r);
  });

  it.each(['0', '3-1', 'all', '1-', '1;2', '0-2', ''])('pdf_page_ranges %j is refused', (r) => {
    const detail = expectOneProblem({ url: URL_, format: 'pdf', pdf_page_ranges: r }, 'pdf_page_ranges');
    expect(detail.value).toBe(r);
  });
});

describe('ip_country_code', () => {
  it('is refused when the operator has configured no proxies', () => {
    const detail = expectOneProblem({ url: URL_, ip_country_code: 'de' }, 'ip_country_code');
    expect(detail.message).toContain('no proxy is configured for de');
    expect(detail.message).toContain('none');
  });

  it('is accepted for a configured country', () => {
    expect(parse({ url: URL_, ip_country_code: 'de' }, ['de']).ip_country_code).toBe('de');
  });

  it('another country is refused, naming the available ones', () => {
    const detail = expectOneProblem({ url: URL_, ip_country_code: 'fr' }, 'ip_country_code', 'invalid_parameter', ['de', 'us']);
    expect(detail.message).toContain('available: de, us');
  });

  it.each(['DE', 'deu', 'd', '1a'])('%s is not a lowercase alpha-2 code', (code) => {
    expectOneProblem({ url: URL_, ip_country_code: code }, 'ip_country_code', 'invalid_parameter', ['de']);
  });
});

describe('the pixel budget (SHUTTER_MAX_PIXELS), checked while parsing', () => {
  const withBudget = (raw: Raw, maxPixels: number) => parseTakeOptions(raw, { countries: [], maxPixels });

  it('refuses a viewport image over it, naming the three parameters', () => {
    const error = (() => {
      try {
        withBudget({ url: URL_, viewport_width: '1280', viewport_height: '800', device_scale_factor: '2' }, 4_000_000);
      } catch (e) {
        return e as AppError;
      }
      throw new Error('no error');
    })();
    expect(error.code).toBe('invalid_parameter');
    expect(error.message).toMatch(/4,096,000 pixels.*the pixel budget is 4,000,000/);
    expect(error.extra.details?.map((d) => d.parameter)).toEqual(['viewport_width', 'viewport_height', 'device_scale_factor']);
  });

  it('lets one at the budget through, and does not apply to pdf or markdown', () => {
    expect(withBudget({ url: URL_, viewport_width: '1000', viewport_height: '1000' }, 1_000_000).viewport_width).toBe(1000);
    expect(withBudget({ url: URL_, format: 'pdf', viewport_width: '3840', viewport_height: '10000' }, 1_000_000).format).toBe('pdf');
    expect(withBudget({ url: URL_, format: 'md', viewport_width: '3840', viewport_height: '10000' }, 1_000_000).format).toBe('markdown');
  });

  it('is not checked without a budget in the context', () => {
    expect(
      parseTakeOptions({ url: URL_, viewport_width: '3840', viewport_height: '10000', device_scale_factor: '3' }, { countries: [] })
        .viewport_width,
    ).toBe(3840);
  });
});
