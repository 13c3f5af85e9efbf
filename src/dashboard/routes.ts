import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import type { AccountServices } from '../accounts/services.js';
import type { JobStore } from '../jobs/job-store.js';
import { adminRoutes } from './admin-routes.js';
import { authRoutes } from './auth-routes.js';
import { keyRoutes } from './key-routes.js';
import { pageRoutes } from './page-routes.js';

/**
 * Scripts and styles come only from /dashboard/assets; nothing may frame the dashboard; forms post
 * only here. The playground previews captures through blob: URLs.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob: data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/**
 * The dashboard under /dashboard: server-rendered pages, session cookies, CSRF tokens on every form.
 * `jobs` (the async jobs' records) feeds the Jobs page; absent, it says the server takes no jobs.
 */
export async function dashboardRoutes(
  app: FastifyInstance,
  services: AccountServices,
  signingMaster?: Buffer,
  jobs?: JobStore,
): Promise<void> {
  await app.register(
    async (scope) => {
      await scope.register(cookie);
      scope.addHook('onSend', async (_request, reply, payload) => {
        reply.header('content-security-policy', CSP);
        reply.header('x-content-type-options', 'nosniff');
        reply.header('x-frame-options', 'DENY');
        reply.header('referrer-policy', 'same-origin');
        if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
        return payload;
      });
      pageRoutes(scope, services, signingMaster, jobs);
      authRoutes(scope, services);
      keyRoutes(scope, services, signingMaster);
      adminRoutes(scope, services);
    },
    { prefix: '/dashboard' },
  );
}
