import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedHook {
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
  at: number;
}

/**
 * A webhook receiver on loopback: records every POST and answers with `answer(n)` (n counts from 1;
 * default 200). A status of 0 never answers (the sender's timeout must end the attempt).
 */
export async function startReceiver(options: { host?: string; answer?: (n: number, body: string) => number } = {}) {
  const received: ReceivedHook[] = [];
  const waiters: Array<() => void> = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const status = options.answer?.(received.length + 1, body) ?? 200;
      received.push({ headers: request.headers, body, status, at: Date.now() });
      for (const wake of waiters.splice(0)) wake();
      if (status === 0) return;
      response.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    received,
    port,
    url: (path = '/hook') => `http://${host}:${port}${path}`,
    /** Resolves once `test(received)` holds; rejects after `timeoutMs`. */
    async until(test: (hooks: ReceivedHook[]) => boolean, timeoutMs = 30_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!test(received)) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`webhook receiver: condition not met in ${timeoutMs} ms (${received.length} received)`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, 500));
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
