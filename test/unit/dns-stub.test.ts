import { createSocket } from 'node:dgram';
import { promises as dns } from 'node:dns';
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { startDnsStub, type DnsBehavior, type DnsStub } from '../helpers/dns-stub.js';

let stub: DnsStub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

/** Starts the stub and a real c-ares resolver pointed at it. */
async function setUp(table: Record<string, DnsBehavior>, options: { timeout?: number; tries?: number } = {}) {
  stub = await startDnsStub(table);
  const resolver = new dns.Resolver(options);
  resolver.setServers([stub.server]);
  return { stub, resolver };
}

/** The code of the error promise rejects with. */
async function code(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code;
  }
  throw new Error('expected a rejection');
}

/** A hand-made query: id, RD, one question (name, type, class IN). */
function query(id: number, name: string, type: number): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(0x0100, 2);
  header.writeUInt16BE(1, 4);
  const labels = name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)]));
  const tail = Buffer.alloc(5);
  tail.writeUInt16BE(type, 1);
  tail.writeUInt16BE(1, 3);
  return Buffer.concat([header, ...labels, tail]);
}

describe('dns stub, through dns.promises.Resolver', () => {
  it('answers A and AAAA with the TTL given, 60 s by default', async () => {
    const { resolver } = await setUp({
      'both.test': { answer: { a: ['192.0.2.1', '192.0.2.2'], aaaa: ['2001:db8::1', '::ffff:192.0.2.9'], ttl: 17 } },
      'default-ttl.test': { answer: { a: ['198.51.100.7'] } },
    });
    expect(await resolver.resolve4('both.test', { ttl: true })).toEqual([
      { address: '192.0.2.1', ttl: 17 },
      { address: '192.0.2.2', ttl: 17 },
    ]);
    expect(await resolver.resolve6('both.test', { ttl: true })).toEqual([
      { address: '2001:db8::1', ttl: 17 },
      { address: '::ffff:192.0.2.9', ttl: 17 },
    ]);
    expect(await resolver.resolve4('default-ttl.test', { ttl: true })).toEqual([{ address: '198.51.100.7', ttl: 60 }]);
  });

  it('NXDOMAIN (the default for unknown names) gives ENOTFOUND', async () => {
    const { resolver } = await setUp({ 'gone.test': { nxdomain: true } });
    expect(await code(resolver.resolve4('gone.test'))).toBe('ENOTFOUND');
    expect(await code(resolver.resolve6('never-configured.test'))).toBe('ENOTFOUND');
  });

  it('SERVFAIL gives ESERVFAIL', async () => {
    const { stub, resolver } = await setUp({ 'broken.test': { servfail: true } }, { tries: 1 });
    expect(await code(resolver.resolve4('broken.test'))).toBe('ESERVFAIL');
    expect(stub.count('broken.test', 'A')).toBeGreaterThanOrEqual(1);
  });

  it('drop never answers: the resolver times out', async () => {
    const { stub, resolver } = await setUp({ 'black.hole.test': { drop: true } }, { timeout: 200, tries: 1 });
    const started = performance.now();
    expect(await code(resolver.resolve4('black.hole.test'))).toBe('ETIMEOUT');
    expect(performance.now() - started).toBeGreaterThanOrEqual(150);
    expect(stub.count('black.hole.test', 'A')).toBe(1);
  });

  it('delayMs holds the reply back', async () => {
    const { stub, resolver } = await setUp({ 'slow.test': { answer: { a: ['192.0.2.5'] }, delayMs: 150 } });
    const started = performance.now();
    expect(await resolver.resolve4('slow.test')).toEqual(['192.0.2.5']);
    expect(performance.now() - started).toBeGreaterThanOrEqual(150);
    // Recorded on arrival, not on reply.
    expect(stub.queries[0]!.at - started).toBeLessThan(100);
  });

  it('a missing family is NODATA: ENODATA, not ENOTFOUND', async () => {
    const { resolver } = await setUp({
      'v4only.test': { answer: { a: ['192.0.2.1'] } },
      'v6only.test': { answer: { aaaa: ['2001:db8::2'] } },
    });
    expect(await code(resolver.resolve6('v4only.test'))).toBe('ENODATA');
    expect(await code(resolver.resolve4('v6only.test'))).toBe('ENODATA');
    expect(await resolver.resolve6('v6only.test')).toEqual(['2001:db8::2']);
  });

  it('other query types get NODATA', async () => {
    const { stub, resolver } = await setUp({ 'mail.test': { answer: { a: ['192.0.2.1'] } } });
    expect(await code(resolver.resolveMx('mail.test'))).toBe('ENODATA');
    expect(stub.queries.map((q) => q.type)).toEqual(['MX']);
  });

  it('count() counts per name and type; queries keeps the order', async () => {
    const { stub, resolver } = await setUp({
      'one.test': { answer: { a: ['192.0.2.1'], aaaa: ['2001:db8::1'] } },
      'two.test': { answer: { a: ['192.0.2.2'] } },
    });
    await resolver.resolve4('one.test');
    await resolver.resolve6('one.test');
    await resolver.resolve4('two.test');
    await code(resolver.resolve4('nowhere.test'));
    expect(stub.count('one.test')).toBe(2);
    expect(stub.count('one.test', 'A')).toBe(1);
    expect(stub.count('one.test', 'aaaa')).toBe(1);
    expect(stub.count('ONE.test.', 'AAAA')).toBe(1);
    expect(stub.count('two.test', 'AAAA')).toBe(0);
    expect(stub.count('nowhere.test')).toBe(1);
    expect(stub.queries.map((q) => `${q.name} ${q.type}`)).toEqual(['one.test A', 'one.test AAAA', 'two.test A', 'nowhere.test A']);
    expect(stub.queries.every((q, i) => i === 0 || q.at >= stub.queries[i - 1]!.at)).toBe(true);
  });

  it('matches names case-insensitively, in the table, set() and queries', async () => {
    const { stub, resolver } = await setUp({ 'Mixed.Example.TEST.': { answer: { a: ['192.0.2.3'] } } });
    expect(await resolver.resolve4('mixed.example.test')).toEqual(['192.0.2.3']);
    expect(await resolver.resolve4('MIXED.example.Test')).toEqual(['192.0.2.3']);
    expect(stub.count('mixed.EXAMPLE.test', 'A')).toBe(2);
    stub.set('LATER.test', { answer: { a: ['192.0.2.4'] } });
    expect(await resolver.resolve4('later.TEST')).toEqual(['192.0.2.4']);
  });

  it('set() replaces a behaviour for the next query', async () => {
    const { stub, resolver } = await setUp({ 'flip.test': { answer: { a: ['192.0.2.1'] } } });
    expect(await resolver.resolve4('flip.test')).toEqual(['192.0.2.1']);
    stub.set('flip.test', { nxdomain: true });
    // A fresh Resolver, so no cache of the first answer can stand in for the stub.
    const fresh = new dns.Resolver();
    fresh.setServers([stub.server]);
    expect(await code(fresh.resolve4('flip.test'))).toBe('ENOTFOUND');
    expect(() => stub.set('bad.test', { answer: { a: ['not-an-ip'] } })).toThrow(/IPv4/);
  });
});

