import { ShutterError } from './errors.js';
import { writeBodyToFile } from './file.js';
import type { AnimateOptions, TakeOptions } from './options.js';
import { definedOnly } from './query.js';
import { signedUrl, verifyWebhook, type SignedUrlOptions, type VerifyWebhookOptions } from './signing.js';
import { call, normalizeBaseUrl, readJson, sleep, withDeadline, type TransportSettings } from './transport.js';
import type {
  BulkOptions,
  BulkResult,
  CallOptions,
  Device,
  Job,
  JobCallOptions,
  JobCreated,
  JobOptions,
  ShutterClientOptions,
  Status,
  TakeFileResult,
  TakeJsonOptions,
  TakeJsonResult,
  WaitOptions,
} from './types.js';

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_RETRIES = 3;
const DEFAULT_MAX_RETRY_TIME_MS = 60_000;
const DEFAULT_WAIT_TIMEOUT_MS = 300_000;
const MAX_POLL_INTERVAL_MS = 5000;

const randomKey = (): string => {
  const crypto = (globalThis as { crypto?: Crypto }).crypto;
  if (crypto?.randomUUID) return crypto.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}-${Math.random().toString(36).slice(2)}`;
};

const nonNegative = (name: string, value: number | undefined, fallback: number): number => {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) throw new TypeError(`${name} must be a number ≥ 0`);
  return value;
};

/** Async captures: `POST /v1/take?async=1`, `GET /v1/jobs/{id}`, and waiting for one to end. */
export class Jobs {
  constructor(private readonly settings: TransportSettings) {}

  /** Queues a capture (`async=1` → 202); the result is stored like `upload=1`. */
  create(options: JobOptions, callOptions?: JobCallOptions): Promise<JobCreated> {
    return call(
      this.settings,
      {
        method: 'POST',
        path: '/v1/take',
        json: { ...definedOnly(options), async: true },
        headers: { 'idempotency-key': callOptions?.idempotencyKey ?? randomKey() },
      },
      callOptions,
      (response) => readJson<JobCreated>(response),
    );
  }

  /** A job of the same account (404 `not_found` otherwise). */
  get(id: string, callOptions?: CallOptions): Promise<Job> {
    if (!id) throw new TypeError('jobs.get needs a job id');
    return call(this.settings, { method: 'GET', path: `/v1/jobs/${encodeURIComponent(id)}` }, callOptions, (response) =>
      readJson<Job>(response),
    );
  }

  /**
   * Polls a job until it ends. Resolves with the succeeded job; rejects with a ShutterError whose
   * `code` is the job's error code when it failed, or `timeout` after `timeoutMs`.
   */
  async wait(id: string, options: WaitOptions = {}): Promise<Job> {
    const timeoutMs = nonNegative('timeoutMs', options.timeoutMs, DEFAULT_WAIT_TIMEOUT_MS);
    let interval = Math.max(50, nonNegative('intervalMs', options.intervalMs, 1000));
    return withDeadline(timeoutMs, options.signal, async (signal) => {
      for (;;) {
        const job = await this.get(id, { signal });
        if (job.status === 'succeeded') return job;
        if (job.status === 'failed') {
          throw new ShutterError({
            status: 0,
            code: job.error?.code ?? 'job_failed',
            message: job.error?.message ?? `job ${id} failed`,
            details: { job },
          });
        }
        await sleep(interval, signal);
        interval = Math.min(MAX_POLL_INTERVAL_MS, Math.round(interval * 1.5));
      }
    });
  }
}

/**
 * The Shutter API client: header authentication, retries on 429/503 and network resets
 * (Retry-After honoured, bounded), a timeout per call, AbortSignal support, typed errors.
 *
 * ```ts
 * const shutter = new ShutterClient({ apiKey: process.env.SHUTTER_API_KEY!, baseUrl: 'http://localhost:3000' });
 * const png = await shutter.take({ url: 'https://example.com', full_page: true });
 * ```
 */
export class ShutterClient {
  /** Async captures. */
  readonly jobs: Jobs;
  private readonly settings: TransportSettings;

  constructor(options: ShutterClientOptions) {
    if (!options || typeof options.apiKey !== 'string' || options.apiKey === '') {
      throw new TypeError('ShutterClient needs apiKey');
    }
    const fetchImpl = options.fetch ?? (globalThis as { fetch?: typeof fetch }).fetch;
    if (typeof fetchImpl !== 'function') throw new TypeError('no global fetch: use Node ≥ 18 or pass options.fetch');
    this.settings = {
      apiKey: options.apiKey,
      baseUrl: normalizeBaseUrl(options.baseUrl),
      timeoutMs: nonNegative('timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS),
      maxRetries: Math.floor(nonNegative('maxRetries', options.maxRetries, DEFAULT_MAX_RETRIES)),
      maxRetryTimeMs: nonNegative('maxRetryTimeMs', options.maxRetryTimeMs, DEFAULT_MAX_RETRY_TIME_MS),
      headers: { ...options.headers },
      fetch: fetchImpl.bind(globalThis),
    };
    this.jobs = new Jobs(this.settings);
  }

  /** The service's address, as requests use it (no trailing slash, no `/v1`). */
  get baseUrl(): string {
    return this.settings.baseUrl;
  }

  /** Captures and answers the file's bytes (PNG by default). */
  take(options: TakeOptions, callOptions?: CallOptions): Promise<Uint8Array> {
    return call(
      this.settings,
      { method: 'POST', path: '/v1/take', json: definedOnly(options) },
      callOptions,
      async (response) => new Uint8Array(await response.arrayBuffer()),
    );
  }

  /** Records a video of the page (`POST /v1/animate`: mp4 by default, webm, gif) and answers its bytes. */
  animate(options: AnimateOptions, callOptions?: CallOptions): Promise<Uint8Array> {
    return call(
      this.settings,
      { method: 'POST', path: '/v1/animate', json: definedOnly(options) },
      callOptions,
      async (response) => new Uint8Array(await response.arrayBuffer()),
    );
  }

  /**
   * Captures into a file, streaming the body to disk (Node only): a 20 MB full-page PNG never sits
   * in memory. `path` appears only once the file is complete.
   */
  takeToFile(options: TakeOptions, path: string, callOptions?: CallOptions): Promise<TakeFileResult> {
    if (typeof path !== 'string' || path === '') throw new TypeError('takeToFile needs a file path');
    return call(this.settings, { method: 'POST', path: '/v1/take', json: definedOnly(options) }, callOptions, (response, signal) =>
      writeBodyToFile(response, path, signal),
    );
  }

  /** Captures and answers JSON about the capture (`response_type=json`): size, dimensions, the file in base64 or its URL, metadata. */
  takeJson(options: TakeJsonOptions, callOptions?: CallOptions): Promise<TakeJsonResult> {
    return call(
      this.settings,
      { method: 'POST', path: '/v1/take', json: { ...definedOnly(options), response_type: 'json' } },
      callOptions,
      (response) => readJson<TakeJsonResult>(response),
    );
  }

  /** `GET /v1/status`: the calling key, its plan, usage and limits, and the service's health. */
  status(callOptions?: CallOptions): Promise<Status> {
    return call(this.settings, { method: 'GET', path: '/v1/status' }, callOptions, (response) => readJson<Status>(response));
  }

  /** `GET /v1/devices`: the names `viewport_device` accepts and what each sets. */
  async devices(callOptions?: CallOptions): Promise<Device[]> {
    const body = await call(this.settings, { method: 'GET', path: '/v1/devices' }, callOptions, (response) =>
      readJson<{ devices: Device[] }>(response),
    );
    return body.devices;
  }

  /** Queues up to 50 captures at once (`POST /v1/bulk` → 202, a job per request). Each entry is validated first. */
  bulk(options: BulkOptions, callOptions?: JobCallOptions): Promise<BulkResult> {
    if (!options || !Array.isArray(options.requests)) throw new TypeError('bulk needs { requests: [...] }');
    return call(
      this.settings,
      {
        method: 'POST',
        path: '/v1/bulk',
        json: {
          requests: options.requests.map((request) => definedOnly(request)),
          ...(options.defaults ? { defaults: definedOnly(options.defaults) } : {}),
          ...(options.webhookUrl ? { webhook_url: options.webhookUrl } : {}),
        },
        headers: { 'idempotency-key': callOptions?.idempotencyKey ?? randomKey() },
      },
      callOptions,
      (response) => readJson<BulkResult>(response),
    );
  }

  /** A signed `GET /v1/take` link to this service (see the standalone signedUrl). */
  signedUrl(options: TakeOptions, signing: SignedUrlOptions): Promise<string> {
    return signedUrl(options, { ...signing, baseUrl: this.settings.baseUrl });
  }

  /** Checks a webhook's `X-Shutter-Signature` and returns its job (see the standalone verifyWebhook). */
  verifyWebhook(
    rawBody: string | Uint8Array | ArrayBuffer,
    header: string | null | undefined,
    signingSecret: string,
    options?: VerifyWebhookOptions,
  ): Promise<Job> {
    return verifyWebhook(rawBody, header, signingSecret, options);
  }
}
