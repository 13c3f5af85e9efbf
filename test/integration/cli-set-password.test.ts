import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAccountServices } from '../../src/accounts/open.js';
import { verifyPassword } from '../../src/accounts/password.js';
import { loadConfig } from '../../src/config/load.js';

let dir: string;
const cli = (input: string, ...argv: string[]) =>
  spawnSync('npx', ['tsx', 'src/cli/main.ts', ...argv], {
    input,
    encoding: 'utf8',
    env: { ...process.env, SHUTTER_DATA_DIR: dir },
    timeout: 30_000,
  });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'shutter-cli-pw-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('shutter accounts set-password', () => {
  it('reads the password from standard input, so a CLI-made account can log in to the dashboard', async () => {
    expect(cli('', 'accounts', 'create', '--email', 'ops@example.com').status).toBe(0);
    const set = cli('a long enough secret\n', 'accounts', 'set-password', '--email', 'ops@example.com');
    expect(set.status, set.stderr).toBe(0);
    expect(set.stdout + set.stderr).not.toContain('a long enough secret');
    const services = await openAccountServices(loadConfig({ SHUTTER_DATA_DIR: dir }));
    const account = await services.accounts.findByEmail('ops@example.com');
    expect(await verifyPassword('a long enough secret', account!.passwordHash)).toBe(true);
    expect(await verifyPassword('something else!', account!.passwordHash)).toBe(false);
    await services.close();
  });

  it('refuses a short password and an unknown account', () => {
    expect(cli('short\n', 'accounts', 'set-password', '--email', 'ops@example.com').status).toBe(1);
    expect(cli('a long enough secret\n', 'accounts', 'set-password', '--email', 'nobody@example.com').status).toBe(1);
  });
});
