import { createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openAccountServices } from '../../src/accounts/open.js';
import { accounts } from '../../src/cli/accounts.js';
import { keys } from '../../src/cli/keys.js';
import { loadConfig } from '../../src/config/load.js';
import { postgresUrl, testPlace, type TestPlace } from '../helpers/db.js';

/**
 * The operator CLI (`shutter accounts …`, `shutter keys …`) run in-process against the database the
 * environment names: the SQLite file in a temporary data dir, and Postgres when reachable.
 */

interface Run {
  code: number;
  stdout: string[];
  stderr: string[];
}

async function run(command: typeof keys, ...argv: string[]): Promise<Run> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void stdout.push(a.join(' ')));
  const error = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void stderr.push(a.join(' ')));
  try {
    return { code: await command(argv), stdout, stderr };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

const KEY = /^shk_[0-9A-Za-z]{38}$/;

const targets: Array<[string, () => Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }>]> = [
  [
    'sqlite',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'shutter-cli-'));
      return { env: { SHUTTER_DATA_DIR: dir }, cleanup: () => rm(dir, { recursive: true, force: true }) };
    },
  ],
];
if (postgresUrl) {
  targets.push([
    'postgres',
    async () => {
      const place: TestPlace = await testPlace('postgres');
      // Creates the schema; the CLI then reaches it through the URL's search_path.
      await place.open();
      const url = `${postgresUrl}?options=${encodeURIComponent(`-c search_path=${place.schema}`)}`;
      return { env: { SHUTTER_DATABASE_URL: url }, cleanup: () => place.cleanup() };
    },
  ]);
}

