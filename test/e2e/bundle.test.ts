import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../bench/lib/processes.js';
import { stopChild } from '../helpers/stop-child.js';

// The bundle `make start`, the Docker image and the deploy files run (dist/bundle/main.js, made by
// scripts/bundle.mjs) against what bundling can break: files found from import.meta.url (package.json,
// the dashboard's and Swagger UI's assets, consent rules), packages left external (sharp, better-sqlite3,
// playwright-core, pino), lazily imported chunks (CLI commands, the markdown and pdf encoders) and
// bundled CommonJS (fastify, prom-client). The bench smoke, the Python client's tests and the
// cluster tests start the same file.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ENTRY = join(ROOT, 'dist/bundle/main.js');
const KEY = 'bundle_test_key_0123456789abcdef';
const PAGE = `<html><head><title>Bundled</title></head><body><h1>Bundled service</h1><p>${'words '.repeat(30)}</p></body></html>`;

const dataDir = mkdtempSync(join(tmpdir(), 'shutter-bundle-'));
const inherited = Object.fromEntries(
  Object.entries(process.env).filter(([k, v]) => !k.startsWith('SHUTTER_') && v !== undefined),
) as Record<string, string>;
const env = { ...inherited, SHUTTER_DATA_DIR: dataDir, SHUTTER_BOOTSTRAP_KEY: KEY, SHUTTER_LOG_LEVEL: 'warn' };
let child: ChildProcess | undefined;
let fixture: Server | undefined;
let base = '';
let pageUrl = '';
const output: string[] = [];

beforeAll(async () => {
  if (!existsSync(ENTRY)) throw new Error(`${ENTRY} is missing: run make build`);
  fixture = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
  await new Promise<void>((resolve) => fixture!.listen(0, '127.0.0.1', resolve));
  pageUrl = `http://127.0.0.1:${(fixture.address() as AddressInfo).port}/`;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  child = spawn(process.execPath, [ENTRY, 'serve'], {
    cwd: ROOT,
    env: { ...env, SHUTTER_PORT: String(port), SHUTTER_HOST: '127.0.0.1', SHUTTER_ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (c: Buffer) => output.push(c.toString()));
  child.stderr!.on('data', (c: Buffer) => output.push(c.toString()));
  const deadline = Date.now() + 40_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the bundle exited ${child.exitCode}:\n${output.join('').slice(-3000)}`);
    const ok = await fetch(`${base}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`the bundle was not ready in 40 s:\n${output.join('').slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}, 60_000);

afterAll(async () => {
  // It drains for up to SHUTTER_SHUTDOWN_TIMEOUT (30 s), then gives itself 10 s more: past that it is
  // stuck, which fails the file with what it logged, not a bare hook timeout.
  if (child && !(await stopChild(child, 45_000))) {
    throw new Error(`the bundle did not exit 45 s after SIGTERM:\n${output.join('').slice(-3000)}`);
  }
  // Keep-alive connections (the service's egress proxy keeps some) would hold close() open.
  fixture?.closeAllConnections();
  await new Promise((resolve) => fixture?.close(resolve));
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

function cli(args: string[], extra: Record<string, string> = {}): Promise<{ status: number | null; stderr: string }> {
  const run = spawn(process.execPath, [ENTRY, ...args], { cwd: ROOT, env: { ...env, ...extra }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  run.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => run.once('exit', (status) => resolve({ status, stderr })));
}

/** Bytes start..end of a response's body, as text: a format's magic number. */
const bodyBytes = async (response: Response, start: number, end: number) =>
  Buffer.from(await response.arrayBuffer())
    .subarray(start, end)
    .toString();

const take = (query: Record<string, string>) =>
  fetch(`${base}/v1/take?${new URLSearchParams(query)}`, { headers: { apikey: KEY }, signal: AbortSignal.timeout(30_000) });

describe('dist/bundle/main.js', () => {
  it('captures a page over the egress proxy as png, pdf and markdown, and an error answer stays JSON', async () => {
    const png = await take({ url: pageUrl });
    expect(png.status).toBe(200);
    expect(await bodyBytes(png, 1, 4)).toBe('PNG');
    const pdf = await take({ html: PAGE, format: 'pdf' });
    expect(pdf.status).toBe(200);
    expect(await bodyBytes(pdf, 0, 5)).toBe('%PDF-');
    const markdown = await take({ url: pageUrl, format: 'markdown' });
    expect(markdown.status).toBe(200);
    expect(await markdown.text()).toContain('# Bundled service');
    const blocked = await take({ html: PAGE, block_cookie_banners: 'true', block_ads: 'true' });
    expect(blocked.status).toBe(200);
    const bad = await take({ url: pageUrl, format: 'bmp' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBeTruthy();
  }, 90_000);

  it('serves the version of package.json, the docs with Swagger UI, the dashboard assets and the metrics', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const status = (await (await fetch(`${base}/v1/status`, { headers: { apikey: KEY } })).json()) as { version?: string };
    expect(JSON.stringify(status)).toContain(version);
    const docs = await (await fetch(`${base}/docs`)).text();
    const asset = /\/docs\/assets\/swagger-ui-bundle\.js\?v=\w+/.exec(docs)?.[0];
    expect(asset).toBeDefined();
    expect((await fetch(`${base}${asset}`)).status).toBe(200);
    expect((await fetch(`${base}/openapi.json`)).status).toBe(200);
    const css = await fetch(`${base}/dashboard/assets/style.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toContain('text/css');
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toContain('shutter_');
  });

  it('runs the CLI commands, which it imports on use', async () => {
    const keys = await cli(['keys', 'list']);
    expect(keys.status, keys.stderr).toBe(0);
    const out = join(dataDir, 'cli.png');
    // Not spawnSync: the page is served by this process, which must keep answering meanwhile.
    const take = await cli(['take', pageUrl, '-o', out, '--format', 'png'], { SHUTTER_ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8' });
    expect(take.status, take.stderr).toBe(0);
    expect(readFileSync(out).subarray(1, 4).toString()).toBe('PNG');
    const usage = await cli(['nonsense']);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain('usage: shutter');
  }, 90_000);
});
