import { keySigningSecret } from '../../accounts/signing-secret.js';
import type { CaptureEngine } from '../../capture/engine.js';
import type { ConcurrencyLimiter } from '../../ratelimit/concurrency.js';
import { jsonObject } from '../api-schemas.js';
import { defineRoute } from '../route.js';

/** What GET /v1/status reports beyond the caller: the engine, the version, the proxy countries and the concurrency in use. */
export interface StatusDeps {
  engine: Pick<CaptureEngine, 'status'>;
  concurrency: Pick<ConcurrencyLimiter, 'inUse'>;
  version: string;
  /** Country codes with a configured proxy (ip_country_code). */
  countries: readonly string[];
  /** The master the keys' signing secrets derive from; without it, no signing_secret is shown. */
  signingSecret: Buffer | undefined;
}

/** GET /v1/status: who is calling, what the plan allows and has left, and how the service is doing. */
export const statusRoutes = [
  defineRoute<StatusDeps>({
    method: 'GET',
    url: '/v1/status',
    auth: 'key',
    schema: () => ({ summary: 'The calling key and the service', response: { 200: jsonObject('Status') } }),
    handler: (deps) => async (request) => {
      const { key, account, plan } = request.caller!;
      const { rate, used, period } = request.admission!;
      const engine = deps.engine.status();
      return {
        status: 'ok',
        version: deps.version,
        key: {
          id: key.id,
          name: key.name,
          prefix: key.prefix,
          created_at: key.createdAt,
          last_used_at: key.lastUsedAt,
          // For signed links and webhooks (DESIGN.md §4.2): shown to the key itself only.
          ...(deps.signingSecret ? { signing_secret: keySigningSecret(deps.signingSecret, key.id) } : {}),
        },
        plan: {
          name: plan.name,
          keys_allowed: plan.maxKeys,
          monthly_quota: plan.monthlyQuota,
          rate_per_minute: plan.ratePerMinute,
          concurrency: plan.concurrency,
          max_queued_jobs: plan.maxQueuedJobs,
        },
        usage: {
          period_start: period.start.toISOString(),
          period_end: period.end.toISOString(),
          used,
          limit: plan.monthlyQuota,
          remaining: Math.max(0, plan.monthlyQuota - used),
        },
        rate_limit: { limit: rate.limit, remaining: rate.remaining, reset: rate.resetSeconds },
        concurrency: { limit: plan.concurrency, in_use: await deps.concurrency.inUse(account.id) },
        service: { browser: engine.browser ?? null, pool: engine.pool, ...(engine.resolver ? { resolver: engine.resolver } : {}) },
        countries: deps.countries,
      };
    },
  }),
];
