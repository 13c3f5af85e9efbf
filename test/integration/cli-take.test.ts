import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { take } from '../../src/cli/take.js';

/**
 * `shutter take` in-process on real Chromium: the command line is parsed by node:util parseArgs
 * with one option per /v1/take parameter (from the options schema), so every parameter works and
 * a typo is refused with a suggestion.
 */
const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'simple.html');
let dir: string;

async function run(...argv: string[]) {
  const stderr: string[] = [];
  const error = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void stderr.push(a.join(' ')));
  try {
    return { code: await take(argv), stderr: stderr.join('\n') };
  } finally {
    error.mockRestore();
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'shutter-take-'));
  vi.stubEnv('SHUTTER_DATA_DIR', dir);
  vi.stubEnv('SHUTTER_LOG_LEVEL', 'silent');
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await rm(dir, { recursive: true, force: true });
});

describe('shutter take', () => {
  it('captures an HTML file with options, flags and dashed spellings', async () => {
    const out = join(dir, 'shot.jpg');
    const res = await run(FIXTURE, '--format', 'jpg', '--viewport_width=640', '--viewport-height', '480', '--no-full_page', '-o', out);
    expect(res.stderr).toContain(`${out}: `);
    expect(res.code).toBe(0);
    const meta = await sharp(await readFile(out)).metadata();
    expect(meta).toMatchObject({ format: 'jpeg', width: 640, height: 480 });
  });

  it('a repeatable list parameter and a boolean flag', async () => {
    const out = join(dir, 'full.png');
    const res = await run(FIXTURE, '--full_page', '--hide_selectors', 'h1', '--hide_selectors', '.missing', '-o', out);
    expect(res.code).toBe(0);
    expect((await sharp(await readFile(out)).metadata()).format).toBe('png');
  });

  it('refuses a misspelt option with a suggestion, and a missing source, with exit code 2', async () => {
    const typo = await run(FIXTURE, '--formt', 'jpg');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("Unknown option '--formt'; did you mean --format?");
    const none = await run();
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('missing the URL or HTML file to capture');
  });

  it('an invalid value is the API’s error, naming the parameter, with exit code 1', async () => {
    const res = await run(FIXTURE, '--format', 'tiff');
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/invalid_parameter[\s\S]*format: must be one of: png, jpg/);
  });
});
