import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ffmpegUnavailable } from '../../capture/render/animation.js';
import { Timings } from '../../capture/timings.js';
import { AppError } from '../../errors/app-error.js';
import { JOB_ENDPOINT } from '../../options/job-params.js';
import { parseAnimateOptions } from '../../options/parse-animate-options.js';
import type { AppDeps } from '../app.js';
import { requireApiKey, requireApiKeyOrSignedLink } from '../auth.js';
import { parseContextOf } from '../parse-context.js';
import { sendTake } from '../take-answer.js';
import { absoluteUrl } from '../upload.js';
import { acceptTakeJob } from './jobs.js';

/**
 * GET and POST /v1/animate (DESIGN.md §5.3): a video of the page. The take use case does the rest
 * (cache, charge: one animation is one capture, engine, store, request log), as for /v1/take.
 */
export function animateRoutes(app: FastifyInstance, deps: AppDeps): void {
  const context = parseContextOf(deps);

  const animate = async (raw: Record<string, unknown>, request: FastifyRequest, reply: FastifyReply) => {
    const options = parseAnimateOptions(raw, context);
    // Before any charge or job: a server without ffmpeg cannot make one.
    if (deps.engine.animationReady?.() === false) throw ffmpegUnavailable();
    if (options.async) return acceptTakeJob(deps, request, reply, { params: { ...raw, [JOB_ENDPOINT]: 'animate' }, options });
    const timings = new Timings();
    const outcome = await deps.take.take({
      options,
      timings,
      billing: {
        caller: request.caller!,
        requestId: request.id,
        onCharged: (headers) => reply.headers(headers),
        linkOf: (stored) => absoluteUrl(request, deps.publicUrl, stored),
        log: request.log,
      },
    });
    return sendTake(request, reply, options, outcome, timings, deps.publicUrl);
  };

  // HEAD would record a whole video only to drop the body.
  app.get(
    '/v1/animate',
    { preHandler: requireApiKeyOrSignedLink(deps.accounts, deps.signingSecret), exposeHeadRoute: false },
    (request, reply) => {
      const all = request.query as Record<string, unknown>;
      if (!request.signedLink) return animate(all, request, reply);
      // A signed link's own parameters are not capture options.
      const { access_key: _key, signature: _signature, expires: _expires, ...query } = all;
      return animate(query, request, reply);
    },
  );

  app.post('/v1/animate', { preHandler: requireApiKey(deps.accounts) }, (request, reply) => {
    // Query parameters (other than apikey) are allowed alongside a body; the body wins a tie.
    if (Array.isArray(request.body) || (request.body !== undefined && request.body !== null && typeof request.body !== 'object')) {
      throw new AppError('invalid_json', 'the body must be a JSON object of parameters');
    }
    const body = (request.body ?? {}) as Record<string, unknown>;
    return animate({ ...(request.query as Record<string, unknown>), ...body }, request, reply);
  });
}
