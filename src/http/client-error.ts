import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';

/** How long a refused client may go on sending what is left of its request before the socket is closed. */
const DRAIN_MS = 2_000;

const answered = new WeakSet<Socket>();

/**
 * Fastify's clientErrorHandler: what Node's HTTP parser refused (headers over 16 KB, such as a URL
 * of 64 KB, or a malformed request) answered with Fastify's own body, but without resetting the connection.
 * Fastify (like Node) writes the answer and destroys the socket while the client is still sending
 * the rest of its request: the kernel then resets the connection, and the client often sees
 * ECONNRESET instead of the 431. Here the socket is half-closed after the answer and what still
 * arrives is read and dropped for up to DRAIN_MS, so the client reads the answer.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (answered.has(socket)) {
    // The parser fails again on what follows, or on the client's end: the answer is already sent.
    socket.destroy();
    return;
  }
  answered.add(socket);
  // The bodies Fastify's own handler writes: this changes how the connection ends, not the answer.
  const [status, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Exceeded maximum allowed HTTP header size']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Client Timeout']
        : [400, 'Client Error'];
  const body = JSON.stringify({ error: STATUS_CODES[status], message, statusCode: status });
  // The HTTP parser stops here: the rest of the request is read and dropped, not parsed.
  socket.removeAllListeners('data');
  socket.on('data', () => undefined);
  socket.on('error', () => undefined);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }
  socket.end();
  socket.resume();
  setTimeout(() => socket.destroy(), DRAIN_MS).unref();
}
