import type { ProxyTable } from '../values/proxy-table.js';
import { describeProxy, type UpstreamProxy } from '../values/proxy-url.js';

/** A proxy that failed is skipped for this long (unless all of a country's have failed). */
const SKIP_FAILED_MS = 60_000;

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
