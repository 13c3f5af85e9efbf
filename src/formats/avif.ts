import { avifEncoder } from '../encoders/avif.js';
import { imageFormat } from './image-format.js';

/** AVIF at `quality`: the smallest files, for thumbnails and the web. */
export const avif = imageFormat({ name: 'avif', aliases: [], contentType: 'image/avif', extension: 'avif', lossy: true }, avifEncoder);
