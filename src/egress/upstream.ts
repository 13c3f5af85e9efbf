import type { Socket } from 'node:net';
import { connectWithReader } from './upstream-reader.js';

/**
 * Opens a TCP connection to the first of the checked addresses that answers, in order.
 * Only addresses the guard approved are ever passed here; nothing is resolved again.
 */
export async function connectToChecked(addresses: readonly string[], port: number, timeoutMs: number): Promise<Socket> {
  let lastError: unknown = new Error('no address to connect to');
  for (const address of addresses) {
    try {
      return await connectOnce(address, port, timeoutMs);
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

function connectOnce(host: string, port: number, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connectWithReader({ host, port, noDelay: true });
    const fail = (error: Error) => {
      socket.destroy();
      reject(error);
    };
    socket.setTimeout(timeoutMs, () => fail(Object.assign(new Error(`connect to ${host}:${port} timed out`), { code: 'ETIMEDOUT' })));
    socket.once('error', fail);
    socket.once('connect', () => {
      socket.setTimeout(0);
      socket.off('error', fail);
      resolve(socket);
    });
  });
}
