import { z } from 'zod';
import { booleanField, enumField, numberField, textField } from '../fields.js';
import { PAPER_FORMATS } from '../limits.js';
import { parsePdfMargin } from '../pdf-values.js';
import { meta } from './meta.js';

const PDF = ['pdf'] as const;

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
};
