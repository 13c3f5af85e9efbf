import type { RequestOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { CountryProxies } from './country-proxies.js';
import type { EgressGate } from './egress-gate.js';
import { connectToChecked } from './upstream.js';
import { describeProxy, type UpstreamProxy } from '../values/proxy-url.js';
import { basicAuth, tunnelThrough } from './upstream-proxy.js';

/**
 * How the proxy reaches a destination the gate has checked: directly, or through an operator's
 * country proxy. Either way only the checked addresses are used: nothing resolves the name again.
 */
export interface Dialer {
  /** A TCP connection to the destination (for SOCKS5 and CONNECT tunnels). */
  connect(port: number, addresses: readonly string[]): Promise<Socket>;
}

/** A dialer for the HTTP listener (country proxies), which also forwards plain-http requests. */
export interface HttpDialer extends Dialer {
  /** http.request options for a plain-http request to the destination. */
  httpOptions(host: string, port: number, addresses: readonly string[], path: string): Promise<RequestOptions>;
  /**
   * A plain-http request through this dialer failed before any answer: returns the error to record
   * (a country proxy's failure is marked as such, and the proxy is skipped for a while).
   */
  failed(error: unknown): unknown;
}

/** Straight to the checked address (the SOCKS5 listener: plain http arrives there as a tunnel too). */
export function directDialer(gate: EgressGate): Dialer {
  return { connect: (port, addresses) => connectToChecked(addresses, port, gate.connectTimeoutMs) };
}

const literal = (address: string) => (address.includes(':') ? `[${address}]` : address);

/**
 * Through the country's proxy, to the checked address (not the name): the operator's proxy must
 * not be talked into reaching its own network by a name that resolves differently there.
 * Sites still see the proxy's country; only DNS-based geo-steering is lost.
 */
export function countryDialer(gate: EgressGate, countries: CountryProxies, country: string): HttpDialer {
  let current: UpstreamProxy | undefined;
  const pick = () => {
    current = countries.pick(country);
    if (!current) throw Object.assign(new Error(`no proxy for ${country}`), { code: 'EPROXY' });
    return current;
  };
  const tunnel = async (port: number, addresses: readonly string[]) => {
    const proxy = pick();
    try {
      const socket = await tunnelThrough(proxy, addresses[0]!, port, gate.connectTimeoutMs);
      countries.succeeded(proxy);
      return socket;
    } catch (error) {
      countries.failed(proxy);
      throw Object.assign(new Error(`country proxy ${describeProxy(proxy)} failed: ${(error as Error).message}`), { code: 'EPROXY' });
    }
  };
  return {
    connect: tunnel,
    httpOptions: async (_host, port, addresses, path) => {
      const proxy = pick();
      if (proxy.protocol === 'socks5') {
        const socket = await tunnel(port, addresses);
        return { path, createConnection: () => socket };
      }
      // An HTTP proxy gets the request in absolute form, addressed to the checked IP; Host stays the site's.
      return {
        host: proxy.host,
        port: proxy.port,
        path: `http://${literal(addresses[0]!)}:${port}${path}`,
        ...(proxy.username !== undefined ? { headers: { 'proxy-authorization': basicAuth(proxy) } } : {}),
      };
    },
    failed: (error) => {
      if (!current) return error;
      countries.failed(current);
      return Object.assign(new Error(`country proxy ${describeProxy(current)} failed: ${(error as Error)?.message}`), { code: 'EPROXY' });
    },
  };
}
