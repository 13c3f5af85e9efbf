import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

/** A small local HTTP server scripted per request (the nth request gets `handler(req, res, n)`). */
export interface Stub {
  baseUrl: string;
  requests: StubRequest[];
  close(): Promise<void>;
}

export type StubHandler = (req: IncomingMessage, res: ServerResponse, index: number, body: string) => void;

export async function startStub(handler: StubHandler): Promise<Stub> {
  const requests: StubRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const index = requests.length;
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, at: Date.now() });
      handler(req, res, index, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Shutter's error JSON. */
export function sendError(res: ServerResponse, status: number, code: string, headers: Record<string, string> = {}, requestId = 'stub-req') {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': requestId, ...headers });
  res.end(JSON.stringify({ error: { code, message: `stub ${code}` }, request_id: requestId }));
}

export function sendBytes(res: ServerResponse, bytes: Uint8Array, type = 'image/png') {
  res.writeHead(200, { 'content-type': type, 'content-length': bytes.length, 'x-request-id': 'stub-ok' });
  res.end(bytes);
}

export function sendJson(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'stub-json' });
  res.end(JSON.stringify(body));
}
