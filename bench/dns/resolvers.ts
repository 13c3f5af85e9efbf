/**
 * How the egress guard's resolver compares with the alternatives on a page's burst of lookups
 * (issue 23): getaddrinfo per request (Shutter before), cacheable-lookup 7 (default, and with its
 * getaddrinfo fallback off) and Shutter's caching resolver. Thirty lookups of six host names, as a
 * page with six dead third-party hosts makes them, against (a) the system's resolver for names
 * that do not exist and (b) a DNS stub on 127.0.0.1 that drops every query. Prints per resolver:
 * wall time of the burst, getaddrinfo calls, and how long four crypto jobs on libuv's thread pool
 * took meanwhile (sharp shares that pool).
 *
 *   cd bench && npm install --no-save cacheable-lookup@7 && cd .. && npx tsx bench/dns/resolvers.ts
 */
import { pbkdf2 } from 'node:crypto';
import dns from 'node:dns';
import { createCachingResolver } from '../../src/egress/caching-resolver.js';
import { startDnsStub } from '../../test/helpers/dns-stub.js';

type Lookup = (name: string) => Promise<unknown>;

let getaddrinfoCalls = 0;
const systemLookup = (name: string) => {
  getaddrinfoCalls++;
  return dns.promises.lookup(name, { all: true });
};

async function cacheable(options: Record<string, unknown>, servers?: string[]): Promise<Lookup> {
  const { default: CacheableLookup } = (await import('cacheable-lookup' as string)) as {
    default: new (o: Record<string, unknown>) => { lookupAsync(name: string, o: { all: true }): Promise<unknown> };
  };
  const resolver = new dns.promises.Resolver();
  if (servers) resolver.setServers(servers);
  // Count the getaddrinfo fallback calls it makes.
  const lookup = (name: string, o: dns.LookupOptions, cb: (...a: unknown[]) => void) => {
    getaddrinfoCalls++;
    dns.lookup(name, o, cb as never);
  };
  const instance = new CacheableLookup({ resolver, ...(options.lookup === false ? {} : { lookup }), ...options });
  return (name) => instance.lookupAsync(name, { all: true });
}

async function burst(label: string, lookup: Lookup, names: string[]): Promise<void> {
  getaddrinfoCalls = 0;
  const started = performance.now();
  const all = Promise.all(names.flatMap((n) => Array.from({ length: 5 }, () => lookup(n).catch(() => undefined))));
  const poolStarted = performance.now();
  await Promise.all(Array.from({ length: 4 }, () => new Promise((r) => pbkdf2('x', 'y', 20_000, 32, 'sha256', r))));
  const poolMs = performance.now() - poolStarted;
  await Promise.race([all, new Promise((r) => setTimeout(r, 30_000))]);
  const ms = performance.now() - started;
  console.log(
    `${label.padEnd(48)} ${ms.toFixed(0).padStart(6)} ms  getaddrinfo ${String(getaddrinfoCalls).padStart(3)}  4 pool jobs ${poolMs.toFixed(0)} ms`,
  );
}

const round = Date.now().toString(36);
const dead = (tag: string) => ['cdn', 'img', 'ads', 'px', 'fonts', 'stats'].map((h) => `${h}-${round}-${tag}.dead-hosts.test`);

console.log('(a) six names that do not exist, the system resolver');
await burst('getaddrinfo per request (Shutter before)', systemLookup, dead('a1'));
await burst('cacheable-lookup 7, defaults', await cacheable({}), dead('a2'));
await burst('cacheable-lookup 7, lookup: false', await cacheable({ lookup: false }), dead('a3'));
await burst('Shutter caching resolver', createCachingResolver({ timeoutMs: 2000 }), dead('a4'));

const stub = await startDnsStub({}, { drop: true });
console.log('(b) six names whose queries are dropped (DNS stub), 2 s deadline where there is one');
await burst('cacheable-lookup 7, defaults', await cacheable({}, [stub.server]), dead('b1'));
await burst('cacheable-lookup 7, lookup: false', await cacheable({ lookup: false }, [stub.server]), dead('b2'));
await burst('Shutter caching resolver', createCachingResolver({ timeoutMs: 2000, servers: [stub.server] }), dead('b3'));
console.log(`queries the stub received: ${stub.queries.length}`);
await stub.close();
process.exit(0);
