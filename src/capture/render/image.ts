import type { ImageEncoder } from '../../encoders/encoder.js';
import { resizeImage } from '../../encoders/resize.js';
import { selectElement, type Region } from '../steps/element.js';
import { preloadLazyContent } from './preload-lazy-content.js';
import { allowedCssHeight, captureRaw } from './screenshot.js';
import type { RenderContext, RenderedOutput, Renderer } from './render-context.js';

/**
 * An image format: Chromium's pixels (as the encoder asks for them) through the encoder. A full
 * page first loads its lazy content, within what the capture's deadline leaves; `selector` and
 * clip_* capture a part of the document; image_width/height resize the result.
 */
export function imageRenderer(encoder: ImageEncoder): Renderer {
  return async (ctx: RenderContext): Promise<RenderedOutput> => {
    const { page, cdp, options, limits, timings, clock } = ctx;
    const settings = { quality: options.quality, smallest: options.async };
    // A resized image is decoded anyway: Chromium's fastest PNG is enough for it.
    const resized = options.image_width !== undefined || options.image_height !== undefined;
    const request = resized ? { ...encoder.raw(settings), optimizeForSpeed: true } : encoder.raw(settings);
    const selection = await timings.measure('wait', () => selectElement(ctx));
    const region: Region | undefined =
      selection.region ??
      (options.clip_x !== undefined && options.clip_y !== undefined && options.clip_width !== undefined && options.clip_height !== undefined
        ? { x: options.clip_x, y: options.clip_y, width: options.clip_width, height: options.clip_height }
        : undefined);
    if (options.full_page && !region) {
      const height = allowedCssHeight(options, limits, request);
      await timings.measure('wait', () => preloadLazyContent(page, cdp, height, clock, { forPrint: false }));
    }
    // Transparent where the page paints nothing: Chromium's default white backdrop goes.
    if (options.omit_background) await cdp.send('Emulation.setDefaultBackgroundColorOverride', { color: { r: 0, g: 0, b: 0, a: 0 } });
    const raw = await timings.measure('capture', () => captureRaw(cdp, options, request, limits, region));
    const body = await timings.measure('encode', async () => encoder.encode(await resizeImage(raw.image, options), settings));
    return { body, truncated: raw.truncated, ...(selection.missing ? { selectorMissing: true } : {}) };
  };
}
