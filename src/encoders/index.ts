import type { Format } from '../options/formats.js';
import type { ImageEncoder } from './encoder.js';
import { gifEncoder } from './gif.js';
import { jpgEncoder } from './jpg.js';
import { pngEncoder } from './png.js';
import { webpEncoder } from './webp.js';

/** The image encoder of each image format. */
export const imageEncoders: Partial<Record<Format, ImageEncoder>> = {
  png: pngEncoder,
  jpg: jpgEncoder,
  webp: webpEncoder,
  gif: gifEncoder,
};
