import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { staticDir } from '../../src/dashboard/static-assets.js';
import { Writable } from 'node:stream';
import type { LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestApp, TEST_SIGNING_SECRET, type TestApp, type TestAppOverrides } from '../helpers/stub-engine.js';

/**
 * The dashboard over HTTP (inject): sign-up, log-in and log-out, cookies and CSRF, log-in rate
 * limiting, key management scoped to the account, the usage page and the playground.
 */

let t: TestApp;
let logLines: string[];

async function build(overrides: TestAppOverrides = {}): Promise<TestApp> {
  logLines = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logLines.push(chunk.toString());
      callback();
    },
  });
  t = await buildTestApp({ logger: pino({ level: 'trace' }, sink), ...overrides });
  return t;
}

afterEach(async () => {
  await t?.app.close();
  await t?.keys.close();
});

/** A browser-like client: keeps cookies (per name) and reads the CSRF token from the last page. */
class Visitor {
  cookies = new Map<string, string>();
  csrf = '';
  last?: LightMyRequestResponse;

  constructor(private readonly headers: Record<string, string> = {}) {}

  private remember(res: LightMyRequestResponse) {
    for (const c of res.cookies as Array<{ name: string; value: string; maxAge?: number; expires?: Date }>) {
      const gone = c.maxAge === 0 || (c.expires !== undefined && c.expires.getTime() < Date.now()) || c.value === '';
      if (gone) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    const token = /name="csrf" value="([^"]+)"/.exec(res.payload)?.[1];
    if (token) this.csrf = token;
    this.last = res;
    return res;
  }

  private cookieHeader() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async get(url: string) {
    return this.remember(await t.app.inject({ method: 'GET', url, headers: { cookie: this.cookieHeader(), ...this.headers } }));
  }

  async post(url: string, form: Record<string, string>, options: { csrf?: string | null } = {}) {
    const body = new URLSearchParams(form);
    const csrf = options.csrf === undefined ? this.csrf : options.csrf;
    if (csrf !== null) body.set('csrf', csrf);
    return this.remember(
      await t.app.inject({
        method: 'POST',
        url,
        headers: { cookie: this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded', ...this.headers },
        payload: body.toString(),
      }),
    );
  }

  async signUp(email: string, password = 'a long enough password') {
    await this.get('/dashboard/signup');
    return this.post('/dashboard/signup', { email, password });
  }

  async createKey(name: string): Promise<string> {
    await this.get('/dashboard/keys');
    const res = await this.post('/dashboard/keys', { name });
    expect(res.statusCode, res.payload).toBe(201);
    return /id="new-key">([^<]+)</.exec(res.payload)![1]!;
  }
}

const setCookie = (res: LightMyRequestResponse, name: string) =>
  [res.headers['set-cookie'] ?? []].flat().find((c) => c.startsWith(`${name}=`)) ?? '';
const takeWith = (key: string) =>
  t.app.inject({ method: 'GET', url: '/v1/take?url=https%3A%2F%2Fexample.com%2F', headers: { apikey: key } });

