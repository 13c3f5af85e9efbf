import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';

/** A local proxy that records what it carries: stands in for an operator's per-country proxy. */
export interface RecordingProxy {
  url: string;
  port: number;
  /** `CONNECT host:port`, `GET http://…` or `SOCKS host:port`, in order. */
  carried: string[];
  /** Proxy-Authorization headers (or SOCKS user:pass) received. */
  credentials: string[];
  close(): Promise<void>;
}

type Auth = { username: string; password: string };

/** Listens on 127.0.0.1 and wraps the server as a RecordingProxy (close ends open connections too). */
async function serve(
  server: Server | TcpServer,
  scheme: 'http' | 'socks5',
  auth: Auth | undefined,
  carried: string[],
  credentials: string[],
): Promise<RecordingProxy> {
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${scheme}://${auth ? `${auth.username}:${auth.password}@` : ''}127.0.0.1:${port}`,
    port,
    carried,
    credentials,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** The answers a recording proxy gives: every host it is asked for goes to `to` (a fixture server). */
export interface ProxyRouting {
  /** host:port every tunnel and request is sent to, whatever was asked (the test's fixture server). */
  to: { host: string; port: number };
}

/** An HTTP proxy (CONNECT and absolute-form requests), with optional Basic credentials required. */
export async function startHttpProxy(routing: ProxyRouting, auth?: Auth): Promise<RecordingProxy> {
  const carried: string[] = [];
  const credentials: string[] = [];
  const expected = auth ? `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}` : undefined;
  const server = createServer((req, res) => {
    credentials.push(String(req.headers['proxy-authorization'] ?? ''));
    if (expected && req.headers['proxy-authorization'] !== expected) return void res.writeHead(407).end();
    carried.push(`${req.method} ${req.url}`);
    const target = new URL(req.url ?? '');
    const upstream = httpRequest(
      {
        host: routing.to.host,
        port: routing.to.port,
        method: req.method,
        path: target.pathname + target.search,
        headers: { ...req.headers, host: target.host },
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connect', (req, client: Socket, head) => {
    credentials.push(String(req.headers['proxy-authorization'] ?? ''));
    if (expected && req.headers['proxy-authorization'] !== expected)
      return void client.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
    carried.push(`CONNECT ${req.url}`);
    const upstream = connect(routing.to.port, routing.to.host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      client.pipe(upstream).pipe(client);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  return serve(server, 'http', auth, carried, credentials);
}

/** A SOCKS5 proxy (no auth, or username/password) that tunnels every CONNECT to the routing target. */
export async function startSocksProxy(routing: ProxyRouting, auth?: Auth): Promise<RecordingProxy> {
  const carried: string[] = [];
  const credentials: string[] = [];
  const server = createTcpServer((client) => {
    client.on('error', () => client.destroy());
    let stage: 'greeting' | 'auth' | 'request' = 'greeting';
    let buffer = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (stage === 'greeting' && buffer.length >= 2 && buffer.length >= 2 + buffer[1]!) {
        const methods = [...buffer.subarray(2, 2 + buffer[1]!)];
        buffer = buffer.subarray(2 + buffer[1]!);
        const method = auth ? 2 : 0;
        if (!methods.includes(method)) return void client.end(Buffer.from([5, 0xff]));
        client.write(Buffer.from([5, method]));
        stage = auth ? 'auth' : 'request';
      }
      if (stage === 'auth' && buffer.length >= 2) {
        const ulen = buffer[1]!;
        if (buffer.length < 3 + ulen) return;
        const plen = buffer[2 + ulen]!;
        if (buffer.length < 3 + ulen + plen) return;
        const user = buffer.subarray(2, 2 + ulen).toString();
        const pass = buffer.subarray(3 + ulen, 3 + ulen + plen).toString();
        buffer = buffer.subarray(3 + ulen + plen);
        credentials.push(`${user}:${pass}`);
        const ok = user === auth!.username && pass === auth!.password;
        client.write(Buffer.from([1, ok ? 0 : 1]));
        if (!ok) return void client.end();
        stage = 'request';
      }
      if (stage === 'request' && buffer.length >= 5 && buffer[3] === 3) {
        const len = buffer[4]!;
        if (buffer.length < 5 + len + 2) return;
        const host = buffer.subarray(5, 5 + len).toString();
        const port = buffer.readUInt16BE(5 + len);
        const rest = buffer.subarray(5 + len + 2);
        client.off('data', onData);
        carried.push(`SOCKS ${host}:${port}`);
        const upstream = connect(routing.to.port, routing.to.host, () => {
          client.write(Buffer.from([5, 0, 0, 1, 127, 0, 0, 1, 0, 0]));
          if (rest.length) upstream.write(rest);
          client.pipe(upstream).pipe(client);
        });
        upstream.on('error', () => client.destroy());
      }
    };
    client.on('data', onData);
  });
  return serve(server, 'socks5', auth, carried, credentials);
}
