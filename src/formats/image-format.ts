import { preloadLazyContent } from '../capture/steps/preload-lazy-content.js';
import { allowedCssHeight, captureRaw } from '../capture/steps/screenshot.js';
import type { ImageEncoder } from '../encoders/encoder.js';
import type { OutputFormat, RenderContext, RenderedOutput } from './output-format.js';

/** The descriptive part of an image format. */
type ImageFormatFields<Name extends string> = Pick<OutputFormat<Name>, 'name' | 'aliases' | 'contentType' | 'extension' | 'lossy'>;

/**
 * An image format: Chromium's pixels (as the encoder asks for them) through the encoder. A full
 * page first loads its lazy content, within what the capture's deadline leaves.
 */
export function imageFormat<const Name extends string>(fields: ImageFormatFields<Name>, encoder: ImageEncoder): OutputFormat<Name> {
  return {
    ...fields,
    kind: 'image',
    shortTimeCap: false,
    async render({ page, cdp, options, limits, timings, clock }: RenderContext): Promise<RenderedOutput> {
      const request = encoder.raw(options);
      if (options.full_page) {
        const height = allowedCssHeight(options, limits, request);
        await timings.measure('wait', () => preloadLazyContent(page, height, clock));
      }
      const raw = await timings.measure('capture', () => captureRaw(cdp, options, request, limits));
      const body = await timings.measure('encode', () => encoder.encode(raw.image, options));
      return { body, truncated: raw.truncated };
    },
  };
}