describe('pages and headers', () => {
  it('sends logged-out visitors to the log-in page', async () => {
    await build();
    for (const url of ['/dashboard', '/dashboard/keys', '/dashboard/playground']) {
      const res = await new Visitor().get(url);
      expect(res.statusCode, url).toBe(303);
      expect(res.headers.location).toBe('/dashboard/login');
    }
  });

  it('serves pages with a strict CSP, no caching, and a CSRF cookie that is HttpOnly, SameSite=Lax and scoped', async () => {
    await build();
    const res = await new Visitor().get('/dashboard/login');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(res.headers['cache-control']).toBe('no-store');
    const cookie = setCookie(res, 'shutter_csrf');
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\/dashboard/);
    expect(cookie).not.toMatch(/Secure/);
    expect(res.payload).toMatch(/<form method="post" action="\/dashboard\/login"><input type="hidden" name="csrf" value="[\w-]{43}">/);
  });

  it('marks cookies Secure behind an https proxy it trusts', async () => {
    await build({ trustProxy: true });
    const v = new Visitor({ 'x-forwarded-proto': 'https' });
    const res = await v.signUp('secure@example.com');
    expect(res.statusCode).toBe(303);
    expect(setCookie(res, 'shutter_session')).toMatch(/; Secure/);
    expect(setCookie(res, 'shutter_session')).toMatch(/HttpOnly/);
  });

  it('serves the stylesheet and the playground script as files (no inline code under the CSP)', async () => {
    await build();
    const css = await t.app.inject({ method: 'GET', url: '/dashboard/assets/style.css' });
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    const js = await t.app.inject({ method: 'GET', url: '/dashboard/assets/playground.js' });
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.payload).toContain("fetch('/v1/take?'");
  });

  it('the assets are the files in src/dashboard/static, byte for byte, revalidated by ETag; nothing else is served', async () => {
    await build();
    // The service runs from dist/src/dashboard and finds the same sources.
    expect(staticDir(join(import.meta.dirname, '..', '..', 'dist', 'src', 'dashboard'))).toBe(staticDir());
    for (const name of ['style.css', 'playground.js']) {
      const res = await t.app.inject({ method: 'GET', url: `/dashboard/assets/${name}` });
      expect(res.rawPayload.equals(readFileSync(join(staticDir(), name)))).toBe(true);
      expect(res.headers['cache-control']).toBe('public, max-age=3600');
      const again = await t.app.inject({
        method: 'GET',
        url: `/dashboard/assets/${name}`,
        headers: { 'if-none-match': String(res.headers.etag) },
      });
      expect(again.statusCode).toBe(304);
      expect(again.payload).toBe('');
    }
    for (const url of ['/dashboard/assets/nope.js', '/dashboard/assets/..%2f..%2fpackage.json', '/dashboard/assets/../../package.json']) {
      expect((await t.app.inject({ method: 'GET', url })).statusCode, url).toBe(404);
    }
  });
});

