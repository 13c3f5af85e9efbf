import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { ApiKeyRecord } from '../accounts/key-store.js';
import type { AccountServices } from '../accounts/services.js';
import { AppError } from '../errors/app-error.js';
import type { Admission, Caller } from '../accounts/meter.js';
import type { Account } from '../accounts/account-store.js';
import { keySigningSecret } from '../accounts/signing-secret.js';
import type { RouteAuth } from './route.js';
import { readSignedLink, signatureHolds } from './signed-link.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey?: ApiKeyRecord;
    /** The key, account and plan behind an authenticated request. */
    caller?: Caller;
    /** The rate limit and quota as they stood when the request was admitted. */
    admission?: Admission;
    /** Authenticated by a signed link, not by the key itself. */
    signedLink?: boolean;
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
export function requireApiKey(services: AccountServices, options: { countRate?: boolean } = {}) {
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const key = credentialOf(request);
    if (!key) {
      throw new AppError('missing_api_key', 'send your API key in the apikey header (or the apikey query parameter)');
    }
    // The key and its account in one query, on every request.
    const found = await services.keys.findActiveWithAccount(key);
    if (!found) throw new AppError('invalid_api_key', 'the API key is not valid');
    const { key: record, account } = found;
    refuseDisabled(account);
    if (options.countRate === false) {
      // Reading a job's state is what clients poll while waiting: it identifies the caller and costs no rate.
      request.apiKey = record;
      request.caller = { key: record, account, plan: services.plans.resolve(account.plan) };
      return;
    }
    await admit(services, request, reply, record, account);
  };
}

/**
 * 403 account_disabled for a key of a disabled account. The account is read from the database on
 * every request, with its key (nothing caches either), so disabling one stops its keys at once on every node.
 */
function refuseDisabled(account: Account): void {
  if (account.disabledAt !== null) {
    throw new AppError('account_disabled', "the account this key belongs to is disabled; ask this Shutter's operator");
  }
}

/** Counts the request against the account's rate limit and sets who is calling. */
async function admit(services: AccountServices, request: FastifyRequest, reply: FastifyReply, record: ApiKeyRecord, account: Account) {
  const caller: Caller = { key: record, account, plan: services.plans.resolve(account.plan) };
  request.apiKey = record;
  request.caller = caller;
  const admission = await services.meter.admit(caller);
  reply.headers(admission.headers);
  request.admission = admission;
}

/**
 * preHandler of GET /v1/take: an API key as requireApiKey takes it, or a signed link
 * (`access_key` = the key's id, `signature` = HMAC-SHA256 of the raw query string with the key's
 * signing secret, optional `expires`; DESIGN.md §4.2). A link that is malformed, altered, expired,
 * or whose key is unknown or revoked gets one answer: 403 signature_invalid. `access_key` without a
 * signature authenticates nothing (401).
 */
export function requireApiKeyOrSignedLink(services: AccountServices, signingMaster: Buffer | undefined) {
  const byKey = requireApiKey(services);
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const query = request.query as Record<string, unknown> | undefined;
    if (credentialOf(request) || query?.access_key === undefined) return byKey(request, reply);
    const url = request.raw.url ?? '';
    const link = readSignedLink(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');
    if (link === undefined) {
      throw new AppError('missing_api_key', 'access_key alone authenticates nothing: add signature=… (a signed link) or send your API key');
    }
    const invalid = () => new AppError('signature_invalid', 'the signed link is not valid: altered, expired, or its key is not active');
    if (link === 'malformed' || !signingMaster) throw invalid();
    const record = await services.keys.get(link.accessKey);
    if (!record || record.revokedAt) throw invalid();
    if (!signatureHolds(link, keySigningSecret(signingMaster, record.id), Math.floor(Date.now() / 1000))) throw invalid();
    const account = await services.accounts.findById(record.accountId);
    if (!account) throw invalid();
    refuseDisabled(account);
    request.signedLink = true;
    await admit(services, request, reply, record, account);
  };
}

/** The preHandler for each kind of route auth (src/http/route.ts), made once per app; `none` has none. */
export function authGuards(
  services: AccountServices,
  signingMaster: Buffer | undefined,
): Record<RouteAuth, preHandlerAsyncHookHandler | undefined> {
  return {
    none: undefined,
    key: requireApiKey(services),
    'key-unmetered': requireApiKey(services, { countRate: false }),
    'key-or-signed-link': requireApiKeyOrSignedLink(services, signingMaster),
  };
}
