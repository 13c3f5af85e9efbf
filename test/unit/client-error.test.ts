import Fastify, { type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerClientError } from '../../src/http/client-error.js';

/** Sends `request` in one write and returns the status line read back, or the socket error's code. */
function exchange(port: number, request: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (chunk: Buffer) => (data += chunk.toString('latin1')));
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    socket.on('close', () => resolve(data));
    socket.write(request);
  });
}

describe('a request the HTTP parser refuses', () => {
  let app: FastifyInstance;
  let port = 0;
  beforeAll(async () => {
    app = Fastify({ clientErrorHandler: answerClientError });
    app.get('/', async () => 'ok');
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(() => app.close());

  // With Fastify's own handler the same 20 requests were all reset (ECONNRESET) before the 431 was read.
  it('a URL of 70 KB: every client reads the 431, none is reset', async () => {
    const request = `GET /v1/take?url=https://example.com/${'a'.repeat(70 * 1024)} HTTP/1.1\r\nhost: x\r\n\r\n`;
    const answers = await Promise.all(Array.from({ length: 20 }, () => exchange(port, request)));
    for (const answer of answers) {
      expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 431 Request Header Fields Too Large');
      expect(answer).toContain('Connection: close');
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
        error: 'Request Header Fields Too Large',
        message: 'Exceeded maximum allowed HTTP header size',
        statusCode: 431,
      });
    }
  });

  it('malformed HTTP: 400, and the connection closes', async () => {
    expect((await exchange(port, 'NOT HTTP AT ALL\r\n\r\n')).split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
  });
});
