import type { Db } from '../db/db.js';
import { createLimits, type Limits } from '../ratelimit/limits.js';
import { Meter } from './meter.js';
import type { RedisHandle } from '../ratelimit/redis.js';
import { AccountAdmin } from './account-admin.js';
import { AccountStore } from './account-store.js';
import { KeyManager } from './key-manager.js';
import type { KeyStore } from './key-store.js';
import { KyselyKeyStore } from './kysely-key-store.js';
import { Plans } from './plans.js';
import { SessionStore } from './session-store.js';
import { UsageStore } from '../usage/usage-store.js';
import { RequestLog } from '../requests/request-log.js';

/** Accounts, keys, usage, sessions and limits over one database (and Redis, when configured). */
export interface AccountServices {
  readonly db: Db;
  readonly plans: Plans;
  readonly accounts: AccountStore;
  /** What operators do to accounts (dashboard admin, CLI), with its audit log. */
  readonly admin: AccountAdmin;
  readonly keys: KeyStore;
  readonly keyManager: KeyManager;
  readonly usage: UsageStore;
  readonly sessions: SessionStore;
  readonly limits: Limits;
  readonly meter: Meter;
  /** Recent captures and their debug bundles. */
  readonly requests: RequestLog;
  /** Redis, when SHUTTER_REDIS_URL is set (limits, cross-node coalescing). */
  readonly redis: RedisHandle | undefined;
  /** Whether the dashboard lets anyone sign up. */
  readonly signups: boolean;
  /** Closes Redis and the database. */
  close(): Promise<void>;
}

/** What the services are built from; everything but the database has a default. */
export interface AccountServicesInput {
  db: Db;
  plans?: Plans;
  redis?: RedisHandle | undefined;
  /** The key store to use (one over `db` by default). */
  keys?: KeyStore;
  limits?: Limits;
  signups?: boolean;
  clock?: () => Date;
}

/** Wires the stores and limits; default plans, in-memory limits, sign-ups open unless told otherwise. */
export function createAccountServices(input: AccountServicesInput): AccountServices {
  const { db, redis } = input;
  const plans = input.plans ?? new Plans();
  const limits = input.limits ?? createLimits({ db, redis });
  const requests = new RequestLog(db);
  return {
    db,
    plans,
    accounts: new AccountStore(db),
    admin: new AccountAdmin(db, plans, input.clock),
    keys: input.keys ?? new KyselyKeyStore(db),
    keyManager: new KeyManager(db, plans),
    usage: new UsageStore(db),
    sessions: new SessionStore(db),
    limits,
    meter: new Meter(limits, input.clock),
    requests,
    redis,
    signups: input.signups ?? true,
    async close() {
      requests.close();
      await redis?.close();
      await db.close();
    },
  };
}
