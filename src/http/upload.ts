import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CaptureResult } from '../capture/engine.js';
import { AppError } from '../errors/app-error.js';
import { setCaptureFlags } from './capture-headers.js';
import { downloadNameOf } from '../options/attachment-name.js';
import { formatOf } from '../formats/registry.js';
import type { TakeOptions } from '../options/schema.js';
import type { FileStore, StoredFile } from '../storage/file-store.js';

/** Stores a capture for upload=1; a store that fails is a 502 (and the capture is not charged). */
export async function storeCapture(store: FileStore | undefined, options: TakeOptions, result: CaptureResult): Promise<StoredFile> {
  if (!store) throw new AppError('not_implemented', 'upload is not configured on this server');
  const downloadName = downloadNameOf(options.attachment_name, result.format);
  try {
    return await store.put({
      body: result.body,
      contentType: result.contentType,
      extension: formatOf(result.format).extension,
      ...(downloadName ? { downloadName } : {}),
    });
  } catch {
    throw new AppError('storage_failed', 'the capture could not be stored; retry shortly', { retryAfterSeconds: 5 });
  }
}

/** A stored file's link as the caller can use it: the local store gives a path on this service. */
export function absoluteUrl(request: FastifyRequest, publicUrl: string | undefined, stored: StoredFile): string {
  return stored.url.startsWith('/') ? new URL(stored.url, publicUrl ?? `${request.protocol}://${request.host}`).toString() : stored.url;
}

/** The upload=1 answer: `{ url, expires_at, format, content_type, size, request_id }`, plus `warnings` and `pending_requests` after a partial load. */
export function sendStored(
  request: FastifyRequest,
  reply: FastifyReply,
  result: CaptureResult,
  stored: StoredFile,
  publicUrl: string | undefined,
  serverTiming: string,
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
    });
}
