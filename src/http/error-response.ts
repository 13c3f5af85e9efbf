import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { isBackendUnavailable, backendUnavailable } from '../errors/backend-unavailable.js';
import type { ErrorCode } from '../errors/error-codes.js';

export interface ErrorResponse {
  status: number;
  headers: Record<string, string>;
  body: { error: { code: ErrorCode; message: string; details?: unknown }; request_id: string };
}

/** Fastify's own errors (body parsing, limits) in our vocabulary. */
const FRAMEWORK_ERRORS: Record<string, [ErrorCode, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: ['payload_too_large', 'the request body is larger than the limit'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['unsupported_media_type', 'send the body as application/json or application/x-www-form-urlencoded'],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['invalid_json', 'the JSON body is empty'],
  FST_ERR_CTP_INVALID_JSON_BODY: ['invalid_json', 'the body is not valid JSON'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['invalid_json', 'Content-Length does not match the body'],
};

/**
 * The one place where any error becomes an HTTP answer. Redis or Postgres not answering is a 503
 * backend_unavailable with Retry-After (DESIGN.md §5.5). Other unknown errors are logged and
 * answered with a generic 500, so internals never leak.
 */
export function toErrorResponse(error: unknown, requestId: string, logger: FastifyBaseLogger): ErrorResponse {
  let appError: AppError;
  if (error instanceof AppError) {
    appError = error;
  } else {
    const code = (error as { code?: unknown } | null | undefined)?.code;
    const known = typeof code === 'string' && Object.hasOwn(FRAMEWORK_ERRORS, code) ? FRAMEWORK_ERRORS[code] : undefined;
    if (known) {
      appError = new AppError(known[0], known[1]);
    } else if (error instanceof SyntaxError && (error as { statusCode?: number }).statusCode === 400) {
      appError = new AppError('invalid_json', 'the body is not valid JSON');
    } else if (isBackendUnavailable(error)) {
      logger.warn({ err: error, requestId }, 'a backend (database or Redis) is not answering');
      appError = backendUnavailable(error);
    } else {
      logger.error({ err: error, requestId }, 'unhandled error');
      appError = new AppError('internal_error', 'something went wrong on our side; quote the request id when reporting it');
    }
  }
  const headers: Record<string, string> = { ...appError.extra.headers };
  if (appError.extra.retryAfterSeconds !== undefined) headers['retry-after'] = String(appError.extra.retryAfterSeconds);
  const details = appError.extra.details?.length ? appError.extra.details : appError.extra.facts;
  return {
    status: appError.status,
    headers,
    body: {
      error: { code: appError.code, message: appError.message, ...(hasDetails(details) ? { details } : {}) },
      request_id: requestId,
    },
  };
}

const hasDetails = (details: unknown): boolean => (Array.isArray(details) ? details.length > 0 : details !== undefined && details !== null);
