import type { Socket } from 'node:net';
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
  /** Whether a port is one the proxy listens on (any of its listeners): never a destination, even where loopback is allowed. */
  isOwnPort: (port: number) => boolean;
}

/** The gate's answer for an endpoint: the checked addresses to connect to, or why there are none. */
export type GateDecision = { addresses: string[] } | { refused: 'forbidden' | 'unresolved' };

/**
 * The decision point every proxied connection passes: resolve once, check, remember refusals
 * and failures. Shared by the SOCKS5, CONNECT and plain-http handlers.
 */
export class EgressGate {
  readonly outcomes = new EndpointLog();
  readonly connectTimeoutMs = 15_000;
  readonly idleTimeoutMs = 30_000;
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
    const decision = await this.decide(host, port);
    return 'addresses' in decision ? decision.addresses : undefined;
  }

  /** The same, telling a refusal from a name that does not resolve (a SOCKS5 reply code tells them apart). */
  async decide(host: string, port: number): Promise<GateDecision> {
    const verdict = await this.guard(host);
    const key = endpointKey(host, port);
    if (verdict.ok && !verdict.addresses.some((a) => this.isSelf(a, port))) return { addresses: verdict.addresses };
    if (!verdict.ok && verdict.reason === 'unresolved') {
      this.outcomes.record(key, 'ERR_NAME_NOT_RESOLVED');
      return { refused: 'unresolved' };
    }
    this.refused++;
    this.refusedBy[verdict.ok ? 'proxy_port' : 'page_request']++;
    if (this.outcomes.record(key, 'forbidden')) this.options.logger.info({ endpoint: key }, 'egress refused: the address is not allowed');
    return { refused: 'forbidden' };
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

  /** Keeps a tunnel's upstream socket so close() can cut it. */
  track(socket: Socket): void {
    this.open.add(socket);
    socket.once('close', () => this.open.delete(socket));
  }

  close(): void {
    for (const socket of this.open) socket.destroy();
  }

  private isSelf(address: string, port: number): boolean {
    return this.options.isOwnPort(port) && !isAddressAllowed(address, []);
  }
}
