import { withTimeout } from '../../util/race-abort.js';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../app.js';

/**
 * Unauthenticated probes: /healthz (the process answers), /readyz (browser, database and limits
 * backend answer; `ffmpeg` says whether /v1/animate can encode, without making the node unready:
 * every other capture still works).
 */
export function healthRoutes(app: FastifyInstance, deps: AppDeps): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const browser = deps.engine.ready();
    const [database, limits] = await Promise.all([
      answers(() => deps.accounts.keys.countActive()),
      answers(() => deps.accounts.limits.ping()),
    ]);
    const ready = browser && database && limits;
    const ffmpeg = deps.engine.animationReady?.();
    return reply.code(ready ? 200 : 503).send({
      status: ready ? 'ready' : 'not_ready',
      browser,
      database,
      limits: { backend: deps.accounts.limits.backend, ok: limits },
      ...(ffmpeg === undefined ? {} : { ffmpeg }),
    });
  });
}

/** True when the check answers within 2 s: a probe must not hang on a stuck backend. */
async function answers(check: () => Promise<unknown>): Promise<boolean> {
  return withTimeout(check(), 2_000).then(
    () => true,
    () => false,
  );
}
