import { describe, expect, it, vi } from 'vitest';
import { parseCidrList } from '../../src/values/cidr.js';
import { createTargetCheck, type Resolver } from '../../src/egress/target-check.js';
import { AppError } from '../../src/errors/app-error.js';

/** A resolver answering from a table; unknown hosts fail like ENOTFOUND. */
function fakeResolver(table: Record<string, string[]>) {
  return vi.fn<Resolver>(async (hostname) => {
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses;
  });
}

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  let thrown: unknown;
  try {
    await promise;
  } catch (e) {
    thrown = e;
  }
  expect(thrown).toBeInstanceOf(AppError);
  return thrown as AppError;
}

const TABLE: Record<string, string[]> = {
  'example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'v6.example': ['2606:4700::1111'],
  localhost: ['127.0.0.1', '::1'],
  'internal.example': ['10.0.0.5'],
  'metadata.example': ['169.254.169.254'],
  'mixed.example': ['93.184.216.34', '192.168.1.10'],
  'mapped.example': ['::ffff:127.0.0.1'],
  'ula.example': ['fd00::1'],
  'empty.example': [],
};

describe('createTargetCheck', () => {
  it('allows a host whose addresses are all public', async () => {
    const resolve = fakeResolver(TABLE);
    const check = createTargetCheck([], resolve);
    await expect(check('https://example.com/page?q=1')).resolves.toBeUndefined();
    await expect(check('http://v6.example:8080/')).resolves.toBeUndefined();
    expect(resolve).toHaveBeenCalledWith('example.com');
    expect(resolve).toHaveBeenCalledWith('v6.example');
  });

  it.each(['localhost', 'internal.example', 'metadata.example', 'mapped.example', 'ula.example'])(
    '%s resolves to a private address → 403 target_forbidden',
    async (host) => {
      const error = await rejection(createTargetCheck([], fakeResolver(TABLE))(`http://${host}/`));
      expect(error.code).toBe('target_forbidden');
      expect(error.status).toBe(403);
      expect(error.message).toContain(host);
    },
  );

  it('one private address among public ones is enough to refuse', async () => {
    const error = await rejection(createTargetCheck([], fakeResolver(TABLE))('https://mixed.example/'));
    expect(error.code).toBe('target_forbidden');
  });

  it('no addresses at all → target_forbidden', async () => {
    const error = await rejection(createTargetCheck([], fakeResolver(TABLE))('https://empty.example/'));
    expect(error.code).toBe('target_forbidden');
  });

  it('a resolver failure → 422 navigation_failed naming the host, without the resolver text', async () => {
    const error = await rejection(createTargetCheck([], fakeResolver(TABLE))('https://no-such-host.example/'));
    expect(error.code).toBe('navigation_failed');
    expect(error.status).toBe(422);
    expect(error.message).toBe('could not resolve the host no-such-host.example (ERR_NAME_NOT_RESOLVED)');
    expect(error.extra.facts).toEqual({ error: 'ERR_NAME_NOT_RESOLVED', kind: 'dns' });
  });

  it.each([
    ['http://127.0.0.1:8080/', '127.0.0.1'],
    ['http://10.1.2.3/', '10.1.2.3'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254'],
    ['http://[::1]/', '::1'],
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
    ['http://[fd00::1]:3000/', 'fd00::1'],
    ['http://2130706433/', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://0/', '0.0.0.0'],
  ])('the literal address in %s is refused without DNS', async (url, host) => {
    const resolve = fakeResolver(TABLE);
    const error = await rejection(createTargetCheck([], resolve)(url));
    expect(error.code).toBe('target_forbidden');
    expect(error.message).toContain(host);
    expect(resolve).not.toHaveBeenCalled();
  });

  it.each(['http://93.184.216.34/', 'https://[2606:4700::1111]/path'])(
    'the public literal address in %s is allowed without DNS',
    async (url) => {
      const resolve = fakeResolver(TABLE);
      await expect(createTargetCheck([], resolve)(url)).resolves.toBeUndefined();
      expect(resolve).not.toHaveBeenCalled();
    },
  );

  it.each(['file:///etc/passwd', 'ftp://example.com/', 'javascript:alert(1)', 'data:text/html,x', 'gopher://example.com/'])(
    'the scheme of %s is refused',
    async (url) => {
      const resolve = fakeResolver(TABLE);
      const error = await rejection(createTargetCheck([], resolve)(url));
      expect(error.code).toBe('target_forbidden');
      expect(error.message).toContain('scheme');
      expect(resolve).not.toHaveBeenCalled();
    },
  );

  it('allowed networks open private targets, by name and by literal address', async () => {
    const check = createTargetCheck(parseCidrList('127.0.0.0/8,::1'), fakeResolver(TABLE));
    await expect(check('http://127.0.0.1:4000/')).resolves.toBeUndefined();
    await expect(check('http://localhost:4000/')).resolves.toBeUndefined();
    await expect(check('http://mapped.example/')).resolves.toBeUndefined();
    expect((await rejection(check('http://internal.example/'))).code).toBe('target_forbidden');
    expect((await rejection(check('http://10.0.0.5/'))).code).toBe('target_forbidden');
  });

  it('an allowed network that covers only some of the addresses still refuses', async () => {
    // localhost resolves to 127.0.0.1 and ::1; only the IPv4 loopback is opened.
    const check = createTargetCheck(parseCidrList('127.0.0.0/8'), fakeResolver(TABLE));
    expect((await rejection(check('http://localhost/'))).code).toBe('target_forbidden');
  });

  it('resolves the bare host name, without port, brackets or credentials', async () => {
    const resolve = fakeResolver(TABLE);
    await createTargetCheck([], resolve)('https://user:pw@EXAMPLE.com:8443/a');
    expect(resolve).toHaveBeenCalledTimes(1);
    expect(resolve).toHaveBeenCalledWith('example.com');
  });
});
