import sharp from 'sharp';
import type { ImageEncoder } from './encoder.js';

/** Palette quantisation dominates GIF time; effort 1 keeps it well under a second on large pages. */
export const gifEncoder: ImageEncoder = {
  raw: () => ({ format: 'png' }),
  encode: (raw) => sharp(raw).gif({ effort: 1, dither: 0 }).toBuffer(),
};
