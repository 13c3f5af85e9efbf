import type { FastifyReply } from 'fastify';
import type { CaptureResult } from '../capture/engine.js';

/** What a capture says about itself, on the file and on the upload=1 answer alike: X-Shutter-Truncated, X-Shutter-Selector, X-Shutter-Warning. */
export function setCaptureFlags(reply: FastifyReply, result: CaptureResult): void {
  if (result.truncated) reply.header('x-shutter-truncated', result.truncated);
  if (result.selector) reply.header('x-shutter-selector', result.selector);
  if (result.warnings?.length) reply.header('x-shutter-warning', result.warnings.join(','));
}