describe('sign-up, log-in, log-out', () => {
  it('signs up on the free plan and logs in at once', async () => {
    await build();
    const v = new Visitor();
    const res = await v.signUp('New.Person@Example.com');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/dashboard/keys?welcome');
    const session = setCookie(res, 'shutter_session');
    expect(session).toMatch(/HttpOnly/);
    expect(session).toMatch(/SameSite=Lax/);
    expect(session).toMatch(/Max-Age=604800/);
    const account = await t.accounts.accounts.findByEmail('new.person@example.com');
    expect(account).toMatchObject({ plan: 'free', canLogIn: true });
    const keys = await v.get(res.headers.location!);
    expect(keys.statusCode).toBe(200);
    expect(keys.payload).toContain('Welcome!');
    expect(keys.payload).toContain('new.person@example.com');
    expect(keys.payload).toContain('id="create-key"');
  });

  it('refuses sign-ups without the CSRF token, with a bad address, a short password or a taken address', async () => {
    await build();
    const v = new Visitor();
    await v.get('/dashboard/signup');
    expect((await v.post('/dashboard/signup', { email: 'a@example.com', password: 'long enough pw' }, { csrf: null })).statusCode).toBe(
      403,
    );
    expect(
      (await v.post('/dashboard/signup', { email: 'a@example.com', password: 'long enough pw' }, { csrf: 'x'.repeat(43) })).statusCode,
    ).toBe(403);
    expect(await t.accounts.accounts.findByEmail('a@example.com')).toBeNull();
    await v.get('/dashboard/signup');
    expect((await v.post('/dashboard/signup', { email: 'not-an-address', password: 'long enough pw' })).statusCode).toBe(400);
    const short = await v.post('/dashboard/signup', { email: 'a@example.com', password: 'short' });
    expect(short.statusCode).toBe(400);
    expect(short.payload).toContain('value="a@example.com"');
    expect(short.payload).not.toContain('short');
    expect((await new Visitor().signUp('taken@example.com')).statusCode).toBe(303);
    expect((await new Visitor().signUp('TAKEN@example.com')).statusCode).toBe(409);
  });

  it('logs in with the right password only, with one message for wrong passwords and unknown addresses', async () => {
    await build();
    await new Visitor().signUp('who@example.com', 'the right password');
    const v = new Visitor();
    await v.get('/dashboard/login');
    const wrong = await v.post('/dashboard/login', { email: 'who@example.com', password: 'the wrong password' });
    const unknown = await v.post('/dashboard/login', { email: 'nobody@example.com', password: 'the right password' });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.payload).toContain('Wrong email or password.');
    expect(unknown.payload).toContain('Wrong email or password.');
    expect(setCookie(wrong, 'shutter_session')).toBe('');
    const right = await v.post('/dashboard/login', { email: 'WHO@example.com', password: 'the right password' });
    expect(right.statusCode).toBe(303);
    expect(right.headers.location).toBe('/dashboard');
    expect((await v.get('/dashboard')).statusCode).toBe(200);
  });

  it('logs out on the server: the old session cookie no longer works', async () => {
    await build();
    const v = new Visitor();
    await v.signUp('bye@example.com');
    const stolen = v.cookies.get('shutter_session')!;
    await v.get('/dashboard');
    const out = await v.post('/dashboard/logout', {});
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe('/dashboard/login?signed_out');
    const replay = await t.app.inject({ method: 'GET', url: '/dashboard', headers: { cookie: `shutter_session=${stolen}` } });
    expect(replay.statusCode).toBe(303);
  });

  it('limits log-in attempts per address, even with the right password after the limit', async () => {
    await build();
    await new Visitor().signUp('target@example.com', 'the right password');
    const v = new Visitor();
    await v.get('/dashboard/login');
    for (let i = 0; i < 10; i++) {
      expect((await v.post('/dashboard/login', { email: 'target@example.com', password: `guess ${i} guess` })).statusCode).toBe(401);
    }
    const blocked = await v.post('/dashboard/login', { email: 'target@example.com', password: 'the right password' });
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(60);
    expect(blocked.payload).toContain('Too many log-in attempts');
    expect(setCookie(blocked, 'shutter_session')).toBe('');
  });

  it('never writes a password to the log', async () => {
    await build();
    const v = new Visitor();
    await v.signUp('quiet@example.com', 'secret-password-one');
    await v.post('/dashboard/logout', {});
    await v.get('/dashboard/login');
    await v.post('/dashboard/login', { email: 'quiet@example.com', password: 'secret-password-two' });
    await v.post('/dashboard/login', { email: 'quiet@example.com', password: 'secret-password-one' });
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('\n')).not.toMatch(/secret-password/);
  });

  it('says so when sign-ups are closed', async () => {
    await build({ signups: false });
    const v = new Visitor();
    const page = await v.get('/dashboard/signup');
    expect(page.payload).toContain('Sign-ups are closed');
    const res = await v.post(
      '/dashboard/signup',
      { email: 'late@example.com', password: 'long enough pw' },
      { csrf: v.cookies.get('shutter_csrf') ?? '' },
    );
    expect(res.statusCode).toBe(403);
    expect(await t.accounts.accounts.findByEmail('late@example.com')).toBeNull();
  });
});

