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
