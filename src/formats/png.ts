import { pngEncoder } from '../encoders/png.js';
import { imageFormat } from './image-format.js';

/** PNG: lossless, the default. */
export const png = imageFormat({ name: 'png', aliases: [], contentType: 'image/png', extension: 'png', lossy: false }, pngEncoder);
