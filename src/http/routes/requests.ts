import type { FastifyInstance } from 'fastify';
import { AppError } from '../../errors/app-error.js';
import type { AppDeps } from '../app.js';
import { requireApiKey } from '../auth.js';

/** GET /v1/requests/{request_id}: the debug bundle of one of the caller's account's debug=1 captures (24 h). */
export function requestRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get<{ Params: { id: string } }>('/v1/requests/:id', { preHandler: requireApiKey(deps.accounts) }, async (request, reply) => {
    const bundle = await deps.accounts.requests.bundle(request.caller!.account.id, request.params.id.slice(0, 200));
    // Another account's request, one without debug=1 and an expired bundle look the same.
    if (bundle === undefined) throw new AppError('not_found', 'no debug bundle for this request id: it needs debug=1 and lasts 24 hours');
    return reply.header('cache-control', 'no-store').send(bundle);
  });
}
