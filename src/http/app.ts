import formbody from '@fastify/formbody';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { dashboardRoutes } from '../dashboard/routes.js';
import { AppError } from '../errors/app-error.js';
import { redactUrl } from '../observability/logger.js';
import { MAX_HTML_CHARS } from '../options/limits.js';
import type { AppParts } from './app-parts.js';
import { authGuards } from './auth.js';
import { toErrorResponse } from './error-response.js';
import { limitParameters, parseFormBody } from './parameter-limit.js';
import { requestIdFor } from './request-id.js';
import { ROUTE_TABLE } from './route-table.js';
import { countAnswers } from './routes/metrics.js';
import { answerClientError } from './client-error.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/** Builds the Fastify app; the caller decides whether to listen or inject. */
export async function createApp(deps: AppParts): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    genReqId: requestIdFor,
    // html may be 5 MB; JSON escaping can grow it, so leave room before 413.
    bodyLimit: MAX_HTML_CHARS + 1024 * 1024,
    trustProxy: deps.trustProxy ?? false,
    routerOptions: { ignoreTrailingSlash: true },
    // Requests are logged by our own hook below, with the apikey query value redacted whatever logger is injected.
    logController: new LogController({ disableRequestLogging: true }),
    // While closing, requests on kept-alive connections get our JSON 503 (hook below), not Fastify's own body.
    return503OnClosing: false,
    clientErrorHandler: answerClientError,
  });
  // Only JSON and form bodies are accepted; Fastify's text/plain parser would let other bodies through as strings.
  app.removeContentTypeParser('text/plain');

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async () => {
    if (closing) throw new AppError('browser_unavailable', 'the service is shutting down; retry', { retryAfterSeconds: 5 });
  });
  // A request that was in flight when closing began ends its connection too, or a kept-alive idle
  // connection would hold close() open until the client drops it.
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      { method: request.method, url: redactUrl(request.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request',
    );
  });
  await app.register(formbody, { bodyLimit: MAX_HTML_CHARS + 1024 * 1024, parser: parseFormBody });
  app.addHook('preValidation', limitParameters);

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

  if (deps.metrics) countAnswers(app, deps.metrics);
  const guards = authGuards(deps.accounts, deps.signingSecret);
  for (const { route, handler } of ROUTE_TABLE.flatMap((group) => group.mount(deps))) {
    const preHandler = guards[route.auth];
    app.route({
      method: route.method,
      url: route.url,
      handler,
      ...(preHandler ? { preHandler } : {}),
      ...(route.exposeHeadRoute === false ? { exposeHeadRoute: false } : {}),
    });
  }
  if (deps.api === false) return app;
  await dashboardRoutes(app, deps.accounts, deps.signingSecret, deps.jobs?.store);
  return app;
}
