import type { Caller } from '../accounts/meter.js';
import type { DebugTrace } from '../capture/debug-trace.js';
import type { AppError } from '../errors/app-error.js';
import { knownAppError } from '../errors/backend-unavailable.js';
import type { TakeOptions } from '../options/schema.js';
import { BUNDLE_HOURS, type RequestLog } from '../requests/request-log.js';
import type { FileStore, StoredFile } from '../storage/file-store.js';

/** The one logging call a take makes: a warning that did not fail it. */
export interface WarnLog {
  warn(details: object, message: string): void;
}

/** How a capture request ended, for the request log. */
export interface RequestOutcome {
  status: number;
  error?: unknown;
}

/** What the request log needs: where to write, where bundles' files go, and how their links read. */
export interface RecordDeps {
  requests: RequestLog;
  store: FileStore | undefined;
}

/** One capture request as the log keeps it. */
export interface RecordedRequest {
  requestId: string;
  caller: Caller;
  options: TakeOptions;
  startedAt: Date;
  trace: DebugTrace | undefined;
  /** A stored file's link as the caller will use it. */
  linkOf: (stored: StoredFile) => string;
  /** Where warnings go (the request's logger). */
  log: WarnLog;
}

/**
 * Logs a capture request that reached the capture (the dashboard's Requests page) and, with debug=1,
 * its bundle: the JSON in the request log, the screenshot and HTML in the file store. A log that
 * cannot be written is logged and never fails the capture.
 */
export async function recordRequest(deps: RecordDeps, request: RecordedRequest, outcome: RequestOutcome): Promise<void> {
  const { caller, options, startedAt, trace } = request;
  const appError = knownAppError(outcome.error);
  try {
    await deps.requests.record({
      requestId: request.requestId,
      accountId: caller.account.id,
      keyId: caller.key.id,
      createdAt: startedAt,
      url: options.url ?? null,
      format: options.format,
      status: outcome.status,
      errorCode: outcome.error === undefined ? null : (appError?.code ?? 'internal_error'),
      durationMs: Date.now() - startedAt.getTime(),
      ...(trace ? { bundle: await bundleOf(deps, request, trace, outcome, appError) } : {}),
    });
  } catch (error) {
    request.log.warn({ err: error }, 'could not record the capture request');
  }
}

/** The bundle as GET /v1/requests/{id} answers it (DESIGN.md §4.5). */
async function bundleOf(
  deps: RecordDeps,
  request: RecordedRequest,
  trace: DebugTrace,
  outcome: RequestOutcome,
  appError: AppError | undefined,
) {
  const link = async (body: Buffer | undefined, contentType: string, extension: string) => {
    if (!deps.store || !body) return null;
    const stored = await deps.store.put({ body, contentType, extension }).catch(() => undefined);
    return stored ? request.linkOf(stored) : null;
  };
  const [screenshotUrl, htmlUrl] = await Promise.all([
    link(trace.screenshot, 'image/png', 'png'),
    link(trace.html === undefined ? undefined : Buffer.from(trace.html), 'text/html; charset=utf-8', 'html'),
  ]);
  const { startedAt } = request;
  return {
    request_id: request.requestId,
    created_at: startedAt.toISOString(),
    expires_at: new Date(startedAt.getTime() + BUNDLE_HOURS * 3600_000).toISOString(),
    status: outcome.status,
    error:
      outcome.error === undefined ? null : { code: appError?.code ?? 'internal_error', message: appError?.message ?? 'internal error' },
    options: redacted(request.options),
    steps: trace.steps,
    requests: trace.requests,
    console: trace.console,
    errors: trace.errors,
    screenshot_url: screenshotUrl,
    html_url: htmlUrl,
  };
}

/** The options with what may be a secret replaced: header values and cookie values. */
function redacted(options: TakeOptions): Record<string, unknown> {
  const copy: Record<string, unknown> = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  if (options.headers) copy.headers = options.headers.map(([name]) => [name, '[redacted]']);
  if (options.cookies) copy.cookies = options.cookies.map((c) => ({ ...c, value: '[redacted]' }));
  return copy;
}
