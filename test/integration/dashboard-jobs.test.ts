import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JobStore, newJobId, type NewJob } from '../../src/jobs/job-store.js';
import { LocalStore } from '../../src/storage/local-store.js';
import { UrlSigner } from '../../src/storage/url-signer.js';
import { buildTestApp, type TestApp } from '../helpers/stub-engine.js';

/**
 * The dashboard's Jobs page over HTTP (inject): jobs queued with POST /v1/take async=1, and states
 * written through the JobStore (the service is not started here, so nothing runs them): queued,
 * running, succeeded (link or expired), failed, and webhook outcomes. Only the account's own jobs,
 * everything escaped, the log-in redirect.
 */

let t: TestApp;
let dir: string;
let jobs: JobStore;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'shutter-dashboard-jobs-'));
  const store = new LocalStore({
    dir,
    signer: new UrlSigner(Buffer.from('x'.repeat(32))),
    ttlSeconds: 3600,
    logger: pino({ level: 'silent' }),
  });
  t = await buildTestApp({ store });
  jobs = new JobStore(t.accounts.db);
});

afterEach(async () => {
  await t?.app.close();
  await t?.keys.close();
  await rm(dir, { recursive: true, force: true });
});

/** A browser-like client: keeps cookies and the last page's CSRF token. */
class Visitor {
  cookies = new Map<string, string>();
  csrf = '';

  private remember(res: LightMyRequestResponse) {
    for (const c of res.cookies as Array<{ name: string; value: string; maxAge?: number }>) {
      if (c.maxAge === 0 || c.value === '') this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    const token = /name="csrf" value="([^"]+)"/.exec(res.payload)?.[1];
    if (token) this.csrf = token;
    return res;
  }

  private cookie() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async get(url: string) {
    return this.remember(await t.app.inject({ method: 'GET', url, headers: { cookie: this.cookie() } }));
  }

  async post(url: string, form: Record<string, string>) {
    const payload = new URLSearchParams({ ...form, csrf: this.csrf }).toString();
    const headers = { cookie: this.cookie(), 'content-type': 'application/x-www-form-urlencoded' };
    return this.remember(await t.app.inject({ method: 'POST', url, headers, payload }));
  }
}

/** Signs up in the dashboard; returns the visitor, the account's id and an API key of it. */
async function signUp(email: string) {
  const v = new Visitor();
  await v.get('/dashboard/signup');
  const res = await v.post('/dashboard/signup', { email, password: 'a long enough password' });
  expect(res.statusCode, res.payload).toBe(303);
  const account = (await t.accounts.accounts.findByEmail(email))!;
  const { key } = await t.accounts.keys.create({ name: 'jobs', accountId: account.id });
  return { v, accountId: account.id, key };
}

/** POST /v1/take as a form, the way `curl -d` sends it. */
function takeForm(key: string, form: string) {
  return t.app.inject({
    method: 'POST',
    url: '/v1/take',
    headers: { apikey: key, 'content-type': 'application/x-www-form-urlencoded' },
    payload: form,
  });
}

/** Queues a job straight into the store, created at `at`. */
async function insert(accountId: string, at: Date, fields: Partial<NewJob> = {}): Promise<string> {
  const id = newJobId();
  const job: NewJob = {
    id,
    accountId,
    keyId: 'key_x',
    requestId: `req_${id}`,
    params: {},
    format: 'png',
    url: 'https://example.com/',
    externalId: null,
    webhookUrl: null,
    baseUrl: 'http://shutter.test',
    held: null,
    ...fields,
  };
  const created = await jobs.create([job], { accountId, maxQueued: 1000, now: at });
  expect(created.created).toBe(true);
  return id;
}

/** The table row of one job (its whole <tr>…</tr>). */
function rowOf(page: string, id: string): string {
  const row = new RegExp(`<tr data-job-id="${id}"[\\s\\S]*?</tr>`).exec(page)?.[0];
  expect(row, `no row for ${id}`).toBeDefined();
  return row!;
}

const unescape = (s: string) =>
  s.replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');

