/**
 * The one table that maps every error code to its HTTP status (DESIGN.md §1 "Errors").
 * Adding a code here is the only way to make a new kind of error reach a caller.
 */
export const ERROR_STATUS = {
  invalid_parameter: 400,
  unknown_parameter: 400,
  missing_source: 400,
  conflicting_source: 400,
  parameter_not_applicable: 400,
  invalid_json: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  target_forbidden: 403,
  link_invalid: 403,
  signature_invalid: 403,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  navigation_failed: 422,
  selector_invalid: 422,
  selector_not_found: 422,
  script_failed: 422,
  content_check_failed: 422,
  target_http_error: 422,
  conversion_failed: 422,
  blank_capture: 422,
  bot_challenge: 422,
  rate_limited: 429,
  concurrency_limited: 429,
  quota_exceeded: 429,
  internal_error: 500,
  not_implemented: 501,
  storage_failed: 502,
  proxy_failed: 502,
  overloaded: 503,
  browser_unavailable: 503,
  capture_timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
