import { parseUpstreamProxy, type UpstreamProxy } from './proxy-url.js';

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
