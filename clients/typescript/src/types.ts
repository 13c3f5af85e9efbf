import type { TakeOptions } from './options.js';

/** Settings of a ShutterClient. */
export interface ShutterClientOptions {
  /** An API key (`shk_…`), sent in the `apikey` header. */
  apiKey: string;
  /** Where Shutter answers, e.g. `https://shots.example.com` (a trailing `/v1` is ignored). */
  baseUrl: string;
  /** Longest a call may take, retries and body included, in ms (default 120 000; 0 for none). */
  timeoutMs?: number;
  /** Retries after 429, 503 or a network failure (default 3). */
  maxRetries?: number;
  /** A retry is not started when it would end past this many ms after the call began (default 60 000). */
  maxRetryTimeMs?: number;
  /** Headers added to every request (e.g. for a proxy in front of Shutter). */
  headers?: Record<string, string>;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

/** Per-call settings, the last argument of every method. */
export interface CallOptions {
  /** Cancels the call; it rejects with the signal's reason (an `AbortError` by default). */
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number;
  /** Sent as `X-Request-Id` (at most 128 of `A-Za-z0-9._:-`), echoed by the server and in its logs. */
  requestId?: string;
}

/** Per-call settings of calls that create jobs. */
export interface JobCallOptions extends CallOptions {
  /**
   * `Idempotency-Key` (≤ 255 characters). The same key and body within 24 h answer the same job(s).
   * Default: a random key per call, so the client's own retries never queue a job twice.
   */
  idempotencyKey?: string;
}

/** What `takeToFile` wrote. */
export interface TakeFileResult {
  /** The file written (the path given). */
  path: string;
  /** Bytes written. */
  size: number;
  /** `Content-Type` of the capture, e.g. `image/png`. */
  contentType: string;
  requestId: string | undefined;
  /** True when a full-page capture was cut at the operator's height cap (`X-Shutter-Truncated`). */
  truncated: boolean;
  /** All response headers (`Server-Timing`, quota headers, …). */
  headers: Headers;
}

/** `GET /v1/status`. */
export interface Status {
  status: 'ok';
  version: string;
  key: {
    id: string;
    name: string;
    prefix: string;
    created_at: string;
    last_used_at: string | null;
    /** The key's signing secret for signed links and webhooks; only when the request used the key itself. */
    signing_secret?: string;
  };
  plan: {
    name: string;
    keys_allowed: number;
    monthly_quota: number;
    rate_per_minute: number;
    concurrency: number;
    [key: string]: unknown;
  };
  usage: { period_start: string; period_end: string; used: number; limit: number; remaining: number };
  rate_limit: { limit: number; remaining: number; reset: number };
  concurrency: { limit: number; in_use: number };
  service: {
    browser: string | null;
    pool: { size: number; busy: number; queued: number; [key: string]: unknown };
    [key: string]: unknown;
  };
  /** Country codes `ip_country_code` accepts. */
  countries?: string[];
  [key: string]: unknown;
}

/** A device of `GET /v1/devices`, for `viewport_device`. */
export interface Device {
  name: string;
  viewport: { width: number; height: number };
  device_scale_factor: number;
  mobile: boolean;
  has_touch: boolean;
  user_agent: string;
}

/** Options of `takeJson`: TakeOptions plus `metadata` (page title, Open Graph, …). */
export interface TakeJsonOptions extends TakeOptions {
  metadata?: boolean;
}

/** The answer of `response_type=json` (DESIGN §4.2). */
export interface TakeJsonResult {
  request_id: string;
  format: string;
  content_type: string;
  size: number;
  /** Images only. */
  width?: number;
  height?: number;
  /** When stored (upload or cache). */
  url?: string;
  expires_at?: string;
  /** The file, base64, when not stored and at most 10 MB. */
  data_base64?: string;
  cache?: 'hit' | 'miss' | null;
  metadata?: PageMetadata | null;
  timings?: Record<string, number>;
  warnings?: string[];
  [key: string]: unknown;
}

/** `metadata=1`: what the page says about itself. */
export interface PageMetadata {
  title?: string | null;
  description?: string | null;
  open_graph?: Record<string, unknown>;
  twitter?: Record<string, unknown>;
  icons?: string[];
  canonical_url?: string | null;
  final_url?: string;
  http_status?: number | null;
  http_headers?: Record<string, string>;
  fonts?: string[];
  page_height?: number;
  [key: string]: unknown;
}

/** Options of `jobs.create`: TakeOptions plus where and how to report the result. */
export interface JobOptions extends TakeOptions {
  /** POSTed the job JSON when it ends, signed with `X-Shutter-Signature` (check it with verifyWebhook). */
  webhook_url?: string;
  /** Your own reference (≤ 128 characters), echoed in the job. */
  external_id?: string;
}

/** `202` of an async take. */
export interface JobCreated {
  job_id: string;
  status: 'queued';
  status_url: string;
  request_id?: string;
  [key: string]: unknown;
}

export type JobStatus = 'queued' | 'running' | 'succeeded' | 'failed';

/** `GET /v1/jobs/{id}`, and the body of a webhook. */
export interface Job {
  job_id: string;
  status: JobStatus;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  external_id: string | null;
  result: { url: string; expires_at: string; format: string; content_type: string; size: number } | null;
  error: { code: string; message: string } | null;
  [key: string]: unknown;
}

/** Arguments of `bulk`. */
export interface BulkOptions {
  /** At most 50 captures; each is merged over `defaults`. */
  requests: JobOptions[];
  /** Options shared by every request. */
  defaults?: JobOptions;
  /** One webhook for every job of the batch. */
  webhookUrl?: string;
}

/** `202` of `POST /v1/bulk`: a job per request, in order. */
export interface BulkResult {
  jobs: JobCreated[];
  request_id?: string;
  [key: string]: unknown;
}

/** Options of `jobs.wait`. */
export interface WaitOptions {
  /** Give up after this many ms (default 300 000): rejects with a ShutterError `timeout`. */
  timeoutMs?: number;
  /** First pause between polls in ms (default 1000); it grows to at most 5000. */
  intervalMs?: number;
  signal?: AbortSignal;
}
