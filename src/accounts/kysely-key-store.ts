import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Db } from '../db/db.js';
import { preparedQuery } from '../db/prepared-query.js';
import type { ApiKeysTable, Tables } from '../db/tables.js';
import { AccountStore, type Account } from './account-store.js';
import { generateApiKey, hashApiKey, hasValidChecksum, KEY_PREFIX } from '../values/api-key.js';
import type { ApiKeyRecord, KeyStore } from './key-store.js';

const toRecord = (r: Selectable<ApiKeysTable>): ApiKeyRecord => ({
  id: r.id,
  accountId: r.account_id ?? '',
  name: r.name,
  prefix: r.prefix,
  last4: r.last4,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  revokedAt: r.revoked_at,
});

/** The key with this hash and its account: what every authenticated request reads. */
const keyWithAccount = preparedQuery((db, hash: string) =>
  db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .selectAll('api_keys')
    .select((eb) => [
      'accounts.email as account_email',
      'accounts.plan as account_plan',
      'accounts.created_at as account_created_at',
      'accounts.role as account_role',
      'accounts.disabled_at as account_disabled_at',
      eb('accounts.password_hash', 'is not', null).as('account_can_log_in'),
    ])
    .where('api_keys.hash', '=', hash),
);

/** Longest key name; names are labels for people, not data. */
export const KEY_NAME_MAX = 64;

/** Trims a key name and says whether it is usable (1–64 printable characters). */
export function cleanKeyName(name: string): string | null {
  const clean = name.trim();
  // eslint-disable-next-line no-control-regex
  return clean.length > 0 && clean.length <= KEY_NAME_MAX && !/[\u0000-\u001f\u007f]/.test(clean) ? clean : null;
}

/** Inserts a key row with `executor` (the store, or a transaction of the key manager). */
export async function insertKey(
  executor: Kysely<Tables>,
  input: { name: string; key?: string; accountId: string },
): Promise<{ record: ApiKeyRecord; key: string }> {
  const key = input.key ?? generateApiKey();
  const row: Selectable<ApiKeysTable> = {
    id: randomUUID(),
    account_id: input.accountId,
    name: input.name,
    // shk_ + 4 of 32 random characters is safe to show; of an operator's own secret, show less.
    prefix: key.startsWith(KEY_PREFIX) ? key.slice(0, 8) : key.slice(0, 2),
    last4: key.slice(-4),
    hash: hashApiKey(key),
    created_at: new Date().toISOString(),
    last_used_at: null,
    revoked_at: null,
  };
  await executor.insertInto('api_keys').values(row).execute();
  return { record: toRecord(row), key };
}

/** Revokes an active key with `executor`; false when there is none with this id (for this account). */
export async function revokeKey(executor: Kysely<Tables>, id: string, accountId?: string): Promise<boolean> {
  const result = await executor
    .updateTable('api_keys')
    .set({ revoked_at: new Date().toISOString() })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .$if(accountId !== undefined, (q) => q.where('account_id', '=', accountId!))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** API keys in the accounts database (SQLite or Postgres); only SHA-256 hashes of the secrets are stored. */
export class KyselyKeyStore implements KeyStore {
  private readonly accounts: AccountStore;

  constructor(readonly db: Db) {
    this.accounts = new AccountStore(db);
  }

  async findActive(key: string): Promise<ApiKeyRecord | null> {
    if (!hasValidChecksum(key)) return null;
    const hash = hashApiKey(key);
    const row = await this.db.kysely.selectFrom('api_keys').selectAll().where('hash', '=', hash).executeTakeFirst();
    // The index look-up already matched; the constant-time comparison keeps the final check free of timing leaks.
    if (!row || !timingSafeEqual(Buffer.from(row.hash), Buffer.from(hash)) || row.revoked_at || !row.account_id) return null;
    return toRecord(row);
  }

  async findActiveWithAccount(key: string): Promise<{ key: ApiKeyRecord; account: Account } | null> {
    if (!hasValidChecksum(key)) return null;
    const hash = hashApiKey(key);
    const [row] = await keyWithAccount(this.db.kysely, hash);
    if (!row || !timingSafeEqual(Buffer.from(row.hash), Buffer.from(hash)) || row.revoked_at || !row.account_id) return null;
    const account: Account = {
      id: row.account_id,
      email: row.account_email,
      plan: row.account_plan,
      createdAt: row.account_created_at,
      // SQLite answers 1 or 0, Postgres true or false.
      canLogIn: Boolean(Number(row.account_can_log_in)),
      role: row.account_role,
      disabledAt: row.account_disabled_at,
    };
    return { key: toRecord(row), account };
  }

  async get(id: string, accountId?: string): Promise<ApiKeyRecord | null> {
    const row = await this.db.kysely
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', id)
      .$if(accountId !== undefined, (q) => q.where('account_id', '=', accountId!))
      .executeTakeFirst();
    return row ? toRecord(row) : null;
  }

  async create(input: { name: string; key?: string; accountId?: string }): Promise<{ record: ApiKeyRecord; key: string }> {
    const accountId = input.accountId ?? (await this.accounts.ensureOperator()).id;
    return insertKey(this.db.kysely, { ...input, accountId });
  }

  async ensure(input: { name: string; key: string; accountId?: string }): Promise<ApiKeyRecord> {
    const find = () => this.db.kysely.selectFrom('api_keys').selectAll().where('hash', '=', hashApiKey(input.key)).executeTakeFirst();
    const row = await find();
    if (row) return toRecord(row);
    try {
      return (await this.create(input)).record;
    } catch (error) {
      // Nodes starting together with the same SHUTTER_BOOTSTRAP_KEY: the one that lost the insert reads the winner's row.
      const created = await find();
      if (created) return toRecord(created);
      throw error;
    }
  }

  revoke(id: string, accountId?: string): Promise<boolean> {
    return revokeKey(this.db.kysely, id, accountId);
  }

  async rename(id: string, name: string, accountId?: string): Promise<boolean> {
    const result = await this.db.kysely
      .updateTable('api_keys')
      .set({ name })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .$if(accountId !== undefined, (q) => q.where('account_id', '=', accountId!))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async list(accountId?: string): Promise<ApiKeyRecord[]> {
    const rows = await this.db.kysely
      .selectFrom('api_keys')
      .selectAll()
      .$if(accountId !== undefined, (q) => q.where('account_id', '=', accountId!))
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toRecord);
  }

  async countActive(accountId?: string): Promise<number> {
    const row = await this.db.kysely
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('revoked_at', 'is', null)
      .$if(accountId !== undefined, (q) => q.where('account_id', '=', accountId!))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async touch(id: string): Promise<void> {
    try {
      await this.db.kysely.updateTable('api_keys').set({ last_used_at: new Date().toISOString() }).where('id', '=', id).execute();
    } catch {
      // Informational only, and callers do not wait for it: a failed write must not fail (or crash) anything.
    }
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
