import type { CaptureEngine } from '../../capture/engine.js';
import type { KeyStore } from '../../accounts/key-store.js';
import type { Limits } from '../../ratelimit/limits.js';
import { withTimeout } from '../../util/race-abort.js';
import { defineRoute } from '../route.js';

/** What the probes look at: the browser, the database (through the keys) and the limits backend. */
export interface HealthDeps {
  engine: Pick<CaptureEngine, 'ready' | 'animationReady'>;
  keys: Pick<KeyStore, 'countActive'>;
  limits: Pick<Limits, 'ping' | 'backend'>;
}

/**
 * Unauthenticated probes: /healthz (the process answers), /readyz (browser, database and limits
 * backend answer; `ffmpeg` says whether /v1/animate can encode, without making the node unready:
 * every other capture still works).
 */
export const healthRoutes = [
  defineRoute<HealthDeps>({ method: 'GET', url: '/healthz', auth: 'none', handler: () => async () => ({ status: 'ok' }) }),
  defineRoute<HealthDeps>({
    method: 'GET',
    url: '/readyz',
    auth: 'none',
    handler: (deps) => async (_request, reply) => {
      const browser = deps.engine.ready();
      const [database, limits] = await Promise.all([answers(() => deps.keys.countActive()), answers(() => deps.limits.ping())]);
      const ready = browser && database && limits;
      const ffmpeg = deps.engine.animationReady?.();
      return reply.code(ready ? 200 : 503).send({
        status: ready ? 'ready' : 'not_ready',
        browser,
        database,
        limits: { backend: deps.limits.backend, ok: limits },
        ...(ffmpeg === undefined ? {} : { ffmpeg }),
      });
    },
  }),
];

/** True when the check answers within 2 s: a probe must not hang on a stuck backend. */
async function answers(check: () => Promise<unknown>): Promise<boolean> {
  return withTimeout(check(), 2_000).then(
    () => true,
    () => false,
  );
}
