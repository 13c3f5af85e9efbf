/**
 * Preload (`node --import`) for bench/png-size.ts: makes a Shutter process encode PNG with the rule
 * it had before issue 21, so that before and after are measured side by side, one process each.
 */
import { pngEncoder } from '../../src/encoders/png.js';
import { encodePngBefore } from './png-candidates.js';

pngEncoder.encode = (image) => encodePngBefore(image);
