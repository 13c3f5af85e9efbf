import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closedPort, startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';

/**
 * `shutter serve` as a real process receiving SIGTERM: it stops accepting at once, lets the
 * captures in flight finish (bounded by SHUTTER_SHUTDOWN_TIMEOUT) and exits 0.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const KEY = 'chaos-shutdown-key-0123456789';
let fixtures: FixtureServer;
let dataDir: string;
let child: ChildProcess | undefined;

beforeAll(async () => {
  fixtures = await startFixtureServer();
  dataDir = await mkdtemp(join(tmpdir(), 'shutter-shutdown-'));
});

afterEach(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  child = undefined;
});

afterAll(async () => {
  await stopFixtureServer(fixtures);
  await rm(dataDir, { recursive: true, force: true });
});

interface Server {
  base: string;
  exited: Promise<{ code: number | null; ms: number }>;
  output: () => string;
  terminate(): number;
}

async function serve(shutdownSeconds: number): Promise<Server> {
  const port = await closedPort();
  let output = '';
  let terminatedAt = 0;
  child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve'], {
    cwd: ROOT,
    env: {
      ...process.env,
      SHUTTER_PORT: String(port),
      SHUTTER_HOST: '127.0.0.1',
      SHUTTER_DATA_DIR: join(dataDir, String(port)),
      SHUTTER_BOOTSTRAP_KEY: KEY,
      SHUTTER_ALLOWED_PRIVATE_NETWORKS: '127.0.0.1/32',
      SHUTTER_SHUTDOWN_TIMEOUT: String(shutdownSeconds),
      SHUTTER_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const proc = child;
  proc.stdout!.on('data', (data: Buffer) => (output += data.toString()));
  proc.stderr!.on('data', (data: Buffer) => (output += data.toString()));
  const exited = new Promise<{ code: number | null; ms: number }>((resolve) =>
    proc.once('exit', (code) => resolve({ code, ms: performance.now() - terminatedAt })),
  );
  const base = `http://127.0.0.1:${port}`;
  await expect
    .poll(async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.status, { timeout: 30_000, interval: 200 })
    .toBe(200);
  return {
    base,
    exited,
    output: () => output,
    terminate() {
      terminatedAt = performance.now();
      proc.kill('SIGTERM');
      return terminatedAt;
    },
  };
}

const take = (base: string, url: string, timeout: number) =>
  fetch(`${base}/v1/take?url=${encodeURIComponent(url)}&timeout=${timeout}&format=jpg`, { headers: { apikey: KEY } });

describe('SIGTERM', () => {
  it('finishes the capture in flight, refuses new work, and exits 0', async () => {
    const server = await serve(20);
    const seen = fixtures.requests.length;
    const inFlight = take(server.base, `${fixtures.baseUrl}/slow?ms=2500`, 30);
    await expect.poll(() => fixtures.requests.slice(seen).some((r) => r.startsWith('/slow')), { timeout: 10_000 }).toBe(true);

    server.terminate();
    // The server stops accepting once it has the signal: wait for that, not for a fixed time.
    await expect
      .poll(
        () =>
          fetch(`${server.base}/healthz`).then(
            (res) => res.status,
            () => 'refused',
          ),
        { timeout: 10_000, interval: 50 },
      )
      .not.toBe(200);
    // New connections are refused (or, on a kept-alive one, answered 503 in our format).
    const late = await take(server.base, `${fixtures.baseUrl}/simple.html`, 10).then(
      (res) => res.status,
      () => 'refused',
    );
    expect([503, 'refused']).toContain(late);

    const res = await inFlight;
    expect(res.status, server.output()).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/jpeg');
    const { code, ms } = await server.exited;
    expect(code, server.output()).toBe(0);
    expect(ms).toBeLessThan(10_000);
  });

  it('stops waiting after SHUTTER_SHUTDOWN_TIMEOUT: the stuck capture gets 503 and the process exits', async () => {
    const server = await serve(1);
    const seen = fixtures.requests.length;
    const inFlight = take(server.base, `${fixtures.baseUrl}/hang`, 60);
    await expect.poll(() => fixtures.requests.slice(seen).includes('/hang'), { timeout: 10_000 }).toBe(true);

    server.terminate();
    const res = await inFlight;
    expect(res.status, server.output()).toBe(503);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('browser_unavailable');
    const { code, ms } = await server.exited;
    expect(code, server.output()).toBe(0);
    expect(ms).toBeLessThan(6000);
  });
});
