import { ShutterError, type ShutterErrorDetail } from './errors.js';
import type { CallOptions } from './types.js';
import { VERSION } from './version.js';

/** What every request of a client shares. */
export interface TransportSettings {
  apiKey: string;
  baseUrl: string;
  timeoutMs: number;
  maxRetries: number;
  maxRetryTimeMs: number;
  headers: Record<string, string>;
  fetch: typeof fetch;
}

export interface RequestSpec {
  method: 'GET' | 'POST';
  /** Path under the base URL, e.g. `/v1/take`. */
  path: string;
  /** Sent as JSON. */
  json?: unknown;
  headers?: Record<string, string>;
}

/** Network failures worth another try (Node's codes; a browser's fetch gives a bare TypeError). */
const RETRYABLE_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Statuses retried, honouring Retry-After: limits (429) and overload or restart (503). */
const RETRYABLE_STATUSES = new Set([429, 503]);

/** The base URL without trailing slashes or `/v1`: paths carry their `/v1`. */
export function normalizeBaseUrl(baseUrl: string): string {
  if (typeof baseUrl !== 'string' || !/^https?:\/\//i.test(baseUrl)) {
    throw new TypeError(`baseUrl must be an http(s) URL, got ${JSON.stringify(baseUrl)}`);
  }
  return baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

const isNode = (): boolean => typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node === 'string';

/**
 * Runs `work` with a signal that fires on the caller's signal or after `timeoutMs`. A timeout
 * becomes a ShutterError `timeout`; the caller's abort rejects with the signal's reason.
 */
export async function withDeadline<T>(
  timeoutMs: number,
  callerSignal: AbortSignal | undefined,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  callerSignal?.throwIfAborted();
  const controller = new AbortController();
  let timedOut = false;
  const timeoutError = () => new ShutterError({ status: 0, code: 'timeout', message: `the call did not finish within ${timeoutMs} ms` });
  const timer =
    timeoutMs > 0 && Number.isFinite(timeoutMs)
      ? setTimeout(() => {
          timedOut = true;
          controller.abort(timeoutError());
        }, timeoutMs)
      : undefined;
  const onAbort = () => controller.abort(callerSignal?.reason);
  callerSignal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await work(controller.signal);
  } catch (error) {
    if (callerSignal?.aborted) throw callerSignal.reason;
    if (timedOut) throw error instanceof ShutterError && error.code === 'timeout' ? error : timeoutError();
    throw error;
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    callerSignal?.removeEventListener('abort', onAbort);
  }
}

/** Waits `ms`, or rejects when the signal fires first. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** `Retry-After` in ms: delta seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Exponential backoff with full jitter for retries without Retry-After: 0.5 s, 1 s, 2 s, … at most 8 s. */
function backoffMs(attempt: number): number {
  const cap = Math.min(8000, 500 * 2 ** attempt);
  return Math.round(cap / 2 + (Math.random() * cap) / 2);
}

function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A fetch failure that another try may cure: a reset or refused connection, not a bad URL. */
function isRetryableNetworkError(error: unknown): boolean {
  if (!(error instanceof TypeError)) return false;
  const code = networkCode(error);
  return code === undefined || RETRYABLE_CODES.has(code);
}

function networkError(error: unknown): ShutterError {
  const code = networkCode(error);
  const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
  return new ShutterError({
    status: 0,
    code: 'network_error',
    message: `no answer from Shutter: ${reason}${code && !reason.includes(code) ? ` (${code})` : ''}`,
    cause: error,
  });
}

/** The ShutterError of a non-2xx answer, from Shutter's error JSON when there is one. */
export async function errorFromResponse(response: Response): Promise<ShutterError> {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const retryAfterHeader = retryAfterMs(response.headers.get('retry-after'));
  const retryAfter = retryAfterHeader === undefined ? undefined : retryAfterHeader / 1000;
  let text = '';
  try {
    text = await response.text();
  } catch {
    // The body is gone; the status says enough.
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const error = (body as { error?: unknown } | undefined)?.error as
    { code?: unknown; message?: unknown; details?: ShutterErrorDetail[] | Record<string, unknown> } | undefined;
  if (error && typeof error.code === 'string') {
    return new ShutterError({
      status: response.status,
      code: error.code,
      message: typeof error.message === 'string' ? error.message : error.code,
      details: error.details,
      requestId: requestId ?? (body as { request_id?: string }).request_id,
      retryAfter,
      headers: response.headers,
    });
  }
  const snippet = text.replace(/\s+/g, ' ').trim().slice(0, 200);
  return new ShutterError({
    status: response.status,
    code: 'unexpected_response',
    message: `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}${snippet ? `: ${snippet}` : ''}`,
    requestId,
    retryAfter,
    headers: response.headers,
  });
}

/**
 * Sends one API request: header auth, JSON body, retries on 429, 503 and network failures
 * (Retry-After honoured, bounded by `maxRetries` and `maxRetryTimeMs`), never on other statuses.
 * Resolves with the 2xx response, its body unread; everything else rejects with a ShutterError.
 */
export async function send(settings: TransportSettings, spec: RequestSpec, signal: AbortSignal): Promise<Response> {
  const headers: Record<string, string> = {
    accept: 'application/json, */*',
    ...settings.headers,
    ...spec.headers,
    apikey: settings.apiKey,
  };
  if (isNode() && !Object.keys(headers).some((name) => name.toLowerCase() === 'user-agent')) {
    headers['user-agent'] = `shutter-client-typescript/${VERSION}`;
  }
  let body: string | undefined;
  if (spec.json !== undefined) {
    body = JSON.stringify(spec.json);
    headers['content-type'] = 'application/json';
  }
  const url = settings.baseUrl + spec.path;
  const started = Date.now();
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await settings.fetch(url, { method: spec.method, headers, body, signal });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      if (!isRetryableNetworkError(error) || attempt >= settings.maxRetries) throw networkError(error);
      const wait = backoffMs(attempt);
      if (Date.now() - started + wait > settings.maxRetryTimeMs) throw networkError(error);
      await sleep(wait, signal);
      continue;
    }
    if (response.ok) return response;
    if (RETRYABLE_STATUSES.has(response.status) && attempt < settings.maxRetries) {
      const wait = retryAfterMs(response.headers.get('retry-after')) ?? backoffMs(attempt);
      // A Retry-After past the budget (a quota that resets next month) is answered at once.
      if (Date.now() - started + wait <= settings.maxRetryTimeMs) {
        await response.body?.cancel().catch(() => undefined);
        await sleep(wait, signal);
        continue;
      }
    }
    throw await errorFromResponse(response);
  }
}

/** A call's deadline and retries around `send`, with the body read by `read` inside the deadline. */
export function call<T>(
  settings: TransportSettings,
  spec: RequestSpec,
  options: CallOptions | undefined,
  read: (response: Response, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const headers = { ...spec.headers, ...(options?.requestId ? { 'x-request-id': options.requestId } : {}) };
  return withDeadline(options?.timeoutMs ?? settings.timeoutMs, options?.signal, async (signal) => {
    const response = await send(settings, { ...spec, headers }, signal);
    return read(response, signal);
  });
}

/** Reads a 2xx JSON answer; a body that is not JSON is a ShutterError `unexpected_response`. */
export async function readJson<T>(response: Response): Promise<T> {
  const text = await response.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ShutterError({
      status: response.status,
      code: 'unexpected_response',
      message: `expected JSON, got ${response.headers.get('content-type') ?? 'no content type'}: ${text.slice(0, 200)}`,
      requestId: response.headers.get('x-request-id') ?? undefined,
      headers: response.headers,
    });
  }
}
