import type { Page } from 'playwright-core';
import { AppError } from '../../errors/app-error.js';
import type { PdfMargin } from '../../options/pdf-values.js';
import type { TakeOptions } from '../../options/schema.js';

const PX_PER_UNIT: Record<string, number> = { px: 1, in: 96, cm: 96 / 2.54, mm: 96 / 25.4 };

const toPx = (length: string) => {
  const m = /^([\d.]+)(px|in|cm|mm)$/.exec(length);
  return m ? Number(m[1]) * PX_PER_UNIT[m[2]!]! : 0;
};

/** Prints the page to PDF with the pdf_* options, in the chosen CSS media type. */
export async function printPdf(page: Page, options: TakeOptions, maxHeightPx: number): Promise<Buffer> {
  await page.emulateMedia({ media: options.pdf_media_type });
  const margin = options.pdf_margin;
  const common = {
    margin,
    printBackground: options.pdf_print_background,
    scale: options.pdf_scale,
    ...(options.pdf_page_ranges ? { pageRanges: options.pdf_page_ranges } : {}),
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
