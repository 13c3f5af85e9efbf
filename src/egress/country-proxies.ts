import { describeProxy, parseUpstreamProxy, type UpstreamProxy } from './upstream-proxy.js';

/** A proxy that failed is skipped for this long (unless all of a country's have failed). */
const SKIP_FAILED_MS = 60_000;

/** SHUTTER_PROXIES parsed: for each lowercase country code, its proxies in order. */
export type ProxyTable = ReadonlyMap<string, readonly UpstreamProxy[]>;

/**
 * Parses `{"de":"http://user:pass@host:port","us":["http://…","socks5://…"]}`; throws an Error
 * naming the bad entry.
 */
export function parseProxyTable(json: string): ProxyTable {
  if (json.trim() === '') return new Map();
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new Error('must be a JSON object like {"de":"http://user:pass@host:3128","us":["socks5://host:1080"]}');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('must be a JSON object of country code → proxy URL(s)');
  const table = new Map<string, UpstreamProxy[]>();
  for (const [code, entry] of Object.entries(value)) {
    if (!/^[a-z]{2}$/.test(code)) throw new Error(`"${code}" is not a lowercase ISO 3166-1 alpha-2 code`);
    const urls = Array.isArray(entry) ? entry : [entry];
    if (urls.length === 0 || urls.some((u) => typeof u !== 'string')) throw new Error(`${code}: give a proxy URL or a list of them`);
    table.set(
      code,
      (urls as string[]).map((url, i) => {
        try {
          return parseUpstreamProxy(url);
        } catch (error) {
          throw new Error(`${code}[${i}] ${(error as Error).message}`, { cause: error });
        }
      }),
    );
  }
  return table;
}

/** Round-robin over a country's proxies, skipping for a while those that just failed. */
export class CountryProxies {
  private readonly next = new Map<string, number>();
  private readonly failedUntil = new Map<UpstreamProxy, number>();

  constructor(readonly table: ProxyTable) {}

  get countries(): string[] {
    return [...this.table.keys()].sort();
  }

  /** The proxy to use now for this country, or undefined for an unknown country. */
  pick(country: string, now = Date.now()): UpstreamProxy | undefined {
    const proxies = this.table.get(country);
    if (!proxies?.length) return undefined;
    const start = this.next.get(country) ?? 0;
    for (let i = 0; i < proxies.length; i++) {
      const index = (start + i) % proxies.length;
      const proxy = proxies[index]!;
      if ((this.failedUntil.get(proxy) ?? 0) <= now) {
        this.next.set(country, index + 1);
        return proxy;
      }
    }
    // Every proxy failed recently: try them in turn anyway rather than refuse outright.
    this.next.set(country, start + 1);
    return proxies[start % proxies.length];
  }

  failed(proxy: UpstreamProxy, now = Date.now()): void {
    this.failedUntil.set(proxy, now + SKIP_FAILED_MS);
  }

  succeeded(proxy: UpstreamProxy): void {
    this.failedUntil.delete(proxy);
  }

  describe(proxy: UpstreamProxy): string {
    return describeProxy(proxy);
  }
}