describe.each(targets)('on %s', (_name, prepare) => {
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    const target = await prepare();
    cleanup = target.cleanup;
    for (const [k, v] of Object.entries(target.env)) vi.stubEnv(k, v);
  });

  afterAll(async () => {
    vi.unstubAllEnvs();
    await cleanup?.();
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('accounts create prints the first key alone on the last line; the key belongs to the account', async () => {
    const r = await run(accounts, 'create', '--email', 'Cli@Example.com', '--plan', 'basic');
    expect(r.code).toBe(0);
    expect(r.stdout.at(-1)).toMatch(KEY);
    const services = await openAccountServices(loadConfig(), { redis: false });
    try {
      const record = await services.keys.findActive(r.stdout.at(-1)!);
      const account = await services.accounts.findById(record!.accountId);
      expect(account).toMatchObject({ email: 'cli@example.com', plan: 'basic' });
    } finally {
      await services.close();
    }
  });

  it('accounts create refuses an unknown plan and a taken address', async () => {
    const plan = await run(accounts, 'create', '--email', 'x@example.com', '--plan', 'platinum');
    expect(plan.code).toBe(1);
    expect(plan.stderr.join('\n')).toContain('no plan platinum; plans: free, basic, growth, scale');
    const taken = await run(accounts, 'create', '--email', 'cli@example.com');
    expect(taken.code).toBe(1);
    expect(taken.stdout).toEqual([]);
  });

  it('keys create respects the plan key limit with a clear message', async () => {
    expect((await run(accounts, 'create', '--email', 'solo@example.com')).code).toBe(0);
    const refused = await run(keys, 'create', '--email', 'solo@example.com', '--name', 'second');
    expect(refused.code).toBe(1);
    expect(refused.stdout).toEqual([]);
    expect(refused.stderr.join('\n')).toMatch(/free plan allows 1 active key/);
    const ok = await run(keys, 'create', '--email', 'cli@example.com', '--name', 'ci');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toHaveLength(1);
    expect(ok.stdout[0]).toMatch(KEY);
  });

  it('keys signing-secret prints HMAC-SHA256(SHUTTER_SIGNING_SECRET, "key:" + id); not for a revoked key', async () => {
    vi.stubEnv('SHUTTER_SIGNING_SECRET', 'cli-test-signing-secret-0123456789abcdef');
    const created = await run(keys, 'create', '--name', 'sign');
    expect(created.code, created.stderr.join('\n')).toBe(0);
    const id = /created key (\S+)/.exec(created.stderr.join('\n'))![1]!;
    const secret = await run(keys, 'signing-secret', id);
    expect(secret.code).toBe(0);
    expect(secret.stdout).toEqual([createHmac('sha256', 'cli-test-signing-secret-0123456789abcdef').update(`key:${id}`).digest('hex')]);
    await run(keys, 'revoke', id);
    expect((await run(keys, 'signing-secret', id)).code).toBe(1);
  });

  it('keys list prints one key per line, id first; keys revoke takes the id', async () => {
    const list = await run(keys, 'list', '--email', 'cli@example.com');
    expect(list.code).toBe(0);
    expect(list.stdout).toHaveLength(2);
    const [id, shown, name, state] = list.stdout[1]!.split('  ');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(shown).toMatch(/^shk_\w{4}…\w{4}$/);
    expect([name, state]).toEqual(['ci', 'active']);
    expect((await run(keys, 'revoke', id!)).code).toBe(0);
    expect((await run(keys, 'revoke', id!)).code).toBe(1);
    expect((await run(keys, 'list', '--email', 'cli@example.com')).stdout[1]).toMatch(/ {2}ci {2}revoked \d{4}-/);
  });

  it('keys reset revokes and replaces, printing the new key on the last line', async () => {
    const before = (await run(keys, 'list', '--email', 'solo@example.com')).stdout;
    expect(before).toHaveLength(1);
    const reset = await run(keys, 'reset', '--email', 'solo@example.com');
    expect(reset.code).toBe(0);
    expect(reset.stdout.at(-1)).toMatch(KEY);
    const after = (await run(keys, 'list', '--email', 'solo@example.com')).stdout;
    expect(after).toHaveLength(2);
    expect(after[0]).toContain('revoked');
    expect(after[1]).toContain('active');
    const unknown = await run(keys, 'reset', '--email', 'nobody@example.com');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.join('\n')).toContain('no account nobody@example.com');
  });

  it('accounts list and set-plan', async () => {
    const moved = await run(accounts, 'set-plan', '--email', 'solo@example.com', '--plan', 'growth');
    expect(moved.code).toBe(0);
    expect(moved.stderr.join('\n')).toContain('plan free → growth');
    const list = await run(accounts, 'list');
    const solo = list.stdout.find((l) => l.includes('solo@example.com'))!;
    expect(solo.split('  ').slice(1, 4)).toEqual(['solo@example.com', 'growth', '1 active key']);
    expect((await run(accounts, 'set-plan', '--email', 'solo@example.com', '--plan', 'nope')).code).toBe(1);
  });

  it('accounts set-role makes an account an operator (or a user again), logged with the command line as actor', async () => {
    const made = await run(accounts, 'set-role', '--email', 'Solo@Example.com', '--role', 'operator');
    expect(made.code, made.stderr.join('\n')).toBe(0);
    expect(made.stderr.join('\n')).toContain('solo@example.com: role user → operator');
    // A CLI-made account has no password: the command says how to give it one.
    expect(made.stderr.join('\n')).toContain('shutter accounts set-password --email solo@example.com');
    expect((await run(accounts, 'set-role', '--email', 'solo@example.com', '--role', 'operator')).stderr.join('\n')).toContain(
      'has the role operator already',
    );
    const list = await run(accounts, 'list');
    expect(list.stdout.find((l) => l.includes('solo@example.com'))).toMatch(/ {2}operator$/);
    expect(list.stdout.find((l) => l.includes('cli@example.com'))).not.toContain('operator');

    const services = await openAccountServices(loadConfig(), { redis: false });
    try {
      const solo = await services.accounts.findByEmail('solo@example.com');
      expect(solo?.role).toBe('operator');
      const log = await services.admin.auditLog();
      expect(log.rows[0]).toMatchObject({ action: 'set_role', actor: null, target: { id: solo!.id, email: 'solo@example.com' } });
      expect(log.rows[0]!.detail).toEqual({ email: 'solo@example.com', from: 'user', to: 'operator' });
    } finally {
      await services.close();
    }
    expect((await run(accounts, 'set-role', '--email', 'solo@example.com', '--role', 'user')).code).toBe(0);
    expect((await run(accounts, 'set-role', '--email', 'nobody@example.com', '--role', 'operator')).code).toBe(1);
  });

  it('keys create without --email makes an operator key (plan scale)', async () => {
    const r = await run(keys, 'create', '--name', 'me');
    expect(r.code).toBe(0);
    expect(r.stdout).toEqual([expect.stringMatching(KEY)]);
    const list = await run(accounts, 'list');
    expect(list.stdout.find((l) => l.includes('operator@localhost'))).toContain('  scale  1 active key');
  });

  it('prints usage and exits 2 for a wrong command', async () => {
    expect((await run(keys, 'destroy')).code).toBe(2);
    expect((await run(keys, 'revoke')).code).toBe(2);
    expect((await run(accounts, 'create')).code).toBe(2);
    expect((await run(accounts, 'set-plan', '--email', 'a@example.com')).code).toBe(2);
    expect((await run(accounts, 'set-role', '--email', 'a@example.com')).code).toBe(2);
    expect((await run(accounts, 'set-role', '--email', 'a@example.com', '--role', 'admin')).code).toBe(2);
  });
});
