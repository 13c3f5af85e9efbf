import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { Db } from '../db/db.js';
import type { AccountRole, Tables } from '../db/tables.js';
import { periodOf, type Period } from '../usage/period.js';
import { ACCOUNT_ROLES, lockAccount, normalizeEmail, toAccount, type Account } from './account-store.js';
import { ok, refuse, type Outcome } from './outcome.js';
import type { Plans } from './plans.js';

/** Accounts per page of the admin's account list. */
export const ADMIN_PAGE_SIZE = 20;
/** Entries per page of the audit log. */
export const AUDIT_PAGE_SIZE = 50;
/** How many accounts the usage page ranks. */
export const TOP_ACCOUNTS = 10;

/** What an operator did to an account. */
export type AdminAction = 'set_plan' | 'disable' | 'enable' | 'set_role';

/** One account as the admin lists it. */
export interface AccountSummary {
  account: Account;
  activeKeys: number;
  /** Successful captures this period. */
  used: number;
}

/** One page of a longer list. */
export interface ListPage<T> {
  rows: T[];
  total: number;
  /** 1-based. */
  page: number;
  pages: number;
}

/** One entry of the audit log; emails are the accounts' as they are now. */
export interface AuditEntry {
  id: string;
  action: string;
  /** Null: the command line. */
  actor: { id: string; email: string | null } | null;
  target: { id: string; email: string | null } | null;
  detail: Record<string, unknown>;
  createdAt: string;
}

/** Usage of every account in a period. */
export interface UsageOverview {
  period: Period;
  total: number;
  /** How many accounts made captures in the period. */
  accountsWithUsage: number;
  /** The busiest accounts (at most TOP_ACCOUNTS), most captures first. */
  top: Array<{ account: Account; used: number }>;
}

/** The change `setPlan`, `setDisabled` or `setRole` made (`changed` false: it was so already; nothing is logged). */
export interface AdminChange {
  account: Account;
  changed: boolean;
}

/** The actor of a change: an operator's account, or null for the command line. */
export type Actor = Pick<Account, 'id'> | null;

// LIKE with '!' as its escape character, the same on SQLite and Postgres.
const likePattern = (text: string) => `%${text.replace(/[!%_]/g, (c) => `!${c}`)}%`;

const pageOf = (requested: number, total: number, size: number) => {
  const pages = Math.max(1, Math.ceil(total / size));
  const page = Math.min(Math.max(1, Math.floor(requested) || 1), pages);
  return { page, pages, offset: (page - 1) * size };
};

