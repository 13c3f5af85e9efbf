import sharp from 'sharp';
import type { ImageEncoder } from './encoder.js';

/** sharp's libwebp at a low effort: far faster than the default effort for a similar size. */
export const webpEncoder: ImageEncoder = {
  raw: () => ({ format: 'png' }),
  encode: (raw, options) => sharp(raw).webp({ quality: options.quality, effort: 1 }).toBuffer(),
};
