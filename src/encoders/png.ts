import type { PngOptions } from 'sharp';
import { analyseRows, Filter, NATURAL_REPEAT, writePng, type Pixels, type RowAnalysis, type WriteOptions } from './png-writer.js';
import { sharpOf, type RawImage } from './raw-image.js';
import type { ImageEncoder } from './encoder.js';

/**
 * Below these shares of the image in photos / natural content (photos and dithered gradients),
 * an image is UI and text: rows compress best unfiltered (docs/performance.md, "PNG size").
 * The bench's simple and text-heavy pages measure 0 % and 0 %; its gradient page 0 % / 27 %,
 * a text page with one photo 9 % / 20 %.
 */
export const FLAT_MAX_PHOTO_SHARE = 0.002;
export const FLAT_MAX_NATURAL_SHARE = 0.02;
/**
 * An unfiltered recompression that does not get below this share of Chromium's fast PNG is tried
 * again at FLAT_RETRY_LEVEL, then, if still above, with the filtered writer. The bench's text page
 * comes out at 0.72 (0.90× the floor's bytes), a long text document at 0.77 (1.04× the floor's;
 * 0.86× at level 9), a page with photos above 1.
 */
export const FLAT_MAX_SHARE_OF_INPUT = 0.75;
/**
 * zlib-ng level of the unfiltered route: 7 finds Chromium's 8-row gradient dither repeats (simple
 * page 0.50× the floor's bytes at 7, 0.72× at 6) in the same time as 6.
 */
export const FLAT_LEVEL = 7;
/** Level 9 searches longer matches: text 0.74× the floor's bytes (0.90× at 7), for 5–6× the time. */
export const FLAT_RETRY_LEVEL = 9;
/** zlib-ng level with libpng's adaptive filters: Chromium's own choice of level. */
export const ADAPTIVE_LEVEL = 6;
/**
 * Natural content with less than this share of photos (gradients, smooth pictures) goes to the
 * writer's gradient setting (GRADIENT_WRITE), with libpng's adaptive filters as a fallback; with
 * more than FILTERED_MIN_PHOTO_SHARE to the filtered writer alone; in between (a figure in an
 * article) the filtered writer and libpng's filters both run and the smaller wins. The bench's
 * gradient page has 0 % photos, an article with one photo 10 %, the heavy page's full length 13 %,
 * the smooth-photo page 19 %, the heavy page's viewport 46 %, the photo gallery 68 %.
 */
export const ADAPTIVE_MAX_PHOTO_SHARE = 0.02;
export const FILTERED_MIN_PHOTO_SHARE = 0.1;
/**
 * Chromium dithers CSS gradients with an 8×8 pattern: filtered with Sub, the rows of a dithered
 * gradient repeat 8 rows up and zlib level 4 finds most of it (bench gradient page 0.95× the
 * floor's bytes, for a third of the time libpng's filters at zlib-ng 6 take; level 5: 0.89×, 1.5×
 * the time). Bands that repeat as they are stay unfiltered.
 */
export const GRADIENT_WRITE: Partial<WriteOptions> = {
  filters: [Filter.Sub],
  filterBelow: NATURAL_REPEAT,
  levels: { 0: 4, 1: 4, 2: 4, 3: 4, 4: 4 },
};
/**
 * A gradient-setting PNG above this share of Chromium's fast PNG is not a plain dithered gradient
 * (a smooth picture, or a gradient libpng's filters do better on): libpng's adaptive filters are
 * tried too and the smaller is kept. The bench's gradient page comes out at 0.57 (libpng: 0.55,
 * the floor 0.60); a synthetic diagonal gradient 640×400 at 0.64 (libpng 0.48), a blurred picture
 * at 0.91 (libpng 0.70).
 */
export const GRADIENT_MAX_SHARE_OF_INPUT = 0.6;

/** How encodePng made its output, for the bench and the tests. */
export type PngRoute = 'input' | 'flat' | 'gradient' | 'filtered' | 'adaptive';

/**
 * PNG from Chromium's fast PNG (zlib's fastest level, Up filter on every row) or stitched pixels,
 * pixel for pixel, never larger than Chromium's input and, on every page of the bench, no larger
 * than Chromium's own best-compression PNG, which Playwright's page.screenshot() returns
 * (docs/performance.md, "PNG size"). The pixels are decoded and analysed (png-writer.ts), then:
 *
 * - UI and text (no photo, next to no gradient): unfiltered rows, zlib-ng level 7 through sharp.
 *   An output that is not much smaller than Chromium's input is tried again at level 9 (long
 *   text documents), then as natural content (the analysis missed some).
 * - Natural content (png-writer.ts: a filter per band of rows, Node's zlib on libuv's threads):
 *   gradients get Sub at zlib level 4, photos the filter libpng's heuristic picks on a sample of
 *   each band, at levels 5–6. libpng's adaptive filters at zlib-ng 6 (sharp) — Chromium's own
 *   algorithm with another zlib, within 0.5 % of the floor's bytes but above them on photo pages —
 *   are the fallback for gradients that do not compress well and run beside the writer for photos
 *   among other content; the smaller wins.
 */
