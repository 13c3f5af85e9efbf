import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../accounts/account-store.js';
import type { AccountServices } from '../accounts/services.js';
import { SESSION_TTL_MS, type Session } from '../accounts/session-store.js';

/** The logged-in person behind a dashboard request. */
export interface DashboardUser {
  account: Account;
  session: Session;
}

const SESSION_COOKIE = 'shutter_session';
/** Before log-in there is no session to bind a CSRF token to: this cookie holds one instead. */
const CSRF_COOKIE = 'shutter_csrf';
const COOKIE_PATH = '/dashboard';

/** HttpOnly, SameSite=Lax, limited to /dashboard, and Secure whenever the request came over https. */
function cookieOptions(request: FastifyRequest, maxAgeSeconds?: number): CookieSerializeOptions {
  return {
    httpOnly: true,
    sameSite: 'lax',
    // request.protocol honours X-Forwarded-Proto only with SHUTTER_TRUST_PROXY, as it should.
    secure: request.protocol === 'https',
    path: COOKIE_PATH,
    ...(maxAgeSeconds !== undefined ? { maxAge: maxAgeSeconds } : {}),
  };
}

/** The account logged in with this request's session cookie, or null. */
export async function currentUser(request: FastifyRequest, services: AccountServices): Promise<DashboardUser | null> {
  const secret = request.cookies[SESSION_COOKIE];
  if (!secret) return null;
  const session = await services.sessions.find(secret);
  if (!session) return null;
  const account = await services.accounts.findById(session.accountId);
  // Read on every request: a disabled account's sessions end at once (and disabling deletes them too).
  return account && account.disabledAt === null ? { account, session } : null;
}

/** Logs the account in with a fresh session (a session id never survives a log-in: no fixation). */
export async function startSession(
  request: FastifyRequest,
  reply: FastifyReply,
  services: AccountServices,
  accountId: string,
): Promise<void> {
  const old = request.cookies[SESSION_COOKIE];
  if (old) await services.sessions.delete(old);
  const { secret } = await services.sessions.create(accountId);
  reply.setCookie(SESSION_COOKIE, secret, cookieOptions(request, Math.floor(SESSION_TTL_MS / 1000)));
}

/** Logs out: the session is deleted on the server, not only forgotten by the browser. */
export async function endSession(request: FastifyRequest, reply: FastifyReply, services: AccountServices): Promise<void> {
  const secret = request.cookies[SESSION_COOKIE];
  if (secret) await services.sessions.delete(secret);
  reply.clearCookie(SESSION_COOKIE, cookieOptions(request));
}

/** The CSRF token for this page's forms: the session's, or (logged out) one kept in a cookie. */
export function csrfToken(request: FastifyRequest, reply: FastifyReply, user: DashboardUser | null): string {
  if (user) return user.session.csrf;
  let token = request.cookies[CSRF_COOKIE];
  if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) {
    token = randomBytes(32).toString('base64url');
    reply.setCookie(CSRF_COOKIE, token, cookieOptions(request));
  }
  return token;
}

/** True when the form carried this visitor's CSRF token (compared in constant time). */
export function validCsrf(request: FastifyRequest, user: DashboardUser | null, submitted: string): boolean {
  const expected = user ? user.session.csrf : request.cookies[CSRF_COOKIE];
  if (!expected || !submitted) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(submitted);
  return a.length === b.length && timingSafeEqual(a, b);
}
