import { AppError } from './app-error.js';

/** What kind of network failure a Chromium net error is, for `details.kind` of a 422 navigation_failed. */
export type NavigationFailureKind = 'dns' | 'tls' | 'refused' | 'timeout' | 'connection' | 'unreachable' | 'http' | 'aborted' | 'other';

export function failureKindOf(netError: string | undefined): NavigationFailureKind {
  if (!netError) return 'other';
  if (/^ERR_NAME_(NOT_RESOLVED|RESOLUTION_FAILED)$/.test(netError)) return 'dns';
  if (/^ERR_(CERT_|SSL_|BAD_SSL_)/.test(netError)) return 'tls';
  if (netError === 'ERR_CONNECTION_REFUSED') return 'refused';
  if (/^ERR_(CONNECTION_)?TIMED_OUT$/.test(netError)) return 'timeout';
  if (/^ERR_(CONNECTION_(RESET|CLOSED|FAILED|ABORTED)|EMPTY_RESPONSE)$/.test(netError)) return 'connection';
  if (/^ERR_(ADDRESS|NETWORK)_UNREACHABLE$/.test(netError)) return 'unreachable';
  if (/^ERR_(HTTP_RESPONSE_CODE_FAILURE|INVALID_RESPONSE|INVALID_HTTP_RESPONSE|RESPONSE_HEADERS_)/.test(netError)) return 'http';
  if (netError === 'ERR_ABORTED') return 'aborted';
  return 'other';
}

/**
 * 422 navigation_failed that explains itself: the message names the net error, and `details`
 * carries `{ error, kind, http_status? }` for programs (DESIGN.md §4.5, issue 16).
 */
export function navigationFailed(netError: string | undefined, options: { host?: string; httpStatus?: number } = {}): AppError {
  const kind = failureKindOf(netError);
  const what = kind === 'dns' && options.host ? `could not resolve the host ${options.host}` : 'the page could not be loaded';
  const parts = [netError, options.httpStatus !== undefined ? `HTTP ${options.httpStatus}` : undefined].filter(Boolean);
  return new AppError('navigation_failed', parts.length ? `${what} (${parts.join(', ')})` : what, {
    facts: {
      error: netError ?? null,
      kind,
      ...(options.httpStatus !== undefined ? { http_status: options.httpStatus } : {}),
    },
  });
}
