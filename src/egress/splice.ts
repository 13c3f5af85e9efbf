import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { readerOf } from './upstream-reader.js';

/**
 * Joins a page's connection to its upstream once the proxy has answered: bytes the page sent after
 * its request (`head`) go first, then both ways until either side closes or fails, which closes both.
 */
export function splice(client: Duplex, upstream: Socket, head: Buffer): void {
  upstream.on('error', () => client.destroy());
  client.on('error', () => upstream.destroy());
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.destroy());
  if (head.length > 0) upstream.write(head);
  client.pipe(upstream);
  const reader = readerOf(upstream);
  if (reader) reader.pipeTo(client);
  else upstream.pipe(client);
}
