// src/options.ts is generated from the server's options schema; this fails when it has drifted.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../src/index.js';

const run = promisify(execFile);
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const GENERATOR = here('../scripts/generate-types.mjs');
const readJson = (path: string) => JSON.parse(readFileSync(here(path), 'utf8')) as Record<string, unknown>;

describe('generated option types', () => {
  it('src/options.ts is what scripts/generate-types.mjs makes of the server’s schema today', async () => {
    const { stdout } = await run(process.execPath, [GENERATOR, '--stdout'], { maxBuffer: 16 * 1024 * 1024 });
    const committed = readFileSync(here('../src/options.ts'), 'utf8');
    expect(
      committed === stdout,
      'src/options.ts differs from the server’s options schema: build the server (npx tsc -p tsconfig.build.json) and run node clients/typescript/scripts/generate-types.mjs',
    ).toBe(true);
  });

  it('--check agrees', async () => {
    await expect(run(process.execPath, [GENERATOR, '--check'])).resolves.toBeDefined();
  });
});

describe('package', () => {
  it('has the server’s version, in package.json and VERSION', () => {
    const server = readJson('../../../package.json');
    const client = readJson('../package.json');
    expect(client.version).toBe(server.version);
    expect(VERSION).toBe(server.version);
  });

  it('is an ESM package with types and no runtime dependencies', () => {
    const client = readJson('../package.json') as {
      name: string;
      type: string;
      engines: { node: string };
      exports: { '.': { types: string; import: string } };
      dependencies?: Record<string, string>;
    };
    expect(client.name).toBe('shutter-client');
    expect(client.type).toBe('module');
    expect(client.engines.node).toBe('>=18');
    expect(client.exports['.']).toMatchObject({ types: './dist/index.d.ts', import: './dist/index.js' });
    expect(client.dependencies ?? {}).toEqual({});
  });
});
