import type { AddressInfo } from 'node:net';
import { startService, type Service, type ServiceOptions } from '../../../../test/e2e/harness.js';

/** A real Shutter (the repository's in-process service with Chromium) listening on 127.0.0.1. */
export interface RunningShutter {
  service: Service;
  /** `http://127.0.0.1:<port>` */
  baseUrl: string;
  apiKey: string;
  close(): Promise<void>;
}

export async function startShutter(options: ServiceOptions = {}): Promise<RunningShutter> {
  const service = await startService(options);
  try {
    await service.app.listen({ port: 0, host: '127.0.0.1' });
  } catch (error) {
    await service.close();
    throw error;
  }
  const { port } = service.app.server.address() as AddressInfo;
  return {
    service,
    baseUrl: `http://127.0.0.1:${port}`,
    apiKey: service.apiKey,
    async close() {
      // app.close() waits for every open connection; one left kept-alive after an aborted call can
      // hold it for good, so connections still open after a grace period are cut.
      const closed = service.close();
      const cut = setTimeout(() => service.app.server.closeAllConnections(), 2000);
      try {
        await closed;
      } finally {
        clearTimeout(cut);
      }
    },
  };
}

/** The raw answer of a POST /v1/take, without the client (for probes). */
async function rawTake(shutter: RunningShutter, body: Record<string, unknown>) {
  const res = await fetch(`${shutter.baseUrl}/v1/take`, {
    method: 'POST',
    headers: { apikey: shutter.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as { error?: { code?: string; details?: unknown } } };
}

/**
 * Whether the server knows a take parameter (a feature still being built, such as response_type or
 * async): a request without a source names every unknown parameter, and renders nothing.
 */
export async function knowsParameter(shutter: RunningShutter, name: string, value: unknown): Promise<boolean> {
  const { status, body } = await rawTake(shutter, { [name]: value });
  if (status !== 400) return false;
  const details = Array.isArray(body.error?.details) ? (body.error.details as Array<{ parameter?: string; code?: string }>) : [];
  return !details.some((d) => d.parameter === name && (d.code === 'unknown_parameter' || d.code === undefined));
}

/** Whether a POST-only route exists: a GET of it is then 405 method_not_allowed, not 404. */
export async function hasRoute(shutter: RunningShutter, path: string): Promise<boolean> {
  const res = await fetch(`${shutter.baseUrl}${path}`, { headers: { apikey: shutter.apiKey } });
  await res.body?.cancel();
  return res.status !== 404;
}

/** Width and height of a PNG from its IHDR chunk. */
export function pngSize(bytes: Uint8Array): { width: number; height: number } {
  assertPng(bytes);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

export const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

export function isPng(bytes: Uint8Array): boolean {
  return bytes.length >= 24 && PNG_SIGNATURE.every((b, i) => bytes[i] === b);
}

function assertPng(bytes: Uint8Array) {
  if (!isPng(bytes)) throw new Error(`not a PNG: ${Buffer.from(bytes.slice(0, 16)).toString('hex')}`);
}
