import { avifEncoder } from '../../encoders/avif.js';
import { gifEncoder } from '../../encoders/gif.js';
import { jpgEncoder } from '../../encoders/jpg.js';
import { pngEncoder } from '../../encoders/png.js';
import { webpEncoder } from '../../encoders/webp.js';
import type { TakeFormat } from '../../formats/registry.js';
import { renderHtml } from './html.js';
import { imageRenderer } from './image.js';
import { renderMarkdown } from './markdown.js';
import { renderPdf } from './pdf.js';
import type { Renderer } from './render-context.js';

/**
 * How each of /v1/take's formats is rendered: a format of the table (src/formats/registry.ts) without
 * one here does not compile. Animations are recorded instead (render/animation.ts).
 */
export const RENDERERS: Record<TakeFormat, Renderer> = {
  png: imageRenderer(pngEncoder),
  jpg: imageRenderer(jpgEncoder),
  webp: imageRenderer(webpEncoder),
  avif: imageRenderer(avifEncoder),
  gif: imageRenderer(gifEncoder),
  pdf: renderPdf,
  markdown: renderMarkdown,
  html: renderHtml,
};
