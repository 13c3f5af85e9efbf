import type { Generated } from 'kysely';

/** Row shapes of every table, as Kysely sees them. Timestamps are ISO-8601 UTC text in both dialects. */
export interface Tables {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  usage_daily: UsageDailyTable;
  quota_usage: QuotaUsageTable;
  quota_reservations: QuotaReservationsTable;
  sessions: SessionsTable;
  capture_requests: CaptureRequestsTable;
  cache_entries: CacheEntriesTable;
  jobs: JobsTable;
  queue_tasks: QueueTasksTable;
  idempotency_keys: IdempotencyKeysTable;
  admin_audit: AdminAuditTable;
}

/** One async capture (async=1 or an entry of POST /v1/bulk) and its webhook's deliveries. */
export interface JobsTable {
  id: string;
  account_id: string;
  key_id: string;
  /** The request that queued it. */
  request_id: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  /** JSON of the parameters as given (validated when queued, parsed again by the worker). */
  params: string;
  format: string;
  /** The target; null for html input. */
  url: string | null;
  external_id: string | null;
  webhook_url: string | null;
  /** Where links to locally stored files point (the accepting request's origin or SHUTTER_PUBLIC_URL). */
  base_url: string | null;
  /** Its place in the account's own backlog when queued: lower lanes run first, so accounts take turns. */
  lane: number;
  /** JSON `{ id, period }` of the quota unit held while it is queued or running. */
  reservation: string | null;
  /** The run that may finish it; a run of a worker that was given up for dead cannot. */
  run_token: string | null;
  runs: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** JSON `{ url, expires_at, format, content_type, size }`. */
  result: string | null;
  /** JSON `{ code, message }`. */
  error: string | null;
  webhook_attempts: Generated<number>;
  webhook_last_status: number | null;
  webhook_last_error: string | null;
  webhook_delivered_at: string | null;
  webhook_next_at: string | null;
}

/** The embedded queue (no Redis): a task is claimed with a lease; a worker that dies lets its lease lapse. */
export interface QueueTasksTable {
  id: string;
  kind: 'capture' | 'webhook';
  job_id: string;
  lane: number;
  /** Orders tasks of one lane: creation time plus a counter. */
  seq: string;
  run_at: string;
  lease_until: string | null;
  claims: Generated<number>;
}

/** What an Idempotency-Key answered (24 h): the same key with the same body answers it again. */
export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  body_hash: string;
  /** JSON of the 202 body. */
  answer: string;
  created_at: string;
  expires_at: string;
}

/** One cached capture: the index row; the file itself is the store's object named by `key`. */
export interface CacheEntriesTable {
  key: string;
  account_id: string;
  format: string;
  content_type: string;
  size: number;
  etag: string;
  created_at: string;
  expires_at: string;
  /** JSON of what else the answer needs: warnings, selector/truncated flags, metadata. */
  result: string;
}

/** One /v1/take that reached the capture, kept 7 days; its debug bundle (JSON) 24 hours. */
export interface CaptureRequestsTable {
  request_id: string;
  account_id: string;
  key_id: string;
  created_at: string;
  /** The target; null for html input. */
  url: string | null;
  format: string;
  status: number;
  error_code: string | null;
  duration_ms: number;
  bundle: string | null;
  bundle_expires_at: string | null;
}

/** One customer (or the operator): the plan and the dashboard login. */
export interface AccountsTable {
  id: string;
  /** Lower-cased. */
  email: string;
  /** `scrypt$…`; null for accounts that cannot log in to the dashboard (the operator's). */
  password_hash: string | null;
  plan: string;
  created_at: string;
  /** `operator` may open /dashboard/admin; everyone else is a `user`. */
  role: Generated<AccountRole>;
  /** Set while the account is disabled: its keys are refused and it cannot log in. */
  disabled_at: string | null;
}

/** What an account may do in the dashboard. */
export type AccountRole = 'user' | 'operator';

/** One change an operator made to an account (dashboard admin or CLI). */
export interface AdminAuditTable {
  id: string;
  /** The operator's account; null for a change made from the command line. */
  actor_account_id: string | null;
  /** `set_plan`, `disable`, `enable`, `set_role`. */
  action: string;
  target_account_id: string | null;
  /** JSON of the change, e.g. `{ "from": "free", "to": "growth" }`. */
  detail: string;
  created_at: string;
}

/** API keys; only the SHA-256 hash of the secret is stored. */
export interface ApiKeysTable {
  id: string;
  /** Null only on rows from before accounts existed, until migration 2 assigns them. */
  account_id: string | null;
  name: string;
  prefix: string;
  last4: string;
  hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** Successful captures per key per UTC day. */
export interface UsageDailyTable {
  key_id: string;
  account_id: string;
  /** YYYY-MM-DD */
  day: string;
  captures: number;
  /** Answers from the capture cache (not charged). */
  cache_hits: Generated<number>;
}

/** Successful captures per account per quota period: the durable side of the quota. */
export interface QuotaUsageTable {
  account_id: string;
  /** YYYY-MM */
  period: string;
  used: number;
}

/** Captures in flight that hold a unit of quota until they are committed or released. */
export interface QuotaReservationsTable {
  id: string;
  account_id: string;
  period: string;
  /** A reservation of a crashed instance stops counting after this. */
  expires_at: string;
}

/** Dashboard log-ins; the cookie holds a secret whose SHA-256 hash is the id. */
export interface SessionsTable {
  id_hash: string;
  account_id: string;
  /** The CSRF token every form of this session must carry. */
  csrf: string;
  created_at: string;
  expires_at: string;
}
