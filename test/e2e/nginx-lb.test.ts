import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Redis } from 'ioredis';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresUrl, redisUrl } from '../helpers/db.js';
import { OPENSSL, writeSelfSignedCert } from '../../bench/lib/self-signed-cert.js';
import { closedPort, startFixtureServer, stopFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';

// Debian's nginx as the load balancer in front of two real Shutter processes (`node dist/bundle/main.js
// serve`) sharing Postgres and Redis, with the proxy settings of deploy/nginx-proxy.conf, the file
// deploy/nginx.conf includes. Stored files go to a local S3-protocol server (s3rver) and are served
// through nginx, as deploy/compose.yaml does with MinIO.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'dist/bundle/main.js');
const PROXY_CONF = join(ROOT, 'deploy/nginx-proxy.conf');
const NGINX = ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p));

const skipReason = !NGINX
  ? 'nginx is not installed (Debian: apt-get install -y nginx-light)'
  : !postgresUrl || !redisUrl
    ? 'Postgres or Redis is not reachable on 127.0.0.1 (SHUTTER_TEST_REQUIRE_SERVICES=1 makes this a failure)'
    : !OPENSSL
      ? 'openssl is not installed (the https listener needs a self-signed certificate)'
      : undefined;
if (skipReason) console.warn(`nginx-lb.test.ts skipped: ${skipReason}`);

/** An HTTP(S) answer read whole. */
interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  text: string;
  /** Which Shutter node nginx passed the request to ($upstream_addr), empty for nginx's own answers. */
  upstream: string;
}

interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Source address of the client's connection: 127.0.0.2, 127.0.0.3… are other clients to nginx. */
  from?: string;
  ca?: string;
}

