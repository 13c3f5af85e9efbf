import { z } from 'zod';
import { booleanField, enumField, numberField, textField } from '../fields.js';
import { PAPER_FORMATS, PDF_TEMPLATE_MAX_CHARS } from '../limits.js';
import { parsePdfMargin } from '../pdf-values.js';
import { meta } from './meta.js';

const PDF = ['pdf'] as const;

const TEMPLATE_CLASSES = 'pageNumber, totalPages, title, url, date';

const template = (where: 'header' | 'footer', example: string) =>
  meta('pdf', textField(PDF_TEMPLATE_MAX_CHARS, 'HTML').optional(), {
    description:
      `HTML printed at the ${where === 'header' ? 'top' : 'bottom'} of every page; elements with the classes ${TEMPLATE_CLASSES} ` +
      `are filled in. Text is 10px, across the page, padded to the side margins, unless the template's own styles say otherwise. ` +
      `The ${where === 'header' ? 'top' : 'bottom'} margin grows to fit it unless pdf_margin is given. Images and fonts must be ` +
      'inline (data: URLs): Chromium loads nothing for headers and footers.',
    allowed: `HTML, at most ${PDF_TEMPLATE_MAX_CHARS.toLocaleString('en-US')} characters`,
    default: 'none',
    formats: PDF,
    example,
  });

/** PDF layout. */
export const pdfParameters = {
  pdf_paper_format: meta('pdf', enumField(PAPER_FORMATS).default('a4'), {
    description: 'Paper size.',
    allowed: 'a0–a6, letter, legal, tabloid, ledger (case-insensitive)',
    choices: PAPER_FORMATS,
    default: 'a4',
    formats: PDF,
  }),
  pdf_landscape: meta('pdf', booleanField().default(false), {
    description: 'Landscape orientation.',
    allowed: 'boolean',
    default: 'false',
    formats: PDF,
  }),
  pdf_margin: meta(
    'pdf',
    // No schema default: a margin not given makes room for pdf_header and pdf_footer.
    textField(100, 'CSS lengths')
      .optional()
      .transform((text, ctx) => {
        if (text === undefined) return undefined;
        const margin = parsePdfMargin(text);
        if (margin) return margin;
        ctx.addIssue({ code: 'custom', message: 'must be 1–4 lengths in px, mm, cm or in, e.g. 10mm or 0.5in 1in' });
        return z.NEVER;
      }),
    {
      description:
        'Page margins: 1–4 CSS lengths in CSS shorthand order (top right bottom left). Not given: 0, with room for ' +
        'pdf_header and pdf_footer.',
      allowed: 'lengths in px, mm, cm or in, e.g. 10mm or 0.5in 1in',
      default: '0',
      formats: PDF,
    },
  ),
  pdf_page_ranges: meta('pdf', textField(200, 'page ranges').optional(), {
    description: 'Pages to keep.',
    allowed: 'comma-separated pages and ranges, e.g. 1-3,5',
    default: 'all pages',
    formats: PDF,
  }),
  pdf_print_background: meta('pdf', booleanField().default(true), {
    description: 'Print background colours and images.',
    allowed: 'boolean',
    default: 'true',
    formats: PDF,
  }),
  pdf_media_type: meta('pdf', enumField(['print', 'screen'] as const).default('print'), {
    description: 'CSS media type the page is rendered with.',
    allowed: 'print, screen',
    choices: ['print', 'screen'],
    default: 'print',
    formats: PDF,
  }),
  pdf_scale: meta('pdf', numberField(0.1, 2).default(1), {
    description: 'Rendering scale.',
    allowed: 'number 0.1–2',
    default: '1',
    formats: PDF,
  }),
  pdf_fit_one_page: meta('pdf', booleanField().default(false), {
    description: 'Put the whole page on a single PDF page as tall as the content.',
    allowed: 'boolean',
    default: 'false',
    formats: PDF,
  }),
  pdf_header: template('header', '<div style="font-size:9px;text-align:right"><span class="title"></span></div>'),
  pdf_footer: template(
    'footer',
    '<div style="font-size:10px;width:100%;text-align:center">Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>',
  ),
  pdf_outline: meta('pdf', booleanField().default(false), {
    description: "Bookmarks (the PDF's outline) from the document's headings.",
    allowed: 'boolean',
    default: 'false',
    formats: PDF,
  }),
  pdf_tagged: meta('pdf', booleanField().default(true), {
    description: 'Tagged, accessible PDF: a structure tree with reading order and the images’ alt text (docs/performance.md: its cost).',
    allowed: 'boolean',
    default: 'true',
    formats: PDF,
  }),
};
