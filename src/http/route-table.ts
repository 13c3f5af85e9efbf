import { LocalStore } from '../storage/local-store.js';
import type { AppParts } from './app-parts.js';
import { buildOpenApi } from './openapi-document.js';
import { Unconfigured, type RouteDeclaration } from './route.js';
import { docsDeps, docsRoutes } from './routes/docs.js';
import { animateRoutes } from './routes/animate.js';
import { deviceRoutes } from './routes/devices.js';
import { fileRoutes } from './routes/files.js';
import { healthRoutes } from './routes/health.js';
import { jobRoutes } from './routes/jobs.js';
import { mcpRoutes } from './routes/mcp.js';
import { metricsRoutes } from './routes/metrics.js';
import { openApiRoutes } from './routes/openapi.js';
import { requestRoutes } from './routes/requests.js';
import { statusRoutes } from './routes/status.js';
import { takeRoutes } from './routes/take.js';

/** A declared route with the handler its dependencies made: what the app registers. */
export interface MountedRoute {
  route: RouteDeclaration<never>;
  handler: ReturnType<RouteDeclaration<never>['handler']>;
}

/** Routes that share dependencies, and how to pick those from the service's parts (`false`: not on this server). */
export interface RouteGroup {
  routes: readonly RouteDeclaration<never>[];
  mount(parts: AppParts): MountedRoute[];
}

function group<D>(routes: readonly RouteDeclaration<D>[], depsOf: (parts: AppParts) => D | false): RouteGroup {
  return {
    routes,
    mount(parts) {
      const deps = depsOf(parts);
      return deps === false ? [] : routes.map((route) => ({ route, handler: route.handler(deps) }));
    },
  };
}

/** The public API's routes are not on a worker (`serve --role worker`). */
const api =
  <D>(depsOf: (parts: AppParts) => D | false) =>
  (parts: AppParts): D | false =>
    parts.api === false ? false : depsOf(parts);

/** Queueing jobs needs a job backend and a file store for the results; which is missing is said once, here. */
function jobIntakeOf(parts: AppParts) {
  if (!parts.jobs) return new Unconfigured('async jobs are not configured on this server');
  if (!parts.store) return new Unconfigured('async jobs store their results, and this server has no file store');
  return parts.jobs.intake;
}

/** Built on the first GET /openapi.json, then kept. */
function documentOnce(version: string) {
  let document: Promise<Record<string, unknown>> | undefined;
  return () => (document ??= openApiDocument(version));
}

/** Every route of the service, in registration order, each with the narrow dependencies it declares. */
export const ROUTE_TABLE: readonly RouteGroup[] = [
  group(metricsRoutes, (p) => (p.metrics ? { metrics: p.metrics, token: p.metricsToken } : false)),
  group(healthRoutes, (p) => ({ engine: p.engine, keys: p.accounts.keys, limits: p.accounts.limits })),
  // The documented routes, in the order the document lists them.
  group(
    takeRoutes,
    api((p) => ({ take: p.take, parse: p.parse, intake: jobIntakeOf(p), publicUrl: p.publicUrl })),
  ),
  group(
    animateRoutes,
    api((p) => ({ take: p.take, parse: p.parse, engine: p.engine, intake: jobIntakeOf(p), publicUrl: p.publicUrl })),
  ),
  group(
    statusRoutes,
    api((p) => ({
      engine: p.engine,
      concurrency: p.accounts.limits.concurrency,
      version: p.version,
      countries: p.parse.countries,
      signingSecret: p.signingSecret,
    })),
  ),
  group(
    jobRoutes,
    api((p) => ({ intake: jobIntakeOf(p), jobs: p.jobs?.store, parse: p.parse, publicUrl: p.publicUrl })),
  ),
  group(
    mcpRoutes,
    api((p) => ({ take: p.take, parse: p.parse, publicUrl: p.publicUrl, version: p.version })),
  ),
  group(
    deviceRoutes,
    api(() => undefined),
  ),
  group(
    requestRoutes,
    api((p) => ({ requests: p.accounts.requests })),
  ),
  group(
    openApiRoutes,
    api((p) => ({ document: documentOnce(p.version) })),
  ),
  group(
    docsRoutes,
    api(() => docsDeps()),
  ),
  group(
    fileRoutes,
    api((p) => (p.store instanceof LocalStore ? { store: p.store } : false)),
  ),
];

/** The OpenAPI document of every route in the table (GET /openapi.json, the clients' type generators, the docs tests). */
export function openApiDocument(version: string): Promise<Record<string, unknown>> {
  return buildOpenApi(
    version,
    ROUTE_TABLE.flatMap((g) => g.routes),
  );
}
