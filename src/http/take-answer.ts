import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CaptureResult } from '../capture/engine.js';
import { etagOf } from '../cache/capture-cache.js';
import { formatOf } from '../formats/registry.js';
import { downloadNameOf } from '../options/attachment-name.js';
import type { TakeOptions } from '../options/schema.js';
import type { TakeCapture, TakeOutcome } from '../take/take-capture.js';
import { Timings } from '../capture/timings.js';
import { contentDisposition } from '../util/content-disposition.js';
import { setCacheHeaders } from './cache-headers.js';
import { setCaptureFlags } from './capture-headers.js';
import { sendEmpty, sendJson } from './json-answer.js';
import { absoluteUrl, sendStored } from './upload.js';

/** A take's answer in the shape response_type asks for: the file, JSON, nothing, or the stored file's link. */
export function sendTake(
  request: FastifyRequest,
  reply: FastifyReply,
  options: TakeOptions,
  { result, stored, extraStored, cached }: TakeOutcome,
  timings: Timings,
  publicUrl: string | undefined,
) {
  if (cached) setCacheHeaders(reply, cached);
  if (options.response_type === 'json') return sendJson(request, reply, result, stored, publicUrl, timings, cached, extraStored);
  if (options.response_type === 'empty') return sendEmpty(reply, result, timings);
  if (stored) return sendStored(request, reply, result, stored, publicUrl, timings.toServerTiming(), extraStored);
  return sendCapture(request, reply, options, result, timings, cached?.entry.etag);
}

/** The file itself, with its ETag (If-None-Match → 304) and download name. */
function sendCapture(
  request: FastifyRequest,
  reply: FastifyReply,
  options: TakeOptions,
  result: CaptureResult,
  timings: Timings,
  etag = etagOf(result.body),
) {
  const downloadName = downloadNameOf(options.attachment_name, result.format);
  const disposition = downloadName
    ? contentDisposition('attachment', downloadName)
    : contentDisposition('inline', `screenshot.${formatOf(result.format).extension}`);
  reply
    .header('content-type', result.contentType)
    .header('content-length', result.body.length)
    .header('content-disposition', disposition)
    .header('server-timing', timings.toServerTiming())
    .header('etag', etag);
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  setCaptureFlags(reply, result);
  // The caller has these bytes already.
  if (request.headers['if-none-match'] === etag) return reply.code(304).removeHeader('content-length').send();
  return reply.send(result.body);
}

/** Takes for the request's caller (the take and animate routes): charged to it, logged under its id, quota headers on the answer. */
export async function takeAndSend(
  take: Pick<TakeCapture, 'take'>,
  options: TakeOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  publicUrl: string | undefined,
) {
  const timings = new Timings();
  const outcome = await take.take({
    options,
    timings,
    billing: {
      caller: request.caller!,
      requestId: request.id,
      onCharged: (headers) => reply.headers(headers),
      linkOf: (stored) => absoluteUrl(request, publicUrl, stored),
      log: request.log,
    },
  });
  return sendTake(request, reply, options, outcome, timings, publicUrl);
}
