import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { Cidr } from '../values/cidr.js';
import { endpointKeyOfUrl, type EndpointOutcome } from './endpoint-log.js';
import type { CountryProxies } from './country-proxies.js';
import { countryDialer, directDialer } from './dialers.js';
import { EgressGate } from './egress-gate.js';
import { listenHttp, listenSocks, type Listener } from './listeners.js';
import { systemResolver, type Resolver } from './resolver.js';

export interface EgressProxyOptions {
  /** SHUTTER_ALLOWED_PRIVATE_NETWORKS: the only non-public networks a page may reach. */
  allowed: readonly Cidr[];
  /** How host names are resolved; tests inject a table (e.g. ads.example → a local fixture server). */
  resolve?: Resolver;
  /** SHUTTER_PROXIES: per-country upstream proxies for ip_country_code. */
  countries?: CountryProxies;
  logger: Logger;
}

/**
 * The in-process proxy Chromium is launched behind (`--proxy-server=socks5://…`, loopback not
 * bypassed). Every connection a page opens — documents, redirects, subresources, fetch, WebSockets,
 * workers, over http or https — arrives here as a SOCKS5 CONNECT (socks-tunnel.ts), is resolved
 * once, checked against the address policy and opened to the checked address. Country listeners
 * are HTTP proxies (listeners.ts says why). Listens on 127.0.0.1 only.
 */
export class EgressProxy {
  private main?: Promise<Listener>;
  /** One more listener per country in use: the context of an ip_country_code capture is pointed at it. */
  private readonly countryListeners = new Map<string, Promise<Listener>>();
  /** Every port the proxy listens on: none is a destination for a page, even where loopback is allowed. */
  private readonly ports = new Set<number>();
  private readonly sockets = new Set<Socket>();
  private readonly gate: EgressGate;
  private readonly countries?: CountryProxies;

  constructor(options: EgressProxyOptions) {
    this.gate = new EgressGate({
      allowed: options.allowed,
      resolve: options.resolve ?? systemResolver,
      logger: options.logger,
      isOwnPort: (port) => this.ports.has(port),
    });
    this.countries = options.countries;
  }

  /** Starts listening (once) and returns the proxy URL for `--proxy-server` (`socks5://127.0.0.1:<port>`). */
  async listen(): Promise<string> {
    this.main ??= this.opened(listenSocks(this.gate, directDialer(this.gate), this.sockets));
    return (await this.main).url;
  }

  /**
   * The proxy URL for a capture's context: the same checks, then out through a proxy of that
   * country. Throws for a country without a configured proxy (the options check refuses those first).
   */
  async listenFor(country: string): Promise<string> {
    const countries = this.countries;
    if (!countries?.table.has(country)) throw new Error(`no proxy is configured for ${country}`);
    let listener = this.countryListeners.get(country);
    if (!listener) {
      listener = this.opened(listenHttp(this.gate, countryDialer(this.gate, countries, country), this.sockets));
      this.countryListeners.set(country, listener);
    }
    return (await listener).url;
  }

  /** Why the proxy recently did not connect a page to this URL's endpoint, if it did not. */
  outcomeOf(url: string): EndpointOutcome | undefined {
    const key = endpointKeyOfUrl(url);
    return key === undefined ? undefined : this.gate.outcomes.get(key);
  }

  /** Connections refused since start, for tests and metrics. */
  get refusedCount(): number {
    return this.gate.refused;
  }

  /** The same by reason (GET /metrics): `page_request`, an address not allowed; `proxy_port`, the proxy itself. */
  refusals(): { page_request: number; proxy_port: number } {
    return { ...this.gate.refusedBy };
  }

  async close(): Promise<void> {
    const listeners = [this.main, ...this.countryListeners.values()].map((l) => l?.catch(() => undefined));
    this.main = undefined;
    this.countryListeners.clear();
    this.gate.close();
    for (const socket of this.sockets) socket.destroy();
    const closing = (await Promise.all(listeners)).filter((l) => l !== undefined);
    await Promise.all(closing.map((l) => new Promise<void>((resolve) => l.server.close(() => resolve()))));
    for (const l of closing) this.ports.delete(l.port);
  }

  /** Counts a listener's port among the proxy's own as soon as it listens. */
  private async opened(listening: Promise<Listener>): Promise<Listener> {
    const listener = await listening;
    this.ports.add(listener.port);
    return listener;
  }
}
