import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PAGE_SIZE } from '../../src/accounts/account-admin.js';
import type { Account } from '../../src/accounts/account-store.js';
import { hashPassword } from '../../src/accounts/password.js';
import type { AccountServices } from '../../src/accounts/services.js';
import { keySigningSecret } from '../../src/accounts/signing-secret.js';
import { loadConfig } from '../../src/config/load.js';
import { signQuery } from '../../src/http/signed-link.js';
import { createService } from '../../src/service.js';
import { BACKENDS, testPlace, type TestPlace } from '../helpers/db.js';
import { buildTestApp, StubEngine, TEST_SIGNING_SECRET, type TestApp } from '../helpers/stub-engine.js';

/**
 * The operator admin under /dashboard/admin over HTTP (inject): hidden (404) from everyone but
 * operators, account list and search with keys and usage, plan changes that the account's next
 * request sees, disable/enable that stop and restart the account's keys and sessions at once on
 * every node (SQLite and Postgres), CSRF on every form, and the audit log.
 */

const PASSWORD = 'a long enough password';
let passwordHash: string;

beforeAll(async () => {
  passwordHash = await hashPassword(PASSWORD);
});

/** A browser-like client of one app: keeps cookies and reads the CSRF token from the last page. */
class Visitor {
  cookies = new Map<string, string>();
  csrf = '';

  constructor(private readonly app: FastifyInstance) {}

  private remember(res: LightMyRequestResponse) {
    for (const c of res.cookies as Array<{ name: string; value: string; maxAge?: number }>) {
      if (c.maxAge === 0 || c.value === '') this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    const token = /name="csrf" value="([^"]+)"/.exec(res.payload)?.[1];
    if (token) this.csrf = token;
    return res;
  }

  private cookieHeader() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async get(url: string) {
    return this.remember(await this.app.inject({ method: 'GET', url, headers: { cookie: this.cookieHeader() } }));
  }

  async post(url: string, form: Record<string, string> = {}, options: { csrf?: string | null } = {}) {
    const body = new URLSearchParams(form);
    const csrf = options.csrf === undefined ? this.csrf : options.csrf;
    if (csrf !== null) body.set('csrf', csrf);
    return this.remember(
      await this.app.inject({
        method: 'POST',
        url,
        headers: { cookie: this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
        payload: body.toString(),
      }),
    );
  }

  async logIn(email: string, password = PASSWORD) {
    await this.get('/dashboard/login');
    return this.post('/dashboard/login', { email, password });
  }
}

/** An account that can log in, with one key; `role` operator for the admin. */
async function person(services: AccountServices, email: string, options: { role?: 'operator'; plan?: string } = {}) {
  const created = await services.accounts.create({ email, plan: options.plan ?? 'free', passwordHash });
  if (!created.ok) throw new Error(created.message);
  if (options.role) {
    const promoted = await services.admin.setRole(null, created.value.id, options.role);
    if (!promoted.ok) throw new Error(promoted.message);
  }
  const issued = await services.keyManager.issue(created.value, 'default');
  if (!issued.ok) throw new Error(issued.message);
  return { account: (await services.accounts.findById(created.value.id))!, key: issued.value.key, keyId: issued.value.record.id };
}

const auditRows = (services: AccountServices) =>
  services.db.kysely.selectFrom('admin_audit').selectAll().orderBy('created_at').orderBy('id').execute();

const errorCode = (res: LightMyRequestResponse) => (res.json() as { error: { code: string } }).error.code;

