import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../app.js';

/** Unauthenticated probes: /healthz (the process answers), /readyz (a capture could start now). */
export function healthRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const browser = deps.engine.ready();
    let database = true;
    try {
      await deps.keys.countActive();
    } catch {
      database = false;
    }
    const ready = browser && database;
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', browser, database });
  });
}
