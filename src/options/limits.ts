/** Sizes and caps of the options, shared by the schema, the parser and the HTTP layer. */
export const PAPER_FORMATS = ['a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'letter', 'legal', 'tabloid', 'ledger'] as const;
export type PaperFormat = (typeof PAPER_FORMATS)[number];
export const WAIT_UNTIL = ['load', 'domcontentloaded', 'networkidle0', 'networkidle2', 'ready'] as const;
export const MAX_HIDE_SELECTORS = 50;
export const MAX_URL_CHARS = 2048;
export const MAX_HTML_CHARS = 5 * 1024 * 1024;
export const MAX_STYLES_CHARS = 100 * 1024;
/** pdf_header, pdf_footer: far beyond any real header, short of a page smuggled into every page. */
export const PDF_TEMPLATE_MAX_CHARS = 50_000;
/** Capture time caps of the spec, in seconds: url image captures, and pdf/markdown/html renders. */
export const TIMEOUT_CAP = { url: 90, short: 12 } as const;
export const DEFAULT_TIMEOUT = { url: 60, short: 12 } as const;
export const MAX_SCRIPT_CHARS = 100 * 1024;
export const MAX_BLOCK_REQUESTS = 100;
export const MAX_CONTENT_CHECKS = 20;
export const MAX_HEADERS = 50;
export const MAX_COOKIES = 50;
/** Resource types block_resources names, as Chromium (and Playwright) report them. */
export const RESOURCE_TYPES = [
  'document',
  'stylesheet',
  'image',
  'media',
  'font',
  'script',
  'xhr',
  'fetch',
  'websocket',
  'eventsource',
  'manifest',
  'other',
] as const;
