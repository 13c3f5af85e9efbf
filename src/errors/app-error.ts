import { ERROR_STATUS, type ErrorCode } from './error-codes.js';

/** One problem with one parameter, reported in error.details. */
export interface ErrorDetail {
  parameter: string;
  message: string;
  code?: ErrorCode;
  value?: unknown;
  suggestion?: string;
  /** The other parameter of a pair that cannot go together. */
  conflicts_with?: string;
}

/** An error whose code and message are safe to show the caller. */
export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: {
      details?: ErrorDetail[];
      /** Machine-readable facts shown as `details` where there is no parameter to name (a 504's step and pending requests). */
      facts?: Record<string, unknown>;
      retryAfterSeconds?: number;
      headers?: Record<string, string>;
    } = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
  }
}
