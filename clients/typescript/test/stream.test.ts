import { execFile } from 'node:child_process';
import { mkdtemp, open, readdir, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNoisyPageServer } from './helpers/noisy-page-server.js';
import { PNG_SIGNATURE, pngSize, startShutter, type RunningShutter } from './helpers/shutter.js';

const run = promisify(execFile);
const CHILD = fileURLToPath(new URL('./helpers/take-to-file-child.ts', import.meta.url));
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const MB = 1024 * 1024;

let shutter: RunningShutter;
let noise: Awaited<ReturnType<typeof startNoisyPageServer>>;
let dir: string;

beforeAll(async () => {
  [shutter, noise, dir] = await Promise.all([startShutter(), startNoisyPageServer(), mkdtemp(join(tmpdir(), 'shutter-client-'))]);
});

afterAll(async () => {
  await shutter?.close();
  await noise?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('takeToFile', () => {
  it('streams a ~20 MB full-page PNG to disk without holding it in memory', { timeout: 180_000 }, async () => {
    const path = join(dir, 'tall.png');
    const options = { url: `${noise.baseUrl}/noise?h=20000`, full_page: true };
    const { stdout } = await run(
      process.execPath,
      ['--expose-gc', '--import', TSX, CHILD, JSON.stringify({ baseUrl: shutter.baseUrl, apiKey: shutter.apiKey, options, path })],
      { timeout: 170_000, maxBuffer: 1024 * 1024 },
    );
    const report = JSON.parse(stdout) as {
      result: { size: number; contentType: string; truncated: boolean };
      streamingArrayBuffers: number;
      controlArrayBuffers: number;
      controlSize: number;
      samples: number;
    };
    process.stdout.write(
      `takeToFile: ${report.result.size} bytes; live array buffers at most +${report.streamingArrayBuffers} while streaming (${report.samples} samples), +${report.controlArrayBuffers} with the file read whole\n`,
    );

    // The file: a whole PNG, 1280 × 20 000, as large as the client said.
    const { size } = await stat(path);
    expect(size).toBe(report.result.size);
    expect(size).toBeGreaterThan(15 * MB);
    expect(report.result.contentType).toBe('image/png');
    const handle = await open(path, 'r');
    const head = new Uint8Array(24);
    await handle.read(head, 0, 24, 0);
    const tail = new Uint8Array(12);
    await handle.read(tail, 0, 12, size - 12);
    await handle.close();
    expect([...head.slice(0, 8)]).toEqual(PNG_SIGNATURE);
    expect(pngSize(head)).toEqual({ width: 1280, height: 20_000 });
    expect(Buffer.from(tail.slice(4, 8)).toString('latin1')).toBe('IEND');
    // No temporary file left beside it.
    expect(await readdir(dir)).toEqual(['tall.png']);

    // Memory: the meter sees the file when it is read whole (the control) …
    expect(report.controlSize).toBe(size);
    expect(report.controlArrayBuffers).toBeGreaterThan(size * 0.9);
    // … and while streaming (sampled from the answer's headers on), the client held a small part of it at most.
    expect(report.samples).toBeGreaterThan(0);
    expect(report.streamingArrayBuffers).toBeLessThan(Math.min(8 * MB, size / 3));
  });
});