describe('keys', () => {
  it('shows a new key once, and it works for captures', async () => {
    await build();
    const v = new Visitor();
    await v.signUp('keys@example.com');
    const key = await v.createKey('production');
    expect(key).toMatch(/^shk_\w{38}$/);
    expect(v.last!.headers['cache-control']).toBe('no-store');
    expect((await takeWith(key)).statusCode).toBe(200);
    const list = await v.get('/dashboard/keys');
    expect(list.payload).toContain('production');
    expect(list.payload).toContain(`${key.slice(0, 8)}…${key.slice(-4)}`);
    expect(list.payload).not.toContain(key);
  });

  it('offers reset instead of create on the free plan once it holds a key, and refuses a second key', async () => {
    await build();
    const v = new Visitor();
    await v.signUp('free@example.com');
    await v.createKey('main');
    const page = await v.get('/dashboard/keys');
    expect(page.payload).not.toContain('id="create-key"');
    expect(page.payload).toContain('id="reset-instead"');
    const refused = await v.post('/dashboard/keys', { name: 'second' });
    expect(refused.statusCode).toBe(409);
    expect(refused.payload).toContain('allows 1 active key');
  });

  it('renames (escaping the name), resets and revokes', async () => {
    await build();
    const v = new Visitor();
    await v.signUp('manage@example.com');
    const first = await v.createKey('main');
    const [id] = (await t.accounts.keys.list((await t.accounts.accounts.findByEmail('manage@example.com'))!.id)).map((k) => k.id);
    await v.get('/dashboard/keys');
    const renamed = await v.post(`/dashboard/keys/${id}/rename`, { name: '<img src=x onerror=alert(1)>' });
    expect(renamed.statusCode).toBe(303);
    const page = await v.get(renamed.headers.location!);
    expect(page.payload).toContain('Key renamed.');
    expect(page.payload).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page.payload).not.toContain('<img src=x');

    const reset = await v.post(`/dashboard/keys/${id}/reset`, {});
    expect(reset.statusCode).toBe(201);
    const second = /id="new-key">([^<]+)</.exec(reset.payload)![1]!;
    expect(reset.payload).toContain('no longer works');
    expect((await takeWith(first)).statusCode).toBe(401);
    expect((await takeWith(second)).statusCode).toBe(200);

    await v.get('/dashboard/keys');
    const newId = (await t.accounts.keys.findActive(second))!.id;
    const revoked = await v.post(`/dashboard/keys/${newId}/revoke`, {});
    expect(revoked.statusCode).toBe(303);
    expect((await takeWith(second)).statusCode).toBe(401);
    expect((await v.get('/dashboard/keys')).payload).toContain('id="revoked-keys"');
  });

  it("cannot touch another account's keys", async () => {
    await build();
    const owner = new Visitor();
    await owner.signUp('owner@example.com');
    const key = await owner.createKey('main');
    const id = (await t.accounts.keys.findActive(key))!.id;
    const intruder = new Visitor();
    await intruder.signUp('intruder@example.com');
    await intruder.get('/dashboard/keys');
    expect((await intruder.post(`/dashboard/keys/${id}/revoke`, {})).statusCode).toBe(404);
    expect((await intruder.post(`/dashboard/keys/${id}/reset`, {})).statusCode).toBe(404);
    expect((await intruder.post(`/dashboard/keys/${id}/rename`, { name: 'mine now' })).statusCode).toBe(404);
    expect((await takeWith(key)).statusCode).toBe(200);
    expect((await t.accounts.keys.findActive(key))!.name).toBe('main');
  });

  it('refuses key actions without the session CSRF token (or with the log-out one of another session)', async () => {
    await build();
    const v = new Visitor();
    await v.signUp('csrf@example.com');
    const key = await v.createKey('main');
    const id = (await t.accounts.keys.findActive(key))!.id;
    const other = new Visitor();
    await other.signUp('other@example.com');
    await other.get('/dashboard/keys');
    for (const csrf of [null, '', other.csrf]) {
      expect((await v.post(`/dashboard/keys/${id}/revoke`, {}, { csrf })).statusCode).toBe(403);
      expect((await v.post('/dashboard/keys', { name: 'x' }, { csrf })).statusCode).toBe(403);
    }
    expect((await takeWith(key)).statusCode).toBe(200);
  });
});

describe('overview and playground', () => {
  it('shows plan, limits and this month’s usage per day (SVG with numbers) and per key', async () => {
    await build();
    const v = new Visitor();
    await v.signUp('usage@example.com');
    const key = await v.createKey('reporting');
    for (let i = 0; i < 3; i++) expect((await takeWith(key)).statusCode).toBe(200);
    const page = await v.get('/dashboard');
    expect(page.statusCode).toBe(200);
    expect(page.payload).toContain('<b id="plan-name">free</b>');
    expect(page.payload).toContain('<span id="used">3</span> / 100');
    expect(page.payload).toContain('<b id="remaining">97</b>');
    const today = new Date().toISOString().slice(0, 10);
    expect(page.payload).toContain(`<g data-day="${today}" data-captures="3">`);
    expect(page.payload).toMatch(/<svg class="chart" id="usage-chart"/);
    expect(page.payload).toMatch(/<text class="value"[^>]*>3<\/text>/);
    expect(page.payload).toMatch(/<td>reporting<\/td>.*<td class="num">3<\/td>/s);
    expect(page.payload).toContain('<g data-key="reporting" data-captures="3">');
    expect(page.payload).toContain('<th>Requests per minute</th><td class="num">10</td>');
  });

  it('serves the playground form that targets /v1/take', async () => {
    await build();
    const v = new Visitor();
    await v.signUp('play@example.com');
    const page = await v.get('/dashboard/playground');
    expect(page.payload).toContain('<form id="playground" class="card" method="get" action="/v1/take"');
    expect(page.payload).toContain('<script src="/dashboard/assets/playground.js"></script>');
    expect(page.payload).toContain('id="curl"');
  });
});

