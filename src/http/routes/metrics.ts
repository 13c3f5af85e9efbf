import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../errors/app-error.js';
import { LIMIT_KINDS, type LimitKind, type Metrics } from '../../observability/metrics.js';
import { defineRoute } from '../route.js';

/** An answer's error code when it is a limit's refusal (the kind of shutter_limit_refusals_total). */
const limitKindOf = (error: unknown): LimitKind | undefined =>
  error instanceof AppError ? LIMIT_KINDS.find((kind) => kind === error.code) : undefined;

/**
 * The hooks that count what only the HTTP answers know: a limit's refusal (the error's code) and
 * cache=1's hit or miss (X-Shutter-Cache), for every route alike.
 */
export function countAnswers(app: FastifyInstance, metrics: Metrics): void {
  const refused = new WeakMap<FastifyRequest, LimitKind>();
  app.addHook('onError', async (request, _reply, error) => {
    const kind = limitKindOf(error);
    if (kind) refused.set(request, kind);
  });
  app.addHook('onResponse', async (request, reply) => {
    const kind = refused.get(request);
    if (kind) metrics.limitRefused(kind);
    const cache = reply.getHeader('x-shutter-cache');
    if (cache === 'HIT') metrics.cacheLookup('hit');
    else if (cache === 'MISS') metrics.cacheLookup('miss');
  });
}

/** GET /metrics (Prometheus text). With `token` (SHUTTER_METRICS_TOKEN) the scrape must send `Authorization: Bearer <token>`. */
export const metricsRoutes = [
  defineRoute<{ metrics: Pick<Metrics, 'text' | 'contentType'>; token: string | undefined }>({
    method: 'GET',
    url: '/metrics',
    // Not an API key: its own bearer token, checked here.
    auth: 'none',
    handler: ({ metrics, token }) => {
      const expected = token === undefined ? undefined : digest(token);
      return async (request, reply) => {
        if (expected) {
          const presented = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '')?.[1];
          if (presented === undefined || !timingSafeEqual(digest(presented), expected)) {
            throw new AppError(
              'invalid_metrics_token',
              presented === undefined
                ? 'GET /metrics needs the SHUTTER_METRICS_TOKEN as Authorization: Bearer <token>'
                : 'the metrics token is not valid',
              { headers: { 'www-authenticate': 'Bearer realm="metrics"' } },
            );
          }
        }
        const text = await metrics.text();
        return reply.header('content-type', metrics.contentType).header('cache-control', 'no-store').send(text);
      };
    },
  }),
];

/** Equal-length digests, so the comparison takes the same time whatever was sent. */
const digest = (value: string) => createHash('sha256').update(value).digest();
