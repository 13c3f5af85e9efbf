import { pbkdf2 } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCachingResolver } from '../../src/egress/caching-resolver.js';
import { parseDnsServers } from '../../src/values/dns-servers.js';
import { parseHosts } from '../../src/egress/hosts-file.js';
import { parseResolvConf, searchCandidates } from '../../src/egress/resolv-conf.js';
import { startDnsStub, type DnsStub } from '../helpers/dns-stub.js';

let dns: DnsStub;
let dir: string;
let hostsPath: string;
let noSearch: string;

beforeAll(async () => {
  dns = await startDnsStub();
  dir = await mkdtemp(join(tmpdir(), 'shutter-dns-'));
  hostsPath = join(dir, 'hosts');
  noSearch = join(dir, 'resolv-none.conf');
  await writeFile(hostsPath, '127.0.0.1 localhost\n10.9.8.7 intranet.example wiki # a comment\n::1 localhost\n');
  await writeFile(noSearch, 'nameserver 127.0.0.1\n');
});

afterAll(async () => {
  await dns?.close();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(() => {
  dns.queries.length = 0;
});

const resolverFor = (options: { timeoutMs?: number; errorTtlMs?: number; resolvConfPath?: string } = {}) =>
  createCachingResolver({ timeoutMs: 1000, servers: [dns.server], hostsPath, resolvConfPath: noSearch, ...options });

const codeOf = async (p: Promise<unknown>) =>
  p.then(
    () => 'resolved',
    (e: { code?: string }) => e.code,
  );

describe('the egress resolver', () => {
  it('thirty lookups of one host in flight make one query of each family, all answered alike', async () => {
    dns.set('cdn.example', { answer: { a: ['93.184.216.34'], aaaa: ['2606:2800:220:1::1'], ttl: 60 }, delayMs: 100 });
    const resolve = resolverFor();
    const answers = await Promise.all(Array.from({ length: 30 }, () => resolve('cdn.example')));
    for (const answer of answers) expect(answer).toEqual(['93.184.216.34', '2606:2800:220:1::1']);
    expect(dns.count('cdn.example', 'A')).toBe(1);
    expect(dns.count('cdn.example', 'AAAA')).toBe(1);
    expect(resolve.stats()).toMatchObject({ lookups: 30, network_lookups: 1, joined: 29, cache_hits: 0 });
  });

  it('remembers an answer for its TTL, then asks again', async () => {
    dns.set('short.example', { answer: { a: ['93.184.216.35'], ttl: 1 } });
    const resolve = resolverFor();
    await resolve('short.example');
    await resolve('SHORT.example');
    expect(dns.count('short.example', 'A')).toBe(1);
    expect(resolve.stats().cache_hits).toBe(1);
    await new Promise((r) => setTimeout(r, 1100));
    await resolve('short.example');
    expect(dns.count('short.example', 'A')).toBe(2);
  });

  it('asks a failed host once within the failure TTL, and again after it', async () => {
    dns.set('dead.example', { nxdomain: true, delayMs: 50 });
    const resolve = resolverFor({ errorTtlMs: 400 });
    expect(await codeOf(resolve('dead.example'))).toBe('ENOTFOUND');
    const started = performance.now();
    expect(await codeOf(resolve('dead.example'))).toBe('ENOTFOUND');
    expect(performance.now() - started).toBeLessThan(20);
    expect(dns.count('dead.example', 'A')).toBe(1);
    await new Promise((r) => setTimeout(r, 450));
    expect(await codeOf(resolve('dead.example'))).toBe('ENOTFOUND');
    expect(dns.count('dead.example', 'A')).toBe(2);
    expect(resolve.stats()).toMatchObject({ failures: 2, cache_hits: 1 });
  });

  it('a query that never returns costs no more than the deadline, and is remembered as a failure', async () => {
    dns.set('blackhole.example', { drop: true });
    const resolve = resolverFor({ timeoutMs: 300 });
    const started = performance.now();
    const codes = await Promise.all(Array.from({ length: 10 }, () => codeOf(resolve('blackhole.example'))));
    const took = performance.now() - started;
    expect(codes.every((c) => c === 'ETIMEOUT')).toBe(true);
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(450);
    expect(await codeOf(resolve('blackhole.example'))).toBe('ETIMEOUT');
    expect(resolve.stats()).toMatchObject({ deadline_hits: 1, network_lookups: 1, joined: 9, cache_hits: 1 });
  });

  it('a server that drops AAAA queries costs ~50 ms once A has answered, not the deadline', async () => {
    dns.set('v4only.example', { answer: { a: ['93.184.216.36'] }, dropTypes: ['AAAA'] });
    const resolve = resolverFor({ timeoutMs: 2000 });
    const started = performance.now();
    expect(await resolve('v4only.example')).toEqual(['93.184.216.36']);
    expect(performance.now() - started).toBeLessThan(300);
    expect(dns.count('v4only.example', 'AAAA')).toBe(1);
  });

  it('lookups do not queue on libuv thread pool: crypto work runs at full speed while thirty lookups hang', async () => {
    for (let i = 0; i < 30; i++) dns.set(`hang${i}.example`, { drop: true });
    const resolve = resolverFor({ timeoutMs: 1500 });
    const hanging = Promise.all(Array.from({ length: 30 }, (_, i) => codeOf(resolve(`hang${i}.example`))));
    const started = performance.now();
    // Four jobs fill libuv's four threads; were lookups on them, these would wait for the deadline.
    await Promise.all(Array.from({ length: 4 }, () => new Promise((r) => pbkdf2('x', 'y', 1000, 32, 'sha256', r))));
    expect(performance.now() - started).toBeLessThan(500);
    expect((await hanging).every((c) => c === 'ETIMEOUT')).toBe(true);
  });

  it('answers from the hosts file first, without a query, like getaddrinfo', async () => {
    const resolve = resolverFor();
    expect(await resolve('intranet.example')).toEqual(['10.9.8.7']);
    expect(await resolve('wiki')).toEqual(['10.9.8.7']);
    expect(await resolve('localhost')).toEqual(['127.0.0.1', '::1']);
    expect(dns.queries).toEqual([]);
    expect(resolve.stats().hosts_file).toBe(3);
  });

  it('with the real /etc/hosts, localhost resolves to the addresses getaddrinfo gives', async () => {
    const resolve = createCachingResolver({ timeoutMs: 1000, servers: [dns.server] });
    const system = (await lookup('localhost', { all: true })).map((a) => a.address).sort();
    expect((await resolve('localhost')).sort()).toEqual(system);
  });

  it('walks resolv.conf search domains as glibc does', async () => {
    const conf = join(dir, 'resolv-search.conf');
    await writeFile(conf, 'search corp.test lab.test\noptions ndots:1\n');
    dns.set('printer.lab.test', { answer: { a: ['93.184.216.40'] } });
    dns.set('api.svc', { answer: { a: ['93.184.216.41'] } });
    // A generous deadline: this test is about order, and a loaded CI machine may take over 1 s for three queries.
    const resolve = resolverFor({ resolvConfPath: conf, timeoutMs: 5_000 });
    // The names asked, in order; a query resent after c-ares' retry interval (a loaded machine) counts
    // once, and the earlier test's dropped hang*.example queries, still being resent, are not ours.
    const ours = (name: string) => name.startsWith('printer') || name.startsWith('api.svc');
    const asked = () => [...new Set(dns.queries.filter((q) => q.type === 'A' && ours(q.name)).map((q) => q.name))];
    // No dot: the search domains first, in order.
    expect(await resolve('printer')).toEqual(['93.184.216.40']);
    expect(asked()).toEqual(['printer.corp.test', 'printer.lab.test']);
    dns.queries.length = 0;
    // At least ndots dots: the name as is first.
    expect(await resolve('api.svc')).toEqual(['93.184.216.41']);
    expect(asked()).toEqual(['api.svc']);
    dns.queries.length = 0;
    // A trailing dot is absolute: no search domain.
    expect(await codeOf(resolve('printer.'))).toBe('ENOTFOUND');
    expect(asked()).toEqual(['printer']);
  });

  it('a server failure is reported as such and ends the search', async () => {
    dns.set('broken.example', { servfail: true });
    const resolve = resolverFor();
    expect(await codeOf(resolve('broken.example'))).toBe('ESERVFAIL');
  });
});

describe('resolver settings', () => {
  it('parses hosts files, resolv.conf and search candidates', () => {
    expect(parseHosts('# x\n10.0.0.1 a.example A2.example.\nbad line\n::1 a.example\n')).toEqual(
      new Map([
        ['a.example', ['10.0.0.1', '::1']],
        ['a2.example', ['10.0.0.1']],
      ]),
    );
    expect(parseResolvConf('domain x.test\nsearch a.test b.test\noptions ndots:2 rotate\n')).toEqual({
      search: ['a.test', 'b.test'],
      ndots: 2,
    });
    expect(searchCandidates('a.b', { search: ['s.test'], ndots: 2 })).toEqual(['a.b.s.test', 'a.b']);
    expect(searchCandidates('a.b', { search: [], ndots: 2 })).toEqual(['a.b']);
  });

  it('SHUTTER_DNS_SERVERS takes IP and IP:port entries and names a bad one', () => {
    expect(parseDnsServers('1.1.1.1, 127.0.0.1:5353,[::1]:53,::1')).toEqual(['1.1.1.1', '127.0.0.1:5353', '[::1]:53', '::1']);
    expect(parseDnsServers('')).toEqual([]);
    expect(() => parseDnsServers('dns.example')).toThrow(/"dns.example" is not a DNS server address/);
    expect(() => parseDnsServers('1.1.1.1:99999')).toThrow(/1.1.1.1:99999/);
  });
});
