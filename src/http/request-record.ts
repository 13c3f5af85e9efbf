import type { FastifyRequest } from 'fastify';
import type { DebugTrace } from '../capture/debug-trace.js';
import type { AppError } from '../errors/app-error.js';
import { knownAppError } from '../errors/backend-unavailable.js';
import type { TakeOptions } from '../options/schema.js';
import { BUNDLE_HOURS } from '../requests/request-log.js';
import type { AppDeps } from './app.js';
import { absoluteUrl } from './upload.js';

/** How a capture request ended, for the request log. */
export interface RequestOutcome {
  status: number;
  error?: unknown;
}

/**
 * Logs a /v1/take that reached the capture (the dashboard's Requests page) and, with debug=1, its
 * bundle: the JSON in the request log, the screenshot and HTML in the file store. A log that cannot
 * be written is logged and never fails the capture.
 */
export async function recordRequest(
  deps: AppDeps,
  request: FastifyRequest,
  options: TakeOptions,
  startedAt: Date,
  outcome: RequestOutcome,
  trace: DebugTrace | undefined,
): Promise<void> {
  const caller = request.caller;
  if (!caller) return;
  const appError = knownAppError(outcome.error);
  try {
    await deps.accounts.requests.record({
      requestId: request.id,
      accountId: caller.account.id,
      keyId: caller.key.id,
      createdAt: startedAt,
      url: options.url ?? null,
      format: options.format,
      status: outcome.status,
      errorCode: outcome.error === undefined ? null : (appError?.code ?? 'internal_error'),
      durationMs: Date.now() - startedAt.getTime(),
      ...(trace ? { bundle: await bundleOf(deps, request, options, startedAt, outcome, appError, trace) } : {}),
    });
  } catch (error) {
    request.log.warn({ err: error }, 'could not record the capture request');
  }
}

/** The bundle as GET /v1/requests/{id} answers it (DESIGN.md §4.5). */
async function bundleOf(
  deps: AppDeps,
  request: FastifyRequest,
  options: TakeOptions,
  startedAt: Date,
  outcome: RequestOutcome,
  appError: AppError | undefined,
  trace: DebugTrace,
) {
  const link = (body: Buffer | undefined, contentType: string, extension: string) => storeLink(deps, request, body, contentType, extension);
  const [screenshotUrl, htmlUrl] = await Promise.all([
    link(trace.screenshot, 'image/png', 'png'),
    link(trace.html === undefined ? undefined : Buffer.from(trace.html), 'text/html; charset=utf-8', 'html'),
  ]);
  return {
    request_id: request.id,
    created_at: startedAt.toISOString(),
    expires_at: new Date(startedAt.getTime() + BUNDLE_HOURS * 3600_000).toISOString(),
    status: outcome.status,
    error:
      outcome.error === undefined ? null : { code: appError?.code ?? 'internal_error', message: appError?.message ?? 'internal error' },
    options: redacted(options),
    steps: trace.steps,
    requests: trace.requests,
    console: trace.console,
    errors: trace.errors,
    screenshot_url: screenshotUrl,
    html_url: htmlUrl,
  };
}

async function storeLink(deps: AppDeps, request: FastifyRequest, body: Buffer | undefined, contentType: string, extension: string) {
  if (!deps.store || !body) return null;
  const stored = await deps.store.put({ body, contentType, extension }).catch(() => undefined);
  return stored ? absoluteUrl(request, deps.publicUrl, stored) : null;
}

/** The options with what may be a secret replaced: header values and cookie values. */
function redacted(options: TakeOptions): Record<string, unknown> {
  const copy: Record<string, unknown> = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  if (options.headers) copy.headers = options.headers.map(([name]) => [name, '[redacted]']);
  if (options.cookies) copy.cookies = options.cookies.map((c) => ({ ...c, value: '[redacted]' }));
  return copy;
}
