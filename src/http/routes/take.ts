import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Timings } from '../../capture/timings.js';
import { AppError } from '../../errors/app-error.js';
import { parseTakeOptions } from '../../options/parse-take-options.js';
import type { AppDeps } from '../app.js';
import { requireApiKey, requireApiKeyOrSignedLink } from '../auth.js';
import { parseContextOf } from '../parse-context.js';
import { ParsedQueries } from '../parsed-queries.js';
import { sendTake } from '../take-answer.js';
import { absoluteUrl } from '../upload.js';
import { acceptTakeJob } from './jobs.js';

/** Longer GET URLs (html in the query) are parsed every time. */
const MAX_REMEMBERED_URL = 4096;

/** GET and POST /v1/take: parse the options, call the take use case (or queue a job), send its answer. */
export function takeRoutes(app: FastifyInstance, deps: AppDeps): void {
  const context = parseContextOf(deps);
  const parsedQueries = new ParsedQueries();

  /** `query`: the GET request's raw query string, whose options may have been parsed before. */
  const take = async (raw: Record<string, unknown>, request: FastifyRequest, reply: FastifyReply, query?: string) => {
    const options = query === undefined ? parseTakeOptions(raw, context) : parsedQueries.get(query, () => parseTakeOptions(raw, context));
    if (options.async) return acceptTakeJob(deps, request, reply, { params: raw, options });
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

  // HEAD would render a whole capture only to drop the body.
  app.get(
    '/v1/take',
    { preHandler: requireApiKeyOrSignedLink(deps.accounts, deps.signingSecret), exposeHeadRoute: false },
    (request, reply) => {
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
    },
  );

  app.post('/v1/take', { preHandler: requireApiKey(deps.accounts) }, (request, reply) => {
    // Query parameters (other than apikey) are allowed alongside a body; the body wins a tie.
    if (Array.isArray(request.body) || (request.body !== undefined && request.body !== null && typeof request.body !== 'object')) {
      throw new AppError('invalid_json', 'the body must be a JSON object of parameters');
    }
    const body = (request.body ?? {}) as Record<string, unknown>;
    return take({ ...(request.query as Record<string, unknown>), ...body }, request, reply);
  });
}
