import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CaptureResult } from '../../capture/engine.js';
import { Timings } from '../../capture/timings.js';
import { AppError } from '../../errors/app-error.js';
import { downloadNameOf } from '../../options/attachment-name.js';
import { formatOf } from '../../formats/registry.js';
import { parseTakeOptions } from '../../options/parse-take-options.js';
import type { TakeOptions } from '../../options/schema.js';
import type { AppDeps } from '../app.js';
import { requireApiKey, requireApiKeyOrSignedLink } from '../auth.js';
import { setCaptureFlags } from '../capture-headers.js';
import { chargeCapture } from '../metering.js';
import { contentDisposition } from '../../util/content-disposition.js';
import { sendStored, storeCapture } from '../upload.js';
import { newDebugTrace } from '../../capture/debug-trace.js';
import { recordRequest } from '../request-record.js';
import { sendEmpty, sendJson } from '../json-answer.js';

/** GET and POST /v1/take: options in, file out. */
export function takeRoutes(app: FastifyInstance, deps: AppDeps): void {
  const authenticate = requireApiKey(deps.accounts);
  const context = { countries: deps.countries ?? [], ...(deps.maxPixels !== undefined ? { maxPixels: deps.maxPixels } : {}) };

  const take = async (raw: Record<string, unknown>, request: FastifyRequest, reply: FastifyReply) => {
    const options = parseTakeOptions(raw, context);
    const timings = new Timings();
    const startedAt = new Date();
    const trace = options.debug ? newDebugTrace() : undefined;
    let outcome;
    try {
      // Counted against the plan's concurrency and quota; charged only when the capture (and its upload) succeeds.
      outcome = await chargeCapture(deps.accounts, reply, async () => {
        const captured = await deps.engine.capture(options, timings, trace);
        return { result: captured, stored: options.upload ? await storeCapture(deps.store, options, captured) : undefined };
      });
    } catch (error) {
      await recordRequest(deps, request, options, startedAt, { status: statusOf(error), error }, trace);
      throw error;
    }
    await recordRequest(deps, request, options, startedAt, { status: 200 }, trace);
    const { result, stored } = outcome;
    deps.accounts.keys.touch(request.apiKey!.id);
    if (options.response_type === 'json') return sendJson(request, reply, result, stored, deps.publicUrl, timings);
    if (options.response_type === 'empty') return sendEmpty(reply, result, timings);
    if (stored) return sendStored(request, reply, result, stored, deps.publicUrl, timings.toServerTiming());
    return sendCapture(reply, options, result, timings);
  };

  // HEAD would render a whole capture only to drop the body.
  app.get(
    '/v1/take',
    { preHandler: requireApiKeyOrSignedLink(deps.accounts, deps.signingSecret), exposeHeadRoute: false },
    (request, reply) => {
      // A signed link's own parameters are not capture options.
      const { access_key: _key, signature: _signature, expires: _expires, ...query } = request.query as Record<string, unknown>;
      return take(request.signedLink ? query : (request.query as Record<string, unknown>), request, reply);
    },
  );

  app.post('/v1/take', { preHandler: authenticate }, (request, reply) => {
    // Query parameters (other than apikey) are allowed alongside a body; the body wins a tie.
    if (Array.isArray(request.body) || (request.body !== undefined && request.body !== null && typeof request.body !== 'object')) {
      throw new AppError('invalid_json', 'the body must be a JSON object of parameters');
    }
    const body = (request.body ?? {}) as Record<string, unknown>;
    return take({ ...(request.query as Record<string, unknown>), ...body }, request, reply);
  });
}

function sendCapture(reply: FastifyReply, options: TakeOptions, result: CaptureResult, timings: Timings) {
  const downloadName = downloadNameOf(options.attachment_name, result.format);
  const disposition = downloadName
    ? contentDisposition('attachment', downloadName)
    : contentDisposition('inline', `screenshot.${formatOf(result.format).extension}`);
  reply
    .header('content-type', result.contentType)
    .header('content-length', result.body.length)
    .header('content-disposition', disposition)
    .header('server-timing', timings.toServerTiming())
    .header('cache-control', 'no-store');
  setCaptureFlags(reply, result);
  return reply.send(result.body);
}

function statusOf(error: unknown): number {
  return error instanceof AppError ? error.status : 500;
}
