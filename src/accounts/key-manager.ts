import type { Db } from '../db/db.js';
import { lockAccount, type Account } from './account-store.js';
import type { ApiKeyRecord } from './key-store.js';
import { cleanKeyName, insertKey, KEY_NAME_MAX, revokeKey } from './kysely-key-store.js';
import { ok, refuse, type Outcome } from './outcome.js';
import type { Plans } from './plans.js';

/** A key just made: the secret is here and nowhere else. */
export interface IssuedKey {
  record: ApiKeyRecord;
  key: string;
  /** The key this one replaced (reset). */
  replaced?: ApiKeyRecord;
}

/** Which key a reset replaces: by id (dashboard), by name, or the only active one. */
export type ResetTarget = { id: string } | { name?: string | undefined };

/**
 * Key operations that follow the plan: a key limit per account, checked and written under the
 * account's row lock so two requests (or two instances) cannot both take the last slot.
 */
export class KeyManager {
  constructor(
    private readonly db: Db,
    private readonly plans: Plans,
  ) {}

  /** Creates a key unless the plan's key limit is reached. */
  async issue(account: Account, rawName: string): Promise<Outcome<IssuedKey>> {
    const name = cleanKeyName(rawName);
    if (!name) return refuse('invalid_name', `a key name is 1–${KEY_NAME_MAX} characters`);
    const plan = this.plans.resolve(account.plan);
    return this.db.kysely.transaction().execute(async (trx) => {
      if (!(await lockAccount(trx, account.id))) return refuse('no_such_account', `no account ${account.email}`);
      const active = await trx
        .selectFrom('api_keys')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', account.id)
        .where('revoked_at', 'is', null)
        .executeTakeFirstOrThrow();
      if (Number(active.n) >= plan.maxKeys) {
        const advice =
          plan.maxKeys === 1 ? 'reset the key you have instead, or move to a bigger plan' : 'revoke one first, or move to a bigger plan';
        return refuse(
          'key_limit',
          `the ${plan.name} plan allows ${plan.maxKeys} active key${plan.maxKeys === 1 ? '' : 's'} at a time; ${advice}`,
        );
      }
      return ok(await insertKey(trx, { name, accountId: account.id }));
    });
  }

  /**
   * Revokes a key and makes its replacement under the same name, in one transaction (a possibly
   * leaked key dies the moment its successor exists). With no active key, just makes one.
   */
  async reset(account: Account, target: ResetTarget): Promise<Outcome<IssuedKey>> {
    return this.db.kysely.transaction().execute(async (trx) => {
      if (!(await lockAccount(trx, account.id))) return refuse('no_such_account', `no account ${account.email}`);
      const active = await trx
        .selectFrom('api_keys')
        .selectAll()
        .where('account_id', '=', account.id)
        .where('revoked_at', 'is', null)
        .orderBy('created_at')
        .execute();
      let old: (typeof active)[number] | undefined;
      if ('id' in target) {
        old = active.find((k) => k.id === target.id);
        if (!old) return refuse('no_such_key', 'no such active key');
      } else if (target.name !== undefined) {
        const named = active.filter((k) => k.name === target.name);
        if (named.length === 0) return refuse('no_such_key', `no active key named ${target.name}`);
        if (named.length > 1) return refuse('ambiguous_key', `several active keys are named ${target.name}; reset one by id`);
        old = named[0];
      } else if (active.length > 1) {
        return refuse('ambiguous_key', `the account has ${active.length} active keys; name the one to reset (--name)`);
      } else {
        old = active[0];
      }
      if (!old) {
        const name = 'name' in target && target.name ? cleanKeyName(target.name) : 'default';
        if (!name) return refuse('invalid_name', `a key name is 1–${KEY_NAME_MAX} characters`);
        return ok(await insertKey(trx, { name, accountId: account.id }));
      }
      await revokeKey(trx, old.id, account.id);
      const issued = await insertKey(trx, { name: old.name, accountId: account.id });
      const replaced: ApiKeyRecord = {
        id: old.id,
        accountId: account.id,
        name: old.name,
        prefix: old.prefix,
        last4: old.last4,
        createdAt: old.created_at,
        lastUsedAt: old.last_used_at,
        revokedAt: new Date().toISOString(),
      };
      return ok({ ...issued, replaced });
    });
  }
}
