import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyRecord, KeyStore } from '../accounts/key-store.js';
import { AppError } from '../errors/app-error.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey?: ApiKeyRecord;
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

/** preHandler that admits requests with an active key; unknown and revoked keys get the same 401. */
export function requireApiKey(keys: KeyStore) {
  return async function authenticate(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const key = credentialOf(request);
    if (!key) {
      throw new AppError('missing_api_key', 'send your API key in the apikey header (or the apikey query parameter)');
    }
    const record = await keys.findActive(key);
    if (!record) throw new AppError('invalid_api_key', 'the API key is not valid');
    request.apiKey = record;
  };
}
