import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountServices } from '../accounts/services.js';
import { currentUser, validCsrf, type DashboardUser } from './session.js';
import { messagePage } from './pages/auth-pages.js';

/** A string field of a form body ('' when missing or not a string). */
export function field(body: unknown, name: string): string {
  const value = (body as Record<string, unknown> | null | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}

/** Sends an HTML page with a status; dashboard pages are never cached (they hold CSRF tokens and keys). */
export function sendPage(reply: FastifyReply, status: number, page: string): FastifyReply {
  return reply.code(status).header('content-type', 'text/html; charset=utf-8').send(page);
}

/** 303 to another dashboard page (POST → redirect → GET, so a reload does not repeat the action). */
export function redirect(reply: FastifyReply, to: string): FastifyReply {
  return reply.code(303).header('location', to).send();
}

/**
 * The logged-in user of a request that needs one; otherwise answers (redirect to log-in, or 403
 * for a POST without this session's CSRF token) and returns null.
 */
export async function signedIn(request: FastifyRequest, reply: FastifyReply, services: AccountServices): Promise<DashboardUser | null> {
  const user = await currentUser(request, services);
  if (!user) {
    redirect(reply, '/dashboard/login');
    return null;
  }
  if (request.method === 'POST' && !validCsrf(request, user, field(request.body, 'csrf'))) {
    sendPage(reply, 403, messagePage('Form expired', 'This form is out of date. Go back, reload the page and try again.', null));
    return null;
  }
  return user;
}
