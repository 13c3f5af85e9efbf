import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AdminChange } from '../accounts/account-admin.js';
import type { Outcome, Refusal } from '../accounts/outcome.js';
import type { AccountServices } from '../accounts/services.js';
import { AppError } from '../errors/app-error.js';
import { field, redirect, sendPage } from './forms.js';
import { frameUser } from './layout.js';
import {
  accountsListUrl,
  adminAccountsPage,
  adminAuditPage,
  adminUsagePage,
  type AccountsListPlace,
  type AdminVisitor,
} from './pages/admin-pages.js';
import { messagePage } from './pages/auth-pages.js';
import { currentUser, validCsrf } from './session.js';

/** Fixed notices for ?done= after a change: no text from the request is ever echoed. */
const NOTICES: Record<string, string> = {
  plan: 'Plan changed.',
  disabled: 'Account disabled: its keys and dashboard sessions stopped working.',
  enabled: 'Account enabled: its keys work again.',
  unchanged: 'Nothing to change.',
};

const STATUS_OF: Partial<Record<Refusal, number>> = { unknown_plan: 400, no_such_account: 404, own_account: 409 };

/** A whole number ≥ 1 from a query or form value (1 when it is not one). */
const pageNumber = (value: unknown) => {
  const n = typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : 1;
  return Math.max(1, n);
};

/**
 * /dashboard/admin, for accounts with the operator role: accounts (search, plan, disable/enable),
 * usage across accounts, and the audit log. Anyone else, logged in or not, gets the same 404 as a
 * route that does not exist, so the admin is not advertised. POSTs carry the session's CSRF token.
 */
export function adminRoutes(app: FastifyInstance, services: AccountServices): void {
  /** The operator behind the request; otherwise throws 404 (or answers 403 for a POST without the CSRF token) and returns null. */
  async function operator(request: FastifyRequest, reply: FastifyReply): Promise<AdminVisitor | null> {
    const user = await currentUser(request, services);
    if (!user || user.account.role !== 'operator') {
      throw new AppError('not_found', `no route ${request.method} ${request.url.split('?')[0]!}`);
    }
    if (request.method === 'POST' && !validCsrf(request, user, field(request.body, 'csrf'))) {
      sendPage(
        reply,
        403,
        messagePage(
          'Form expired',
          'This form is out of date. Go back, reload the page and try again.',
          frameUser(user.account, user.session.csrf),
        ),
      );
      return null;
    }
    return { account: user.account, csrf: user.session.csrf };
  }

  const renderAccounts = async (
    reply: FastifyReply,
    visitor: AdminVisitor,
    status: number,
    place: AccountsListPlace,
    message: { notice?: string; error?: string },
  ) =>
    sendPage(
      reply,
      status,
      adminAccountsPage({
        visitor,
        place,
        list: await services.admin.search({ query: place.q, page: place.page }),
        plans: services.plans.all(),
        quotaOf: (plan) => services.plans.resolve(plan).monthlyQuota,
        ...message,
      }),
    );

  /** The list the form came from (its hidden q and page), to return to. */
  const placeOf = (source: unknown): AccountsListPlace => ({
    q: field(source, 'q').trim().slice(0, 254),
    page: pageNumber(field(source, 'page')),
  });
  const idOf = (request: FastifyRequest) => (request.params as { id: string }).id.slice(0, 100);

  /** After a change: back to the list with a notice, or the list again with the refusal. */
  const answer = async (
    reply: FastifyReply,
    visitor: AdminVisitor,
    place: AccountsListPlace,
    outcome: Outcome<AdminChange>,
    done: string,
  ) => {
    if (!outcome.ok) return renderAccounts(reply, visitor, STATUS_OF[outcome.reason] ?? 400, place, { error: outcome.message });
    return redirect(reply, accountsListUrl(place, outcome.value.changed ? done : 'unchanged'));
  };

  app.get('/admin', async (request, reply) => {
    const visitor = await operator(request, reply);
    if (!visitor) return reply;
    const query = request.query as Record<string, unknown>;
    const done = typeof query.done === 'string' && Object.hasOwn(NOTICES, query.done) ? NOTICES[query.done] : undefined;
    return renderAccounts(reply, visitor, 200, placeOf(query), done ? { notice: done } : {});
  });

  app.post('/admin/accounts/:id/plan', async (request, reply) => {
    const visitor = await operator(request, reply);
    if (!visitor) return reply;
    const outcome = await services.admin.setPlan(visitor.account, idOf(request), field(request.body, 'plan'));
    return answer(reply, visitor, placeOf(request.body), outcome, 'plan');
  });

  app.post('/admin/accounts/:id/disable', async (request, reply) => {
    const visitor = await operator(request, reply);
    if (!visitor) return reply;
    const outcome = await services.admin.setDisabled(visitor.account, idOf(request), true);
    return answer(reply, visitor, placeOf(request.body), outcome, 'disabled');
  });

  app.post('/admin/accounts/:id/enable', async (request, reply) => {
    const visitor = await operator(request, reply);
    if (!visitor) return reply;
    const outcome = await services.admin.setDisabled(visitor.account, idOf(request), false);
    return answer(reply, visitor, placeOf(request.body), outcome, 'enabled');
  });

  app.get('/admin/usage', async (request, reply) => {
    const visitor = await operator(request, reply);
    if (!visitor) return reply;
    const usage = await services.admin.usage();
    return sendPage(reply, 200, adminUsagePage({ visitor, usage, quotaOf: (plan) => services.plans.resolve(plan).monthlyQuota }));
  });

  app.get('/admin/audit', async (request, reply) => {
    const visitor = await operator(request, reply);
    if (!visitor) return reply;
    const page = pageNumber((request.query as Record<string, unknown>).page);
    return sendPage(reply, 200, adminAuditPage({ visitor, log: await services.admin.auditLog({ page }) }));
  });
}
