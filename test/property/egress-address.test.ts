import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { createAddressGuard } from '../../src/egress/address-guard.js';
import { isAddressAllowed } from '../../src/egress/address-policy.js';
import { canonicalHost, type Resolver } from '../../src/egress/resolver.js';
import { createTargetCheck } from '../../src/egress/target-check.js';
import { AppError } from '../../src/errors/app-error.js';
import { parseTakeOptions } from '../../src/options/parse-take-options.js';
import { parseCidrList } from '../../src/values/cidr.js';

/**
 * Property-based tests of the egress address checks (issue 16, "Robustness") against a reference
 * model written here from the IANA registries, independent of ipaddr.js: addresses are BigInts,
 * blocks are prefix comparisons.
 *
 * Failures print fast-check's seed and path; rerun one with
 *   fc.assert(property, { seed: <seed>, path: '<path>', endOnFailure: true })
 */

// ---------------------------------------------------------------------------------------------
// Reference model
// ---------------------------------------------------------------------------------------------

/**
 * refuse: must never be contacted. allow: must be contacted. either: IANA marks it globally
 * reachable, but it is an anycast/relay block no web page lives on, so refusing it is a
 * conservative choice the policy may make (ipaddr.js names these ranges and the policy refuses them).
 */
type Verdict = 'refuse' | 'allow' | 'either';
interface Judgement {
  verdict: Verdict;
  /** The registry entry that decided, for failure messages. */
  reason: string;
  /** Marks the addresses of the policy's former bug 1 (outside 2000::/3), which its regression property samples. */
  knownBug?: 'unallocated-v6';
}

interface Block {
  base: bigint;
  prefix: number;
  judge: (value: bigint) => Judgement;
}

const MASK32 = (1n << 32n) - 1n;
const MASK128 = (1n << 128n) - 1n;

/** "a.b.c.d" → BigInt; the model's own parser (dotted quad only). */
function v4Value(text: string): bigint {
  const parts = text.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) throw new Error(`bad model IPv4 ${text}`);
  return parts.reduce((acc, p) => (acc << 8n) | BigInt(p), 0n);
}

