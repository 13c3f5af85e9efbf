import { connect, type Socket } from 'node:net';

import type { UpstreamProxy } from '../values/proxy-url.js';

/**
 * A TCP tunnel to host:port through the upstream proxy (HTTP CONNECT or SOCKS5), ready for the
 * page's bytes. The host name is passed on (not our resolved address) so the site is resolved
 * from the proxy's country; our guard has already checked it.
 */
export async function tunnelThrough(proxy: UpstreamProxy, host: string, port: number, timeoutMs: number): Promise<Socket> {
  const socket = await open(proxy.host, proxy.port, timeoutMs);
  socket.setTimeout(timeoutMs, () => socket.destroy(Object.assign(new Error('proxy handshake timed out'), { code: 'ETIMEDOUT' })));
  try {
    if (proxy.protocol === 'http') await httpConnect(socket, proxy, host, port);
    else await socks5Connect(socket, proxy, host, port);
  } catch (error) {
    socket.destroy();
    throw error;
  }
  socket.setTimeout(0);
  return socket;
}

function open(host: string, port: number, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, noDelay: true, timeout: timeoutMs });
    socket.once('timeout', () => socket.destroy(Object.assign(new Error('proxy connect timed out'), { code: 'ETIMEDOUT' })));
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
  });
}

/** Reads from the socket until `done` says how many bytes the handshake answer took. */
function readUntil(socket: Socket, done: (data: Buffer) => number | undefined): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let data = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      if (data.length > 16 * 1024) return finish(new Error('proxy answer too long'));
      const used = done(data);
      if (used === undefined) return undefined;
      socket.off('data', onData);
      if (used < data.length) socket.unshift(data.subarray(used));
      return finish(undefined, data.subarray(0, used));
    };
    const onEnd = () => finish(new Error('proxy closed the connection'));
    const finish = (error?: Error, answer?: Buffer) => {
      socket.off('data', onData);
      socket.off('error', finish);
      socket.off('end', onEnd);
      if (error) reject(error);
      else resolve(answer!);
    };
    socket.on('data', onData);
    socket.once('error', finish);
    socket.once('end', onEnd);
  });
}

async function httpConnect(socket: Socket, proxy: UpstreamProxy, host: string, port: number): Promise<void> {
  const authority = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
  const auth = proxy.username !== undefined ? `Proxy-Authorization: ${basicAuth(proxy)}\r\n` : '';
  socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${auth}\r\n`);
  const answer = await readUntil(socket, (data) => {
    const end = data.indexOf('\r\n\r\n');
    return end < 0 ? undefined : end + 4;
  });
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(answer.toString('latin1'))?.[1];
  if (status !== '200') throw new Error(`proxy answered CONNECT with ${status ?? 'garbage'}`);
}

/** Proxy-Authorization for plain-http requests and CONNECT. */
export const basicAuth = (proxy: UpstreamProxy) =>
  `Basic ${Buffer.from(`${proxy.username ?? ''}:${proxy.password ?? ''}`).toString('base64')}`;

/** RFC 1928 CONNECT with RFC 1929 username/password when configured; the name is resolved by the proxy. */
async function socks5Connect(socket: Socket, proxy: UpstreamProxy, host: string, port: number): Promise<void> {
  const withAuth = proxy.username !== undefined;
  socket.write(Buffer.from(withAuth ? [5, 1, 2] : [5, 1, 0]));
  const method = await readUntil(socket, (d) => (d.length >= 2 ? 2 : undefined));
  if (method[0] !== 5 || method[1] !== (withAuth ? 2 : 0)) throw new Error('SOCKS5 proxy refused our authentication method');
  if (withAuth) {
    const user = Buffer.from(proxy.username ?? '');
    const pass = Buffer.from(proxy.password ?? '');
    socket.write(Buffer.concat([Buffer.from([1, user.length]), user, Buffer.from([pass.length]), pass]));
    const status = await readUntil(socket, (d) => (d.length >= 2 ? 2 : undefined));
    if (status[1] !== 0) throw new Error('SOCKS5 proxy refused the credentials');
  }
  const name = Buffer.from(host);
  socket.write(Buffer.concat([Buffer.from([5, 1, 0, 3, name.length]), name, Buffer.from([port >> 8, port & 0xff])]));
  const reply = await readUntil(socket, (d) => {
    if (d.length < 5) return undefined;
    const length = d[3] === 1 ? 4 : d[3] === 4 ? 16 : d[3] === 3 ? 1 + d[4]! : 0;
    return d.length >= 4 + length + 2 ? 4 + length + 2 : undefined;
  });
  if (reply[1] !== 0) throw new Error(`SOCKS5 proxy could not connect (code ${reply[1]})`);
}
