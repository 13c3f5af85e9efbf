import type { RawImage, RawRequest } from './raw-image.js';

/** What an encoder is told: its own settings, never the whole request. */
export interface EncoderSettings {
  /** 0–100, for lossy formats. */
  quality: number;
}

/** Turns Chromium's raw pixels into an image format. */
export interface ImageEncoder {
  /** What to ask Chromium for. */
  raw(settings: EncoderSettings): RawRequest;
  encode(image: RawImage, settings: EncoderSettings): Promise<Buffer>;
}
