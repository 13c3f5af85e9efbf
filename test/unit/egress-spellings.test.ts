import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { isAddressAllowed } from '../../src/egress/address-policy.js';
import { EgressGate } from '../../src/egress/egress-gate.js';
import { canonicalHost, staticResolver, type Resolver } from '../../src/egress/resolver.js';
import { createTargetCheck } from '../../src/egress/target-check.js';
import { AppError } from '../../src/errors/app-error.js';

/**
 * Every way of writing a forbidden address that has been used to slip past SSRF deny-lists:
 * each must be refused both by the early target check and by the egress proxy's gate, and the
 * numeric ones without ever asking a resolver (they are addresses, not names).
 */

/** [spelling as it appears in a URL's host, what it is] */
const SPELLINGS: Array<[string, string]> = [
  ['127.0.0.1', 'loopback'],
  ['127.1', 'loopback, short form'],
  ['127.0.1', 'loopback, short form'],
  ['2130706433', 'loopback, decimal'],
  ['0x7f000001', 'loopback, hex'],
  ['0X7F000001', 'loopback, upper-case hex'],
  ['0x7f.1', 'loopback, hex short'],
  ['0x7f.0.0.1', 'loopback, hex first part'],
  ['0x7f.0x0.0x0.0x1', 'loopback, hex parts'],
  ['0177.0.0.1', 'loopback, octal first part'],
  ['0177.1', 'loopback, octal short'],
  ['017700000001', 'loopback, octal'],
  ['0177.0x0.0.01', 'loopback, mixed octal/hex/decimal'],
  ['127.000.000.001', 'loopback, zero-padded'],
  ['127.0.0.1.', 'loopback, trailing dot'],
  ['127.255.255.254', 'loopback, end of 127/8'],
  ['１２７.０.０.１', 'loopback, full-width digits'],
  ['127。0。0。1', 'loopback, ideographic full stops'],
  ['127%2E0%2E0%2E1', 'loopback, percent-encoded dots'],
  ['0', 'unspecified (reaches the local host on Linux)'],
  ['0.0.0.0', 'unspecified'],
  ['0x0', 'unspecified, hex'],
  ['00', 'unspecified, octal'],
  ['0.0', 'unspecified, short'],
  ['[::1]', 'IPv6 loopback'],
  ['[0:0:0:0:0:0:0:1]', 'IPv6 loopback, long form'],
  ['[::0001]', 'IPv6 loopback, zero-padded'],
  ['[::]', 'IPv6 unspecified'],
  ['[::ffff:127.0.0.1]', 'IPv4-mapped loopback'],
  ['[::ffff:7f00:1]', 'IPv4-mapped loopback, hex'],
  ['[0:0:0:0:0:ffff:127.0.0.1]', 'IPv4-mapped loopback, long form'],
  ['[::ffff:0:7f00:1]', 'IPv4-translated loopback (RFC 6145)'],
  ['[::127.0.0.1]', 'IPv4-compatible loopback (deprecated)'],
  ['[::7f00:1]', 'IPv4-compatible loopback, hex'],
  ['[64:ff9b::127.0.0.1]', 'NAT64 of loopback'],
  ['[64:ff9b::7f00:1]', 'NAT64 of loopback, hex'],
  ['[64:ff9b:1::a00:1]', 'local-use NAT64 (RFC 8215)'],
  ['[2002:7f00:1::]', '6to4 of loopback'],
  ['[2001:0:4136:e378:8000:63bf:80ff:fffe]', 'Teredo'],
  ['[fe80::1]', 'IPv6 link-local'],
  ['[fc00::1]', 'unique local'],
  ['[fd12:3456::1]', 'unique local'],
  ['[ff02::1]', 'IPv6 multicast'],
  ['[::ffff:169.254.169.254]', 'IPv4-mapped cloud metadata'],
  ['[::ffff:a9fe:a9fe]', 'IPv4-mapped cloud metadata, hex'],
  ['[100::1]', 'IPv6 discard prefix'],
  ['10.0.0.1', 'RFC 1918'],
  ['012.0.0.1', 'RFC 1918, octal'],
  ['0xa.0.0.1', 'RFC 1918, hex'],
  ['167772161', 'RFC 1918, decimal'],
  ['10.1', 'RFC 1918, short'],
  ['172.16.0.1', 'RFC 1918'],
  ['0xac.0x10.0.1', 'RFC 1918, hex'],
  ['2886729729', 'RFC 1918, decimal'],
  ['192.168.0.1', 'RFC 1918'],
  ['3232235521', 'RFC 1918, decimal'],
  ['0xc0a80001', 'RFC 1918, hex'],
  ['0300.0250.0.1', 'RFC 1918, octal'],
  ['192.168.1', 'RFC 1918, short'],
  ['169.254.169.254', 'cloud metadata'],
  ['2852039166', 'cloud metadata, decimal'],
  ['0xa9fea9fe', 'cloud metadata, hex'],
  ['0xa9.0xfe.0xa9.0xfe', 'cloud metadata, hex parts'],
  ['0251.0376.0251.0376', 'cloud metadata, octal parts'],
  ['100.64.0.1', 'CGNAT'],
  ['100.127.255.254', 'CGNAT, end'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking, end'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast (SSDP)'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  ['192.0.0.1', 'IETF protocol assignments'],
  ['192.0.2.1', 'documentation'],
  ['198.51.100.1', 'documentation'],
  ['203.0.113.1', 'documentation'],
];

/** Names that resolve to forbidden addresses, as a resolver would answer them. */
const NAMES: Array<[string, string]> = [
  ['localhost', 'the loopback name'],
  ['LOCALHOST', 'upper case'],
  ['localhost.', 'trailing dot'],
  ['ⓛⓞⓒⓐⓛⓗⓞⓢⓣ', 'circled letters (IDNA maps them to localhost)'],
  ['metadata.google.internal', 'cloud metadata name'],
  ['mixed.example', 'one public and one private address'],
  ['mapped.example', 'an IPv4-mapped answer'],
];

const resolver = staticResolver({
  localhost: ['127.0.0.1', '::1'],
  'metadata.google.internal': '169.254.169.254',
  'mixed.example': ['93.184.216.34', '10.0.0.7'],
  'mapped.example': '::ffff:127.0.0.1',
});

const gate = (resolve: Resolver) => new EgressGate({ allowed: [], resolve, logger: pino({ level: 'silent' }), isOwnPort: () => false });

async function targetCheckError(url: string, resolve: Resolver): Promise<AppError> {
  try {
    await createTargetCheck([], resolve)(url);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error(`${url} was allowed`);
}

describe('bypass spellings', () => {
  it('the table is the one promised: at least 50 address spellings', () => {
    expect(SPELLINGS.length + NAMES.length).toBeGreaterThanOrEqual(50);
  });

  it.each(SPELLINGS)('%s (%s) is refused by the target check, without DNS', async (host) => {
    const resolve = vi.fn<Resolver>(async () => ['93.184.216.34']);
    const error = await targetCheckError(`http://${host}:8080/path`, resolve);
    expect(error.code).toBe('target_forbidden');
    expect(resolve).not.toHaveBeenCalled();
  });

  it.each(SPELLINGS)('%s (%s) is refused by the proxy gate, without DNS', async (host) => {
    const resolve = vi.fn<Resolver>(async () => ['93.184.216.34']);
    const g = gate(resolve);
    // CONNECT authorities carry no brackets for the gate; both forms must be refused.
    expect(await g.check(host, 443)).toBeUndefined();
    expect(await g.check(host.replace(/^\[|\]$/g, ''), 443)).toBeUndefined();
    expect(resolve).not.toHaveBeenCalled();
    expect(g.refused).toBe(2);
  });

  it.each(SPELLINGS)('%s (%s) reads as a forbidden address', (host) => {
    const canonical = canonicalHost(host);
    expect(canonical).toBeDefined();
    expect(isAddressAllowed(canonical!, [])).toBe(false);
  });

  it.each(NAMES)('the name %s (%s) is refused by the target check and the gate', async (host) => {
    expect((await targetCheckError(`https://${host}/`, resolver)).code).toBe('target_forbidden');
    const g = gate(resolver);
    expect(await g.check(host, 443)).toBeUndefined();
    expect(g.refused).toBe(1);
  });

  it.each([
    ['http://example.com@127.0.0.1/', 'credentials before the host'],
    ['http://127.0.0.1#@example.com/', 'a fragment that looks like credentials'],
    ['http://127.0.0.1\\@example.com/', 'a backslash'],
    ['http://127.0.0.1:80\\@example.com/', 'a backslash after the port'],
    ['HTTP://127.0.0.1/', 'an upper-case scheme'],
    ['http:/127.0.0.1/', 'a single slash'],
    ['http:\\\\127.0.0.1\\', 'backslashes as slashes'],
    ['http://[::1]:80/', 'an explicit default port'],
  ])('the URL %s (%s) is refused', async (url) => {
    expect((await targetCheckError(url, resolver)).code).toBe('target_forbidden');
  });

  it('public addresses in unusual spellings stay allowed (the check is on the address, not the text)', async () => {
    const check = createTargetCheck([], resolver);
    await expect(check('http://1572395042/')).resolves.toBeUndefined(); // 93.184.216.34
    await expect(check('http://0x5db8d822/')).resolves.toBeUndefined();
    await expect(check('http://[::ffff:93.184.216.34]/')).resolves.toBeUndefined();
  });
});
