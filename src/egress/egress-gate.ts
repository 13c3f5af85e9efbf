import { Agent } from 'node:http';
import type { LookupFunction, Socket } from 'node:net';
import type { Logger } from 'pino';
import { createAddressGuard } from './address-guard.js';
import { isAddressAllowed } from './address-policy.js';
import type { Cidr } from '../values/cidr.js';
import { EndpointLog, endpointKey, netErrorName } from './endpoint-log.js';
import type { Resolver } from './resolver.js';

export interface EgressGateOptions {
  allowed: readonly Cidr[];
  resolve: Resolver;
  logger: Logger;
  /** The proxy's own port: never a destination, even where loopback is allowed. */
  ownPort: () => number | undefined;
}

/**
 * The decision point every proxied connection passes: resolve once, check, remember refusals
 * and failures. Shared by the CONNECT and plain-http handlers; owns the upstream keep-alive agent.
 */
export class EgressGate {
  readonly outcomes = new EndpointLog();
  readonly connectTimeoutMs = 15_000;
  readonly idleTimeoutMs = 30_000;
  /** Keep-alive to upstreams: a page's many requests to one origin reuse connections. */
  readonly agent = new Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 16, timeout: 30_000 });
  /** Connections refused by the address policy since start. */
  refused = 0;
  /** The same, by reason: an address not allowed, or the proxy's own port. */
  readonly refusedBy = { page_request: 0, proxy_port: 0 };
  private readonly guard;
  private readonly open = new Set<Socket>();

  constructor(private readonly options: EgressGateOptions) {
    // The resolver remembers answers for their TTL; this 1 s pin also holds for TTL 0, the
    // rebinding server's favourite: a page's burst of requests to a name reaches one checked answer.
    this.guard = createAddressGuard({ allowed: options.allowed, resolve: options.resolve, cacheMs: 1_000 });
  }

  /** The checked addresses to connect to, or undefined when the endpoint is refused or unresolvable (recorded). */
  async check(host: string, port: number): Promise<string[] | undefined> {
    const verdict = await this.guard(host);
    const key = endpointKey(host, port);
    if (verdict.ok && !verdict.addresses.some((a) => this.isSelf(a, port))) return verdict.addresses;
    if (!verdict.ok && verdict.reason === 'unresolved') {
      this.outcomes.record(key, 'ERR_NAME_NOT_RESOLVED');
      return undefined;
    }
    this.refused++;
    this.refusedBy[verdict.ok ? 'proxy_port' : 'page_request']++;
    if (this.outcomes.record(key, 'forbidden')) this.options.logger.info({ endpoint: key }, 'egress refused: the address is not allowed');
    return undefined;
  }

  /** Records why an allowed endpoint could not be reached, in Chromium's words (or that a country proxy failed). */
  failed(host: string, port: number, error: unknown): void {
    const proxy = (error as { code?: unknown } | null)?.code === 'EPROXY';
    this.outcomes.record(endpointKey(host, port), proxy ? 'proxy_failed' : netErrorName(error));
  }

  /** An endpoint was reached: an earlier failure no longer explains anything. */
  reached(host: string, port: number): void {
    this.outcomes.clear(endpointKey(host, port));
  }

  /** A socket lookup that answers with the checked addresses only (no second resolution). */
  pinnedLookup(addresses: readonly string[]): LookupFunction {
    const entries = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    return (_hostname, options, callback) => {
      if (options.all) (callback as (e: null, a: typeof entries) => void)(null, entries);
      else callback(null, entries[0]!.address, entries[0]!.family);
    };
  }

  /** Keeps a tunnel's upstream socket so close() can cut it. */
  track(socket: Socket): void {
    this.open.add(socket);
    socket.once('close', () => this.open.delete(socket));
  }

  close(): void {
    for (const socket of this.open) socket.destroy();
    this.agent.destroy();
  }

  private isSelf(address: string, port: number): boolean {
    return port === this.options.ownPort() && !isAddressAllowed(address, []);
  }
}
