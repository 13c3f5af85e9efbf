import { bareHost, canonicalHost } from './resolver.js';

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443, 'ws:': 80, 'wss:': 443 };

/**
 * Why the proxy did not connect a page to an endpoint: refused by the address policy, or a
 * network error in Chromium's own vocabulary (the proxy hides the real one from Chromium).
 */
export type EndpointOutcome = 'forbidden' | 'proxy_failed' | NetErrorName;

/** The Chromium net error names the proxy can stand for. */
export type NetErrorName =
  | 'ERR_NAME_NOT_RESOLVED'
  | 'ERR_CONNECTION_REFUSED'
  | 'ERR_CONNECTION_TIMED_OUT'
  | 'ERR_CONNECTION_RESET'
  | 'ERR_ADDRESS_UNREACHABLE'
  | 'ERR_CONNECTION_FAILED';

const NODE_TO_NET: Record<string, NetErrorName> = {
  ENOTFOUND: 'ERR_NAME_NOT_RESOLVED',
  EAI_AGAIN: 'ERR_NAME_NOT_RESOLVED',
  ECONNREFUSED: 'ERR_CONNECTION_REFUSED',
  ETIMEDOUT: 'ERR_CONNECTION_TIMED_OUT',
  ECONNRESET: 'ERR_CONNECTION_RESET',
  EHOSTUNREACH: 'ERR_ADDRESS_UNREACHABLE',
  ENETUNREACH: 'ERR_ADDRESS_UNREACHABLE',
};

/** Chromium's name for a Node socket error. */
export function netErrorName(error: unknown): NetErrorName {
  const code = (error as { code?: unknown } | null)?.code;
  return (typeof code === 'string' && Object.hasOwn(NODE_TO_NET, code) ? NODE_TO_NET[code] : undefined) ?? 'ERR_CONNECTION_FAILED';
}

/** `host:port` as the proxy saw it and as a page's URL names it (brackets off, default ports filled in). */
export function endpointKey(host: string, port: number): string {
  return `${canonicalHost(host) ?? bareHost(host)}:${port}`;
}

/** The endpoint key of a URL, or undefined for schemes that never reach the network. */
export function endpointKeyOfUrl(rawUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return undefined;
  }
  const port = url.port ? Number(url.port) : DEFAULT_PORTS[url.protocol];
  return port === undefined ? undefined : endpointKey(url.hostname, port);
}

/**
 * Endpoints the proxy recently refused or could not reach. The capture engine asks it why a
 * main-frame navigation failed: a refusal is a 403 target_forbidden, a network error a 422 that
 * names it. Bounded in size and age, so a page naming endless hosts cannot grow it.
 */
export class EndpointLog {
  private readonly entries = new Map<string, { outcome: EndpointOutcome; at: number }>();

  constructor(
    private readonly ttlMs = 60_000,
    private readonly maxEntries = 2000,
  ) {}

  /** Records an outcome; returns true when the endpoint had no such outcome within the TTL (worth a log line). */
  record(key: string, outcome: EndpointOutcome): boolean {
    const now = Date.now();
    const seen = this.entries.get(key);
    this.entries.delete(key);
    this.entries.set(key, { outcome, at: now });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return seen === undefined || seen.outcome !== outcome || now - seen.at > this.ttlMs;
  }

  /** The endpoint's recent outcome, if any. */
  get(key: string): EndpointOutcome | undefined {
    const entry = this.entries.get(key);
    return entry && Date.now() - entry.at <= this.ttlMs ? entry.outcome : undefined;
  }

  /** Forgets an endpoint that was reached after all (a later success supersedes an earlier failure). */
  clear(key: string): void {
    this.entries.delete(key);
  }
}
