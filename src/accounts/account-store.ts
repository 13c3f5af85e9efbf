import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Db } from '../db/db.js';
import { OPERATOR_EMAIL } from '../db/migrations.js';
import type { AccountRole, AccountsTable, Tables } from '../db/tables.js';
import { ok, refuse, type Outcome } from './outcome.js';
import { OPERATOR_PLAN } from './plans.js';

/** An account, without its password hash. */
export interface Account {
  id: string;
  email: string;
  plan: string;
  createdAt: string;
  /** False for accounts that cannot log in to the dashboard (the operator's). */
  canLogIn: boolean;
  /** `operator` may open /dashboard/admin. */
  role: AccountRole;
  /** When it was disabled (its keys are refused, its sessions end), or null. */
  disabledAt: string | null;
}

export { OPERATOR_EMAIL };
export type { AccountRole };

/** The roles there are. */
export const ACCOUNT_ROLES: readonly AccountRole[] = ['user', 'operator'];

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}$/;

/** Trimmed and lower-cased, so one person cannot hold two accounts by capitalisation. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** True for something shaped like an address (the mail server is the real judge). */
export function isEmail(email: string): boolean {
  return EMAIL.test(email) && email.length <= 254;
}

/** The account of a row of `accounts`. */
export const toAccount = (r: Selectable<AccountsTable>): Account => ({
  id: r.id,
  email: r.email,
  plan: r.plan,
  createdAt: r.created_at,
  canLogIn: r.password_hash !== null,
  role: r.role,
  disabledAt: r.disabled_at,
});

/** Accounts: who signs up, on which plan. */
export class AccountStore {
  constructor(private readonly db: Db) {}

  /** Creates an account; refuses a malformed or taken address. */
  async create(input: { email: string; plan: string; passwordHash?: string | null; role?: AccountRole }): Promise<Outcome<Account>> {
    const email = normalizeEmail(input.email);
    if (!isEmail(email)) return refuse('invalid_email', `${input.email} is not an email address`);
    const row = {
      id: randomUUID(),
      email,
      password_hash: input.passwordHash ?? null,
      plan: input.plan,
      created_at: new Date().toISOString(),
      role: input.role ?? 'user',
      disabled_at: null,
    };
    const inserted = await this.db.kysely
      .insertInto('accounts')
      .values(row)
      .onConflict((c) => c.column('email').doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) {
      return refuse('email_taken', `an account with ${email} exists already`);
    }
    return ok(toAccount(row));
  }

  /** The account with this id, or null. */
  async findById(id: string): Promise<Account | null> {
    const row = await this.db.kysely.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toAccount(row) : null;
  }

  /** The account with this address and its password hash (for log-in), or null. */
  async findByEmail(email: string): Promise<(Account & { passwordHash: string | null }) | null> {
    const row = await this.db.kysely.selectFrom('accounts').selectAll().where('email', '=', normalizeEmail(email)).executeTakeFirst();
    return row ? { ...toAccount(row), passwordHash: row.password_hash } : null;
  }

  /** Every account with its number of active keys, oldest first. */
  async list(): Promise<Array<Account & { activeKeys: number }>> {
    const rows = await this.db.kysely
      .selectFrom('accounts')
      .leftJoin('api_keys', (j) => j.onRef('api_keys.account_id', '=', 'accounts.id').on('api_keys.revoked_at', 'is', null))
      .selectAll('accounts')
      .select((eb) => eb.fn.count<number>('api_keys.id').as('active_keys'))
      .groupBy([
        'accounts.id',
        'accounts.email',
        'accounts.password_hash',
        'accounts.plan',
        'accounts.created_at',
        'accounts.role',
        'accounts.disabled_at',
      ])
      .orderBy('accounts.created_at')
      .orderBy('accounts.email')
      .execute();
    return rows.map((r) => ({ ...toAccount(r), activeKeys: Number(r.active_keys) }));
  }

  /** Moves the account to another plan (the caller checks the plan exists). */
  async setPlan(id: string, plan: string): Promise<boolean> {
    const result = await this.db.kysely.updateTable('accounts').set({ plan }).where('id', '=', id).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Sets the account's password (an scrypt hash from hashPassword), so it can log in to the dashboard. */
  async setPasswordHash(id: string, passwordHash: string): Promise<boolean> {
    const result = await this.db.kysely
      .updateTable('accounts')
      .set({ password_hash: passwordHash })
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** The operator's account, created on plan `scale` the first time it is needed. */
  async ensureOperator(): Promise<Account> {
    const existing = await this.findByEmail(OPERATOR_EMAIL);
    if (existing) return existing;
    const created = await this.create({ email: OPERATOR_EMAIL, plan: OPERATOR_PLAN, role: 'operator' });
    // Lost a race with another instance creating it: theirs is as good.
    return created.ok ? created.value : (await this.findByEmail(OPERATOR_EMAIL))!;
  }
}

/**
 * Holds the account's row lock until the transaction ends, so per-account checks (key limits)
 * and the writes that follow them cannot interleave across instances. A no-op write works on
 * both dialects: Postgres locks the row, SQLite takes its write lock at once.
 */
export async function lockAccount(trx: Kysely<Tables>, accountId: string): Promise<boolean> {
  const result = await trx
    .updateTable('accounts')
    .set((eb) => ({ plan: eb.ref('plan') }))
    .where('id', '=', accountId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
