/** A stored API key, without its secret. */
export interface ApiKeyRecord {
  id: string;
  name: string;
  /** The first characters of the key, to recognise it in lists. */
  prefix: string;
  last4: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/**
 * Where API keys live. The accounts issue grows this (accounts, plans, usage); the HTTP layer
 * only needs to find the key behind a request.
 */
export interface KeyStore {
  /** The active key with this secret, or null (unknown and revoked look the same). */
  findActive(key: string): Promise<ApiKeyRecord | null>;
  /** Stores a key; `key` is generated when not given. Returns the secret once. */
  create(input: { name: string; key?: string }): Promise<{ record: ApiKeyRecord; key: string }>;
  /** Creates the key unless one with the same secret exists. */
  ensure(input: { name: string; key: string }): Promise<ApiKeyRecord>;
  revoke(id: string): Promise<boolean>;
  list(): Promise<ApiKeyRecord[]>;
  countActive(): Promise<number>;
  touch(id: string): void;
  close(): void;
}
