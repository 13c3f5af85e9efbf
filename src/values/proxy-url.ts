/** An operator's proxy for one country (SHUTTER_PROXIES). */
export interface UpstreamProxy {
  /** As configured, credentials included; never logged. */
  url: string;
  protocol: 'http' | 'socks5';
  host: string;
  port: number;
  username?: string;
  password?: string;
}

/** Parses `http://user:pass@host:port` or `socks5://…`; throws with a message naming the problem. */
export function parseUpstreamProxy(url: string): UpstreamProxy {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('is not a URL');
  }
  const protocol = parsed.protocol.replace(/:$/, '');
  if (protocol !== 'http' && protocol !== 'socks5') throw new Error(`uses ${protocol}:, not http: or socks5:`);
  if (!parsed.hostname || !parsed.port) throw new Error('needs a host and a port');
  return {
    url,
    protocol,
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: Number(parsed.port),
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
  };
}

/** What the operator's proxy is shown of a proxy, for logs: no credentials. */
export const describeProxy = (proxy: UpstreamProxy) => `${proxy.protocol}://${proxy.host}:${proxy.port}`;
