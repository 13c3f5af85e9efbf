import type { FastifyReply, FastifyRequest } from 'fastify';
import sharp from 'sharp';
import type { CaptureResult } from '../capture/engine.js';
import type { Timings } from '../capture/timings.js';
import { formatOf } from '../formats/registry.js';
import type { StoredFile } from '../storage/file-store.js';
import type { CacheAnswer } from '../take/take-capture.js';
import { setCaptureFlags } from './capture-headers.js';
import { extraJson } from './extra-json.js';
import { absoluteUrl } from './upload.js';

/** Larger files are not inlined as base64 in a JSON answer (DESIGN.md §4.2): store them with upload=1. */
const MAX_INLINE_BYTES = 10 * 1024 * 1024;

/**
 * response_type=json: what was captured, as JSON (DESIGN.md §4.2): the file inline as base64 when
 * it is not stored and at most 10 MB, else its stored URL; image size, timings, warnings and, with
 * metadata=1, what the page says about itself.
 */
export async function sendJson(
  request: FastifyRequest,
  reply: FastifyReply,
  result: CaptureResult,
  stored: StoredFile | undefined,
  publicUrl: string | undefined,
  timings: Timings,
  cached?: CacheAnswer,
  extraStored?: Record<string, StoredFile>,
) {
  const size = formatOf(result.format).kind === 'image' ? await imageSize(result.body) : {};
  const url = stored ? absoluteUrl(request, publicUrl, stored) : null;
  setCaptureFlags(reply, result);
  if (!cached) reply.header('cache-control', 'no-store');
  return reply.header('server-timing', timings.toServerTiming()).send({
    request_id: request.id,
    format: result.format,
    content_type: result.contentType,
    size: result.body.length,
    ...size,
    url,
    expires_at: (stored?.expiresAt ?? cached?.entry.expiresAt)?.toISOString() ?? null,
    data_base64: !stored && result.body.length <= MAX_INLINE_BYTES ? result.body.toString('base64') : null,
    cache: cached ? cached.state.toLowerCase() : null,
    metadata: result.metadata ?? null,
    timings: Object.fromEntries(Object.entries(timings.ms).map(([phase, ms]) => [phase, Math.round(ms * 10) / 10])),
    warnings: result.warnings ?? [],
    ...(result.pendingRequests ? { pending_requests: result.pendingRequests } : {}),
    ...(result.extra?.length ? { extra: extraJson(result, extraStored, (stored) => absoluteUrl(request, publicUrl, stored)) } : {}),
  });
}

/** response_type=empty: 200 and the capture's headers, no body (warms a cache, checks a page). */
export function sendEmpty(reply: FastifyReply, result: CaptureResult, timings: Timings) {
  setCaptureFlags(reply, result);
  return reply.code(200).header('cache-control', 'no-store').header('server-timing', timings.toServerTiming()).send();
}

async function imageSize(body: Buffer): Promise<{ width?: number; height?: number }> {
  const { width, height } = await sharp(body).metadata();
  return width && height ? { width, height } : {};
}
