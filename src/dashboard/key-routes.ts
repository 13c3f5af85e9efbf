import { keySigningSecret } from '../accounts/signing-secret.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Refusal } from '../accounts/outcome.js';
import { cleanKeyName, KEY_NAME_MAX } from '../accounts/kysely-key-store.js';
import type { AccountServices } from '../accounts/services.js';
import { field, redirect, sendPage, signedIn } from './forms.js';
import { keysPage, newKeyPage } from './pages/keys-page.js';
import type { DashboardUser } from './session.js';

/** Fixed notices for ?done= after a redirect: no text from the request is ever echoed. */
const NOTICES: Record<string, string> = {
  renamed: 'Key renamed.',
  revoked: 'Key revoked: it no longer works.',
  welcome: 'Welcome! Create your first key to start capturing.',
};

const STATUS_OF: Partial<Record<Refusal, number>> = { key_limit: 409, no_such_key: 404, ambiguous_key: 409 };

/** Keys of the logged-in account: list, create (shown once), rename, reset (shown once), revoke. */
export function keyRoutes(app: FastifyInstance, services: AccountServices, signingMaster?: Buffer): void {
  const render = async (reply: FastifyReply, user: DashboardUser, status: number, message: { notice?: string; error?: string }) =>
    sendPage(
      reply,
      status,
      keysPage({
        account: user.account,
        csrf: user.session.csrf,
        plan: services.plans.resolve(user.account.plan),
        keys: await services.keys.list(user.account.id),
        ...(signingMaster ? { signingSecretOf: (keyId: string) => keySigningSecret(signingMaster, keyId) } : {}),
        ...message,
      }),
    );
  const origin = (request: FastifyRequest) => `${request.protocol}://${request.host}`;
  const idOf = (request: FastifyRequest) => (request.params as { id: string }).id;

  app.get('/keys', async (request, reply) => {
    const user = await signedIn(request, reply, services);
    if (!user) return reply;
    const query = request.query as Record<string, unknown>;
    const notice = Object.keys(NOTICES).find((k) => query[k] !== undefined || query.done === k);
    return render(reply, user, 200, notice ? { notice: NOTICES[notice] } : {});
  });

  app.post('/keys', async (request, reply) => {
    const user = await signedIn(request, reply, services);
    if (!user) return reply;
    const issued = await services.keyManager.issue(user.account, field(request.body, 'name'));
    if (!issued.ok) return render(reply, user, STATUS_OF[issued.reason] ?? 400, { error: issued.message });
    return sendPage(reply, 201, newKeyPage({ account: user.account, csrf: user.session.csrf, ...issued.value, origin: origin(request) }));
  });

  app.post('/keys/:id/rename', async (request, reply) => {
    const user = await signedIn(request, reply, services);
    if (!user) return reply;
    const name = cleanKeyName(field(request.body, 'name'));
    if (!name) return render(reply, user, 400, { error: `A key name is 1 to ${KEY_NAME_MAX} characters.` });
    if (!(await services.keys.rename(idOf(request), name, user.account.id))) {
      return render(reply, user, 404, { error: 'No such active key.' });
    }
    return redirect(reply, '/dashboard/keys?done=renamed');
  });

  app.post('/keys/:id/reset', async (request, reply) => {
    const user = await signedIn(request, reply, services);
    if (!user) return reply;
    const issued = await services.keyManager.reset(user.account, { id: idOf(request) });
    if (!issued.ok) return render(reply, user, STATUS_OF[issued.reason] ?? 400, { error: issued.message });
    return sendPage(reply, 201, newKeyPage({ account: user.account, csrf: user.session.csrf, ...issued.value, origin: origin(request) }));
  });

  app.post('/keys/:id/revoke', async (request, reply) => {
    const user = await signedIn(request, reply, services);
    if (!user) return reply;
    if (!(await services.keys.revoke(idOf(request), user.account.id))) {
      return render(reply, user, 404, { error: 'No such active key.' });
    }
    return redirect(reply, '/dashboard/keys?done=revoked');
  });
}
