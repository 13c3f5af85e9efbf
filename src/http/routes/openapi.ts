import type { FastifyInstance } from 'fastify';
import { buildOpenApi } from '../../options/openapi.js';
import type { AppDeps } from '../app.js';

/** GET /openapi.json, public like the docs it mirrors. Built once. */
export function openApiRoutes(app: FastifyInstance, deps: AppDeps): void {
  const document = buildOpenApi(deps.version);
  app.get('/openapi.json', async () => document);
}
