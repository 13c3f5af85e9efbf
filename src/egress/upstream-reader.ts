import { connect, type Socket, type TcpNetConnectOpts } from 'node:net';
import type { Writable } from 'node:stream';

/** Bytes read from an upstream socket at once: libuv's own read size. */
const READ_BYTES = 64 * 1024;

/**
 * Reads an upstream socket (a site's answers, the bulk of what the proxy relays) into one buffer
 * used again and again, through net's `onread`, instead of a new 64 KiB buffer for every read:
 * those buffers were most of the proxy's garbage collection (docs/performance.md, "Egress over
 * SOCKS5"). A chunk handed to a write that did not complete at once stays with that write, and the
 * next read gets a fresh buffer. Until `pipeTo`, chunks are kept (a site that speaks first).
 */
export class UpstreamReader {
  private buffer = Buffer.allocUnsafe(READ_BYTES);
  private sink: Writable | undefined;
  private early: Buffer[] = [];
  private socket: Socket | undefined;
  private ended = false;

  /** For net.connect's `onread`. */
  readonly onread = {
    buffer: (): Buffer => this.buffer,
    callback: (bytes: number, buffer: Uint8Array): boolean => this.received(bytes, buffer),
  };

  /** The socket this reader was given to (its `onread`); needed to resume it after back-pressure. */
  attach(socket: Socket): void {
    this.socket = socket;
    socket.once('end', () => {
      this.ended = true;
      this.sink?.end();
    });
  }

  /** From now on every chunk goes to `sink` (first those read before), which ends when the socket ends. */
  pipeTo(sink: Writable): void {
    this.sink = sink;
    for (const chunk of this.early) sink.write(chunk);
    this.early = [];
    if (this.ended) sink.end();
  }

  private received(bytes: number, buffer: Uint8Array): boolean {
    const chunk = Buffer.from(buffer.buffer, buffer.byteOffset, bytes);
    const sink = this.sink;
    if (!sink) {
      this.early.push(Buffer.from(chunk));
      return true;
    }
    const more = sink.write(chunk);
    // A write still pending holds the chunk, not a copy: the next read must not overwrite it.
    if (sink.writableLength > 0) this.buffer = Buffer.allocUnsafe(READ_BYTES);
    if (!more) sink.once('drain', () => this.socket?.resume());
    return more;
  }
}

const readers = new WeakMap<Socket, UpstreamReader>();

/** net.connect, the socket read by an UpstreamReader (found again with `readerOf`). */
export function connectWithReader(options: TcpNetConnectOpts): Socket {
  const reader = new UpstreamReader();
  const socket = connect({ ...options, onread: reader.onread });
  reader.attach(socket);
  readers.set(socket, reader);
  return socket;
}

/** The reader of a socket made by connectWithReader; undefined for any other socket (a country proxy's tunnel). */
export function readerOf(socket: Socket): UpstreamReader | undefined {
  return readers.get(socket);
}
