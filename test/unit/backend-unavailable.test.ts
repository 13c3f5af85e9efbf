import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors/app-error.js';
import { BACKEND_RETRY_SECONDS, isBackendUnavailable, knownAppError } from '../../src/errors/backend-unavailable.js';
import { toErrorResponse } from '../../src/http/error-response.js';

const logger = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;
const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
const named = (message: string, name: string) => Object.assign(new Error(message), { name });

describe('isBackendUnavailable: what ioredis and pg throw when their server is away', () => {
  it.each([
    ['a refused connection', withCode('connect ECONNREFUSED 127.0.0.1:6379', 'ECONNREFUSED')],
    ['a reset connection', withCode('read ECONNRESET', 'ECONNRESET')],
    ['ioredis past its retries', named('Reached the max retries per request limit (which is 1).', 'MaxRetriesPerRequestError')],
    ['ioredis on a closed connection', new Error('Connection is closed.')],
    ["ioredis' command timeout", new Error('Command timed out')],
    ['pg, cut mid-query', new Error('Connection terminated unexpectedly')],
    ["pg's connection timeout", new Error('timeout exceeded when trying to connect')],
    ['Postgres shutting down (57P01)', withCode('terminating connection due to administrator command', '57P01')],
    ['Postgres starting up (57P03)', withCode('the database system is starting up', '57P03')],
    ['a connection exception (08006)', withCode('connection failure', '08006')],
    ['every address of a host refused', new AggregateError([withCode('a', 'ECONNREFUSED'), withCode('b', 'ECONNREFUSED')])],
    ['an outage as the cause', new Error('cannot count the request', { cause: withCode('x', 'ECONNREFUSED') })],
  ])('%s', (_, error) => {
    expect(isBackendUnavailable(error)).toBe(true);
  });

  it.each([
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a constraint violation', withCode('duplicate key value violates unique constraint', '23505')],
    ['a name that does not resolve (configuration, not an outage)', withCode('getaddrinfo ENOTFOUND redis', 'ENOTFOUND')],
    ['an AppError, which says what it is itself', new AppError('navigation_failed', 'connect ECONNREFUSED')],
    ['not an error', 'ECONNREFUSED'],
    ['nothing', undefined],
  ])('not %s', (_, error) => {
    expect(isBackendUnavailable(error)).toBe(false);
  });
});

describe('an outage as the caller sees it', () => {
  it('503 backend_unavailable with Retry-After, no internals', () => {
    const response = toErrorResponse(withCode('connect ECONNREFUSED 10.0.0.5:5432', 'ECONNREFUSED'), 'rid', logger);
    expect(response.status).toBe(503);
    expect(response.headers).toEqual({ 'retry-after': String(BACKEND_RETRY_SECONDS) });
    expect(response.body.error.code).toBe('backend_unavailable');
    expect(JSON.stringify(response.body)).not.toContain('10.0.0.5');
  });

  it('knownAppError keeps AppErrors, names outages and leaves the rest to a 500', () => {
    const own = new AppError('rate_limited', 'slow down');
    expect(knownAppError(own)).toBe(own);
    expect(knownAppError(new Error('Connection is closed.'))?.code).toBe('backend_unavailable');
    expect(knownAppError(new Error('a bug'))).toBeUndefined();
  });
});
