import type { Account } from './account-store.js';

/** A stored API key, without its secret. */
export interface ApiKeyRecord {
  id: string;
  /** The account whose plan and quota the key draws on. */
  accountId: string;
  name: string;
  /** The first characters of the key, to recognise it in lists. */
  prefix: string;
  last4: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/**
 * Where API keys live. Methods that take an `accountId` act only on that account's keys (the
 * dashboard passes the logged-in account, so nobody can touch another account's keys by id).
 * Plan limits are enforced above this, by the key manager.
 */
export interface KeyStore {
  /** The active key with this secret, or null (unknown and revoked look the same). */
  findActive(key: string): Promise<ApiKeyRecord | null>;
  /**
   * The active key with this secret and its account, read together in one query on every call
   * (nothing cached: a revoked key or a disabled account shows at once), or null.
   */
  findActiveWithAccount(key: string): Promise<{ key: ApiKeyRecord; account: Account } | null>;
  /** The key with this id (active or not), or null. */
  get(id: string, accountId?: string): Promise<ApiKeyRecord | null>;
  /**
   * Stores a key; `key` is generated when not given, and the operator's account owns it when no
   * `accountId` is given. Returns the secret once.
   */
  create(input: { name: string; key?: string; accountId?: string }): Promise<{ record: ApiKeyRecord; key: string }>;
  /** Creates the key unless one with the same secret exists (then returns that one, even if revoked). */
  ensure(input: { name: string; key: string; accountId?: string }): Promise<ApiKeyRecord>;
  /** Revokes an active key; false when there is none with this id (for this account). */
  revoke(id: string, accountId?: string): Promise<boolean>;
  /** Renames an active key; false when there is none with this id (for this account). */
  rename(id: string, name: string, accountId?: string): Promise<boolean>;
  /** Keys (revoked ones too) of one account, or of all accounts, oldest first. */
  list(accountId?: string): Promise<ApiKeyRecord[]>;
  /** Active keys of one account, or of all. */
  countActive(accountId?: string): Promise<number>;
  /** Records that the key was just used; best effort, never rejects. */
  touch(id: string): Promise<void>;
  close(): Promise<void>;
}
