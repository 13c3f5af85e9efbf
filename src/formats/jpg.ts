import { jpgEncoder } from '../encoders/jpg.js';
import { imageFormat } from './image-format.js';

/** JPEG at `quality`. */
export const jpg = imageFormat({ name: 'jpg', aliases: ['jpeg'], contentType: 'image/jpeg', extension: 'jpg', lossy: true }, jpgEncoder);
