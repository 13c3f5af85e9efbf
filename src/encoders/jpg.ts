import type { ImageEncoder } from './encoder.js';

/** Chromium encodes JPEG itself at the requested quality; nothing to gain from a second pass. */
export const jpgEncoder: ImageEncoder = {
  raw: (options) => ({ format: 'jpeg', quality: options.quality }),
  encode: async (raw) => raw,
};
