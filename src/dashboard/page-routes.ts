import type { FastifyInstance } from 'fastify';
import { keySigningSecret } from '../accounts/signing-secret.js';
import { dayOf, periodOf } from '../usage/period.js';
import type { AccountServices } from '../accounts/services.js';
import type { JobStore } from '../jobs/job-store.js';
import type { DayUsage } from '../usage/usage-store.js';
import { assetRoutes } from './static-assets.js';
import { sendPage, signedIn } from './forms.js';
import { JOBS_SHOWN, jobsPage } from './pages/jobs-page.js';
import { overviewPage } from './pages/overview-page.js';
import { playgroundPage } from './pages/playground-page.js';
import { bundlePage, requestsPage } from './pages/requests-page.js';

/** Every day from `from` to `to` (YYYY-MM-DD, inclusive) with its captures, zeros included. */
export function fillDays(from: string, to: string, known: DayUsage[]): DayUsage[] {
  const counts = new Map(known.map((d) => [d.day, d]));
  const days: DayUsage[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000) {
    const day = dayOf(new Date(t));
    days.push({ day, captures: counts.get(day)?.captures ?? 0, cacheHits: counts.get(day)?.cacheHits ?? 0 });
  }
  return days;
}

/**
 * The overview, the playground, recent requests with their debug bundles, recent async jobs, and
 * the static assets. `signingMaster` (SHUTTER_SIGNING_SECRET) lets the playground's signed-link
 * builder sign with each active key's signing secret; `jobs` is absent where the server takes no jobs.
 */
export function pageRoutes(app: FastifyInstance, services: AccountServices, signingMaster?: Buffer, jobs?: JobStore): void {
  app.get('/', async (request, reply) => {
    const user = await signedIn(request, reply, services);
    if (!user) return reply;
    const { account } = user;
    const now = new Date();
    const period = periodOf(now);
    const from = dayOf(period.start);
    const today = dayOf(now);
    const [used, perDay, perKey, keys] = await Promise.all([
      services.limits.quota.used(account.id, period),
      services.usage.perDay(account.id, from, today),
      services.usage.perKey(account.id, from, today),
      services.keys.list(account.id),
    ]);
    return sendPage(
      reply,
      200,
      overviewPage({
        account,
        csrf: user.session.csrf,
        plan: services.plans.resolve(account.plan),
        period,
        used,
        activeKeys: keys.filter((k) => !k.revokedAt).length,
        days: fillDays(from, today, perDay),
        perKey,
        keys,
      }),
    );
  });

  app.get('/playground', async (request, reply) => {
    const user = await signedIn(request, reply, services);
    if (!user) return reply;
    const keys = (await services.keys.list(user.account.id)).filter((k) => !k.revokedAt);
    return sendPage(
      reply,
      200,
      playgroundPage({
        account: user.account,
        csrf: user.session.csrf,
        keys,
        ...(signingMaster ? { signingSecretOf: (keyId: string) => keySigningSecret(signingMaster, keyId) } : {}),
      }),
    );
  });

  app.get('/requests', async (request, reply) => {
    const user = await signedIn(request, reply, services);
    if (!user) return reply;
    const visitor = { account: user.account, csrf: user.session.csrf };
    return sendPage(reply, 200, requestsPage(visitor, await services.requests.recent(user.account.id)));
  });

  app.get<{ Params: { id: string } }>('/requests/:id', async (request, reply) => {
    const user = await signedIn(request, reply, services);
    if (!user) return reply;
    const visitor = { account: user.account, csrf: user.session.csrf };
    const id = request.params.id.slice(0, 200);
    const bundle = await services.requests.bundle(user.account.id, id);
    if (bundle === undefined) return reply.code(404).type('text/plain; charset=utf-8').send('no debug bundle for this request');
    return sendPage(reply, 200, bundlePage(visitor, id, bundle));
  });

  app.get('/jobs', async (request, reply) => {
    const user = await signedIn(request, reply, services);
    if (!user) return reply;
    const recent = jobs ? await jobs.recent(user.account.id, JOBS_SHOWN) : [];
    const view = {
      account: user.account,
      csrf: user.session.csrf,
      origin: `${request.protocol}://${request.host}`,
      now: new Date(),
      enabled: jobs !== undefined,
    };
    return sendPage(reply, 200, jobsPage(view, recent));
  });

  assetRoutes(app);
}
