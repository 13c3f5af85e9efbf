import { AppError } from './app-error.js';

/** How long a caller should wait before retrying while Redis or Postgres does not answer. */
export const BACKEND_RETRY_SECONDS = 5;

/** Socket errors of a server that is down, restarting or out of reach (DNS names that do not exist are a configuration error, not an outage). */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/**
 * What ioredis and pg throw, without a code, when their server went away: ioredis after its per-command
 * retries and timeout (src/ratelimit/redis.ts), pg when a connection is cut or cannot be made in time.
 */
const MESSAGES = [
  /^Connection is closed/,
  /max retries per request limit/i,
  /^Command timed out/,
  /enableOfflineQueue options is false/,
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /is not queryable/,
];

/** Postgres SQLSTATEs of a server that is not there for us: class 08 (connection exception), shutting down, starting up. */
const SQLSTATE = /^(08...|57P0[1-3])$/;

/**
 * True when `error` (or what caused it) says Redis or Postgres did not answer, as opposed to a bug or a
 * bad request: DESIGN.md §5.5 answers those 503 backend_unavailable, never 500.
 */
export function isBackendUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 5 || error === null || typeof error !== 'object' || error instanceof AppError) return false;
  const { code, message, name, errors, cause } = error as {
    code?: unknown;
    message?: unknown;
    name?: unknown;
    errors?: unknown;
    cause?: unknown;
  };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SQLSTATE.test(code))) return true;
  if (name === 'MaxRetriesPerRequestError') return true;
  if (typeof message === 'string' && MESSAGES.some((pattern) => pattern.test(message))) return true;
  // Node reports a refused connection to every address of a host (IPv4 and IPv6) as an AggregateError.
  if (Array.isArray(errors) && errors.length > 0 && errors.every((e) => isBackendUnavailable(e, depth + 1))) return true;
  return cause !== undefined && isBackendUnavailable(cause, depth + 1);
}

/** The 503 a caller gets while a backend is away: retry shortly; nothing was charged. */
export function backendUnavailable(cause: unknown): AppError {
  return Object.assign(
    new AppError('backend_unavailable', 'a backend this request needs (database or Redis) is not answering; retry shortly', {
      retryAfterSeconds: BACKEND_RETRY_SECONDS,
    }),
    { cause },
  );
}

/** `error` as the caller sees it: itself when it is an AppError, backend_unavailable for an outage, else undefined (a 500). */
export function knownAppError(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  return isBackendUnavailable(error) ? backendUnavailable(error) : undefined;
}
