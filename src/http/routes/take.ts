import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors/app-error.js';
import { takeQueryJsonSchema } from '../../options/openapi.js';
import { parseTakeOptions, type ParseContext } from '../../options/parse-take-options.js';
import type { TakeCapture } from '../../take/take-capture.js';
import { ERROR_RESPONSES, FILE_RESPONSE, IDEMPOTENCY_KEY_HEADER, ref } from '../api-schemas.js';
import { ParsedQueries } from '../parsed-queries.js';
import { defineRoute } from '../route.js';
import { takeAndSend } from '../take-answer.js';
import { acceptTakeJob, type JobQueueDeps } from './jobs.js';

/** Longer GET URLs (html in the query) are parsed every time. */
const MAX_REMEMBERED_URL = 4096;

/** What a take needs: the use case, the parse context, and the job intake for async=1. */
export interface TakeDeps extends JobQueueDeps {
  take: Pick<TakeCapture, 'take'>;
  parse: ParseContext;
}

/** Parse the options (or reuse the same query string's), call the take use case (or queue a job), send its answer. */
function taker(deps: TakeDeps) {
  const parsedQueries = new ParsedQueries();
  /** `query`: the GET request's raw query string, whose options may have been parsed before. */
  return async (raw: Record<string, unknown>, request: FastifyRequest, reply: FastifyReply, query?: string) => {
    const parse = () => parseTakeOptions(raw, deps.parse);
    const options = query === undefined ? parse() : parsedQueries.get(query, parse);
    if (options.async) return acceptTakeJob(deps, request, reply, { params: raw, options });
    return takeAndSend(deps.take, options, request, reply, deps.publicUrl);
  };
}

/** GET and POST /v1/take. */
export const takeRoutes = [
  defineRoute<TakeDeps>({
    method: 'GET',
    url: '/v1/take',
    auth: 'key-or-signed-link',
    // HEAD would render a whole capture only to drop the body.
    exposeHeadRoute: false,
    schema: () => ({ summary: 'Capture a page', querystring: takeQueryJsonSchema(), response: { 200: FILE_RESPONSE, ...ERROR_RESPONSES } }),
    handler: (deps) => {
      const take = taker(deps);
      return (request, reply) => {
        const all = request.query as Record<string, unknown>;
        const url = request.raw.url ?? '';
        // Options parsed from the same query string before are reused; one holding the key itself, or long, is not remembered.
        const remembered =
          all.apikey === undefined && url.length <= MAX_REMEMBERED_URL
            ? `${request.signedLink ? 'signed' : 'key'}?${url.slice(url.indexOf('?') + 1)}`
            : undefined;
        if (!request.signedLink) return take(all, request, reply, remembered);
        // A signed link's own parameters are not capture options.
        const { access_key: _key, signature: _signature, expires: _expires, ...query } = all;
        return take(query, request, reply, remembered);
      };
    },
  }),
  defineRoute<TakeDeps>({
    method: 'POST',
    url: '/v1/take',
    auth: 'key',
    schema: () => ({
      summary: 'Capture a page or HTML (async=1: queue it as a job, 202)',
      headers: IDEMPOTENCY_KEY_HEADER,
      consumes: ['application/json', 'application/x-www-form-urlencoded'],
      body: ref('TakeOptions'),
      // Query parameters alone are a whole request too.
      'x-body-optional': true,
      response: {
        200: FILE_RESPONSE,
        202: { description: 'async=1: the job, queued', content: { 'application/json': { schema: ref('JobCreated') } } },
        ...ERROR_RESPONSES,
      },
    }),
    handler: (deps) => {
      const take = taker(deps);
      return (request, reply) => {
        // Query parameters (other than apikey) are allowed alongside a body; the body wins a tie.
        if (Array.isArray(request.body) || (request.body !== undefined && request.body !== null && typeof request.body !== 'object')) {
          throw new AppError('invalid_json', 'the body must be a JSON object of parameters');
        }
        const body = (request.body ?? {}) as Record<string, unknown>;
        return take({ ...(request.query as Record<string, unknown>), ...body }, request, reply);
      };
    },
  }),
];
