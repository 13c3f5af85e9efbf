import { webpEncoder } from '../encoders/webp.js';
import { imageFormat } from './image-format.js';

/** WebP at `quality`. */
export const webp = imageFormat({ name: 'webp', aliases: [], contentType: 'image/webp', extension: 'webp', lossy: true }, webpEncoder);
