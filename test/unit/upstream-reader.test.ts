import { createHash } from 'node:crypto';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { connectWithReader, readerOf } from '../../src/egress/upstream-reader.js';

/**
 * The egress proxy's upstream reads (one reused buffer, net's `onread`) over real sockets: what a
 * site sends reaches the page whole and in order however slowly the page reads, and bytes and an
 * end that arrive before the tunnel is joined are not lost.
 */

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const server of servers.splice(0)) await new Promise<void>((r) => server.close(() => r()));
});

/**
 * A TCP server that sends `payload` to each connection and then ends it, in pieces of `piece`
 * bytes a turn of the event loop apart (small reads on the proxy's side), or at once.
 */
async function sender(payload: Buffer, piece = payload.length): Promise<number> {
  const server = createServer(async (socket) => {
    sockets.push(socket);
    for (let at = 0; at < payload.length && !socket.destroyed; at += piece) {
      if (!socket.write(payload.subarray(at, at + piece))) await new Promise((r) => socket.once('drain', r));
      else await new Promise((r) => setImmediate(r));
    }
    socket.end();
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return (server.address() as AddressInfo).port;
}

/** Deterministic bytes that differ everywhere (a repeated pattern could hide an overwritten buffer). */
function pseudoRandom(bytes: number): Buffer {
  const out = Buffer.allocUnsafe(bytes);
  let x = 0x12345678;
  for (let i = 0; i < bytes; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function connected(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connectWithReader({ host: '127.0.0.1', port });
    sockets.push(socket);
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

describe('UpstreamReader', () => {
  it('gives a slow page 8 MB in small pieces whole and in order: no chunk is overwritten while its write is pending', async () => {
    // Pieces below the page socket's high-water mark: a pending write then does not stop reading,
    // and only a fresh buffer keeps the next read from overwriting the chunk that write holds.
    const payload = pseudoRandom(8 * 1024 * 1024);
    const port = await sender(payload, 3000);
    const upstream = await connected(port);
    // A real socket pair for the page's side, read in small bites with pauses (back-pressure on the proxy).
    const pageServer = createServer();
    servers.push(pageServer);
    await new Promise<void>((r) => pageServer.listen(0, '127.0.0.1', () => r()));
    const accepted = new Promise<Socket>((resolve) => pageServer.once('connection', resolve));
    const page = connect({ host: '127.0.0.1', port: (pageServer.address() as AddressInfo).port });
    sockets.push(page);
    const proxySide = await accepted;
    sockets.push(proxySide);
    readerOf(upstream)!.pipeTo(proxySide);
    const parts: Buffer[] = [];
    let reads = 0;
    // The page reads nothing at first (the kernel's buffers fill and the proxy's writes go pending), then slowly.
    page.pause();
    await new Promise((r) => setTimeout(r, 300));
    await new Promise<void>((resolve) => {
      page.on('data', (chunk: Buffer) => {
        parts.push(chunk);
        if (++reads % 10 === 0) {
          page.pause();
          setTimeout(() => page.resume(), 2);
        }
      });
      page.on('end', () => resolve());
      page.resume();
    });
    const got = Buffer.concat(parts);
    expect(got.length).toBe(payload.length);
    expect(sha(got)).toBe(sha(payload));
  });

  it('keeps bytes and the end that arrive before the tunnel is joined', async () => {
    const port = await sender(Buffer.from('220 ready, speaking first\r\n'));
    const upstream = await connected(port);
    await new Promise<void>((r) => upstream.once('end', () => r()));
    const sink = new PassThrough();
    const parts: Buffer[] = [];
    sink.on('data', (c: Buffer) => parts.push(c));
    const ended = new Promise<void>((r) => sink.once('end', () => r()));
    readerOf(upstream)!.pipeTo(sink);
    await ended;
    expect(Buffer.concat(parts).toString()).toBe('220 ready, speaking first\r\n');
  });

  it('is only attached to sockets it connected', () => {
    const plain = connect({ host: '127.0.0.1', port: 9 });
    plain.on('error', () => undefined);
    sockets.push(plain);
    expect(readerOf(plain)).toBeUndefined();
  });
});