/** "x:y::z" → BigInt; the model's own parser (hex groups and at most one ::, no dotted tail). */
function v6Value(text: string): bigint {
  const [head = '', tail] = text.split('::');
  const h = head ? head.split(':') : [];
  const t = tail === undefined ? [] : tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  if (groups.length !== 8) throw new Error(`bad model IPv6 ${text}`);
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

const within = (value: bigint, block: Block, width: 32 | 128) => {
  const shift = BigInt(width - block.prefix);
  return value >> shift === block.base >> shift;
};

const fixed = (verdict: Verdict, reason: string) => (): Judgement => ({ verdict, reason });

const v4Block = (cidr: string, verdict: Verdict, reason: string): Block => {
  const [address, prefix] = cidr.split('/');
  return { base: v4Value(address!), prefix: Number(prefix), judge: fixed(verdict, `${cidr} ${reason}`) };
};

/**
 * IANA IPv4 Special-Purpose Address Registry (Globally Reachable column), the multicast block and
 * the reserved 240/4. More specific entries first: the first block that holds the address decides.
 */
const IPV4_BLOCKS: Block[] = [
  v4Block('192.0.0.9/32', 'either', 'Port Control Protocol anycast (globally reachable)'),
  v4Block('192.0.0.10/32', 'either', 'TURN relay anycast (globally reachable)'),
  v4Block('192.31.196.0/24', 'either', 'AS112-v4 (globally reachable)'),
  v4Block('192.52.193.0/24', 'either', 'AMT (globally reachable)'),
  v4Block('192.175.48.0/24', 'either', 'Direct Delegation AS112 (globally reachable)'),
  v4Block('192.88.99.0/24', 'either', 'deprecated 6to4 relay anycast (RFC 7526)'),
  v4Block('0.0.0.0/8', 'refuse', '"this network"'),
  v4Block('10.0.0.0/8', 'refuse', 'private-use'),
  v4Block('100.64.0.0/10', 'refuse', 'shared address space (CGNAT)'),
  v4Block('127.0.0.0/8', 'refuse', 'loopback'),
  v4Block('169.254.0.0/16', 'refuse', 'link local'),
  v4Block('172.16.0.0/12', 'refuse', 'private-use'),
  v4Block('192.0.0.0/24', 'refuse', 'IETF protocol assignments'),
  v4Block('192.0.2.0/24', 'refuse', 'documentation (TEST-NET-1)'),
  v4Block('192.168.0.0/16', 'refuse', 'private-use'),
  v4Block('198.18.0.0/15', 'refuse', 'benchmarking'),
  v4Block('198.51.100.0/24', 'refuse', 'documentation (TEST-NET-2)'),
  v4Block('203.0.113.0/24', 'refuse', 'documentation (TEST-NET-3)'),
  v4Block('224.0.0.0/4', 'refuse', 'multicast'),
  v4Block('240.0.0.0/4', 'refuse', 'reserved and limited broadcast'),
];

function judgeV4(value: bigint): Judgement {
  return IPV4_BLOCKS.find((b) => within(value, b, 32))?.judge(value) ?? { verdict: 'allow', reason: 'public IPv4' };
}

/** A prefix that carries an IPv4 address: what it reaches is that address (through a translator or relay). */
const carrying =
  (name: string, extract: (value: bigint) => bigint, whenPublic: Verdict) =>
  (value: bigint): Judgement => {
    const inner = judgeV4(extract(value));
    return inner.verdict === 'refuse'
      ? { verdict: 'refuse', reason: `${name} of ${inner.reason}` }
      : { verdict: whenPublic, reason: `${name} of ${inner.reason}` };
  };

const v6Block = (cidr: string, judge: Verdict | ((value: bigint) => Judgement), reason = ''): Block => {
  const [address, prefix] = cidr.split('/');
  return { base: v6Value(address!), prefix: Number(prefix), judge: typeof judge === 'string' ? fixed(judge, `${cidr} ${reason}`) : judge };
};

/** The reason the model gives for addresses outside 2000::/3 that no special-purpose entry names. */
const UNALLOCATED = 'outside 2000::/3, the only block IANA allocates for global unicast';

/**
 * IANA IPv6 Special-Purpose Address Registry and IPv6 Address Space registry. IPv4-mapped
 * addresses are judged as the IPv4 address they carry (the policy's documented rule); translator
 * and tunnel prefixes (NAT64, 6to4, Teredo) must be refused when what they carry is, and may be
 * refused always.
 */
const IPV6_BLOCKS: Block[] = [
  v6Block('::ffff:0:0/96', (value) => {
    const inner = judgeV4(value & MASK32);
    return { verdict: inner.verdict, reason: `IPv4-mapped ${inner.reason}` };
  }),
  v6Block('::/128', 'refuse', 'unspecified'),
  v6Block('::1/128', 'refuse', 'loopback'),
  v6Block('::/96', 'refuse', 'IPv4-compatible (deprecated, RFC 4291)'),
  v6Block('::ffff:0:0:0/96', 'refuse', 'IPv4-translated (RFC 6145)'),
  v6Block(
    '64:ff9b::/96',
    carrying('NAT64 (RFC 6052)', (v) => v & MASK32, 'either'),
  ),
  v6Block('64:ff9b:1::/48', 'refuse', 'local-use NAT64 (RFC 8215)'),
  v6Block('100::/64', 'refuse', 'discard-only'),
  v6Block('100:0:0:1::/64', () => ({ verdict: 'refuse', reason: '100:0:0:1::/64 dummy prefix (RFC 9780)', knownBug: 'unallocated-v6' })),
  v6Block('2001:1::1/128', 'either', 'Port Control Protocol anycast (globally reachable)'),
  v6Block('2001:1::2/128', 'either', 'TURN relay anycast (globally reachable)'),
  v6Block('2001:1::3/128', 'either', 'DNS-SD SRP anycast (globally reachable)'),
  v6Block('2001:3::/32', 'either', 'AMT (globally reachable)'),
  v6Block('2001:4:112::/48', 'either', 'AS112-v6 (globally reachable)'),
  v6Block('2001:20::/28', 'either', 'ORCHIDv2 (globally reachable)'),
  v6Block('2001:30::/28', 'either', 'Drone Remote ID tags (globally reachable)'),
  v6Block(
    '2001::/32',
    carrying('Teredo', (v) => ~v & MASK32, 'either'),
  ),
  v6Block('2001:2::/48', 'refuse', 'benchmarking'),
  v6Block('2001:10::/28', 'refuse', 'deprecated ORCHID'),
  v6Block('2001::/23', 'refuse', 'IETF protocol assignments'),
  v6Block('2001:db8::/32', 'refuse', 'documentation'),
  v6Block(
    '2002::/16',
    carrying('6to4', (v) => (v >> 80n) & MASK32, 'either'),
  ),
  v6Block('2620:4f:8000::/48', 'either', 'Direct Delegation AS112 (globally reachable)'),
  v6Block('3fff::/20', 'refuse', 'documentation (RFC 9637)'),
  v6Block('5f00::/16', 'refuse', 'SRv6 SIDs (RFC 9602)'),
  v6Block('fc00::/7', 'refuse', 'unique local'),
  v6Block('fe80::/10', 'refuse', 'link-local unicast'),
  v6Block('fec0::/10', 'refuse', 'deprecated site-local'),
  v6Block('ff00::/8', 'refuse', 'multicast'),
];

const GLOBAL_UNICAST = v6Block('2000::/3', 'allow');

function judgeV6(value: bigint): Judgement {
  const block = IPV6_BLOCKS.find((b) => within(value, b, 128));
  if (block) return block.judge(value);
  return within(value, GLOBAL_UNICAST, 128)
    ? { verdict: 'allow', reason: 'global unicast' }
    : { verdict: 'refuse', reason: UNALLOCATED, knownBug: 'unallocated-v6' };
}

/** An operator's allowed network, as the model sees it. */
interface ModelNet {
  family: 4 | 6;
  base: bigint;
  prefix: number;
}

/** The policy for an address with operator exceptions: mapped → IPv4 first, then an exception of the same family opens it. */
function judge(family: 4 | 6, value: bigint, allowed: readonly ModelNet[] = []): Judgement {
  if (family === 6 && value >> 32n === 0xffffn) return judge(4, value & MASK32, allowed);
  const width = family === 4 ? 32 : 128;
  const net = allowed.find(
    (n) => n.family === family && within(value, { base: n.base, prefix: n.prefix, judge: fixed('allow', '') }, width),
  );
  if (net) return { verdict: 'allow', reason: 'inside an allowed network' };
  return family === 4 ? judgeV4(value) : judgeV6(value);
}

/** What the policy answered agrees with the model's verdict. */
const agrees = (allowedByPolicy: boolean, j: Judgement) => j.verdict === 'either' || allowedByPolicy === (j.verdict === 'allow');

// ---------------------------------------------------------------------------------------------
// Generators: addresses as numbers, biased towards the registries' blocks and their edges
// ---------------------------------------------------------------------------------------------

/** A number inside (or just outside) one of the blocks: the edges are where off-by-one errors live. */
function nearBlocks(blocks: readonly Block[], width: 32 | 128): fc.Arbitrary<bigint> {
  const max = width === 32 ? MASK32 : MASK128;
  return fc
    .record({
      block: fc.constantFrom(...blocks),
      where: fc.constantFrom('start', 'end', 'inside', 'before', 'after'),
      offset: fc.bigInt(0n, 3n),
      random: fc.bigInt(0n, max),
    })
    .map(({ block, where, offset, random }) => {
      const hostBits = BigInt(width - block.prefix);
      const size = 1n << hostBits;
      const start = (block.base >> hostBits) << hostBits;
      const end = start + size - 1n;
      const value =
        where === 'start'
          ? start + (offset % size)
          : where === 'end'
            ? end - (offset % size)
            : where === 'inside'
              ? start + (random % size)
              : where === 'before'
                ? start - 1n - offset
                : end + 1n + offset;
      return ((value % (max + 1n)) + (max + 1n)) % (max + 1n);
    });
}

const ipv4Value: fc.Arbitrary<bigint> = fc.oneof(
  { weight: 2, arbitrary: fc.bigInt(0n, MASK32) },
  { weight: 3, arbitrary: nearBlocks(IPV4_BLOCKS, 32) },
);

/** IPv6 values with an IPv4 address inside a prefix that carries one. */
const carried = (prefix: bigint, place: (v4: bigint) => bigint) => ipv4Value.map((v4) => prefix | place(v4));

const ipv6Value: fc.Arbitrary<bigint> = fc.oneof(
  { weight: 2, arbitrary: fc.bigInt(0n, MASK128) },
  { weight: 2, arbitrary: fc.bigInt(0n, MASK128).map((v) => (v & ((1n << 125n) - 1n)) | (1n << 125n)) }, // 2000::/3
  { weight: 4, arbitrary: nearBlocks([...IPV6_BLOCKS, GLOBAL_UNICAST], 128) },
  { weight: 2, arbitrary: carried(0xffffn << 32n, (v4) => v4) }, // ::ffff:a.b.c.d
  { weight: 1, arbitrary: carried(0n, (v4) => v4) }, // ::a.b.c.d
  { weight: 1, arbitrary: carried(0xffffn << 48n, (v4) => v4) }, // ::ffff:0:a.b.c.d
  { weight: 1, arbitrary: carried(v6Value('64:ff9b::'), (v4) => v4) },
  { weight: 1, arbitrary: carried(v6Value('2002::'), (v4) => v4 << 80n) },
  { weight: 1, arbitrary: carried(v6Value('2001::'), (v4) => ~v4 & MASK32) },
);

// ---------------------------------------------------------------------------------------------
// Spellings: the same number written the ways resolvers, URLs and attackers write it
// ---------------------------------------------------------------------------------------------

const dottedQuad = (v: bigint) => [24n, 16n, 8n, 0n].map((s) => (v >> s) & 0xffn).join('.');

const groupsOf = (v: bigint) => [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((s) => Number((v >> s) & 0xffffn));

interface V6Style {
  /** Index of the run of zero groups to write as ::, among the runs present (none when out of range). */
  compress: number;
  pad: boolean;
  upper: boolean;
  dottedTail: boolean;
}

/** An IPv6 text form (RFC 4291 §2.2): any zero run compressed, optional zero padding, case and dotted IPv4 tail. */
function v6Text(v: bigint, style: V6Style): string {
  const groups = groupsOf(v);
  let words = groups.map((g) => g.toString(16).padStart(style.pad ? 4 : 1, '0'));
  if (style.dottedTail) words = [...words.slice(0, 6), dottedQuad(v & MASK32)];
  const runs: Array<[number, number]> = [];
  for (let i = 0; i < words.length; i++) {
    if (groups[i] === 0 && !(style.dottedTail && i >= 6)) {
      let j = i;
      while (j + 1 < words.length && groups[j + 1] === 0 && !(style.dottedTail && j + 1 >= 6)) j++;
      runs.push([i, j]);
      i = j;
    }
  }
  const run = runs[style.compress];
  let text: string;
  if (run) {
    const [a, b] = run;
    text = `${words.slice(0, a).join(':')}::${words.slice(b + 1).join(':')}`;
  } else {
    text = words.join(':');
  }
  return style.upper ? text.toUpperCase() : text;
}

const PLAIN: V6Style = { compress: 0, pad: false, upper: false, dottedTail: false };

/** BUG 2 below: an address of ::/96 written with a dotted IPv4 tail. */
const compatDotted = (v: bigint, style: V6Style) => style.dottedTail && v >> 32n === 0n;

const v6Style: fc.Arbitrary<V6Style> = fc.record({
  compress: fc.integer({ min: 0, max: 4 }),
  pad: fc.boolean(),
  upper: fc.boolean(),
  dottedTail: fc.boolean(),
});

/** One number of a WHATWG IPv4 host part: decimal, 0x hex (any case, leading zeros) or 0-prefixed octal. */
function part(value: bigint, radix: 'dec' | 'hex' | 'HEX' | 'oct', zeros: number): string {
  switch (radix) {
    case 'dec':
      return value.toString(10);
    case 'hex':
      return `0x${'0'.repeat(zeros)}${value.toString(16)}`;
    case 'HEX':
      return `0X${'0'.repeat(zeros)}${value.toString(16).toUpperCase()}`;
    case 'oct':
      return `0${'0'.repeat(zeros)}${value.toString(8)}`;
  }
}

interface V4Style {
  parts: 1 | 2 | 3 | 4;
  radixes: Array<'dec' | 'hex' | 'HEX' | 'oct'>;
  zeros: number;
  trailingDot: boolean;
}

/** The URL standard's IPv4 forms: 1–4 parts, the last one holding the remaining bytes. */
function v4HostText(v: bigint, style: V4Style): string {
  const bytes = [24n, 16n, 8n, 0n].map((s) => (v >> s) & 0xffn);
  const lead = bytes.slice(0, style.parts - 1);
  const last = v & ((1n << BigInt(8 * (5 - style.parts))) - 1n);
  const text = [...lead, last].map((p, i) => part(p, style.radixes[i % style.radixes.length]!, style.zeros)).join('.');
  return style.trailingDot ? `${text}.` : text;
}

const v4Style: fc.Arbitrary<V4Style> = fc.record({
  parts: fc.constantFrom(1 as const, 2 as const, 3 as const, 4 as const),
  radixes: fc.array(fc.constantFrom('dec' as const, 'hex' as const, 'HEX' as const, 'oct' as const), { minLength: 1, maxLength: 4 }),
  zeros: fc.integer({ min: 0, max: 3 }),
  trailingDot: fc.boolean(),
});

const FULL_WIDTH: Record<string, string> = Object.fromEntries([
  ...[...'0123456789'].map((d) => [d, String.fromCodePoint(0xff10 + Number(d))]),
  ...[...'abcdef'].map((c) => [c, String.fromCodePoint(0xff41 + c.charCodeAt(0) - 97)]),
  ['x', '\uff58'],
  ['X', '\uff38'],
]);
const DOTS = ['.', '\u3002', '\uff0e', '\uff61', '%2E', '%2e'];

/**
 * Rewrites a host the ways the URL parser undoes before it reads an IPv4 address: full-width
 * digits and letters, ideographic full stops, percent-encoding, and tab/CR/LF (stripped anywhere).
 */
function obfuscate(host: string, picks: readonly number[]): string {
  let k = 0;
  const pick = () => picks[k++ % picks.length]!;
  let out = '';
  for (const ch of host) {
    const p = pick();
    if (ch === '.') out += DOTS[p % DOTS.length];
    else if (p % 7 === 1 && FULL_WIDTH[ch]) out += FULL_WIDTH[ch];
    else if (p % 7 === 2) out += `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
    else out += ch;
    if (p % 11 === 3) out += ['\t', '\n', '\r'][p % 3];
  }
  return out;
}

const obfuscation = fc.option(fc.array(fc.nat(1000), { minLength: 1, maxLength: 20 }), { nil: undefined });

/** What comes before and after the host in a URL: the host stays the host, whatever the rest says. */
const urlFrame = fc.record({
  scheme: fc.constantFrom('http', 'https', 'HTTP', 'HtTpS'),
  userinfo: fc.constantFrom('', 'user@', 'user:pass@', 'example.com@', 'a%40b:c%3Ad@', '@', ':@'),
  port: fc.oneof(
    fc.constant(''),
    fc.constant(':'),
    fc.integer({ min: 0, max: 65535 }).map((p) => `:${p}`),
  ),
  rest: fc.constantFrom('/', '/path?q=1', '/@example.com/', '/?x=http://example.com/', '/#@example.com', '/%2e%2e/', '/a\\@example.com'),
});

const urlOf = (host: string, f: { scheme: string; userinfo: string; port: string; rest: string }) =>
  `${f.scheme}://${f.userinfo}${host}${f.port}${f.rest}`;

/** A resolver that fails the test when it is asked: literal addresses are their own answer. */
const noDns = () =>
  vi.fn<Resolver>(async (name) => {
    throw new Error(`the resolver was asked about ${name}`);
  });

async function outcome(promise: Promise<unknown>): Promise<'ok' | string> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
}

/** The target check's answer as the model predicts it: ok when allowed, target_forbidden when refused. */
function expectTargetOutcome(result: string, j: Judgement, context: string) {
  if (j.verdict === 'either') expect(['ok', 'target_forbidden'], context).toContain(result);
  else expect(result, `${context}: model says ${j.verdict} (${j.reason})`).toBe(j.verdict === 'allow' ? 'ok' : 'target_forbidden');
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

describe('the reference model itself', () => {
  // The model is only worth something if it says what the registries say on the well-known cases.
  it.each([
    ['4', '127.0.0.1', 'refuse'],
    ['4', '10.255.255.255', 'refuse'],
    ['4', '11.0.0.0', 'allow'],
    ['4', '172.15.255.255', 'allow'],
    ['4', '172.32.0.0', 'allow'],
    ['4', '100.63.255.255', 'allow'],
    ['4', '100.128.0.0', 'allow'],
    ['4', '169.254.169.254', 'refuse'],
    ['4', '192.0.0.9', 'either'],
    ['4', '223.255.255.255', 'allow'],
    ['4', '224.0.0.0', 'refuse'],
    ['4', '255.255.255.255', 'refuse'],
    ['4', '93.184.216.34', 'allow'],
    ['6', '::1', 'refuse'],
    ['6', '::ffff:7f00:1', 'refuse'],
    ['6', '::ffff:5db8:d822', 'allow'],
    ['6', '64:ff9b::7f00:1', 'refuse'],
    ['6', '64:ff9b::5db8:d822', 'either'],
    ['6', '2002:7f00:1::', 'refuse'],
    ['6', '2606:4700::1111', 'allow'],
    ['6', '2001:db8::1', 'refuse'],
    ['6', '1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'refuse'],
    ['6', '3fff:fff::', 'refuse'],
    ['6', '3fff:1000::', 'allow'],
    ['6', 'fe80::1', 'refuse'],
  ] as const)('IPv%s %s is %s', (family, text, verdict) => {
    const value = family === '4' ? v4Value(text) : v6Value(text);
    expect(judge(family === '4' ? 4 : 6, value).verdict).toBe(verdict);
  });
});

describe('isAddressAllowed agrees with the IANA reference model', () => {
  it('for IPv4 addresses', () => {
    fc.assert(
      fc.property(ipv4Value, (v) => {
        const text = dottedQuad(v);
        const j = judge(4, v);
        expect(agrees(isAddressAllowed(text, []), j), `${text}: model says ${j.verdict} (${j.reason})`).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('for IPv4-mapped IPv6 addresses, judged as the IPv4 address they carry', () => {
    fc.assert(
      fc.property(ipv4Value, v6Style, (v4, style) => {
        const text = v6Text((0xffffn << 32n) | v4, style);
        const j = judge(4, v4);
        expect(agrees(isAddressAllowed(text, []), j), `${text}: model says ${j.verdict} (${j.reason})`).toBe(true);
      }),
      { numRuns: 1500 },
    );
  });

  it('for IPv6 addresses, in any spelling', () => {
    fc.assert(
      fc.property(ipv6Value, v6Style, (v, style) => {
        const text = v6Text(v, style);
        const j = judge(6, v);
        expect(agrees(isAddressAllowed(text, []), j), `${text}: model says ${j.verdict} (${j.reason})`).toBe(true);
      }),
      { numRuns: 4000 },
    );
  });

  it('gives every spelling of an IPv6 address the verdict of its canonical form', () => {
    fc.assert(
      fc.property(ipv6Value, v6Style, (v, style) => {
        const text = v6Text(v, style);
        const canonical = canonicalHost(`[${text}]`);
        expect(canonical).toBeDefined();
        expect(isAddressAllowed(text, []), `${text} vs ${canonical}`).toBe(isAddressAllowed(canonical!, []));
      }),
      { numRuns: 1500 },
    );
  });

  // BUG 1 (found by the IPv6 property): the policy is a deny-list over ipaddr.js's named ranges,
  // so IPv6 addresses outside 2000::/3 that no range names (the space IANA keeps unallocated, e.g.
  // ::1:0:0 or 4000::1, and the dummy prefix 100:0:0:1::/64 of RFC 9780) count as "unicast" and
  // are allowed, although they are not globally routable. src/egress/address-policy.ts:24
  // (`return addr.range() === 'unicast'`). Fixed: for IPv6 the policy also requires 2000::/3.
  it('regression (bug 1, fixed): refuses IPv6 addresses outside 2000::/3 (property)', () => {
    fc.assert(
      fc.property(ipv6Value, (v) => {
        fc.pre(judge(6, v).knownBug === 'unallocated-v6');
        expect(isAddressAllowed(v6Text(v, PLAIN), [])).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it.each([
    ['::1:0:0', 'the shrunk counterexample: first address past ::/96 that no range names'],
    ['4000::1', 'unallocated, outside 2000::/3'],
    ['100::1:0:0:0:0', 'dummy IPv6 prefix 100:0:0:1::/64 (RFC 9780), shrunk counterexample of the URL and name properties'],
  ])('regression (bug 1, fixed): refuses %s (%s)', (text) => {
    expect(isAddressAllowed(text, [])).toBe(false);
  });

  // BUG 2 (found by the canonical-form property): ipaddr.js 2.5 parses the IPv4-compatible form
  // written with a dotted tail, `::a.b.c.d`, as the IPv4-mapped `::ffff:a.b.c.d`, so
  // isAddressAllowed('::100.63.255.255') is true while the same address written '::643f:ffff' is
  // false (the policy refuses ::/96 on purpose: src/egress/address-policy.ts:21). This is the form
  // the production resolver returns: c-ares (dns.Resolver, caching-resolver.ts) formats an AAAA
  // answer ::102:304 as '::1.2.3.4', so a name with such an AAAA record passes the check, and the
  // socket then connects to ::102:304, not to the address that was checked. (An embedded private
  // address is still refused, as the mapped private address.) Fix: judge the address as
  // `new URL('http://[' + a + ']').hostname` / canonicalHost(a) serialises it (no dotted tail), or
  // refuse /^::(\d+\.){3}\d+$/ before ipaddr.parse. Fixed: the policy parses the first 96 bits apart.
  it('regression (bug 2, fixed): refuses the IPv4-compatible address ::a.b.c.d in its dotted spelling (property)', () => {
    fc.assert(
      fc.property(ipv4Value, (v4) => {
        expect(isAddressAllowed(`::${dottedQuad(v4)}`, []), `::${dottedQuad(v4)}`).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it.each([
    ['::100.63.255.255', 'the shrunk counterexample (::643f:ffff is refused)'],
    ['::1.2.3.4', 'what c-ares answers for an AAAA record ::102:304'],
  ])('regression (bug 2, fixed): refuses %s (%s)', (text) => {
    expect(isAddressAllowed(text, [])).toBe(false);
  });

  it('judges a scoped (zone id) address like the address itself', () => {
    fc.assert(
      fc.property(ipv6Value, fc.stringMatching(/^[a-z0-9]{1,8}$/), (v, zone) => {
        const text = v6Text(v, PLAIN);
        expect(isAddressAllowed(`${text}%${zone}`, [])).toBe(isAddressAllowed(text, []));
      }),
      { numRuns: 500 },
    );
  });

  it('never throws and refuses anything that is not an address', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.stringMatching(/^[0-9a-fA-FxX.:%[\]]{0,45}$/)), (text) => {
        const result = isAddressAllowed(text, []);
        expect(typeof result).toBe('boolean');
        // Only something a resolver could answer may be allowed: a plain IPv4 or IPv6 address.
        if (result) expect(/^[0-9a-fA-FxX.:]+(%.*)?$/s.test(text), text).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('operator exceptions (SHUTTER_ALLOWED_PRIVATE_NETWORKS)', () => {
  const v4Net = fc.record({ value: ipv4Value, prefix: fc.integer({ min: 0, max: 32 }) }).map(({ value, prefix }) => {
    const base = prefix === 0 ? 0n : (value >> BigInt(32 - prefix)) << BigInt(32 - prefix);
    return { text: `${dottedQuad(base)}/${prefix}`, net: { family: 4 as const, base, prefix } };
  });
  const v6Net = fc.record({ value: ipv6Value, prefix: fc.integer({ min: 0, max: 128 }) }).map(({ value, prefix }) => {
    const base = prefix === 0 ? 0n : (value >> BigInt(128 - prefix)) << BigInt(128 - prefix);
    return {
      text: `${v6Text(base, PLAIN)}/${prefix}`,
      net: { family: 6 as const, base, prefix },
    };
  });

  it('an exception opens exactly its network, and nothing else changes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(v4Net, v6Net), { maxLength: 4 }),
        fc.oneof(
          ipv4Value.map((v) => ({ family: 4 as const, v })),
          ipv6Value.map((v) => ({ family: 6 as const, v })),
        ),
        (nets, { family, v }) => {
          const allowed = parseCidrList(nets.map((n) => n.text).join(', '));
          const text = family === 4 ? dottedQuad(v) : v6Text(v, PLAIN);
          const j = judge(
            family,
            v,
            nets.map((n) => n.net),
          );
          expect(agrees(isAddressAllowed(text, allowed), j), `${text} with ${nets.map((n) => n.text).join(', ')}: ${j.reason}`).toBe(true);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('the target check on literal addresses in URLs', () => {
  it('reads every URL spelling of an IPv4 address as that address, without DNS', async () => {
    await fc.assert(
      fc.asyncProperty(ipv4Value, v4Style, obfuscation, urlFrame, async (v, style, picks, frame) => {
        const plain = v4HostText(v, style);
        const host = picks ? obfuscate(plain, picks) : plain;
        const url = urlOf(host, frame);
        const resolve = noDns();
        const result = await outcome(createTargetCheck([], resolve)(url));
        expectTargetOutcome(result, judge(4, v), `${JSON.stringify(url)} (${dottedQuad(v)})`);
        expect(resolve).not.toHaveBeenCalled();
      }),
      { numRuns: 2000 },
    );
  });

  it('reads every URL spelling of an IPv6 address as that address, without DNS', async () => {
    await fc.assert(
      fc.asyncProperty(ipv6Value, v6Style, urlFrame, async (v, style, frame) => {
        const j = judge(6, v);
        const url = urlOf(`[${v6Text(v, style)}]`, frame);
        const resolve = noDns();
        expectTargetOutcome(await outcome(createTargetCheck([], resolve)(url)), j, JSON.stringify(url));
        expect(resolve).not.toHaveBeenCalled();
      }),
      { numRuns: 2000 },
    );
  });

  it('the egress guard (CONNECT authorities, no brackets) agrees with the model on the same spellings', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.tuple(ipv4Value, v4Style, obfuscation).map(([v, style, picks]) => {
            const plain = v4HostText(v, style);
            return { host: picks ? obfuscate(plain, picks) : plain, j: judge(4, v) };
          }),
          fc.tuple(ipv6Value, v6Style, fc.boolean()).map(([v, style, brackets]) => {
            const text = v6Text(v, style);
            return { host: brackets ? `[${text}]` : text, j: judge(6, v) };
          }),
        ),
        async ({ host, j }) => {
          const resolve = noDns();
          const verdict = await createAddressGuard({ allowed: [], resolve })(host);
          expect(agrees(verdict.ok, j), `${JSON.stringify(host)}: model says ${j.verdict} (${j.reason})`).toBe(true);
          if (!verdict.ok) expect(verdict.reason).toBe('forbidden');
          expect(resolve).not.toHaveBeenCalled();
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('the target check on names', () => {
  const label = fc.stringMatching(/^[a-z][a-z0-9]{0,10}(-[a-z0-9]{1,5})?$/);
  const name = fc.record({
    labels: fc.array(label, { minLength: 1, maxLength: 3 }),
    tld: fc.constantFrom('com', 'example', 'test', 'internal', 'local', 'localhost', 'xn--p1ai', 'invalid'),
    trailingDot: fc.boolean(),
    upper: fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
  });
  // Resolvers answer in any text form (c-ares writes ::/96 with a dotted tail, see BUG 2).
  const answer = fc.oneof(
    ipv4Value.map((v) => ({ text: dottedQuad(v), j: judge(4, v), compatDotted: false })),
    fc.tuple(ipv6Value, v6Style).map(([v, style]) => ({ text: v6Text(v, style), j: judge(6, v), compatDotted: compatDotted(v, style) })),
  );

  it('refuses a name when any address it resolves to is refused (or none), allows it when all are allowed', async () => {
    await fc.assert(
      fc.asyncProperty(name, fc.array(answer, { maxLength: 4 }), urlFrame, async (n, answers, frame) => {
        const canonical = [...n.labels, n.tld].join('.');
        const written = [...`${canonical}${n.trailingDot ? '.' : ''}`]
          .map((c, i) => (n.upper[i % n.upper.length] ? c.toUpperCase() : c))
          .join('');
        const asked: string[] = [];
        const resolve: Resolver = async (host) => {
          asked.push(host);
          // As in DNS, the trailing dot names the same host.
          if (host.replace(/\.$/, '') !== canonical) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
          return answers.map((a) => a.text);
        };
        const url = urlOf(written, frame);
        const result = await outcome(createTargetCheck([], resolve)(url));
        const context = `${JSON.stringify(url)} → ${JSON.stringify(answers.map((a) => `${a.text} (${a.j.verdict}: ${a.j.reason})`))}`;
        if (n.tld === 'invalid') {
          // RFC 6761: .invalid is never asked of DNS.
          expect(result, context).toBe('navigation_failed');
          expect(asked).toEqual([]);
        } else if (answers.length === 0 || answers.some((a) => a.j.verdict === 'refuse')) {
          expect(result, context).toBe('target_forbidden');
        } else if (answers.every((a) => a.j.verdict === 'allow')) {
          expect(result, context).toBe('ok');
        } else {
          expect(['ok', 'target_forbidden'], context).toContain(result);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('the target check behind the option parser', () => {
  // Whatever URL the option parser lets through, the target check answers from the error table.
  const adversarialUrl = fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary' }),
    fc
      .tuple(
        fc.constantFrom(
          'http://',
          'https://',
          'HTTP://',
          'http:',
          'http:/',
          'http:\\\\',
          'https:///',
          ' http://',
          'ftp://',
          'file://',
          'javascript:',
        ),
        fc.string({
          unit: fc.constantFrom(..."0123456789abcdefx.:[]@%/\\?#-_~!$&'()*+,;= \t\n\u3002\uff10\u00ad\u200b\u0000"),
          maxLength: 40,
        }),
      )
      .map(([scheme, rest]) => scheme + rest),
  );

  it('never throws anything but an AppError, for any URL the option parser accepts', async () => {
    await fc.assert(
      fc.asyncProperty(
        adversarialUrl,
        fc.array(fc.oneof(ipv4Value.map(dottedQuad), fc.string({ maxLength: 20 })), { maxLength: 3 }),
        async (url, answers) => {
          try {
            parseTakeOptions({ url }, { countries: [] });
          } catch (error) {
            expect(error).toBeInstanceOf(AppError);
            return;
          }
          const result = await outcome(createTargetCheck([], async () => answers)(url));
          expect(['ok', 'target_forbidden', 'navigation_failed']).toContain(result);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
