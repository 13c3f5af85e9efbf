import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyRecord } from '../accounts/key-store.js';
import type { AccountServices } from '../accounts/services.js';
import { AppError } from '../errors/app-error.js';
import type { Admission, Caller } from '../accounts/meter.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey?: ApiKeyRecord;
    /** The key, account and plan behind an authenticated request. */
    caller?: Caller;
    /** The rate limit and quota as they stood when the request was admitted. */
    admission?: Admission;
  }
}

/** The key from the `apikey` header, `Authorization: Bearer`, or the `apikey` query parameter. */
export function credentialOf(request: FastifyRequest): string | undefined {
  const header = request.headers.apikey;
  if (typeof header === 'string' && header) return header.trim();
  const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  if (bearer) return bearer;
  const raw = (request.query as Record<string, unknown> | undefined)?.apikey;
  // A repeated ?apikey= arrives as a list; the first one counts.
  const query = Array.isArray(raw) ? raw[0] : raw;
  if (typeof query === 'string' && query) return query.trim();
  return undefined;
}

/**
 * preHandler that admits requests with an active key (unknown and revoked keys get the same 401),
 * counts them against the account's rate limit (429 rate_limited past it) and puts the
 * RateLimit-* and X-Quota-* headers on the response, errors included.
 */
export function requireApiKey(services: AccountServices) {
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const key = credentialOf(request);
    if (!key) {
      throw new AppError('missing_api_key', 'send your API key in the apikey header (or the apikey query parameter)');
    }
    const record = await services.keys.findActive(key);
    const account = record ? await services.accounts.findById(record.accountId) : null;
    if (!record || !account) throw new AppError('invalid_api_key', 'the API key is not valid');
    const caller: Caller = { key: record, account, plan: services.plans.resolve(account.plan) };
    request.apiKey = record;
    request.caller = caller;
    const admission = await services.meter.admit(caller);
    reply.headers(admission.headers);
    request.admission = admission;
  };
}
