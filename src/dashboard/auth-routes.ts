import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isEmail, normalizeEmail } from '../accounts/account-store.js';
import { hashPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, verifyPassword } from '../accounts/password.js';
import { SIGNUP_PLAN } from '../accounts/plans.js';
import type { AccountServices } from '../accounts/services.js';
import { ERROR_STATUS } from '../errors/error-codes.js';
import { field, redirect, sendPage } from './forms.js';
import { loginPage, messagePage, signupPage } from './pages/auth-pages.js';
import { csrfToken, currentUser, endSession, startSession, validCsrf } from './session.js';

/** Log-in attempts per address and per client IP in LOGIN_WINDOW; sign-ups per IP per hour. */
const LOGIN_WINDOW_SECONDS = 15 * 60;
const LOGINS_PER_EMAIL = 10;
const LOGINS_PER_IP = 100;
const SIGNUPS_PER_IP = 20;
const SIGNUP_WINDOW_SECONDS = 3600;

const minutes = (seconds: number) => `${Math.ceil(seconds / 60)} minute${seconds > 60 ? 's' : ''}`;

/** Sign up, log in, log out. Passwords are read from the body, hashed or verified, and never logged or echoed. */
export function authRoutes(app: FastifyInstance, services: AccountServices): void {
  const tooMany = (reply: FastifyReply, retryAfter: number, page: string) =>
    sendPage(reply.header('retry-after', String(retryAfter)), ERROR_STATUS.rate_limited, page);
  const expired = (reply: FastifyReply) =>
    sendPage(reply, 403, messagePage('Form expired', 'This form is out of date. Go back, reload the page and try again.', null));

  app.get('/login', async (request, reply) => {
    if (await currentUser(request, services)) return redirect(reply, '/dashboard');
    const signedOut = (request.query as Record<string, unknown>).signed_out !== undefined;
    return sendPage(
      reply,
      200,
      loginPage({ csrf: csrfToken(request, reply, null), notice: signedOut ? 'You are logged out.' : undefined }),
    );
  });

  app.post('/login', async (request: FastifyRequest, reply) => {
    if (!validCsrf(request, null, field(request.body, 'csrf'))) return expired(reply);
    const email = normalizeEmail(field(request.body, 'email')).slice(0, 254);
    const password = field(request.body, 'password');
    const again = (status: number, error: string) =>
      sendPage(reply, status, loginPage({ csrf: csrfToken(request, reply, null), email, error }));

    // Both counted before the password is checked, so guessing costs attempts whether or not it hits.
    const [byIp, byEmail] = await Promise.all([
      services.limits.logins.consume(`ip:${request.ip}`, LOGINS_PER_IP, LOGIN_WINDOW_SECONDS),
      services.limits.logins.consume(`email:${email}`, LOGINS_PER_EMAIL, LOGIN_WINDOW_SECONDS),
    ]);
    const blocked = [byIp, byEmail].find((s) => !s.allowed);
    if (blocked) {
      return tooMany(
        reply,
        blocked.resetSeconds,
        loginPage({
          csrf: csrfToken(request, reply, null),
          email,
          error: `Too many log-in attempts. Try again in ${minutes(blocked.resetSeconds)}.`,
        }),
      );
    }
    const account = password.length <= PASSWORD_MAX_LENGTH ? await services.accounts.findByEmail(email) : null;
    // verifyPassword costs a full hash even without an account, so timing does not reveal which addresses exist.
    const valid = await verifyPassword(password.slice(0, PASSWORD_MAX_LENGTH), account?.passwordHash ?? null);
    if (!account || !valid) return again(401, 'Wrong email or password.');
    if (account.disabledAt !== null) return again(403, 'This account is disabled. Ask the operator of this server.');
    await services.limits.logins.reset(`email:${email}`, LOGINS_PER_EMAIL, LOGIN_WINDOW_SECONDS);
    await startSession(request, reply, services, account.id);
    return redirect(reply, '/dashboard');
  });

  app.get('/signup', async (request, reply) => {
    if (await currentUser(request, services)) return redirect(reply, '/dashboard');
    return sendPage(reply, 200, signupPage({ csrf: csrfToken(request, reply, null), open: services.signups }));
  });

  app.post('/signup', async (request, reply) => {
    if (!validCsrf(request, null, field(request.body, 'csrf'))) return expired(reply);
    if (!services.signups) return sendPage(reply, 403, signupPage({ csrf: '', open: false }));
    const email = normalizeEmail(field(request.body, 'email'));
    const password = field(request.body, 'password');
    const again = (status: number, error: string) =>
      sendPage(reply, status, signupPage({ csrf: csrfToken(request, reply, null), email, error, open: true }));

    const byIp = await services.limits.logins.consume(`signup:${request.ip}`, SIGNUPS_PER_IP, SIGNUP_WINDOW_SECONDS);
    if (!byIp.allowed) {
      return tooMany(
        reply,
        byIp.resetSeconds,
        signupPage({
          csrf: csrfToken(request, reply, null),
          email,
          open: true,
          error: `Too many sign-ups from your address. Try again in ${minutes(byIp.resetSeconds)}.`,
        }),
      );
    }
    if (!isEmail(email)) return again(400, 'Enter a valid email address.');
    if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
      return again(400, `Choose a password of ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters.`);
    }
    const created = await services.accounts.create({ email, plan: SIGNUP_PLAN, passwordHash: await hashPassword(password) });
    if (!created.ok) {
      return again(
        created.reason === 'email_taken' ? 409 : 400,
        created.reason === 'email_taken' ? 'An account with this email exists already; log in instead.' : created.message,
      );
    }
    await startSession(request, reply, services, created.value.id);
    return redirect(reply, '/dashboard/keys?welcome');
  });

  app.post('/logout', async (request, reply) => {
    const user = await currentUser(request, services);
    if (user && !validCsrf(request, user, field(request.body, 'csrf'))) return expired(reply);
    await endSession(request, reply, services);
    return redirect(reply, '/dashboard/login?signed_out');
  });
}