export const pngEncoder: ImageEncoder = {
  // On the response path Chromium's best-compression PNG is answered as it is (issue 35: as fast as
  // Playwright's, the same bytes); recompression from its fast PNG is for async jobs.
  raw: (settings) => (settings.smallest ? { format: 'png' } : { format: 'png', optimizeForSpeed: false }),
  encode: async (image, settings) => {
    if (settings.smallest) return encodePng(image);
    if (image.kind === 'encoded') return image.data;
    return answerPng(image);
  },
};

/**
 * Stitched sections or a resized image on the response path, at Chromium's level, without the
 * retries that look for fewer bytes: UI and text unfiltered (a 1280×20 000 page: 130 ms with the
 * analysis and 1 % fewer bytes, against 400 ms for libpng's adaptive filters), anything with
 * photos or gradients through libpng's adaptive filters (Chromium's own algorithm).
 */
async function answerPng(px: Pixels): Promise<Buffer> {
  return sharpPng(px, { compressionLevel: ADAPTIVE_LEVEL, adaptiveFiltering: !isUiAndText(analyseRows(px)) });
}

/** UI and text: no photo and next to no gradient, whose rows compress best unfiltered. */
const isUiAndText = (analysis: RowAnalysis) =>
  analysis.photoShare <= FLAT_MAX_PHOTO_SHARE && analysis.naturalShare <= FLAT_MAX_NATURAL_SHARE;

/** The png encoder's work, which needs no options (the bench's bare-CDP bound uses it as is). */
export async function encodePng(image: RawImage): Promise<Buffer> {
  return (await encodePngRoute(image)).png;
}

/** encodePng, saying which route it took. */
export async function encodePngRoute(image: RawImage): Promise<EncodedPng> {
  const input = image.kind === 'encoded' ? image.data : undefined;
  // Chromium's PNGs are 8-bit; anything else is sent as it came.
  if (input && input[24] !== 8) return { png: input, route: 'input' };
  const px: Pixels = image.kind === 'pixels' ? image : await decode(image.data);
  const analysis = analyseRows(px);
  let best: EncodedPng;
  if (px.channels !== 3 && px.channels !== 4) {
    // Grey: sharp would write it as RGB.
    best = { png: await writePng(px, analysis), route: 'filtered' };
  } else if (isUiAndText(analysis)) {
    best = { png: await sharpPng(px, { compressionLevel: FLAT_LEVEL, adaptiveFiltering: false }), route: 'flat' };
    const enough = (png: Buffer) => !input || png.length <= input.length * FLAT_MAX_SHARE_OF_INPUT;
    if (!enough(best.png)) {
      best = smaller(best, { png: await sharpPng(px, { compressionLevel: FLAT_RETRY_LEVEL, adaptiveFiltering: false }), route: 'flat' });
    }
    if (!enough(best.png)) best = smaller(best, await natural(px, analysis, input));
  } else {
    best = await natural(px, analysis, input);
  }
  return input && input.length <= best.png.length ? { png: input, route: 'input' } : best;
}

/**
 * Photos and gradients: the writer's gradient setting (libpng's adaptive filters too when that does
 * not compress well), the filtered writer, or it and libpng's filters at once (libvips on its
 * threads, the writer mostly on libuv's) and the smaller.
 */
async function natural(px: Pixels, analysis: RowAnalysis, input: Buffer | undefined): Promise<EncodedPng> {
  const adaptive = async (): Promise<EncodedPng> => ({
    png: await sharpPng(px, { compressionLevel: ADAPTIVE_LEVEL, adaptiveFiltering: true }),
    route: 'adaptive',
  });
  if (analysis.photoShare < ADAPTIVE_MAX_PHOTO_SHARE) {
    // Stitched pixels have no fast PNG to compare with: libpng's filters alone, as before.
    if (!input) return adaptive();
    const gradient: EncodedPng = { png: await writePng(px, analysis, GRADIENT_WRITE), route: 'gradient' };
    if (gradient.png.length <= input.length * GRADIENT_MAX_SHARE_OF_INPUT) return gradient;
    return smaller(gradient, await adaptive());
  }
  if (analysis.photoShare > FILTERED_MIN_PHOTO_SHARE) return { png: await writePng(px, analysis), route: 'filtered' };
  const [a, filtered] = await Promise.all([adaptive(), writePng(px, analysis)]);
  return smaller({ png: filtered, route: 'filtered' }, a);
}

const smaller = (a: EncodedPng, b: EncodedPng): EncodedPng => (b.png.length < a.png.length ? b : a);

export interface EncodedPng {
  png: Buffer;
  route: PngRoute;
}

/** Through sharp (libvips, libpng, zlib-ng); RGB or RGBA. */
function sharpPng(px: Pixels, options: PngOptions): Promise<Buffer> {
  return sharpOf({ kind: 'pixels', data: px.data, width: px.width, height: px.height, channels: px.channels as 3 | 4 })
    .png(options)
    .toBuffer();
}

async function decode(png: Buffer): Promise<Pixels> {
  const { data, info } = await sharpOf({ kind: 'encoded', data: png, format: 'png' }).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}
