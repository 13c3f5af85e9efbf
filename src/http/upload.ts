import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CaptureResult } from '../capture/engine.js';
import { setCaptureFlags } from './capture-headers.js';
import type { StoredFile } from '../storage/file-store.js';
import { absoluteLink } from '../jobs/job-json.js';
import { extraJson } from './extra-json.js';

/** Where this service's links point: SHUTTER_PUBLIC_URL, else the request's own origin. */
export function baseUrlOf(request: FastifyRequest, publicUrl: string | undefined): string {
  return publicUrl ?? `${request.protocol}://${request.host}`;
}

/** A stored file's link as the caller can use it: the local store gives a path on this service. */
export function absoluteUrl(request: FastifyRequest, publicUrl: string | undefined, stored: StoredFile): string {
  return absoluteLink(stored.url, baseUrlOf(request, publicUrl));
}

/** The upload=1 answer: `{ url, expires_at, format, content_type, size, request_id }`, plus `warnings` and `pending_requests` after a partial load. */
export function sendStored(
  request: FastifyRequest,
  reply: FastifyReply,
  result: CaptureResult,
  stored: StoredFile,
  publicUrl: string | undefined,
  serverTiming: string,
  extraStored?: Record<string, StoredFile>,
) {
  const url = absoluteUrl(request, publicUrl, stored);
  setCaptureFlags(reply, result);
  return reply
    .header('cache-control', 'no-store')
    .header('server-timing', serverTiming)
    .send({
      url,
      expires_at: stored.expiresAt?.toISOString() ?? null,
      format: result.format,
      content_type: result.contentType,
      size: result.body.length,
      request_id: request.id,
      ...(result.warnings?.length ? { warnings: result.warnings, pending_requests: result.pendingRequests ?? [] } : {}),
      ...(result.extra?.length ? { extra: extraJson(result, extraStored, (file) => absoluteUrl(request, publicUrl, file)) } : {}),
    });
}
