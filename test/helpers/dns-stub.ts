import { createSocket } from 'node:dgram';
import { createServer, isIPv4, isIPv6, type AddressInfo, type Server, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

/** What the stub does when asked about a name. */
export type DnsBehavior =
  | {
      answer: { a?: string[]; aaaa?: string[]; ttl?: number };
      delayMs?: number;
      /** Query types never answered (a server that drops AAAA). */ dropTypes?: string[];
    }
  | { nxdomain: true; delayMs?: number }
  | { servfail: true; delayMs?: number }
  | { drop: true }; // never answers

/** One question received, over UDP or TCP. */
export interface DnsQuery {
  name: string;
  type: 'A' | 'AAAA' | string;
  /** performance.now() when it arrived. */
  at: number;
  /** The DNS message id: a query resent after the client's retry interval keeps it. */
  id: number;
}

/** A programmable DNS server on 127.0.0.1 (UDP and TCP on one port). */
export interface DnsStub {
  /** '127.0.0.1:<port>' for Resolver.setServers */
  server: string;
  port: number;
  /** Every query received, in order. */
  readonly queries: DnsQuery[];
  /** Queries for a name (case-insensitive, trailing dot ignored), optionally of one type. */
  count(name: string, type?: string): number;
  /** The same, with a query resent under the same id (c-ares' retry on a slow answer) counted once. */
  distinct(name: string, type?: string): number;
  /** Sets or replaces the behaviour for a name. */
  set(name: string, behavior: DnsBehavior): void;
  close(): Promise<void>;
}

const TYPE_A = 1;
const TYPE_AAAA = 28;
const TYPE_NAMES: Record<number, string> = {
  1: 'A',
  2: 'NS',
  5: 'CNAME',
  6: 'SOA',
  12: 'PTR',
  15: 'MX',
  16: 'TXT',
  28: 'AAAA',
  33: 'SRV',
  65: 'HTTPS',
  255: 'ANY',
};
const RCODE_SERVFAIL = 2;
const RCODE_NXDOMAIN = 3;
const DEFAULT_TTL = 60;

/** Lower case without the trailing dot, so 'Example.COM.' and 'example.com' are one key. */
const normalize = (name: string) => name.toLowerCase().replace(/\.$/, '');
/** RFC 3597 spelling for types without a mnemonic here, e.g. TYPE64. */
const typeName = (type: number) => TYPE_NAMES[type] ?? `TYPE${type}`;

interface Question {
  id: number;
  flags: number;
  name: string;
  type: number;
  /** The question section's bytes, echoed as they came (c-ares compares them with what it sent). */
  raw: Buffer;
}

/** The first question of a query, or undefined for anything that is not a well-formed query. */
function parseQuery(msg: Buffer): Question | undefined {
  if (msg.length < 12) return undefined;
  const flags = msg.readUInt16BE(2);
  if (flags & 0x8000 || msg.readUInt16BE(4) !== 1) return undefined; // a response, or not exactly one question
  const labels: string[] = [];
  let offset = 12;
  for (;;) {
    const len = msg[offset];
    if (len === undefined || len > 63) return undefined; // truncated, or a compression pointer (queries have none)
    offset++;
    if (len === 0) break;
    if (offset + len > msg.length) return undefined;
    labels.push(msg.toString('latin1', offset, offset + len));
    offset += len;
  }
  if (offset + 4 > msg.length) return undefined;
  const type = msg.readUInt16BE(offset);
  return { id: msg.readUInt16BE(0), flags, name: labels.join('.'), type, raw: msg.subarray(12, offset + 4) };
}

/** 16 bytes of an IPv6 address (with `::` and a dotted IPv4 tail allowed). */
function ipv6Bytes(address: string): Buffer {
  let text = address;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (v4) {
    const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, -v4.length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups =
    tail === undefined ? headGroups : [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}

/** One answer record, its owner name a pointer to the question's (offset 12). */
function record(type: number, ttl: number, rdata: Buffer): Buffer {
  const head = Buffer.alloc(12);
  head.writeUInt16BE(0xc00c, 0);
  head.writeUInt16BE(type, 2);
  head.writeUInt16BE(1, 4); // class IN
  head.writeUInt32BE(ttl, 6);
  head.writeUInt16BE(rdata.length, 10);
  return Buffer.concat([head, rdata]);
}

/** The reply to q under behaviour b (never called for drop). */
function reply(q: Question, b: Exclude<DnsBehavior, { drop: true }>): Buffer {
  let rcode = 0;
  let answers: Buffer[] = [];
  if ('nxdomain' in b) rcode = RCODE_NXDOMAIN;
  else if ('servfail' in b) rcode = RCODE_SERVFAIL;
  else {
    const ttl = b.answer.ttl ?? DEFAULT_TTL;
    // Any other type, or a family the name lacks, gets NOERROR with no answers (NODATA).
    if (q.type === TYPE_A) answers = (b.answer.a ?? []).map((ip) => record(TYPE_A, ttl, Buffer.from(ip.split('.').map(Number))));
    if (q.type === TYPE_AAAA) answers = (b.answer.aaaa ?? []).map((ip) => record(TYPE_AAAA, ttl, ipv6Bytes(ip)));
  }
  const header = Buffer.alloc(12);
  header.writeUInt16BE(q.id, 0);
  // QR, the query's opcode, AA, RD, RA, then the rcode.
  header.writeUInt16BE(0x8000 | (q.flags & 0x7800) | 0x0400 | 0x0100 | 0x0080 | rcode, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(answers.length, 6);
  return Buffer.concat([header, q.raw, ...answers]);
}

/** Checks the addresses up front, so a typo fails the test at set() rather than as an odd answer. */
function validate(name: string, b: DnsBehavior): DnsBehavior {
  if ('answer' in b) {
    for (const ip of b.answer.a ?? []) if (!isIPv4(ip)) throw new Error(`dns stub: ${name}: not an IPv4 address: ${ip}`);
    for (const ip of b.answer.aaaa ?? []) if (!isIPv6(ip)) throw new Error(`dns stub: ${name}: not an IPv6 address: ${ip}`);
  }
  return b;
}

/** Binds UDP at a random port, then TCP on the same one (retrying if TCP finds it taken). */
async function bind(tcp: Server): Promise<ReturnType<typeof createSocket>> {
  for (let attempt = 0; ; attempt++) {
    const udp = createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(0, '127.0.0.1', () => resolve());
    });
    const { port } = udp.address();
    try {
      await new Promise<void>((resolve, reject) => {
        tcp.once('error', reject);
        tcp.listen(port, '127.0.0.1', () => {
          tcp.off('error', reject);
          resolve();
        });
      });
      return udp;
    } catch (e) {
      udp.close();
      if (attempt >= 20) throw e;
    }
  }
}

/** Starts a DNS stub answering from table, and fallback (default NXDOMAIN) for other names. */
export async function startDnsStub(table: Record<string, DnsBehavior> = {}, fallback: DnsBehavior = { nxdomain: true }): Promise<DnsStub> {
  const behaviors = new Map<string, DnsBehavior>();
  for (const [name, b] of Object.entries(table)) behaviors.set(normalize(name), validate(name, b));
  const queries: DnsQuery[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  let closed = false;

  /** Records the query and calls send with the reply, after its delay; malformed and dropped ones get nothing. */
  const handle = (msg: Buffer, send: (out: Buffer) => void) => {
    const q = parseQuery(msg);
    if (!q || closed) return;
    queries.push({ name: q.name, type: typeName(q.type), at: performance.now(), id: q.id });
    const b = behaviors.get(normalize(q.name)) ?? fallback;
    if ('drop' in b || ('dropTypes' in b && b.dropTypes?.includes(typeName(q.type)))) return;
    const out = reply(q, b);
    if (!b.delayMs) return send(out);
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!closed) send(out);
    }, b.delayMs);
    timers.add(timer);
  };

  const tcp = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    // Messages carry a 2-byte length prefix and may arrive split or several to a chunk.
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
        const msg = pending.subarray(2, 2 + pending.readUInt16BE(0));
        pending = pending.subarray(2 + msg.length);
        handle(msg, (out) => {
          if (socket.destroyed) return;
          const len = Buffer.alloc(2);
          len.writeUInt16BE(out.length);
          socket.write(Buffer.concat([len, out]));
        });
      }
    });
  });
  const udp = await bind(tcp);
  udp.on('message', (msg, rinfo) => handle(msg, (out) => udp.send(out, rinfo.port, rinfo.address)));
  // A send racing close() must not crash the test run.
  udp.on('error', () => {});
  const { port } = tcp.address() as AddressInfo;

  return {
    server: `127.0.0.1:${port}`,
    port,
    queries,
    count: (name, type) =>
      queries.filter((q) => normalize(q.name) === normalize(name) && (type === undefined || q.type === type.toUpperCase())).length,
    distinct: (name, type) =>
      new Set(
        queries
          .filter((q) => normalize(q.name) === normalize(name) && (type === undefined || q.type === type.toUpperCase()))
          .map((q) => q.id),
      ).size,
    set: (name, behavior) => void behaviors.set(normalize(name), validate(name, behavior)),
    close: async () => {
      if (closed) return;
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      for (const s of sockets) s.destroy();
      await Promise.all([new Promise<void>((r) => udp.close(() => r())), new Promise<void>((r) => tcp.close(() => r()))]);
    },
  };
}
