import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { GuardVerdict } from '../egress/address-guard.js';
import { bareHost } from '../egress/resolver.js';

/** No answer within this → the attempt failed (DESIGN.md §4.3). */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** A receiver's answer body is read only this far (it is not used). */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface DeliveryOutcome {
  /** The receiver's HTTP status, when it answered. */
  status: number | null;
  /** Why it did not count as delivered: `forbidden`, `unresolved`, `timeout`, a network error code, or `http_<status>`. */
  error: string | null;
}

/**
 * POSTs a signed webhook body through the egress rules a capture obeys: the host is resolved once,
 * every address checked, and the connection made to a checked address (a name that rebinds to a
 * private address between the request and the delivery is refused, not followed). Redirects are
 * not followed: a 3xx is a failed attempt.
 */
export async function deliverWebhook(input: {
  url: string;
  body: string;
  headers: Record<string, string>;
  guard: (host: string) => Promise<GuardVerdict>;
  timeoutMs?: number;
}): Promise<DeliveryOutcome> {
  const url = new URL(input.url);
  const host = bareHost(url.hostname);
  const verdict = await input.guard(host);
  if (!verdict.ok) return { status: null, error: verdict.reason };
  const address = verdict.addresses[0]!;
  const family = isIP(address);
  // Node's own lookup is replaced by the checked answer: there is no second resolution to race.
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) (callback as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<DeliveryOutcome>((resolve) => {
    const request = client.request(
      url,
      {
        method: 'POST',
        lookup,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(input.body), ...input.headers },
        signal: AbortSignal.timeout(input.timeoutMs ?? WEBHOOK_TIMEOUT_MS),
      },
      (response) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) response.destroy();
        });
        const status = response.statusCode ?? 0;
        const settle = () => resolve({ status, error: status >= 200 && status < 300 ? null : `http_${status}` });
        response.on('end', settle);
        response.on('close', settle);
        response.on('error', settle);
      },
    );
    request.on('error', (error: NodeJS.ErrnoException) => {
      const timedOut = error.name === 'AbortError' || error.name === 'TimeoutError';
      resolve({ status: null, error: timedOut ? 'timeout' : (error.code ?? 'network_error') });
    });
    request.end(input.body);
  });
}
