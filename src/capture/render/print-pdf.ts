import type { Page } from 'playwright-core';
import { AppError } from '../../errors/app-error.js';
import type { PaperFormat } from '../../options/limits.js';
import type { PdfMargin } from '../../options/pdf-values.js';
import type { TakeOptions } from '../../options/schema.js';
import { marginFor, measureTemplates, wrapTemplate } from './pdf-templates.js';

const PX_PER_UNIT: Record<string, number> = { px: 1, in: 96, cm: 96 / 2.54, mm: 96 / 25.4 };

/** Paper widths and heights in inches, as Playwright prints them. */
const PAPER_INCHES: Record<PaperFormat, [number, number]> = {
  a0: [33.1, 46.8],
  a1: [23.4, 33.1],
  a2: [16.54, 23.4],
  a3: [11.7, 16.54],
  a4: [8.27, 11.7],
  a5: [5.83, 8.27],
  a6: [4.13, 5.83],
  letter: [8.5, 11],
  legal: [8.5, 14],
  tabloid: [11, 17],
  ledger: [17, 11],
};

const NO_MARGIN: PdfMargin = { top: '0px', right: '0px', bottom: '0px', left: '0px' };

const toPx = (length: string) => {
  const m = /^([\d.]+)(px|in|cm|mm)$/.exec(length);
  return m ? Number(m[1]) * PX_PER_UNIT[m[2]!]! : 0;
};

/** Prints the page to PDF with the pdf_* options, in the chosen CSS media type. */
export async function printPdf(page: Page, options: TakeOptions, maxHeightPx: number): Promise<Buffer> {
  // Printing lays the page out in print media by itself: emulating print first cost one more layout
  // of the whole page (issue 35). Screen media must be emulated (the media_type step never emulates screen).
  if (options.pdf_media_type === 'screen') await page.emulateMedia({ media: 'screen' });
  const templates = headerFooter(options);
  const margin = options.pdf_margin ?? (templates ? marginFor(await measureTemplates(page, templates, paperWidthPx(options))) : NO_MARGIN);
  const common = {
    margin,
    printBackground: options.pdf_print_background,
    scale: options.pdf_scale,
    outline: options.pdf_outline,
    tagged: options.pdf_tagged,
    ...(options.pdf_page_ranges ? { pageRanges: options.pdf_page_ranges } : {}),
    ...(templates ? { displayHeaderFooter: true, headerTemplate: templates.header, footerTemplate: templates.footer } : {}),
  };
  try {
    if (options.pdf_fit_one_page) return await page.pdf({ ...common, ...(await onePageSize(page, options, margin, maxHeightPx)) });
    return await page.pdf({ ...common, format: options.pdf_paper_format, landscape: options.pdf_landscape });
  } catch (error) {
    const message = error instanceof Error ? error.message : '';
    if (/page range/i.test(message)) {
      throw new AppError('invalid_parameter', 'pdf_page_ranges: the range goes beyond the last page of the document', {
        details: [{ parameter: 'pdf_page_ranges', message: 'goes beyond the last page', value: options.pdf_page_ranges }],
      });
    }
    throw error;
  }
}

/** pdf_header and pdf_footer in Shutter's default style, or nothing when neither is given. */
function headerFooter(options: TakeOptions): { header: string; footer: string } | undefined {
  if (options.pdf_header === undefined && options.pdf_footer === undefined) return undefined;
  const sides = options.pdf_margin && { left: options.pdf_margin.left, right: options.pdf_margin.right };
  return { header: wrapTemplate(options.pdf_header, sides), footer: wrapTemplate(options.pdf_footer, sides) };
}

/** The width templates are laid out at: the paper's, or the one page's with pdf_fit_one_page. */
function paperWidthPx(options: TakeOptions): number {
  if (options.pdf_fit_one_page) return options.viewport_width * options.pdf_scale;
  const [width, height] = PAPER_INCHES[options.pdf_paper_format];
  return (options.pdf_landscape ? height : width) * 96;
}

/**
 * One page as wide as the viewport and as tall as the content (laid out in the print media
 * type at that width), plus margins. A few px of slack keep rounding from spilling a second page.
 */
async function onePageSize(page: Page, options: TakeOptions, margin: PdfMargin, maxHeightPx: number) {
  const contentHeight = await page.evaluate(() =>
    Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0),
  );
  const scale = options.pdf_scale;
  const width = options.viewport_width * scale + toPx(margin.left) + toPx(margin.right);
  const height = Math.min(contentHeight, maxHeightPx) * scale + toPx(margin.top) + toPx(margin.bottom) + 4;
  return { width: `${Math.ceil(width)}px`, height: `${Math.ceil(height)}px` };
}