/** The rows of the admin's account table: email → its data-* attributes. */
function listed(payload: string): Map<string, { id: string; plan: string; state: string; keys: string; usage: string }> {
  const rows = new Map<string, { id: string; plan: string; state: string; keys: string; usage: string }>();
  const pattern =
    /<tr data-account-id="([^"]+)" data-email="([^"]+)" data-plan="([^"]+)" data-state="([^"]+)">[\s\S]*?<td class="num keys">([^<]+)<\/td>\s*<td class="num usage">([\d,]+)/g;
  for (const m of payload.matchAll(pattern)) rows.set(m[2]!, { id: m[1]!, plan: m[3]!, state: m[4]!, keys: m[5]!, usage: m[6]! });
  return rows;
}

describe('the admin on SQLite (one node)', () => {
  let t: TestApp;
  let services: AccountServices;
  let operator: { account: Account; key: string };
  let user: { account: Account; key: string; keyId: string };

  beforeAll(async () => {
    t = await buildTestApp();
    services = t.accounts;
    operator = await person(services, 'root@example.com', { role: 'operator' });
    user = await person(services, 'ada@example.com');
  });

  afterAll(async () => {
    await t?.app.close();
    await t?.keys.close();
  });

  afterEach(async () => {
    // Every test starts with ada enabled on the free plan.
    await services.db.kysely.updateTable('accounts').set({ plan: 'free', disabled_at: null }).where('id', '=', user.account.id).execute();
  });

  const routes = () => {
    const id = user.account.id;
    return [
      ['GET', '/dashboard/admin'],
      ['GET', '/dashboard/admin?q=ada'],
      ['GET', '/dashboard/admin/usage'],
      ['GET', '/dashboard/admin/audit'],
      ['POST', `/dashboard/admin/accounts/${id}/plan`],
      ['POST', `/dashboard/admin/accounts/${id}/disable`],
      ['POST', `/dashboard/admin/accounts/${id}/enable`],
    ] as const;
  };

  it('answers 404 on every admin route to visitors who are not operators, logged in or not, as for a route that does not exist', async () => {
    const unknown = await t.app.inject({ method: 'GET', url: '/dashboard/no-such-page' });
    expect(unknown.statusCode).toBe(404);
    expect(errorCode(unknown)).toBe('not_found');

    const stranger = new Visitor(t.app);
    const ada = new Visitor(t.app);
    expect((await ada.logIn('ada@example.com')).statusCode).toBe(303);
    const overview = await ada.get('/dashboard');
    expect(overview.statusCode).toBe(200);
    expect(overview.payload).not.toContain('/dashboard/admin');
    for (const visitor of [stranger, ada]) {
      for (const [method, url] of routes()) {
        const res =
          method === 'GET' ? await visitor.get(url) : await visitor.post(url, { plan: 'scale' }, { csrf: visitor.csrf || 'x'.repeat(43) });
        expect(res.statusCode, `${method} ${url}`).toBe(404);
        expect(res.json(), `${method} ${url}`).toEqual({
          error: { code: 'not_found', message: `no route ${method} ${url.split('?')[0]}` },
          request_id: expect.any(String),
        });
      }
    }
    // Nothing changed, nothing was logged.
    expect(await services.accounts.findById(user.account.id)).toMatchObject({ plan: 'free', disabledAt: null });
    expect((await auditRows(services)).filter((r) => r.action !== 'set_role')).toEqual([]);
  });

  it('shows operators the admin link, and the admin pages', async () => {
    const root = new Visitor(t.app);
    await root.logIn('root@example.com');
    const overview = await root.get('/dashboard');
    expect(overview.payload).toContain('<a href="/dashboard/admin" id="nav-admin">Admin</a>');
    for (const url of ['/dashboard/admin', '/dashboard/admin/usage', '/dashboard/admin/audit']) {
      const res = await root.get(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  it('lists accounts with plan, keys, usage this month and state; searches by email substring; pages', async () => {
    // Two captures by ada, one by root: counted this month.
    for (const key of [user.key, user.key, operator.key]) {
      const res = await t.app.inject({ method: 'GET', url: '/v1/take?url=https%3A%2F%2Fexample.com%2F', headers: { apikey: key } });
      expect(res.statusCode).toBe(200);
    }
    for (let i = 0; i < ADMIN_PAGE_SIZE; i++) {
      const r = await services.accounts.create({ email: `bulk${String(i).padStart(2, '0')}@example.org`, plan: 'basic' });
      expect(r.ok).toBe(true);
    }
    for (const email of ['under_score@example.net', 'underxscore@example.net', '100%real@example.net']) {
      expect((await services.accounts.create({ email, plan: 'free' })).ok).toBe(true);
    }
    const root = new Visitor(t.app);
    await root.logIn('root@example.com');

    const all = await root.get('/dashboard/admin');
    const total = ADMIN_PAGE_SIZE + 3 + 3; // the test key's operator account, root, ada; the bulk ones; three more
    expect(all.payload).toContain(`${total} accounts`);
    expect(listed(all.payload).size).toBe(ADMIN_PAGE_SIZE);
    expect(all.payload).toContain(`page 1 of 2`);
    expect(listed(all.payload).get('ada@example.com')).toEqual({
      id: user.account.id,
      plan: 'free',
      state: 'active',
      keys: '1',
      usage: '2',
    });
    expect(listed(all.payload).get('root@example.com')).toMatchObject({ keys: '1', usage: '1' });
    const second = await root.get('/dashboard/admin?page=2');
    expect(listed(second.payload).size).toBe(total - ADMIN_PAGE_SIZE);
    expect([...listed(second.payload).keys()]).not.toContain('ada@example.com');

    const search = async (q: string) => [...listed((await root.get(`/dashboard/admin?q=${encodeURIComponent(q)}`)).payload).keys()].sort();
    expect(await search('ADA@')).toEqual(['ada@example.com']);
    expect(await search('bulk1')).toEqual(Array.from({ length: 10 }, (_, i) => `bulk1${i}@example.org`));
    expect(await search('under_')).toEqual(['under_score@example.net']);
    expect(await search('%')).toEqual(['100%real@example.net']);
    expect(await search('nobody-has-this')).toEqual([]);
    expect((await root.get('/dashboard/admin?q=nobody-has-this')).payload).toContain('No account matches.');
    expect((await root.get('/dashboard/admin?q=<script>')).payload).not.toContain('<script>');

    const usage = await root.get('/dashboard/admin/usage');
    expect(/id="admin-total">(\d+)</.exec(usage.payload)?.[1]).toBe('3');
    const top = [...usage.payload.matchAll(/<tr data-email="([^"]+)"><td class="num">(\d+)<\/td>/g)].map((m) => [m[2], m[1]]);
    // The stub app's own test key has captured nothing here: only ada (2) and root (1) are ranked.
    expect(top).toEqual([
      ['1', 'ada@example.com'],
      ['2', 'root@example.com'],
    ]);
  });

  it('changes a plan to one that exists; the account’s next request has the new limits; logged', async () => {
    const before = await t.app.inject({ method: 'GET', url: '/v1/status', headers: { apikey: user.key } });
    expect(before.json()).toMatchObject({ plan: { name: 'free', monthly_quota: 100 } });

    const root = new Visitor(t.app);
    await root.logIn('root@example.com');
    await root.get('/dashboard/admin?q=ada');
    const moved = await root.post(`/dashboard/admin/accounts/${user.account.id}/plan`, { plan: 'growth', q: 'ada', page: '1' });
    expect(moved.statusCode).toBe(303);
    expect(moved.headers.location).toBe('/dashboard/admin?q=ada&done=plan');
    const after = await root.get(moved.headers.location as string);
    expect(after.payload).toContain('Plan changed.');
    expect(listed(after.payload).get('ada@example.com')?.plan).toBe('growth');

    const status = await t.app.inject({ method: 'GET', url: '/v1/status', headers: { apikey: user.key } });
    expect(status.statusCode).toBe(200);
    expect(status.json()).toMatchObject({
      plan: { name: 'growth', keys_allowed: 20, monthly_quota: 10_000, rate_per_minute: 80, concurrency: 10 },
    });
    expect(status.headers['x-quota-limit']).toBe('10000');
    expect(status.headers['ratelimit-limit']).toBe('80');

    // A plan that does not exist is refused, and changes nothing.
    const refused = await root.post(`/dashboard/admin/accounts/${user.account.id}/plan`, { plan: 'platinum' });
    expect(refused.statusCode).toBe(400);
    expect(refused.payload).toContain('no plan platinum; plans: free, basic, growth, scale');
    expect((await services.accounts.findById(user.account.id))?.plan).toBe('growth');
    const missing = await root.post('/dashboard/admin/accounts/no-such-id/plan', { plan: 'basic' });
    expect(missing.statusCode).toBe(404);

    const rows = (await auditRows(services)).filter((r) => r.action === 'set_plan');
    expect(rows).toEqual([
      {
        id: expect.any(String),
        actor_account_id: operator.account.id,
        action: 'set_plan',
        target_account_id: user.account.id,
        detail: JSON.stringify({ email: 'ada@example.com', from: 'free', to: 'growth' }),
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    ]);
  });

  it('refuses every admin POST without this session’s CSRF token, and changes nothing', async () => {
    const root = new Visitor(t.app);
    await root.logIn('root@example.com');
    await root.get('/dashboard/admin');
    const ada = new Visitor(t.app);
    await ada.logIn('ada@example.com');
    await ada.get('/dashboard');
    expect(ada.csrf).not.toBe(root.csrf);
    const audited = (await auditRows(services)).length;
    for (const action of ['plan', 'disable', 'enable']) {
      const url = `/dashboard/admin/accounts/${user.account.id}/${action}`;
      for (const csrf of [null, '', 'x'.repeat(43), root.csrf.slice(0, -1), ada.csrf]) {
        const res = await root.post(url, { plan: 'scale' }, { csrf });
        expect(res.statusCode, `${action} with ${String(csrf)}`).toBe(403);
        expect(res.payload).toContain('Form expired');
      }
    }
    expect(await services.accounts.findById(user.account.id)).toMatchObject({ plan: 'free', disabledAt: null });
    expect((await auditRows(services)).length).toBe(audited);
    // With the token, the same request works.
    expect((await root.post(`/dashboard/admin/accounts/${user.account.id}/plan`, { plan: 'scale' })).statusCode).toBe(303);
  });

  it('disables an account: its key is refused at once (403 account_disabled), its sessions end, it cannot log in; enable restores the key', async () => {
    const ada = new Visitor(t.app);
    await ada.logIn('ada@example.com');
    expect((await ada.get('/dashboard/keys')).statusCode).toBe(200);
    const root = new Visitor(t.app);
    await root.logIn('root@example.com');
    await root.get('/dashboard/admin');
    const sessions = await services.db.kysely
      .selectFrom('sessions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', user.account.id)
      .executeTakeFirstOrThrow();
    expect(Number(sessions.n)).toBeGreaterThanOrEqual(1);

    const off = await root.post(`/dashboard/admin/accounts/${user.account.id}/disable`, { q: '', page: '1' });
    expect(off.statusCode).toBe(303);
    expect(off.headers.location).toBe('/dashboard/admin?done=disabled');
    expect(listed((await root.get('/dashboard/admin')).payload).get('ada@example.com')?.state).toBe('disabled');

    for (const url of ['/v1/status', '/v1/take?url=https%3A%2F%2Fexample.com%2F']) {
      const res = await t.app.inject({ method: 'GET', url, headers: { apikey: user.key } });
      expect(res.statusCode, url).toBe(403);
      expect(res.json()).toMatchObject({ error: { code: 'account_disabled', message: expect.stringContaining('disabled') } });
    }
    // The session ended: back to the log-in page; and logging in again is refused.
    const page = await ada.get('/dashboard/keys');
    expect(page.statusCode).toBe(303);
    expect(page.headers.location).toBe('/dashboard/login');
    const again = await new Visitor(t.app).logIn('ada@example.com');
    expect(again.statusCode).toBe(403);
    expect(again.payload).toContain('This account is disabled.');
    expect(again.cookies.find((c) => c.name === 'shutter_session')).toBeUndefined();
    // Disabling twice changes nothing more.
    expect((await root.post(`/dashboard/admin/accounts/${user.account.id}/disable`)).headers.location).toBe(
      '/dashboard/admin?done=unchanged',
    );

    const on = await root.post(`/dashboard/admin/accounts/${user.account.id}/enable`);
    expect(on.headers.location).toBe('/dashboard/admin?done=enabled');
    const status = await t.app.inject({ method: 'GET', url: '/v1/status', headers: { apikey: user.key } });
    expect(status.statusCode).toBe(200);
    expect((await new Visitor(t.app).logIn('ada@example.com')).statusCode).toBe(303);

    const rows = (await auditRows(services)).filter((r) => r.action === 'disable' || r.action === 'enable');
    expect(rows.map((r) => [r.actor_account_id, r.action, r.target_account_id])).toEqual([
      [operator.account.id, 'disable', user.account.id],
      [operator.account.id, 'enable', user.account.id],
    ]);
    expect(JSON.parse(rows[0]!.detail)).toEqual({ email: 'ada@example.com', sessions_ended: Number(sessions.n) });

    const audit = await root.get('/dashboard/admin/audit');
    const entries = [...audit.payload.matchAll(/<tr data-action="([^"]+)" data-target="([^"]+)" data-actor="([^"]*)">/g)].map((m) => [
      m[1],
      m[2],
      m[3],
    ]);
    expect(entries.slice(0, 2)).toEqual([
      ['enable', 'ada@example.com', 'root@example.com'],
      ['disable', 'ada@example.com', 'root@example.com'],
    ]);
    expect(entries).toContainEqual(['set_role', 'root@example.com', '']);
    expect(audit.payload).toContain('command line');
  });

  it('refuses a signed link of a disabled account’s key too', async () => {
    const query = `url=${encodeURIComponent('https://example.com/')}&access_key=${user.keyId}`;
    const link = `/v1/take?${query}&signature=${signQuery(query, keySigningSecret(Buffer.from(TEST_SIGNING_SECRET), user.keyId))}`;
    expect((await t.app.inject({ method: 'GET', url: link })).statusCode).toBe(200);
    await services.admin.setDisabled(operator.account, user.account.id, true);
    const refused = await t.app.inject({ method: 'GET', url: link });
    expect(refused.statusCode).toBe(403);
    expect(errorCode(refused)).toBe('account_disabled');
  });

  it('does not let operators disable their own account', async () => {
    const root = new Visitor(t.app);
    await root.logIn('root@example.com');
    const list = await root.get('/dashboard/admin?q=root');
    expect(list.payload).not.toContain(`/dashboard/admin/accounts/${operator.account.id}/disable`);
    const refused = await root.post(`/dashboard/admin/accounts/${operator.account.id}/disable`);
    expect(refused.statusCode).toBe(409);
    expect(refused.payload).toContain('you cannot disable your own account');
    expect((await services.accounts.findById(operator.account.id))?.disabledAt).toBeNull();
  });

  it('takes the admin away at once from an account that is no longer an operator', async () => {
    const root = new Visitor(t.app);
    await root.logIn('root@example.com');
    expect((await root.get('/dashboard/admin')).statusCode).toBe(200);
    await services.admin.setRole(null, operator.account.id, 'user');
    expect((await root.get('/dashboard/admin')).statusCode).toBe(404);
    await services.admin.setRole(null, operator.account.id, 'operator');
    expect((await root.get('/dashboard/admin')).statusCode).toBe(200);
  });
});

describe.each(BACKENDS)('disable and enable across two nodes on %s', (backend) => {
  let place: TestPlace;
  const nodes: FastifyInstance[] = [];
  let services: AccountServices;

  beforeAll(async () => {
    place = await testPlace(backend);
    const config = loadConfig({ SHUTTER_SIGNING_SECRET: TEST_SIGNING_SECRET });
    for (let i = 0; i < 2; i++) {
      const opened = await place.open();
      const { app } = await createService(config, {
        engine: new StubEngine(),
        accounts: opened,
        store: null,
        logger: pino({ level: 'silent' }),
      });
      await app.ready();
      nodes.push(app);
    }
    services = await place.open();
  });

  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.close()));
    await place?.cleanup();
  });

  it('an operator on one node disables an account; its key is refused on the next request on both nodes; enabled, it works again', async () => {
    const [a, b] = nodes as [FastifyInstance, FastifyInstance];
    const operator = await person(services, 'ops@example.com', { role: 'operator' });
    const user = await person(services, 'grace@example.com', { plan: 'basic' });
    const call = (node: FastifyInstance, url: string) => node.inject({ method: 'GET', url, headers: { apikey: user.key } });
    const take = '/v1/take?url=https%3A%2F%2Fexample.com%2F';
    for (const node of nodes) {
      expect((await call(node, '/v1/status')).statusCode).toBe(200);
      expect((await call(node, take)).statusCode).toBe(200);
    }
    const grace = new Visitor(b);
    expect((await grace.logIn('grace@example.com')).statusCode).toBe(303);

    const root = new Visitor(a);
    expect((await root.logIn('ops@example.com')).statusCode).toBe(303);
    expect(listed((await root.get('/dashboard/admin?q=grace')).payload).get('grace@example.com')).toMatchObject({ keys: '1', usage: '2' });
    const off = await root.post(`/dashboard/admin/accounts/${user.account.id}/disable`, { q: 'grace', page: '1' });
    expect(off.statusCode).toBe(303);

    for (const node of [b, a]) {
      for (const url of [take, '/v1/status']) {
        const res = await call(node, url);
        expect(res.statusCode, url).toBe(403);
        expect(errorCode(res)).toBe('account_disabled');
      }
    }
    // Her session on the other node ended too.
    expect((await grace.get('/dashboard')).headers.location).toBe('/dashboard/login');

    expect((await root.post(`/dashboard/admin/accounts/${user.account.id}/enable`, { q: 'grace' })).statusCode).toBe(303);
    for (const node of [b, a]) {
      expect((await call(node, take)).statusCode).toBe(200);
      expect((await call(node, '/v1/status')).statusCode).toBe(200);
    }
    const rows = await auditRows(services);
    expect(rows.map((r) => [r.actor_account_id, r.action, r.target_account_id])).toEqual([
      [null, 'set_role', operator.account.id],
      [operator.account.id, 'disable', user.account.id],
      [operator.account.id, 'enable', user.account.id],
    ]);
  });
});
