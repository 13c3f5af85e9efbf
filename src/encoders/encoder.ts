import type { RawImage, RawRequest } from './raw-image.js';
import type { TakeOptions } from '../options/schema.js';

/** Turns Chromium's raw pixels into the requested image format. */
export interface ImageEncoder {
  /** What to ask Chromium for, given the options. */
  raw(options: TakeOptions): RawRequest;
  encode(image: RawImage, options: TakeOptions): Promise<Buffer>;
}