const parseDetail = (text: string): Record<string, unknown> => {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

/**
 * What operators do to other accounts: list and search them with their keys and usage, move them
 * to another plan, disable and enable them, give them a role. Every change is written with its
 * audit entry in one transaction, and read by every node from the database: nothing is cached.
 */
export class AccountAdmin {
  constructor(
    private readonly db: Db,
    private readonly plans: Plans,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** Accounts whose email contains `query` (all without one), oldest first, with active keys and this period's usage. */
  async search(input: { query?: string; page?: number; pageSize?: number }): Promise<ListPage<AccountSummary>> {
    const size = input.pageSize ?? ADMIN_PAGE_SIZE;
    const text = normalizeEmail(input.query ?? '').slice(0, 254);
    const period = periodOf(this.clock());
    const matching = this.db.kysely
      .selectFrom('accounts')
      .$if(text !== '', (q) => q.where(sql<boolean>`${sql.ref('accounts.email')} LIKE ${likePattern(text)} ESCAPE '!'`));
    const counted = await matching.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const total = Number(counted.n);
    const { page, pages, offset } = pageOf(input.page ?? 1, total, size);
    const rows = await matching
      .selectAll('accounts')
      .select((eb) => [
        eb
          .selectFrom('api_keys')
          .select((k) => k.fn.countAll<number>().as('n'))
          .whereRef('api_keys.account_id', '=', 'accounts.id')
          .where('api_keys.revoked_at', 'is', null)
          .as('active_keys'),
        eb
          .selectFrom('quota_usage')
          .select('quota_usage.used')
          .whereRef('quota_usage.account_id', '=', 'accounts.id')
          .where('quota_usage.period', '=', period.id)
          .as('used'),
      ])
      .orderBy('accounts.created_at')
      .orderBy('accounts.email')
      .limit(size)
      .offset(offset)
      .execute();
    return {
      rows: rows.map((r) => ({ account: toAccount(r), activeKeys: Number(r.active_keys ?? 0), used: Number(r.used ?? 0) })),
      total,
      page,
      pages,
    };
  }

  /** Successful captures of all accounts this period, and the busiest accounts. */
  async usage(): Promise<UsageOverview> {
    const period = periodOf(this.clock());
    const sums = await this.db.kysely
      .selectFrom('quota_usage')
      .select((eb) => [eb.fn.sum<number>('used').as('total'), eb.fn.countAll<number>().as('accounts')])
      .where('period', '=', period.id)
      .where('used', '>', 0)
      .executeTakeFirstOrThrow();
    const top = await this.db.kysely
      .selectFrom('quota_usage')
      .innerJoin('accounts', 'accounts.id', 'quota_usage.account_id')
      .selectAll('accounts')
      .select('quota_usage.used')
      .where('quota_usage.period', '=', period.id)
      .where('quota_usage.used', '>', 0)
      .orderBy('quota_usage.used', 'desc')
      .orderBy('accounts.email')
      .limit(TOP_ACCOUNTS)
      .execute();
    return {
      period,
      total: Number(sums.total ?? 0),
      accountsWithUsage: Number(sums.accounts),
      top: top.map((r) => ({ account: toAccount(r), used: Number(r.used) })),
    };
  }

  /** The account with this id, or null. */
  async find(id: string): Promise<Account | null> {
    const row = await this.db.kysely.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toAccount(row) : null;
  }

  /** Moves the account to a plan that exists; logged. */
  async setPlan(actor: Actor, accountId: string, plan: string): Promise<Outcome<AdminChange>> {
    if (!this.plans.get(plan)) {
      const names = this.plans
        .all()
        .map((p) => p.name)
        .join(', ');
      return refuse('unknown_plan', `no plan ${plan}; plans: ${names}`);
    }
    return this.change(accountId, async (trx, before) => {
      if (before.plan === plan) return false;
      await trx.updateTable('accounts').set({ plan }).where('id', '=', accountId).execute();
      await audit(trx, actor, 'set_plan', accountId, { email: before.email, from: before.plan, to: plan }, this.clock());
      return true;
    });
  }

  /**
   * Disables the account (its keys are refused from the next request on, on every node, and its
   * dashboard sessions are deleted) or enables it again; logged. An operator cannot disable their own account.
   */
  async setDisabled(actor: Actor, accountId: string, disabled: boolean): Promise<Outcome<AdminChange>> {
    if (disabled && actor?.id === accountId) {
      return refuse('own_account', 'you cannot disable your own account');
    }
    return this.change(accountId, async (trx, before) => {
      if ((before.disabledAt !== null) === disabled) return false;
      const now = this.clock();
      await trx
        .updateTable('accounts')
        .set({ disabled_at: disabled ? now.toISOString() : null })
        .where('id', '=', accountId)
        .execute();
      const detail: Record<string, unknown> = { email: before.email };
      if (disabled) {
        const ended = await trx.deleteFrom('sessions').where('account_id', '=', accountId).executeTakeFirst();
        detail.sessions_ended = Number(ended.numDeletedRows);
      }
      await audit(trx, actor, disabled ? 'disable' : 'enable', accountId, detail, now);
      return true;
    });
  }

  /** Gives the account a role (`operator` may open /dashboard/admin); logged. */
  async setRole(actor: Actor, accountId: string, role: AccountRole): Promise<Outcome<AdminChange>> {
    if (!ACCOUNT_ROLES.includes(role)) return refuse('invalid_name', `no role ${String(role)}; roles: ${ACCOUNT_ROLES.join(', ')}`);
    return this.change(accountId, async (trx, before) => {
      if (before.role === role) return false;
      await trx.updateTable('accounts').set({ role }).where('id', '=', accountId).execute();
      await audit(trx, actor, 'set_role', accountId, { email: before.email, from: before.role, to: role }, this.clock());
      return true;
    });
  }

  /** The audit log, newest first. */
  async auditLog(input: { page?: number; pageSize?: number } = {}): Promise<ListPage<AuditEntry>> {
    const size = input.pageSize ?? AUDIT_PAGE_SIZE;
    const counted = await this.db.kysely
      .selectFrom('admin_audit')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const total = Number(counted.n);
    const { page, pages, offset } = pageOf(input.page ?? 1, total, size);
    const rows = await this.db.kysely
      .selectFrom('admin_audit')
      .leftJoin('accounts as actor', 'actor.id', 'admin_audit.actor_account_id')
      .leftJoin('accounts as target', 'target.id', 'admin_audit.target_account_id')
      .selectAll('admin_audit')
      .select(['actor.email as actor_email', 'target.email as target_email'])
      .orderBy('admin_audit.created_at', 'desc')
      .orderBy('admin_audit.id', 'desc')
      .limit(size)
      .offset(offset)
      .execute();
    return {
      rows: rows.map((r) => ({
        id: r.id,
        action: r.action,
        actor: r.actor_account_id ? { id: r.actor_account_id, email: r.actor_email } : null,
        target: r.target_account_id ? { id: r.target_account_id, email: r.target_email } : null,
        detail: parseDetail(r.detail),
        createdAt: r.created_at,
      })),
      total,
      page,
      pages,
    };
  }

  /** Runs `apply` on the account's row under its lock; `apply` says whether it changed anything. */
  private change(accountId: string, apply: (trx: Kysely<Tables>, before: Account) => Promise<boolean>): Promise<Outcome<AdminChange>> {
    return this.db.kysely.transaction().execute(async (trx) => {
      // The row's lock first, so two operators' changes to one account serialise.
      if (!(await lockAccount(trx, accountId))) return refuse<AdminChange>('no_such_account', 'no such account');
      const before = toAccount(await trx.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirstOrThrow());
      const changed = await apply(trx, before);
      const after = toAccount(await trx.selectFrom('accounts').selectAll().where('id', '=', accountId).executeTakeFirstOrThrow());
      return ok({ account: after, changed });
    });
  }
}

/** Writes one audit entry with `executor` (the change's transaction). */
async function audit(
  executor: Kysely<Tables>,
  actor: Actor,
  action: AdminAction,
  targetId: string,
  detail: Record<string, unknown>,
  at: Date,
): Promise<void> {
  await executor
    .insertInto('admin_audit')
    .values({
      id: randomUUID(),
      actor_account_id: actor?.id ?? null,
      action,
      target_account_id: targetId,
      detail: JSON.stringify(detail),
      created_at: at.toISOString(),
    })
    .execute();
}
