import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../db/db.js';

/** A dashboard log-in. */
export interface Session {
  accountId: string;
  /** Every form of this session carries it; a request without it is refused (CSRF). */
  csrf: string;
  expiresAt: string;
}

/** How long a log-in lasts. */
export const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;

// Only a hash of the cookie's secret is stored, so a copy of the database logs nobody in.
const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');
const token = () => randomBytes(32).toString('base64url');

/** Dashboard sessions in the accounts database, so every instance behind a load balancer knows them. */
export class SessionStore {
  constructor(private readonly db: Db) {}

  /** Starts a session; returns the secret for the cookie (shown to nobody else). */
  async create(accountId: string, now = new Date()): Promise<{ secret: string; session: Session }> {
    const secret = token();
    const session = { accountId, csrf: token(), expiresAt: new Date(now.getTime() + SESSION_TTL_MS).toISOString() };
    await this.db.kysely
      .insertInto('sessions')
      .values({
        id_hash: hashOf(secret),
        account_id: accountId,
        csrf: session.csrf,
        created_at: now.toISOString(),
        expires_at: session.expiresAt,
      })
      .execute();
    // Expired sessions are swept here, on log-in, rather than by a timer in every instance.
    await this.db.kysely.deleteFrom('sessions').where('expires_at', '<', now.toISOString()).execute();
    return { secret, session };
  }

  /** The live session of a cookie secret, or null. */
  async find(secret: string, now = new Date()): Promise<Session | null> {
    const row = await this.db.kysely
      .selectFrom('sessions')
      .selectAll()
      .where('id_hash', '=', hashOf(secret))
      .where('expires_at', '>', now.toISOString())
      .executeTakeFirst();
    return row ? { accountId: row.account_id, csrf: row.csrf, expiresAt: row.expires_at } : null;
  }

  /** Ends a session (log-out). */
  async delete(secret: string): Promise<void> {
    await this.db.kysely.deleteFrom('sessions').where('id_hash', '=', hashOf(secret)).execute();
  }
}