/** One request on a fresh connection (node:http, so that the client's source address can be chosen). */
function request(url: string, options: RequestOptions = {}): Promise<Answer> {
  const target = new URL(url);
  const lib = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(
      target,
      {
        method: options.method ?? 'GET',
        headers: {
          ...(options.body !== undefined ? { 'content-length': String(Buffer.byteLength(options.body)) } : {}),
          ...options.headers,
        },
        agent: false,
        ...(options.from ? { localAddress: options.from } : {}),
        ...(options.ca ? { ca: options.ca } : {}),
        timeout: 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            text: body.toString('utf8'),
            upstream: String(res.headers['x-upstream'] ?? ''),
          });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timeout: ${options.method ?? 'GET'} ${url}`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A Shutter process and everything it printed. */
interface Node {
  name: string;
  port: number;
  address: string;
  child: ChildProcess;
  output: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it is true or `ms` pass. */
async function waitFor(what: string, ms: number, check: () => Promise<boolean>, failed?: () => string | undefined): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const reason = failed?.();
    if (reason) throw new Error(`${what}: ${reason}`);
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(150);
  }
}

/** The request ids a node logged a finished request for (its pino JSON lines). */
function loggedRequestIds(node: Node): Set<string> {
  const ids = new Set<string>();
  for (const line of node.output.join('').split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line) as { msg?: string; reqId?: string };
      if (entry.msg === 'request' && entry.reqId) ids.add(entry.reqId);
    } catch {
      // a partial line
    }
  }
  return ids;
}

const suffix = randomBytes(5).toString('hex');
const SCHEMA = `shutter_nginx_${suffix}`;
const REDIS_PREFIX = `shutter-nginx-test:${suffix}:`;
const BOOTSTRAP_KEY = `nginx-lb-bootstrap-${suffix}`;
const PLANS = {
  plans: [
    { name: 'tiny', max_keys: 5, monthly_quota: 3, rate_per_minute: 1000, concurrency: 10 },
    { name: 'ratey', max_keys: 5, monthly_quota: 1000, rate_per_minute: 4, concurrency: 5 },
  ],
};

describe.skipIf(skipReason)('nginx as load balancer over two Shutter processes sharing Postgres and Redis', () => {
  let dir: string;
  let s3: S3rver;
  let fixture: FixtureServer;
  let nginx: ChildProcess | undefined;
  let nginxOutput = '';
  const nodes: Node[] = [];
  let base: string;
  let secureBase: string;
  let cert: string;
  let env: Record<string, string>;
  let page: string;

  const nodeAt = (upstream: string) => nodes.find((n) => n.address === upstream)?.name;

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first (make build)`);
    dir = mkdtempSync(join(tmpdir(), 'shutter-nginx-'));
    // nginx's workers may run as another user (nobody, when the test runs as root): let them reach their temp dirs.
    chmodSync(dir, 0o755);
    const [httpPort, httpsPort, portA, portB] = [await closedPort(), await closedPort(), await closedPort(), await closedPort()];
    base = `http://127.0.0.1:${httpPort}`;
    secureBase = `https://127.0.0.1:${httpsPort}`;

    fixture = await startFixtureServer();
    page = `${fixture.baseUrl}/simple.html`;
    s3 = new S3rver({
      port: 0,
      address: '127.0.0.1',
      directory: join(dir, 's3'),
      silent: true,
      configureBuckets: [{ name: 'shots', configs: [] }],
    });
    const s3Port = ((await s3.run()) as AddressInfo).port;

    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${SCHEMA}`);
    await admin.end();
    const databaseUrl = new URL(postgresUrl!);
    databaseUrl.searchParams.set('options', `-c search_path=${SCHEMA}`);

    const plansFile = join(dir, 'plans.json');
    writeFileSync(plansFile, JSON.stringify(PLANS));
    // Only our SHUTTER_ settings: not the test runner's (which silences logs).
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([k, v]) => !k.startsWith('SHUTTER_') && v !== undefined),
    ) as Record<string, string>;
    env = {
      ...inherited,
      SHUTTER_HOST: '127.0.0.1',
      SHUTTER_DATABASE_URL: databaseUrl.href,
      SHUTTER_REDIS_URL: redisUrl!,
      SHUTTER_REDIS_PREFIX: REDIS_PREFIX,
      SHUTTER_TRUST_PROXY: '1',
      SHUTTER_BOOTSTRAP_KEY: BOOTSTRAP_KEY,
      SHUTTER_SIGNING_SECRET: `nginx-lb-signing-secret-${suffix}-0123456789`,
      SHUTTER_ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8',
      SHUTTER_PLANS_FILE: plansFile,
      SHUTTER_CONCURRENCY: '2',
      SHUTTER_LOG_LEVEL: 'info',
      SHUTTER_STORAGE: 's3',
      SHUTTER_S3_BUCKET: 'shots',
      SHUTTER_S3_ENDPOINT: `http://127.0.0.1:${s3Port}`,
      SHUTTER_S3_FORCE_PATH_STYLE: '1',
      SHUTTER_S3_ACCESS_KEY_ID: 'S3RVER',
      SHUTTER_S3_SECRET_ACCESS_KEY: 'S3RVER',
      SHUTTER_S3_PREFIX: 'captures/',
      // Links to stored files go through nginx, which serves /files/captures/ from the bucket.
      SHUTTER_S3_PUBLIC_BASE_URL: `${base}/files/`,
    };

    // Both nodes start at once with the same SHUTTER_BOOTSTRAP_KEY, as compose and Kubernetes start
    // them: their migrations take turns, and the node that loses the race to create the key reads it.
    for (const [name, port] of [
      ['a', portA],
      ['b', portB],
    ] as const) {
      const dataDir = join(dir, `data-${name}`);
      mkdirSync(dataDir);
      const own: Record<string, string> = { SHUTTER_PORT: String(port), SHUTTER_DATA_DIR: dataDir, MALLOC_ARENA_MAX: '2' };
      const nodeEnv = { ...env, ...own };
      const child = spawn(process.execPath, [CLI, 'serve'], {
        cwd: ROOT,
        env: nodeEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const node: Node = { name, port, address: `127.0.0.1:${port}`, child, output: [] };
      child.stdout!.on('data', (c: Buffer) => node.output.push(c.toString('utf8')));
      child.stderr!.on('data', (c: Buffer) => node.output.push(c.toString('utf8')));
      nodes.push(node);
    }
    const exited = (node: Node) =>
      node.child.exitCode !== null
        ? `node ${node.name} exited with ${node.child.exitCode}:\n${node.output.join('').slice(-3000)}`
        : undefined;
    await Promise.all(
      nodes.map((node) =>
        waitFor(
          `node ${node.name} ready`,
          40_000,
          async () => (await request(`http://${node.address}/readyz`)).status === 200,
          () => exited(node),
        ),
      ),
    );

    // A self-signed certificate: the https listener is where nginx says X-Forwarded-Proto: https.
    const { keyPath, certPath } = writeSelfSignedCert(dir, '127.0.0.1', ['subjectAltName=IP:127.0.0.1']);
    cert = readFileSync(certPath, 'utf8');

    const locations = `
      location / {
        proxy_pass http://shutter;
        include ${PROXY_CONF};
        add_header X-Upstream $upstream_addr always;
      }
      location /files/captures/ {
        limit_except GET { deny all; }
        proxy_pass http://127.0.0.1:${s3Port}/shots/captures/;
        proxy_http_version 1.1;
        proxy_set_header Connection "";
      }`;
    writeFileSync(
      join(dir, 'nginx.conf'),
      `daemon off;
master_process on;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream shutter {
    server ${nodes[0]!.address};
    server ${nodes[1]!.address};
    keepalive 8;
  }
  server {
    listen 127.0.0.1:${httpPort};
    ${locations}
  }
  server {
    listen 127.0.0.1:${httpsPort} ssl;
    ssl_certificate ${certPath};
    ssl_certificate_key ${keyPath};
    ${locations}
  }
}
`,
    );
    nginx = spawn(NGINX!, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], { stdio: ['ignore', 'pipe', 'pipe'] });
    nginx.stdout!.on('data', (c: Buffer) => (nginxOutput += c.toString('utf8')));
    nginx.stderr!.on('data', (c: Buffer) => (nginxOutput += c.toString('utf8')));
    await waitFor(
      'nginx answers',
      10_000,
      async () => (await request(`${base}/healthz`)).status === 200,
      () => (nginx!.exitCode !== null ? `nginx exited with ${nginx!.exitCode}: ${nginxOutput}` : undefined),
    );
  }, 80_000);

  afterAll(async () => {
    nginx?.kill('SIGQUIT');
    for (const node of nodes) node.child.kill('SIGTERM');
    await Promise.all(
      [nginx, ...nodes.map((n) => n.child)].map(
        (child) =>
          child &&
          child.exitCode === null &&
          new Promise<void>((resolve) => {
            const timer = setTimeout(() => {
              child.kill('SIGKILL');
              resolve();
            }, 10_000);
            child.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
          }),
      ),
    );
    await stopFixtureServer(fixture);
    await s3?.close();
    if (postgresUrl) {
      const admin = new pg.Client({ connectionString: postgresUrl });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
      await admin.end();
    }
    if (redisUrl) {
      const client = new Redis(redisUrl);
      const keys = await client.keys(`${REDIS_PREFIX}*`);
      if (keys.length) await client.del(...keys);
      client.disconnect();
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  /** An account on `plan` made with the CLI against the same database, and its key. */
  function createAccount(plan: string): string {
    const run = spawnSync(process.execPath, [CLI, 'accounts', 'create', '--email', `${plan}-${suffix}@example.com`, '--plan', plan], {
      cwd: ROOT,
      env: { ...env, SHUTTER_LOG_LEVEL: 'warn', SHUTTER_DATA_DIR: join(dir, 'data-cli') },
      encoding: 'utf8',
    });
    if (run.status !== 0) throw new Error(`accounts create failed (${run.status}): ${run.stderr}`);
    return run.stdout.trim().split('\n').at(-1)!;
  }

  const take = (key: string, query: Record<string, string>, headers: Record<string, string> = {}) =>
    request(`${base}/v1/take?${new URLSearchParams({ url: page, viewport_width: '400', viewport_height: '300', ...query })}`, {
      headers: { apikey: key, ...headers },
    });

  it('both nodes are ready behind nginx, on Postgres and Redis', async () => {
    const answers = [await request(`${base}/readyz`), await request(`${base}/readyz`)];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.text)).toMatchObject({
        status: 'ready',
        browser: true,
        database: true,
        limits: { backend: 'redis', ok: true },
      });
    }
    expect(new Set(answers.map((a) => nodeAt(a.upstream)))).toEqual(new Set(['a', 'b']));
  });

  it('captures work through nginx and alternate between the nodes, each logging the requests it served', async () => {
    const served: Array<{ id: string; node: string | undefined }> = [];
    for (let i = 0; i < 4; i++) {
      const id = `nginx-lb-${suffix}-${i}`;
      const answer = await take(BOOTSTRAP_KEY, { format: 'png' }, { 'x-request-id': id });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.headers['content-type']).toBe('image/png');
      expect(answer.body.subarray(1, 4).toString('latin1')).toBe('PNG');
      expect(answer.headers['x-request-id']).toBe(id);
      served.push({ id, node: nodeAt(answer.upstream) });
    }
    // Round robin: a, b, a, b (in some order).
    expect(served.filter((s) => s.node === 'a')).toHaveLength(2);
    expect(served.filter((s) => s.node === 'b')).toHaveLength(2);
    // Each node's own log agrees with nginx about who served what.
    await sleep(100);
    for (const { id, node } of served) {
      const logged = nodes.filter((n) => loggedRequestIds(n).has(id)).map((n) => n.name);
      expect(logged, id).toEqual([node]);
    }
  });

  it('the rate limit is shared: 4 requests a minute admit exactly 4 across both nodes', async () => {
    const key = createAccount('ratey');
    const answers: Answer[] = [];
    for (let i = 0; i < 7; i++) answers.push(await request(`${base}/v1/status`, { headers: { apikey: key } }));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 429, 429, 429]);
    expect(answers.slice(0, 4).map((a) => a.headers['ratelimit-remaining'])).toEqual(['3', '2', '1', '0']);
    expect(new Set(answers.slice(0, 4).map((a) => nodeAt(a.upstream)))).toEqual(new Set(['a', 'b']));
    expect(JSON.parse(answers[4]!.text).error.code).toBe('rate_limited');
    expect(answers[4]!.headers['retry-after']).toBeDefined();
  });

  it('the quota is shared: a quota of 3 admits exactly 3 of 6 concurrent captures over both nodes', async () => {
    const key = createAccount('tiny');
    const answers = await Promise.all(Array.from({ length: 6 }, () => take(key, { format: 'jpg' })));
    const ok = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status !== 200);
    expect(ok).toHaveLength(3);
    expect(refused.map((a) => [a.status, JSON.parse(a.text).error.code])).toEqual(Array(3).fill([429, 'quota_exceeded']));
    expect(new Set(answers.map((a) => nodeAt(a.upstream)))).toEqual(new Set(['a', 'b']));
    // Both nodes agree on the usage.
    const status = await request(`${base}/v1/status`, { headers: { apikey: key } });
    expect(JSON.parse(status.text).usage).toMatchObject({ used: 3, limit: 3, remaining: 0 });
    const again = await take(key, { format: 'jpg' });
    expect(again.status).toBe(429);
    expect(nodeAt(again.upstream)).not.toBe(nodeAt(status.upstream));
  });

  it('client IPs come from X-Forwarded-For as nginx sets it: the per-IP sign-up limit counts each client across nodes', async () => {
    /** Sign-up form posts from `from`, with the CSRF cookie and token its form page gave. */
    const client = async (from: string) => {
      const form = await request(`${base}/dashboard/signup`, { from });
      expect(form.status).toBe(200);
      const token = /name="csrf" value="([^"]+)"/.exec(form.text)![1]!;
      const cookie = String(form.headers['set-cookie']?.find((c) => c.startsWith('shutter_csrf='))).split(';')[0]!;
      // An invalid address: the per-IP limit is counted before the form is validated, and nothing is created.
      return (headers: Record<string, string> = {}) =>
        request(`${base}/dashboard/signup`, {
          method: 'POST',
          from,
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, ...headers },
          body: new URLSearchParams({ csrf: token, email: 'not-an-address', password: 'irrelevant-here' }).toString(),
        });
    };
    const signupFrom2 = await client('127.0.0.2');
    const signupFrom3 = await client('127.0.0.3');
    const first: Answer[] = [];
    for (let i = 0; i < 20; i++) first.push(await signupFrom2());
    expect(first.map((a) => a.status)).toEqual(Array(20).fill(400));
    expect(new Set(first.map((a) => nodeAt(a.upstream)))).toEqual(new Set(['a', 'b']));
    // The 21st from the same client is refused, whichever node gets it...
    expect((await signupFrom2()).status).toBe(429);
    // ...and claiming another address in X-Forwarded-For does not help: nginx replaces the header.
    expect((await signupFrom2({ 'x-forwarded-for': '198.51.100.7' })).status).toBe(429);
    // Another client (another source address to nginx) is counted apart.
    expect((await signupFrom3()).status).toBe(400);
  });

  it('dashboard cookies are Secure when nginx terminates https (X-Forwarded-Proto: https), and sessions work on both nodes', async () => {
    const plain = await request(`${base}/dashboard/signup`);
    const plainCookie = plain.headers['set-cookie']?.find((c) => c.startsWith('shutter_csrf='));
    expect(plainCookie).toBeDefined();
    expect(plainCookie).not.toMatch(/;\s*Secure/i);

    const form = await request(`${secureBase}/dashboard/signup`, { ca: cert, from: '127.0.0.4' });
    const csrfCookie = form.headers['set-cookie']?.find((c) => c.startsWith('shutter_csrf='));
    expect(csrfCookie).toMatch(/;\s*Secure/i);
    const token = /name="csrf" value="([^"]+)"/.exec(form.text)![1]!;
    const email = `secure-${suffix}@example.com`;
    const signup = await request(`${secureBase}/dashboard/signup`, {
      method: 'POST',
      ca: cert,
      from: '127.0.0.4',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: csrfCookie!.split(';')[0]! },
      body: new URLSearchParams({ csrf: token, email, password: 'a-long-enough-password' }).toString(),
    });
    expect(signup.status, signup.text).toBe(303);
    const session = signup.headers['set-cookie']?.find((c) => c.startsWith('shutter_session='));
    expect(session).toMatch(/;\s*Secure/i);
    expect(session).toMatch(/;\s*HttpOnly/i);
    // The session lives in Postgres: both nodes know it.
    const pages = [];
    for (let i = 0; i < 2; i++) {
      pages.push(await request(`${secureBase}/dashboard/keys`, { ca: cert, headers: { cookie: session!.split(';')[0]! } }));
    }
    for (const p of pages) {
      expect(p.status).toBe(200);
      expect(p.text).toContain(email);
    }
    expect(new Set(pages.map((p) => nodeAt(p.upstream)))).toEqual(new Set(['a', 'b']));
  });

  it('stored files (upload=1) land in the shared bucket and are fetched through nginx, whichever node stored them', async () => {
    const stored: Array<{ url: string; size: number; node: string | undefined }> = [];
    for (let i = 0; i < 2; i++) {
      const answer = await take(BOOTSTRAP_KEY, { format: 'png', upload: '1' });
      expect(answer.status, answer.text).toBe(200);
      const body = JSON.parse(answer.text) as { url: string; size: number; expires_at: string | null };
      expect(body.url.startsWith(`${base}/files/captures/`)).toBe(true);
      expect(body.expires_at).toBeNull();
      stored.push({ url: body.url, size: body.size, node: nodeAt(answer.upstream) });
    }
    expect(new Set(stored.map((s) => s.node))).toEqual(new Set(['a', 'b']));
    for (const file of stored) {
      const answer = await request(file.url);
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe('image/png');
      expect(answer.body.length).toBe(file.size);
      expect(answer.body.subarray(1, 4).toString('latin1')).toBe('PNG');
    }
    // Nothing but reads reaches the bucket through nginx.
    expect((await request(stored[0]!.url, { method: 'DELETE' })).status).toBe(403);
    expect((await request(`${base}/files/captures/${'x'.repeat(24)}.png`)).status).toBe(404);
  });

  it('deploy/nginx.conf itself passes `nginx -t` (compose host names mapped to 127.0.0.1, paths to a temp dir)', () => {
    const testDir = join(dir, 'conf-test');
    mkdirSync(testDir);
    const conf = readFileSync(join(ROOT, 'deploy/nginx.conf'), 'utf8')
      .replace(/\b(shutter-api-1|shutter-api-2|minio)(?=:)/g, '127.0.0.1')
      .replaceAll('/etc/nginx/shutter-proxy.conf', PROXY_CONF)
      .replaceAll('/var/log/nginx/', `${testDir}/`)
      .replace(/^pid .*$/m, `pid ${testDir}/nginx.pid;`)
      .replace(/listen 80;/, 'listen 127.0.0.1:1;');
    expect(conf).not.toMatch(/shutter-api-|minio:/);
    writeFileSync(join(testDir, 'nginx.conf'), conf);
    const check = spawnSync(NGINX!, ['-t', '-p', testDir, '-c', join(testDir, 'nginx.conf'), '-e', join(testDir, 'error.log')], {
      encoding: 'utf8',
    });
    expect(check.stderr).toContain('test is successful');
    expect(check.status).toBe(0);
  });
});
