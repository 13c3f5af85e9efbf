import { errorCodes, type FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { AppError } from '../../src/errors/app-error.js';
import { ERROR_STATUS, type ErrorCode } from '../../src/errors/error-codes.js';
import { toErrorResponse } from '../../src/http/error-response.js';

const logger = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;
const RID = 'req-123';

/** The statuses DESIGN.md §1 "Errors" gives each code, written out independently of src. */
const DESIGN_STATUS: Array<[ErrorCode, number]> = [
  ['invalid_parameter', 400],
  ['unknown_parameter', 400],
  ['missing_source', 400],
  ['conflicting_source', 400],
  ['parameter_not_applicable', 400],
  ['invalid_json', 400],
  ['missing_api_key', 401],
  ['invalid_api_key', 401],
  ['target_forbidden', 403],
  ['not_found', 404],
  ['method_not_allowed', 405],
  ['payload_too_large', 413],
  ['unsupported_media_type', 415],
  ['navigation_failed', 422],
  ['selector_invalid', 422],
  ['rate_limited', 429],
  ['concurrency_limited', 429],
  ['quota_exceeded', 429],
  ['internal_error', 500],
  ['overloaded', 503],
  ['browser_unavailable', 503],
  ['backend_unavailable', 503],
  ['capture_timeout', 504],
];

describe('toErrorResponse with an AppError', () => {
  it.each(DESIGN_STATUS)('%s → %i', (code, status) => {
    const response = toErrorResponse(new AppError(code, 'what went wrong'), RID, logger);
    expect(response.status).toBe(status);
    expect(response.body).toEqual({ error: { code, message: 'what went wrong' }, request_id: RID });
    expect(response.headers).toEqual({});
  });

  it('every code of error-codes.ts maps to its status', () => {
    for (const [code, status] of Object.entries(ERROR_STATUS) as Array<[ErrorCode, number]>) {
      expect(toErrorResponse(new AppError(code, 'm'), RID, logger).status, code).toBe(status);
    }
  });

  it('every code of the design table is in error-codes.ts with the same status', () => {
    for (const [code, status] of DESIGN_STATUS) expect(ERROR_STATUS[code], code).toBe(status);
  });

  it('includes details when there are any', () => {
    const details = [
      { parameter: 'quality', message: 'must be an integer from 0 to 100', value: '150', code: 'invalid_parameter' as const },
    ];
    const response = toErrorResponse(new AppError('invalid_parameter', 'quality: bad', { details }), RID, logger);
    expect(response.status).toBe(400);
    expect(response.body.error.details).toEqual(details);
  });

  it('leaves out an empty details list', () => {
    const response = toErrorResponse(new AppError('invalid_parameter', 'bad', { details: [] }), RID, logger);
    expect(response.body.error).not.toHaveProperty('details');
  });

  it.each([
    ['rate_limited', 429, 30],
    ['concurrency_limited', 429, 1],
    ['quota_exceeded', 429, 86_400],
    ['overloaded', 503, 2],
    ['browser_unavailable', 503, 5],
  ] as const)('%s carries Retry-After', (code, status, seconds) => {
    const response = toErrorResponse(new AppError(code, 'later', { retryAfterSeconds: seconds }), RID, logger);
    expect(response.status).toBe(status);
    expect(response.headers).toEqual({ 'retry-after': String(seconds) });
  });

  it('Retry-After 0 is still sent', () => {
    const response = toErrorResponse(new AppError('rate_limited', 'now', { retryAfterSeconds: 0 }), RID, logger);
    expect(response.headers['retry-after']).toBe('0');
  });

  it('passes extra headers through, alongside Retry-After', () => {
    const error = new AppError('method_not_allowed', 'use GET', { headers: { allow: 'GET, POST' } });
    expect(toErrorResponse(error, RID, logger).headers).toEqual({ allow: 'GET, POST' });
    const both = new AppError('rate_limited', 'later', { retryAfterSeconds: 3, headers: { 'ratelimit-remaining': '0' } });
    expect(toErrorResponse(both, RID, logger).headers).toEqual({ 'ratelimit-remaining': '0', 'retry-after': '3' });
  });

  it('does not log expected errors', () => {
    const spy = vi.spyOn(logger, 'error');
    toErrorResponse(new AppError('not_found', 'no route'), RID, logger);
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
  });
});

describe('toErrorResponse with Fastify errors', () => {
  it.each([
    ['FST_ERR_CTP_BODY_TOO_LARGE', new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE(), 413, 'payload_too_large'],
    ['FST_ERR_CTP_INVALID_MEDIA_TYPE', new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE('text/plain'), 415, 'unsupported_media_type'],
    ['FST_ERR_CTP_EMPTY_JSON_BODY', new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY(), 400, 'invalid_json'],
    ['FST_ERR_CTP_INVALID_JSON_BODY', new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY(), 400, 'invalid_json'],
    ['FST_ERR_CTP_INVALID_CONTENT_LENGTH', new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH(), 400, 'invalid_json'],
  ] as const)('%s → %i %s', (fstCode, error, status, code) => {
    expect(error.code).toBe(fstCode);
    const response = toErrorResponse(error, RID, logger);
    expect(response.status).toBe(status);
    expect(response.body.error.code).toBe(code);
    expect(response.body.request_id).toBe(RID);
    expect(response.body.error.message).not.toContain('FST_');
  });

  it('matches on the code, not the class', () => {
    const error = Object.assign(new Error('Request body is too large'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE' });
    expect(toErrorResponse(error, RID, logger).status).toBe(413);
  });

  it('a JSON SyntaxError with statusCode 400 → 400 invalid_json', () => {
    const error = Object.assign(new SyntaxError('Unexpected token } in JSON at position 9'), { statusCode: 400 });
    const response = toErrorResponse(error, RID, logger);
    expect(response.status).toBe(400);
    expect(response.body.error).toEqual({ code: 'invalid_json', message: 'the body is not valid JSON' });
  });
});

describe('toErrorResponse with unknown errors', () => {
  it('→ 500 internal_error that leaks nothing', () => {
    const secret = 'connect ECONNREFUSED /var/lib/shutter/db.sqlite password=hunter2';
    const error = new Error(secret);
    const response = toErrorResponse(error, RID, logger);
    expect(response.status).toBe(500);
    expect(response.body.error.code).toBe('internal_error');
    expect(response.body.error.message).not.toContain('hunter2');
    expect(response.body.error.message).not.toContain('ECONNREFUSED');
    expect(response.body).not.toHaveProperty('error.details');
    expect(JSON.stringify(response)).not.toContain('hunter2');
    expect(JSON.stringify(response)).not.toContain(error.stack!.split('\n')[1]!.trim());
    expect(response.body.request_id).toBe(RID);
    expect(response.headers).toEqual({});
  });

  it('logs the original error with the request id', () => {
    const spy = vi.spyOn(logger, 'error');
    const error = new TypeError('cannot read properties of undefined');
    toErrorResponse(error, RID, logger);
    expect(spy).toHaveBeenCalledTimes(1);
    expect(spy.mock.calls[0]![0]).toEqual({ err: error, requestId: RID });
    spy.mockRestore();
  });

  it.each([
    ['a SyntaxError without a status', new SyntaxError('Unexpected token')],
    ['an error with an unknown code', Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' })],
    ['an error with an HTTP status but no known code', Object.assign(new Error('teapot'), { statusCode: 418 })],
    ['a thrown string', 'boom'],
    ['a thrown object', { message: 'secret detail' }],
    ['a thrown null', null],
    ['a thrown undefined', undefined],
  ])('%s → 500 internal_error', (_label, error) => {
    const response = toErrorResponse(error, RID, logger);
    expect(response.status).toBe(500);
    expect(response.body.error.code).toBe('internal_error');
    expect(JSON.stringify(response.body)).not.toMatch(/EACCES|teapot|boom|secret detail|Unexpected token/);
  });
});