describe('dashboard Jobs page', () => {
  it('sends logged-out visitors to the log-in page, and links Jobs next to Requests once logged in', async () => {
    const res = await new Visitor().get('/dashboard/jobs');
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe('/dashboard/login');

    const { v } = await signUp('nav@example.com');
    const page = await v.get('/dashboard');
    expect(page.payload).toContain('<a href="/dashboard/requests">Requests</a><a href="/dashboard/jobs">Jobs</a>');
  });

  it('without jobs, shows a curl command that queues one as written, on the dashboard’s own origin', async () => {
    const { v, key } = await signUp('empty@example.com');
    const res = await v.get('/dashboard/jobs');
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.payload).toContain('id="no-jobs"');
    expect(res.payload).not.toContain('<table id="jobs"');
    const curl = unescape(/<pre id="jobs-curl">([^<]+)<\/pre>/.exec(res.payload)![1]!);
    expect(curl).toBe(
      'curl -H "apikey: $SHUTTER_KEY" -d async=1 -d url=https://example.com -d external_id=my-first-job "http://localhost:80/v1/take"',
    );

    // What that command sends: its -d fields as a form body, the key in the apikey header.
    const form = [...curl.matchAll(/-d (\S+)/g)].map((m) => m[1]).join('&');
    const queued = await takeForm(key, form);
    expect(queued.statusCode, queued.payload).toBe(202);
    const { job_id: id } = queued.json() as { job_id: string };
    const page = await v.get('/dashboard/jobs');
    expect(page.payload).not.toContain('id="no-jobs"');
    const row = rowOf(page.payload, id);
    expect(row).toContain('data-status="queued"');
    expect(row).toContain('<span class="job-status queued">queued</span>');
    expect(row).toContain('<td class="url">https://example.com</td>');
    expect(row).toContain('<td class="external-id">my-first-job</td>');
    expect(row).toMatch(/<span class="muted">waiting \d+ ms<\/span>|waiting \d+\.\d s/);
  });

  it('shows each state: queued, running, succeeded with its link, expired, failed, and the webhook outcome', async () => {
    const { v, accountId, key } = await signUp('states@example.com');

    // Through the API: an html job with a hostile external_id, then run to success through the store.
    const hostile = '<script>alert("x")</script>';
    const queued = await takeForm(key, new URLSearchParams({ html: '<h1>hi</h1>', async: '1', external_id: hostile }).toString());
    expect(queued.statusCode, queued.payload).toBe(202);
    const viaApi = (queued.json() as { job_id: string }).job_id;
    const started = await jobs.start(viaApi, new Date(Date.now() - 2_500));
    const expiresAt = new Date(Date.now() + 3600_000).toISOString();
    const result = {
      url: '/v1/files/abc.png?expires=1&sig=s',
      expires_at: expiresAt,
      format: 'png',
      content_type: 'image/png',
      size: 12_345,
    };
    expect(await jobs.succeedAlone(viaApi, started!.token, result, new Date(Date.now() - 1_300))).toBe(true);

    const base = Date.now() - 60_000;
    const waiting = await insert(accountId, new Date(base), { externalId: 'still-queued', webhookUrl: 'https://hooks.example/w' });
    const running = await insert(accountId, new Date(base + 1000), { url: 'https://example.com/a"b<c>' });
    await jobs.start(running, new Date(Date.now() - 65_000));
    const expired = await insert(accountId, new Date(base + 2000), { format: 'pdf' });
    const e = await jobs.start(expired, new Date(base + 2000));
    await jobs.succeedAlone(
      expired,
      e!.token,
      {
        url: 'https://bucket.s3.example/x.pdf?sig=1',
        expires_at: new Date(Date.now() - 1000).toISOString(),
        format: 'pdf',
        content_type: 'application/pdf',
        size: 900,
      },
      new Date(base + 2400),
    );
    const failed = await insert(accountId, new Date(base + 3000), { webhookUrl: 'https://hooks.example/w' });
    const f = await jobs.start(failed, new Date(base + 3000));
    await jobs.fail(
      failed,
      f!.token,
      { code: 'navigation_failed', message: 'net::ERR_NAME_NOT_RESOLVED <b>at</b> example.com' },
      new Date(base + 3250),
    );
    const nextAt = new Date(Date.now() + 120_000);
    await jobs.recordDelivery(failed, { number: 2, status: 503, error: null, deliveredAt: null, nextAt });
    const delivered = await insert(accountId, new Date(base + 4000), { webhookUrl: 'https://hooks.example/w' });
    const d = await jobs.start(delivered, new Date(base + 4000));
    await jobs.succeedAlone(delivered, d!.token, { ...result, expires_at: null }, new Date(base + 4100));
    const deliveredAt = new Date(base + 5000);
    await jobs.recordDelivery(delivered, { number: 3, status: 200, error: null, deliveredAt, nextAt: null });
    const gaveUp = await insert(accountId, new Date(base + 6000), { webhookUrl: 'https://hooks.example/w' });
    const g = await jobs.start(gaveUp, new Date(base + 6000));
    await jobs.fail(gaveUp, g!.token, { code: 'capture_timeout', message: 'the capture passed its timeout' }, new Date(base + 6100));
    await jobs.recordDelivery(gaveUp, { number: 7, status: null, error: 'no answer in 10 s <timeout>', deliveredAt: null, nextAt: null });

    const res = await v.get('/dashboard/jobs');
    expect(res.statusCode).toBe(200);
    const page = res.payload;

    // Newest first.
    const order = [...page.matchAll(/<tr data-job-id="([^"]+)"/g)].map((m) => m[1]);
    expect(order).toEqual([viaApi, gaveUp, delivered, failed, expired, running, waiting]);

    // Hostile text is escaped everywhere: external_id, the target URL, the error message, the webhook error.
    expect(page).not.toContain('<script>alert');
    expect(page).not.toContain('<b>at</b>');
    expect(page).not.toContain('<timeout>');
    const api = rowOf(page, viaApi);
    expect(api).toContain('<td class="external-id">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</td>');
    expect(api).toContain('<td class="url"><span class="muted">html</span></td>');
    expect(api).toContain('<span class="job-status succeeded">succeeded</span>');
    expect(api).toContain('<td>1.2 s</td>');
    // The stored file's link, made absolute against the origin the job was queued on, in a new tab.
    expect(api).toContain(
      '<a class="result-link" href="http://localhost/v1/files/abc.png?expires=1&amp;sig=s" target="_blank" rel="noopener noreferrer">png · 12.3 kB</a>',
    );
    expect(api).toContain(`until <time datetime="${expiresAt}">`);
    expect(api).toContain('<td class="webhook"><span class="muted">none</span></td>');

    expect(rowOf(page, waiting)).toContain('<span class="job-status queued">queued</span>');
    expect(rowOf(page, waiting)).toContain('<td class="webhook"><span class="muted">when the job ends</span></td>');
    expect(rowOf(page, waiting)).toContain('<td class="outcome"><span class="muted">–</span></td>');

    const run = rowOf(page, running);
    expect(run).toContain('<span class="job-status running">running</span>');
    expect(run).toMatch(/<span class="muted">running for<\/span> 1 min 0[5-9] s/);
    expect(run).toContain('<td class="url">https://example.com/a&quot;b&lt;c&gt;</td>');

    const old = rowOf(page, expired);
    expect(old).toContain('<td>400 ms</td>');
    expect(old).toMatch(/<span class="muted">pdf · 900 B, expired <time datetime="[^"]+">/);
    expect(old).not.toContain('<a ');

    const fail = rowOf(page, failed);
    expect(fail).toContain('<span class="job-status failed">failed</span>');
    expect(fail).toContain('<td>250 ms</td>');
    expect(fail).toContain(
      '<code class="error-text">navigation_failed</code><small class="job-error">net::ERR_NAME_NOT_RESOLVED &lt;b&gt;at&lt;/b&gt; example.com</small>',
    );
    expect(fail).toContain('<span class="hook-failing">2 attempts</span><small>last: HTTP 503</small>');
    expect(fail).toContain(`<small class="muted">next attempt <time datetime="${nextAt.toISOString()}">`);

    const ok = rowOf(page, delivered);
    expect(ok).toContain(`<span class="hook-delivered">delivered</span><small><time datetime="${deliveredAt.toISOString()}">`);
    expect(ok).toContain('<small class="muted">3 attempts, HTTP 200</small>');
    expect(ok).toContain('href="http://shutter.test/v1/files/abc.png?expires=1&amp;sig=s"');
    expect(ok).not.toContain('until');

    const lost = rowOf(page, gaveUp);
    expect(lost).toContain('<small>last: no answer in 10 s &lt;timeout&gt;</small><small class="error-text">gave up</small>');
  });

  it("never shows another account's jobs", async () => {
    const mine = await signUp('mine@example.com');
    const theirs = await signUp('theirs@example.com');
    const a = await takeForm(mine.key, 'async=1&url=https://example.com/mine&external_id=mine-1');
    const b = await takeForm(theirs.key, 'async=1&url=https://example.com/theirs&external_id=theirs-1');
    // The operator's key (the test app's own) queues one too.
    const c = await takeForm(t.key, 'async=1&html=x&external_id=operator-1');
    for (const res of [a, b, c]) expect(res.statusCode, res.payload).toBe(202);

    const page = (await mine.v.get('/dashboard/jobs')).payload;
    expect(page).toContain('mine-1');
    expect(page).not.toContain('theirs');
    expect(page).not.toContain('operator-1');
    expect(page).not.toContain((b.json() as { job_id: string }).job_id);
    expect([...page.matchAll(/<tr data-job-id=/g)]).toHaveLength(1);

    const other = (await theirs.v.get('/dashboard/jobs')).payload;
    expect(other).toContain('theirs-1');
    expect(other).not.toContain('mine-1');
  });

  it('lists the last 100 jobs, newest first', async () => {
    const { v, accountId } = await signUp('many@example.com');
    const start = Date.now() - 200_000;
    const ids: string[] = [];
    for (let i = 0; i < 105; i++) ids.push(await insert(accountId, new Date(start + i * 1000), { externalId: `n-${i}` }));
    const page = (await v.get('/dashboard/jobs')).payload;
    const shown = [...page.matchAll(/<tr data-job-id="([^"]+)"/g)].map((m) => m[1]);
    expect(shown).toEqual(ids.slice(5).reverse());
  });
});
