import Database from 'better-sqlite3';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../../src/accounts/account-store.js';
import { hashApiKey } from '../../src/values/api-key.js';
import { ensureBootstrapKey } from '../../src/accounts/bootstrap.js';
import type { AccountServices } from '../../src/accounts/services.js';
import { SqliteKeyStore } from '../../src/accounts/sqlite-key-store.js';
import { openDatabase } from '../../src/db/database.js';
import { OPERATOR_EMAIL } from '../../src/db/migrations.js';
import { openSqlite } from '../../src/db/sqlite.js';
import { BACKENDS, postgresUrl, testPlace, type TestPlace } from '../helpers/db.js';

/** Accounts, keys (with plan limits), sessions and the bootstrap key on every backend there is. */

describe.each(BACKENDS.filter((b) => b !== 'postgres+redis'))('on %s', (backend) => {
  let place: TestPlace;
  let s: AccountServices;
  let seq = 0;

  beforeAll(async () => {
    place = await testPlace(backend);
    s = await place.open();
  });

  afterAll(async () => {
    await place?.cleanup();
  });

  async function account(plan = 'free'): Promise<Account> {
    const created = await s.accounts.create({ email: `person${++seq}@example.com`, plan, passwordHash: 'scrypt$x' });
    if (!created.ok) throw new Error(created.message);
    return created.value;
  }

  describe('accounts', () => {
    it('stores the address lower-cased and refuses it twice, in any case', async () => {
      const first = await s.accounts.create({ email: '  Ada@Example.COM ', plan: 'free', passwordHash: 'scrypt$h' });
      expect(first).toMatchObject({
        ok: true,
        value: { email: 'ada@example.com', plan: 'free', canLogIn: true, role: 'user', disabledAt: null },
      });
      const again = await s.accounts.create({ email: 'ADA@example.com', plan: 'basic' });
      expect(again).toMatchObject({ ok: false, reason: 'email_taken' });
      expect(await s.accounts.findByEmail('ada@EXAMPLE.com')).toMatchObject({ email: 'ada@example.com', passwordHash: 'scrypt$h' });
    });

    it('refuses what is not an address', async () => {
      for (const email of ['', 'nobody', 'a b@example.com', '@example.com', `${'x'.repeat(250)}@example.com`]) {
        expect(await s.accounts.create({ email, plan: 'free' }), email).toMatchObject({ ok: false, reason: 'invalid_email' });
      }
    });

    it('lists accounts with their active keys and moves them between plans', async () => {
      const a = await account('free');
      const { record } = await s.keys.create({ name: 'one', accountId: a.id });
      await s.keys.create({ name: 'two', accountId: a.id });
      await s.keys.revoke(record.id);
      const listed = (await s.accounts.list()).find((x) => x.id === a.id);
      expect(listed).toMatchObject({ email: a.email, plan: 'free', activeKeys: 1 });
      expect(await s.accounts.setPlan(a.id, 'growth')).toBe(true);
      expect((await s.accounts.findById(a.id))?.plan).toBe('growth');
      expect(await s.accounts.setPlan('no-such-id', 'growth')).toBe(false);
    });

    it('creates the operator account once, on plan scale, even when asked concurrently', async () => {
      const all = await Promise.all(Array.from({ length: 5 }, () => s.accounts.ensureOperator()));
      expect(new Set(all.map((a) => a.id)).size).toBe(1);
      expect(all[0]).toMatchObject({ email: OPERATOR_EMAIL, plan: 'scale', canLogIn: false, role: 'operator', disabledAt: null });
    });
  });

  describe('keys', () => {
    it('keeps each account to its own keys: list, get, rename and revoke by id are scoped', async () => {
      const a = await account();
      const b = await account();
      const { record } = await s.keys.create({ name: 'mine', accountId: a.id });
      expect((await s.keys.list(b.id)).map((k) => k.id)).toEqual([]);
      expect(await s.keys.get(record.id, b.id)).toBeNull();
      expect(await s.keys.rename(record.id, 'stolen', b.id)).toBe(false);
      expect(await s.keys.revoke(record.id, b.id)).toBe(false);
      expect(await s.keys.rename(record.id, 'renamed', a.id)).toBe(true);
      expect(await s.keys.get(record.id, a.id)).toMatchObject({ name: 'renamed', accountId: a.id, revokedAt: null });
      expect(await s.keys.revoke(record.id, a.id)).toBe(true);
      expect(await s.keys.revoke(record.id, a.id)).toBe(false);
      expect(await s.keys.rename(record.id, 'again', a.id)).toBe(false);
    });

    it('stores only the hash and finds active keys only', async () => {
      const a = await account();
      const { record, key } = await s.keys.create({ name: 'k', accountId: a.id });
      const row = await s.db.kysely.selectFrom('api_keys').selectAll().where('id', '=', record.id).executeTakeFirstOrThrow();
      expect(row.hash).toBe(hashApiKey(key));
      expect(JSON.stringify(row)).not.toContain(key.slice(8, -4));
      expect((await s.keys.findActive(key))?.id).toBe(record.id);
      await s.keys.revoke(record.id);
      expect(await s.keys.findActive(key)).toBeNull();
    });

    it('finds an active key with its account in one look-up; a revoked key or a disabled account shows on the next one', async () => {
      const a = await account();
      const { record, key } = await s.keys.create({ name: 'k', accountId: a.id });
      const found = await s.keys.findActiveWithAccount(key);
      expect(found?.key).toEqual(await s.keys.findActive(key));
      expect(found?.account).toEqual(await s.accounts.findById(a.id));
      expect(found?.account).toMatchObject({ id: a.id, email: a.email, plan: 'free', canLogIn: true, role: 'user', disabledAt: null });
      // The operator's account has no password: canLogIn is false on both dialects (SQLite 0, Postgres false).
      const operator = await s.keys.create({ name: 'op' });
      expect((await s.keys.findActiveWithAccount(operator.key))?.account).toMatchObject({ canLogIn: false, role: 'operator' });

      expect(await s.admin.setDisabled(null, a.id, true)).toMatchObject({ ok: true });
      expect((await s.keys.findActiveWithAccount(key))?.account.disabledAt).toMatch(/^\d{4}-\d\d-\d\dT/);
      await s.keys.revoke(record.id);
      expect(await s.keys.findActiveWithAccount(key)).toBeNull();
      expect(await s.keys.findActiveWithAccount('shk_not-a-key')).toBeNull();
      expect(await s.keys.findActiveWithAccount(`${key.slice(0, -1)}${key.endsWith('a') ? 'b' : 'a'}`)).toBeNull();
    });

    it('records the last use', async () => {
      const a = await account();
      const { record, key } = await s.keys.create({ name: 'k', accountId: a.id });
      await s.keys.touch(record.id);
      expect((await s.keys.findActive(key))?.lastUsedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    });
  });

  describe('key limits of the plan', () => {
    it('gives the free plan one key at a time, with reset instead of a second', async () => {
      const a = await account('free');
      const first = await s.keyManager.issue(a, 'main');
      expect(first.ok).toBe(true);
      const second = await s.keyManager.issue(a, 'other');
      expect(second).toMatchObject({ ok: false, reason: 'key_limit' });
      if (second.ok) throw new Error('unreachable');
      expect(second.message).toContain('reset');
      if (!first.ok) throw new Error('unreachable');
      const reset = await s.keyManager.reset(a, { id: first.value.record.id });
      if (!reset.ok) throw new Error(reset.message);
      expect(reset.value.record.name).toBe('main');
      expect(reset.value.replaced?.id).toBe(first.value.record.id);
      expect(await s.keys.findActive(first.value.key)).toBeNull();
      expect((await s.keys.findActive(reset.value.key))?.id).toBe(reset.value.record.id);
      expect(await s.keys.countActive(a.id)).toBe(1);
    });

    it('never lets concurrent creations pass the limit', async () => {
      const a = await account('basic');
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => s.keyManager.issue(a, `k${i}`)));
      expect(results.filter((r) => r.ok)).toHaveLength(5);
      expect(results.filter((r) => !r.ok && r.reason === 'key_limit')).toHaveLength(7);
      expect(await s.keys.countActive(a.id)).toBe(5);
    });

    it('resets by name, refuses an ambiguous reset, and makes a key when there is none', async () => {
      const a = await account('basic');
      const none = await s.keyManager.reset(a, {});
      expect(none).toMatchObject({ ok: true, value: { record: { name: 'default' } } });
      await s.keyManager.issue(a, 'ci');
      expect(await s.keyManager.reset(a, {})).toMatchObject({ ok: false, reason: 'ambiguous_key' });
      expect(await s.keyManager.reset(a, { name: 'nope' })).toMatchObject({ ok: false, reason: 'no_such_key' });
      const byName = await s.keyManager.reset(a, { name: 'ci' });
      expect(byName).toMatchObject({ ok: true, value: { record: { name: 'ci' }, replaced: { name: 'ci' } } });
      const other = await account('basic');
      const foreign = (await s.keys.list(a.id))[0]!;
      expect(await s.keyManager.reset(other, { id: foreign.id })).toMatchObject({ ok: false, reason: 'no_such_key' });
    });

    it('refuses empty or overlong names', async () => {
      const a = await account('basic');
      for (const name of ['', '   ', 'x'.repeat(65), 'tab\there']) {
        expect(await s.keyManager.issue(a, name), JSON.stringify(name)).toMatchObject({ ok: false, reason: 'invalid_name' });
      }
    });
  });

  describe('sessions', () => {
    it('finds a live session by its secret, stores only a hash, and forgets it on delete or expiry', async () => {
      const a = await account();
      const t0 = new Date();
      const { secret, session } = await s.sessions.create(a.id, t0);
      expect(session.csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(await s.sessions.find(secret, t0)).toMatchObject({ accountId: a.id, csrf: session.csrf });
      const rows = await s.db.kysely.selectFrom('sessions').selectAll().where('account_id', '=', a.id).execute();
      expect(JSON.stringify(rows)).not.toContain(secret);
      expect(await s.sessions.find(secret, new Date(t0.getTime() + 8 * 24 * 3600 * 1000))).toBeNull();
      expect(await s.sessions.find('wrong', t0)).toBeNull();
      await s.sessions.delete(secret);
      expect(await s.sessions.find(secret, t0)).toBeNull();
    });
  });

  describe('bootstrap key', () => {
    it('makes the operator account (plan scale) own the key, once; a revoked bootstrap key stays revoked', async () => {
      const secret = `bootstrap-secret-${backend}-0123456789`;
      const record = await ensureBootstrapKey(s, secret);
      const operator = await s.accounts.findByEmail(OPERATOR_EMAIL);
      expect(operator?.plan).toBe('scale');
      expect(record.accountId).toBe(operator?.id);
      expect((await ensureBootstrapKey(s, secret)).id).toBe(record.id);
      await s.keys.revoke(record.id);
      expect((await ensureBootstrapKey(s, secret)).revokedAt).not.toBeNull();
      expect(await s.keys.findActive(secret)).toBeNull();
    });
  });
});

