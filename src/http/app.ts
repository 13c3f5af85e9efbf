import formbody from '@fastify/formbody';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { KeyStore } from '../accounts/key-store.js';
import type { CaptureEngine } from '../capture/engine.js';
import { AppError } from '../errors/app-error.js';
import { redactUrl } from '../observability/logger.js';
import { MAX_HTML_CHARS } from '../options/schema.js';
import { toErrorResponse } from './error-response.js';
import { requestIdFor } from './request-id.js';
import { healthRoutes } from './routes/health.js';
import { openApiRoutes } from './routes/openapi.js';
import { statusRoutes } from './routes/status.js';
import { takeRoutes } from './routes/take.js';

/** Everything the HTTP layer needs, injected so tests can swap the engine. */
export interface AppDeps {
  engine: CaptureEngine;
  keys: KeyStore;
  logger: Logger;
  version: string;
  /** Country codes with a configured proxy (ip_country_code). */
  countries?: string[];
  trustProxy?: boolean;
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/** Builds the Fastify app; the caller decides whether to listen or inject. */
export async function createApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    genReqId: requestIdFor,
    // html may be 5 MB; JSON escaping can grow it, so leave room before 413.
    bodyLimit: MAX_HTML_CHARS + 1024 * 1024,
    trustProxy: deps.trustProxy ?? false,
    routerOptions: { ignoreTrailingSlash: true },
    // Requests are logged by our own hook below, with the apikey query value redacted whatever logger is injected.
    logController: new LogController({ disableRequestLogging: true }),
  });
  // Only JSON and form bodies are accepted; Fastify's text/plain parser would let other bodies through as strings.
  app.removeContentTypeParser('text/plain');

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      { method: request.method, url: redactUrl(request.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request',
    );
  });
  await app.register(formbody, { bodyLimit: MAX_HTML_CHARS + 1024 * 1024 });

  app.setErrorHandler(async (error, request, reply) => {
    const response = toErrorResponse(error, request.id, request.log);
    return reply.code(response.status).headers(response.headers).send(response.body);
  });

  app.setNotFoundHandler(async (request) => {
    const url = request.url.split('?')[0]!;
    const allowed = METHODS.filter((method) => app.hasRoute({ method, url }));
    if (allowed.length > 0) {
      throw new AppError('method_not_allowed', `${request.method} is not allowed here; use ${allowed.join(', ')}`, {
        headers: { allow: allowed.join(', ') },
      });
    }
    throw new AppError('not_found', `no route ${request.method} ${url}`);
  });

  healthRoutes(app, deps);
  takeRoutes(app, deps);
  statusRoutes(app, deps);
  openApiRoutes(app, deps);
  return app;
}
