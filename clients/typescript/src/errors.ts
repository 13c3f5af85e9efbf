/** One problem with one parameter, as the server reports it in `error.details`. */
export interface ShutterErrorDetail {
  parameter: string;
  message: string;
  code?: string;
  value?: unknown;
  /** "Did you mean" for an unknown parameter. */
  suggestion?: string;
  /** The other parameter of a pair that cannot go together. */
  conflicts_with?: string;
  [key: string]: unknown;
}

/**
 * Codes the client itself gives when there is no error answer from the server
 * (`status` is 0 for all of them).
 */
export type ClientErrorCode =
  /** The call's `timeoutMs` passed (or `jobs.wait`'s). */
  | 'timeout'
  /** No answer: connection refused or reset, DNS failure, … after the allowed retries. */
  | 'network_error'
  /** The server answered something that is not Shutter's JSON (a proxy's HTML error page, say). */
  | 'unexpected_response'
  /** `verifyWebhook`: the signature header is missing, malformed, out of tolerance or does not match. */
  | 'signature_invalid'
  /** `jobs.wait`: the job ended in `failed`; `code` is the job's own error code then, this one is never used. */
  | 'job_failed';

export interface ShutterErrorInit {
  /** HTTP status of the error answer; 0 when the error did not come from an HTTP answer. */
  status: number;
  /** Shutter's error code (`invalid_parameter`, `quota_exceeded`, …) or a client code (`timeout`, `network_error`, …). */
  code: string;
  message: string;
  /** `error.details`: per-parameter problems (400s) or facts such as a 504's pending requests. */
  details?: ShutterErrorDetail[] | Record<string, unknown> | undefined;
  /** The `X-Request-Id` of the answer: quote it when reporting a problem. */
  requestId?: string | undefined;
  /** Seconds from `Retry-After` (429, 503). */
  retryAfter?: number | undefined;
  headers?: Headers | undefined;
  cause?: unknown;
}

/** Every failure of a Shutter call: an error answer of the server, a timeout, a network failure. */
export class ShutterError extends Error {
  /** HTTP status of the error answer; 0 when the error did not come from an HTTP answer. */
  readonly status: number;
  /** Shutter's error code (`invalid_parameter`, `quota_exceeded`, …) or a client code (see ClientErrorCode). */
  readonly code: string;
  /** `error.details`: per-parameter problems (400s) or facts such as a 504's pending requests. */
  readonly details: ShutterErrorDetail[] | Record<string, unknown> | undefined;
  /** The `X-Request-Id` of the answer: quote it when reporting a problem. */
  readonly requestId: string | undefined;
  /** Seconds from `Retry-After` (429, 503), when the server sent one. */
  readonly retryAfter: number | undefined;
  /** The headers of the error answer (quota and rate-limit headers, …). */
  readonly headers: Headers | undefined;

  constructor(init: ShutterErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'ShutterError';
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.headers = init.headers;
  }

  /** The per-parameter problems of a 400 (empty when `details` is not a list). */
  get problems(): ShutterErrorDetail[] {
    return Array.isArray(this.details) ? this.details : [];
  }
}

/** True for a ShutterError (also across copies of this package). */
export function isShutterError(error: unknown): error is ShutterError {
  return error instanceof ShutterError || (error instanceof Error && error.name === 'ShutterError' && 'code' in error && 'status' in error);
}
