import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tunnelThrough } from '../../src/egress/upstream-proxy.js';
import { parseUpstreamProxy } from '../../src/values/proxy-url.js';
import { startHttpProxy, startSocksProxy } from '../helpers/recording-proxy.js';

let origin: Server;
let port: number;

beforeAll(async () => {
  origin = createServer((req, res) => res.end(`hello from ${req.headers.host}`));
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', () => r()));
  port = (origin.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => origin.close(() => r())));

/** Sends a plain GET through a tunnel and returns the body. */
async function getThrough(proxyUrl: string, host: string): Promise<string> {
  const socket = await tunnelThrough(parseUpstreamProxy(proxyUrl), host, 80, 5000);
  socket.write(`GET / HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

describe('tunnels through upstream proxies', () => {
  it('HTTP CONNECT, with Basic credentials, passing the host name on', async () => {
    const proxy = await startHttpProxy({ to: { host: '127.0.0.1', port } }, { username: 'u', password: 'p w' });
    const body = await getThrough(proxy.url.replace('p w', 'p%20w'), 'site.example');
    expect(body).toContain('hello from site.example');
    expect(proxy.carried).toEqual(['CONNECT site.example:80']);
    expect(proxy.credentials).toEqual([`Basic ${Buffer.from('u:p w').toString('base64')}`]);
    await proxy.close();
  });

  it('SOCKS5, without and with username/password', async () => {
    const open = await startSocksProxy({ to: { host: '127.0.0.1', port } });
    expect(await getThrough(open.url, 'a.example')).toContain('hello from a.example');
    expect(open.carried).toEqual(['SOCKS a.example:80']);
    await open.close();
    const authed = await startSocksProxy({ to: { host: '127.0.0.1', port } }, { username: 'me', password: 'secret' });
    expect(await getThrough(authed.url, 'b.example')).toContain('hello from b.example');
    expect(authed.credentials).toEqual(['me:secret']);
    await authed.close();
  });

  it('wrong credentials and a dead proxy fail clearly', async () => {
    const proxy = await startHttpProxy({ to: { host: '127.0.0.1', port } }, { username: 'u', password: 'right' });
    await expect(tunnelThrough(parseUpstreamProxy(proxy.url.replace('right', 'wrong')), 'x.example', 80, 5000)).rejects.toThrow(/407/);
    await proxy.close();
    await expect(tunnelThrough(parseUpstreamProxy(`http://127.0.0.1:${proxy.port}`), 'x.example', 80, 2000)).rejects.toThrow();
  });
});
