import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CaptureEngine } from '../../capture/engine.js';
import { ffmpegUnavailable } from '../../capture/render/animation.js';
import { AppError } from '../../errors/app-error.js';
import { JOB_ENDPOINT } from '../../options/job-params.js';
import { parseAnimateOptions } from '../../options/parse-animate-options.js';
import type { ParseContext } from '../../options/parse-take-options.js';
import type { TakeCapture } from '../../take/take-capture.js';
import { animateQueryJsonSchema } from '../../options/openapi.js';
import { ERROR_RESPONSES, IDEMPOTENCY_KEY_HEADER, ref } from '../api-schemas.js';
import { defineRoute } from '../route.js';
import { takeAndSend } from '../take-answer.js';
import { acceptTakeJob, type JobQueueDeps } from './jobs.js';

/** What an animation needs: the take use case, the parse context, whether ffmpeg is there, and the job intake for async=1. */
export interface AnimateDeps extends JobQueueDeps {
  take: Pick<TakeCapture, 'take'>;
  parse: ParseContext;
  engine: Pick<CaptureEngine, 'animationReady'>;
}

const VIDEO_RESPONSE = {
  description: 'The video.',
  content: Object.fromEntries(
    ['video/mp4', 'video/webm', 'image/gif'].map((type) => [type, { schema: { type: 'string', format: 'binary' } }]),
  ),
};

/**
 * A video of the page (DESIGN.md §5.3). The take use case does the rest (cache, charge: one animation
 * is one capture, engine, store, request log), as for /v1/take.
 */
function animator(deps: AnimateDeps) {
  return async (raw: Record<string, unknown>, request: FastifyRequest, reply: FastifyReply) => {
    const options = parseAnimateOptions(raw, deps.parse);
    // Before any charge or job: a server without ffmpeg cannot make one.
    if (deps.engine.animationReady?.() === false) throw ffmpegUnavailable();
    if (options.async) return acceptTakeJob(deps, request, reply, { params: { ...raw, [JOB_ENDPOINT]: 'animate' }, options });
    return takeAndSend(deps.take, options, request, reply, deps.publicUrl);
  };
}

const description =
  'The take options that apply to a page, plus format (mp4, webm, gif), duration, fps, scenario (default, scroll), scroll_by, ' +
  'scroll_duration, scroll_delay, scroll_easing, scroll_back, scroll_till_selector (docs/api.md, "GET /v1/animate").';

/** GET and POST /v1/animate. */
export const animateRoutes = [
  defineRoute<AnimateDeps>({
    method: 'GET',
    url: '/v1/animate',
    auth: 'key-or-signed-link',
    // HEAD would record a whole video only to drop the body.
    exposeHeadRoute: false,
    schema: () => ({
      summary: 'A video of a page',
      description,
      querystring: animateQueryJsonSchema(),
      response: { 200: VIDEO_RESPONSE, ...ERROR_RESPONSES },
    }),
    handler: (deps) => {
      const animate = animator(deps);
      return (request, reply) => {
        const all = request.query as Record<string, unknown>;
        if (!request.signedLink) return animate(all, request, reply);
        // A signed link's own parameters are not capture options.
        const { access_key: _key, signature: _signature, expires: _expires, ...query } = all;
        return animate(query, request, reply);
      };
    },
  }),
  defineRoute<AnimateDeps>({
    method: 'POST',
    url: '/v1/animate',
    auth: 'key',
    schema: () => ({
      summary: 'A video of a page or HTML (async=1: queue it as a job, 202)',
      description,
      headers: IDEMPOTENCY_KEY_HEADER,
      consumes: ['application/json', 'application/x-www-form-urlencoded'],
      body: ref('AnimateOptions'),
      'x-body-optional': true,
      response: {
        200: VIDEO_RESPONSE,
        202: { description: 'async=1: the job, queued', content: { 'application/json': { schema: ref('JobCreated') } } },
        ...ERROR_RESPONSES,
      },
    }),
    handler: (deps) => {
      const animate = animator(deps);
      return (request, reply) => {
        // Query parameters (other than apikey) are allowed alongside a body; the body wins a tie.
        if (Array.isArray(request.body) || (request.body !== undefined && request.body !== null && typeof request.body !== 'object')) {
          throw new AppError('invalid_json', 'the body must be a JSON object of parameters');
        }
        const body = (request.body ?? {}) as Record<string, unknown>;
        return animate({ ...(request.query as Record<string, unknown>), ...body }, request, reply);
      };
    },
  }),
];
