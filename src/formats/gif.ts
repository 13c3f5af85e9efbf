import { gifEncoder } from '../encoders/gif.js';
import { imageFormat } from './image-format.js';

/** GIF (a still image). */
export const gif = imageFormat({ name: 'gif', aliases: [], contentType: 'image/gif', extension: 'gif', lossy: false }, gifEncoder);
