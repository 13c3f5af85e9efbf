import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../app.js';
import { requireApiKey } from '../auth.js';

/** GET /v1/status: who is calling and how the service is doing. */
export function statusRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get('/v1/status', { preHandler: requireApiKey(deps.keys) }, async (request) => {
    const key = request.apiKey!;
    const engine = deps.engine.status();
    return {
      status: 'ok',
      version: deps.version,
      key: { id: key.id, name: key.name, prefix: key.prefix, created_at: key.createdAt, last_used_at: key.lastUsedAt },
      service: { browser: engine.browser ?? null, pool: engine.pool },
      countries: deps.countries ?? [],
    };
  });
}