describe('migrations', () => {
  it('upgrades a SQLite file from before accounts: its keys go to the operator account and keep working', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'shutter-migrate-'));
    const file = join(dir, 'shutter.db');
    try {
      const old = new Database(file);
      old.exec(`CREATE TABLE api_keys (id TEXT PRIMARY KEY, name TEXT NOT NULL, prefix TEXT NOT NULL, last4 TEXT NOT NULL,
        hash TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL, last_used_at TEXT, revoked_at TEXT)`);
      old
        .prepare('INSERT INTO api_keys VALUES (?, ?, ?, ?, ?, ?, NULL, NULL)')
        .run('old-key', 'legacy', 'le', '6789', hashApiKey('legacy-secret-0123456789'), '2024-01-01T00:00:00.000Z');
      old.pragma('user_version = 1');
      old.close();

      const keys = new SqliteKeyStore(await openSqlite(file));
      const record = await keys.findActive('legacy-secret-0123456789');
      expect(record).toMatchObject({ id: 'old-key', name: 'legacy' });
      const db = await openDatabase({ sqliteFile: file });
      const owner = await db.kysely.selectFrom('accounts').selectAll().where('id', '=', record!.accountId).executeTakeFirstOrThrow();
      expect(owner).toMatchObject({ email: OPERATOR_EMAIL, plan: 'scale', password_hash: null });
      await db.close();
      await keys.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('opens a fresh SQLite file and reopens it without migrating twice', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'shutter-migrate-'));
    try {
      const file = join(dir, 'nested', 'shutter.db');
      (await openSqlite(file)).close();
      const again = await openSqlite(file);
      const applied = again.prepare('SELECT name FROM kysely_migration ORDER BY name').pluck().all();
      expect(applied).toEqual([
        '001_api_keys',
        '002_accounts_usage_sessions',
        '003_capture_requests',
        '004_capture_cache',
        '005_jobs',
        '006_operator_admin',
      ]);
      again.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.runIf(postgresUrl)('migrates Postgres once when several instances start together', async () => {
    const place = await testPlace('postgres');
    try {
      const all = await Promise.all(Array.from({ length: 3 }, () => place.open()));
      const rows = await all[0]!.db.kysely
        .selectFrom('kysely_migration' as never)
        .select(['name' as never])
        .execute();
      expect(rows).toHaveLength(6);
    } finally {
      await place.cleanup();
    }
  });
});