describe('dns stub, raw sockets', () => {
  it('answers over TCP with a length prefix, two queries in one write', async () => {
    stub = await startDnsStub({ 'tcp.test': { answer: { a: ['192.0.2.8'], ttl: 5 } } });
    const socket = connect(stub.port, '127.0.0.1');
    const framed = (msg: Buffer) => Buffer.concat([Buffer.from([msg.length >> 8, msg.length & 0xff]), msg]);
    socket.write(Buffer.concat([framed(query(0x1234, 'tcp.test', 1)), framed(query(0x5678, 'TCP.test', 28))]));
    const replies = await new Promise<Buffer[]>((resolve, reject) => {
      let data = Buffer.alloc(0);
      socket.on('error', reject);
      socket.on('data', (chunk: Buffer) => {
        data = Buffer.concat([data, chunk]);
        const out: Buffer[] = [];
        let rest = data;
        while (rest.length >= 2 && rest.length >= 2 + rest.readUInt16BE(0)) {
          out.push(rest.subarray(2, 2 + rest.readUInt16BE(0)));
          rest = rest.subarray(2 + rest.readUInt16BE(0));
        }
        if (out.length === 2) resolve(out);
      });
    });
    socket.destroy();
    const [a, aaaa] = replies as [Buffer, Buffer];
    expect(a.readUInt16BE(0)).toBe(0x1234);
    expect(a.readUInt16BE(2) & 0x8180).toBe(0x8180); // QR, RD, RA
    expect(a.readUInt16BE(2) & 0xf).toBe(0);
    expect(a.readUInt16BE(6)).toBe(1);
    expect([...a.subarray(a.length - 4)]).toEqual([192, 0, 2, 8]);
    expect(a.readUInt32BE(a.length - 10)).toBe(5);
    expect(aaaa.readUInt16BE(0)).toBe(0x5678);
    expect(aaaa.readUInt16BE(6)).toBe(0); // NODATA
    expect(stub.queries.map((q) => `${q.name} ${q.type}`)).toEqual(['tcp.test A', 'TCP.test AAAA']);
  });

  it('ignores malformed packets and keeps serving', async () => {
    const { stub, resolver } = await setUp({ 'after.test': { answer: { a: ['192.0.2.6'] } } });
    const udp = createSocket('udp4');
    const truncated = query(1, 'after.test', 1).subarray(0, 20);
    const response = query(2, 'after.test', 1);
    response.writeUInt16BE(0x8100, 2); // QR set: not a query
    for (const packet of [Buffer.from('junk'), truncated, response]) {
      await new Promise<void>((r) => udp.send(packet, stub.port, '127.0.0.1', () => r()));
    }
    udp.close();
    expect(await resolver.resolve4('after.test')).toEqual(['192.0.2.6']);
    expect(stub.queries.map((q) => q.name)).toEqual(['after.test']);
  });
});
