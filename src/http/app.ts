import formbody from '@fastify/formbody';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { AccountServices } from '../accounts/services.js';
import type { CaptureEngine } from '../capture/engine.js';
import { dashboardRoutes } from '../dashboard/routes.js';
import { AppError } from '../errors/app-error.js';
import { redactUrl } from '../observability/logger.js';
import { MAX_HTML_CHARS } from '../options/limits.js';
import { toErrorResponse } from './error-response.js';
import { limitParameters, parseFormBody } from './parameter-limit.js';
import { requestIdFor } from './request-id.js';
import type { FileStore } from '../storage/file-store.js';
import type { TakeCapture } from '../take/take-capture.js';
import { deviceRoutes } from './routes/devices.js';
import { fileRoutes } from './routes/files.js';
import { healthRoutes } from './routes/health.js';
import { metricsRoutes } from './routes/metrics.js';
import type { Metrics } from '../observability/metrics.js';
import { openApiRoutes } from './routes/openapi.js';
import { docsRoutes } from './routes/docs.js';
import { statusRoutes } from './routes/status.js';
import { requestRoutes } from './routes/requests.js';
import { takeRoutes } from './routes/take.js';
import { animateRoutes } from './routes/animate.js';
import { jobRoutes } from './routes/jobs.js';
import type { JobIntake } from '../jobs/job-intake.js';
import type { JobStore } from '../jobs/job-store.js';

/** Everything the HTTP layer needs, injected so tests can swap the engine. */
export interface AppDeps {
  engine: CaptureEngine;
  /** Accounts, keys, plans, usage and limits. */
  accounts: AccountServices;
  logger: Logger;
  version: string;
  /** Country codes with a configured proxy (ip_country_code). */
  countries?: string[];
  /** SHUTTER_MAX_PIXELS: viewport images over it are refused while parsing (400), before any reservation. */
  maxPixels?: number;
  trustProxy?: boolean;
  /** Where upload=1 stores captures; without one, upload=1 answers 501. */
  store?: FileStore;
  /** Base URL for links to locally stored files (default: from the request). */
  publicUrl?: string;
  /** The take use case (cache, charge, engine, store, request log). */
  take: TakeCapture;
  /** SHUTTER_SIGNING_SECRET (or the data dir's): keys' signing secrets derive from it; without it, signed links are refused. */
  signingSecret?: Buffer;
  /** GET /metrics and the hooks that feed it (limit refusals, cache hits); absent, no /metrics. */
  metrics?: Metrics;
  /** SHUTTER_METRICS_TOKEN: when set, /metrics wants it as a Bearer token. */
  metricsToken?: string;
  /** Async jobs (async=1, /v1/jobs, /v1/bulk); absent where the server takes none. */
  jobs?: { intake: JobIntake; store: JobStore };
  /** False on a worker (`serve --role worker`): health and metrics only, no public API. */
  api?: boolean;
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
    // While closing, requests on kept-alive connections get our JSON 503 (hook below), not Fastify's own body.
    return503OnClosing: false,
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

  if (deps.metrics) metricsRoutes(app, deps.metrics, deps.metricsToken);
  healthRoutes(app, deps);
  if (deps.api === false) return app;
  takeRoutes(app, deps);
  animateRoutes(app, deps);
  jobRoutes(app, deps);
  statusRoutes(app, deps);
  requestRoutes(app, deps);
  openApiRoutes(app, deps);
  docsRoutes(app);
  deviceRoutes(app);
  fileRoutes(app, deps);
  await dashboardRoutes(app, deps.accounts, deps.signingSecret, deps.jobs?.store);
  return app;
}
