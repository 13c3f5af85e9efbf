import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Logger } from 'pino';
import type { Cidr } from '../values/cidr.js';
import { endpointKeyOfUrl, type EndpointOutcome } from './endpoint-log.js';
import type { CountryProxies } from './country-proxies.js';
import { countryDialer, directDialer, type Dialer } from './dialers.js';
import { EgressGate } from './egress-gate.js';
import { handleForward } from './proxy-forward.js';
import { handleConnect } from './proxy-tunnel.js';
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
 * The in-process forward proxy Chromium is launched behind (`--proxy-server`, loopback not
 * bypassed). Every request a page makes — documents, redirects, subresources, fetch, WebSockets,
 * workers — arrives here as CONNECT or an absolute-form http request, is resolved once, checked
 * against the address policy and sent to the checked address. Listens on 127.0.0.1 only.
 */
export class EgressProxy {
  private server?: Server;
  private listening?: Promise<string>;
  /** One more listener per country in use: the context of an ip_country_code capture is pointed at it. */
  private readonly countryListeners = new Map<string, Promise<{ server: Server; url: string }>>();
  private readonly sockets = new Set<Socket>();
  private readonly gate: EgressGate;
  private readonly countries?: CountryProxies;

  constructor(options: EgressProxyOptions) {
    this.gate = new EgressGate({
      allowed: options.allowed,
      resolve: options.resolve ?? systemResolver,
      logger: options.logger,
      ownPort: () => (this.server?.address() as AddressInfo | null)?.port,
    });
    this.countries = options.countries;
  }

  /** Starts listening (once) and returns the proxy URL for `--proxy-server`. */
  listen(): Promise<string> {
    this.listening ??= this.start(directDialer(this.gate)).then(({ server, url }) => {
      this.server = server;
      return url;
    });
    return this.listening;
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
      listener = this.start(countryDialer(this.gate, countries, country));
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
    const servers = [
      this.server,
      ...(await Promise.all(
        [...this.countryListeners.values()].map((l) =>
          l.then(
            (x) => x.server,
            () => undefined,
          ),
        ),
      )),
    ];
    this.server = undefined;
    this.listening = undefined;
    this.countryListeners.clear();
    this.gate.close();
    for (const socket of this.sockets) socket.destroy();
    await Promise.all(servers.map((server) => server && new Promise<void>((resolve) => server.close(() => resolve()))));
  }

  private async start(dialer: Dialer): Promise<{ server: Server; url: string }> {
    // Chromium's headers can be large (cookies); the limit only guards against a runaway peer.
    const server = createServer({ maxHeaderSize: 64 * 1024, requestTimeout: 0, keepAliveTimeout: 30_000 });
    server.on('connection', (socket: Socket) => {
      socket.setNoDelay(true);
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    server.on('request', (request, response) => {
      handleForward(this.gate, dialer, request, response).catch(() => response.destroy());
    });
    server.on('connect', (request, client, head) => {
      handleConnect(this.gate, dialer, request, client, head).catch(() => client.destroy());
    });
    server.on('clientError', (_error, socket) => socket.destroy());
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  }
}