describe('requests page', () => {
  it('lists the account’s captures with status and duration, links debug bundles, and hides them from other accounts', async () => {
    await build();
    const owner = new Visitor();
    await owner.signUp('requests@example.com');
    const key = await owner.createKey('main');
    const empty = await owner.get('/dashboard/requests');
    expect(empty.statusCode).toBe(200);
    expect(empty.payload).toContain('id="no-requests"');

    const plain = await takeWith(key);
    expect(plain.statusCode).toBe(200);
    const debugged = await t.app.inject({
      method: 'GET',
      url: '/v1/take?url=https%3A%2F%2Fexample.com%2Fdebugged&debug=1',
      headers: { apikey: key },
    });
    expect(debugged.statusCode).toBe(200);
    const id = debugged.headers['x-request-id'] as string;

    const list = await owner.get('/dashboard/requests');
    const rows = list.payload.split('<tr>').slice(2);
    expect(rows).toHaveLength(2);
    // Newest first; only the debug=1 one has a bundle link.
    expect(rows[0]).toContain('https://example.com/debugged');
    expect(rows[0]).toContain(`href="/dashboard/requests/${id}"`);
    expect(rows[1]).not.toContain('href="/dashboard/requests/');
    expect(rows[1]).toMatch(/>200</);
    expect(rows[1]).toMatch(/\d+ ms/);

    const page = await owner.get(`/dashboard/requests/${id}`);
    expect(page.statusCode).toBe(200);
    expect(page.payload).toContain(`&quot;request_id&quot;: &quot;${id}&quot;`);

    const stranger = new Visitor();
    await stranger.signUp('stranger@example.com');
    expect((await stranger.get(`/dashboard/requests/${id}`)).statusCode).toBe(404);
    expect((await stranger.get('/dashboard/requests')).payload).not.toContain(id);
  });
});

describe('signed links on the keys page', () => {
  it('shows each active key’s access_key and its signing secret, which changes when the key is reset', async () => {
    await build();
    const v = new Visitor();
    await v.signUp('signer@example.com');
    await v.createKey('main');
    const page = await v.get('/dashboard/keys');
    const id = /class="access-key">([^<]+)</.exec(page.payload)![1]!;
    const secret = /class="signing-secret">([^<]+)</.exec(page.payload)![1]!;
    expect(secret).toBe(createHmac('sha256', TEST_SIGNING_SECRET).update(`key:${id}`).digest('hex'));
    await v.post(`/dashboard/keys/${id}/reset`, {});
    const after = await v.get('/dashboard/keys');
    expect(/class="signing-secret">([^<]+)</.exec(after.payload)![1]).not.toBe(secret);
  });
});

describe('signed links in the playground', () => {
  it('offers the account’s active keys with their signing secrets, never a revoked key or another account’s', async () => {
    await build();
    const v = new Visitor();
    await v.signUp('builder@example.com');
    expect((await v.get('/dashboard/playground')).payload).toMatch(/No active key: <a href="\/dashboard\/keys">create one<\/a>/);
    await v.createKey('first');
    const keysPage = (await v.get('/dashboard/keys')).payload;
    const firstId = /class="access-key">([^<]+)</.exec(keysPage)![1]!;
    await v.post(`/dashboard/keys/${firstId}/reset`, {});
    const page = (await v.get('/dashboard/playground')).payload;
    const options = [...page.matchAll(/<option value="([^"]+)" data-signing-secret="([^"]+)">([^<]+)<\/option>/g)];
    expect(options).toHaveLength(1);
    const [, id, secret, label] = options[0]!;
    expect(id).not.toBe(firstId);
    expect(secret).toBe(createHmac('sha256', TEST_SIGNING_SECRET).update(`key:${id}`).digest('hex'));
    expect(label).toMatch(/^first \(shk_\w*…\w{4}\)$/);
    expect(page).toContain('<button id="sl-build" type="button">Build signed link</button>');
    expect(page).not.toContain(t.record.id);
    // The builder's fields are outside the capture form: they never become capture parameters.
    expect(page.indexOf('id="sl-key"')).toBeGreaterThan(page.indexOf('</form>', page.indexOf('<form id="playground"')));
  });
});
