import { promises as dns, type RecordWithTtl } from 'node:dns';
import { HostsFile } from './hosts-file.js';
import { readSearchConfig, searchCandidates, type SearchConfig } from './resolv-conf.js';
import type { Resolver } from './resolver.js';
import { withTimeout } from '../util/race-abort.js';

export interface CachingResolverOptions {
  /** Longest a lookup may take (all queries of it together); then it fails as unresolvable. */
  timeoutMs: number;
  /** DNS servers (`1.1.1.1`, `127.0.0.1:5353`, `[::1]:53`); default: resolv.conf's. */
  servers?: readonly string[];
  hostsPath?: string;
  resolvConfPath?: string;
  /** How long a failure is remembered. */
  errorTtlMs?: number;
  /** Upper bound on how long an answer is reused, whatever its TTL. */
  maxTtlMs?: number;
  /** Most names kept (answers and failures); the oldest go first. */
  maxEntries?: number;
}

/** Counters since start, for /v1/status and the benchmark. */
export interface ResolverStats {
  /** Names asked of the resolver. */
  lookups: number;
  /** Lookups that went to the network (one per name, whatever the record types and search domains). */
  network_lookups: number;
  /** Answered from remembered answers or failures. */
  cache_hits: number;
  /** Answered by joining a lookup of the same name already in flight. */
  joined: number;
  /** Network lookups that found no address (NXDOMAIN, no data, server failure). */
  failures: number;
  /** Network lookups cut at the deadline. */
  deadline_hits: number;
  /** Answered by the hosts file. */
  hosts_file: number;
}

/** A resolver with counters. */
export type StatefulResolver = Resolver & { stats(): ResolverStats };

/** RFC 8305's resolution delay: once one family answers, the other gets this long to follow. */
const OTHER_FAMILY_GRACE_MS = 50;
const DEFAULT_ERROR_TTL_MS = 5_000;
const DEFAULT_MAX_TTL_MS = 300_000;
const DEFAULT_MAX_ENTRIES = 10_000;

type Entry = { addresses: string[]; expires: number } | { error: Error; expires: number };

const dnsError = (code: string, name: string) => Object.assign(new Error(`queryA ${code} ${name}`), { code, hostname: name });
const NOT_FOUND = new Set(['ENOTFOUND', 'ENODATA', 'ENONAME', 'NXDOMAIN']);

/**
 * The egress guard's resolver, built to behave like a browser's (issue 23): one lookup per name in
 * flight, shared by every request waiting for it; answers kept for their TTL and failures for a few
 * seconds; a deadline per lookup. Queries go through c-ares on the event loop, so they never queue
 * behind sharp on libuv's four threads, and a burst of thirty names does not make glibc's resolver
 * drop part of it and retry after 5 s (measured: docs/performance.md). What it answers equals
 * getaddrinfo's `hosts: files dns`: the hosts file first, then DNS with resolv.conf's search list.
 */
export function createCachingResolver(options: CachingResolverOptions): StatefulResolver {
  // A resolver drops part of a burst now and then: a lost query is sent again after a quarter
  // second (and then after doubling waits) instead of after glibc's 5 s, within the deadline.
  const resolver = new dns.Resolver({ timeout: Math.min(1000, Math.max(100, Math.floor(options.timeoutMs / 8))), tries: 4 });
  if (options.servers?.length) resolver.setServers([...options.servers]);
  const hosts = new HostsFile(options.hostsPath);
  const search: SearchConfig = readSearchConfig(options.resolvConfPath);
  const errorTtlMs = options.errorTtlMs ?? DEFAULT_ERROR_TTL_MS;
  const maxTtlMs = options.maxTtlMs ?? DEFAULT_MAX_TTL_MS;
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const cache = new Map<string, Entry>();
  const inFlight = new Map<string, Promise<string[]>>();
  const stats: ResolverStats = { lookups: 0, network_lookups: 0, cache_hits: 0, joined: 0, failures: 0, deadline_hits: 0, hosts_file: 0 };

  const remember = (name: string, entry: Entry) => {
    cache.delete(name);
    if (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
    cache.set(name, entry);
  };

  const lookUp = async (name: string, absolute: boolean): Promise<string[]> => {
    stats.network_lookups++;
    try {
      const lookup = searchAll(resolver, name, searchCandidates(name, search, absolute));
      const { addresses, ttlMs } = await withTimeout(lookup, options.timeoutMs, () => dnsError('ETIMEOUT', name));
      if (ttlMs > 0) remember(name, { addresses, expires: Date.now() + Math.min(ttlMs, maxTtlMs) });
      return addresses;
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'ESERVFAIL';
      if (code === 'ETIMEOUT') stats.deadline_hits++;
      else stats.failures++;
      const failure = dnsError(code, name);
      remember(name, { error: failure, expires: Date.now() + errorTtlMs });
      throw failure;
    }
  };

  const resolve = async (hostname: string): Promise<string[]> => {
    stats.lookups++;
    const absolute = hostname.endsWith('.');
    const name = hostname.toLowerCase().replace(/\.$/, '');
    const fromFile = hosts.lookup(name);
    if (fromFile) {
      stats.hosts_file++;
      return [...fromFile];
    }
    const key = absolute ? `${name}.` : name;
    const cached = cache.get(key);
    if (cached && cached.expires > Date.now()) {
      stats.cache_hits++;
      if ('error' in cached) throw cached.error;
      return [...cached.addresses];
    }
    const pending = inFlight.get(key);
    if (pending) {
      stats.joined++;
      return [...(await pending)];
    }
    const lookup = lookUp(name, absolute).finally(() => inFlight.delete(key));
    inFlight.set(key, lookup);
    return [...(await lookup)];
  };

  return Object.assign(resolve, { stats: () => ({ ...stats }) });
}

/** The first candidate name that has addresses, as res_search walks the search list. */
async function searchAll(resolver: dns.Resolver, name: string, candidates: string[]): Promise<{ addresses: string[]; ttlMs: number }> {
  let lastError: unknown = dnsError('ENOTFOUND', name);
  for (const candidate of candidates) {
    try {
      return await bothFamilies(resolver, candidate);
    } catch (error) {
      lastError = error;
      // Only "no such name" moves on to the next candidate; a server failure or timeout ends the search.
      if (!NOT_FOUND.has((error as { code?: string }).code ?? '')) throw error;
    }
  }
  throw lastError;
}

/**
 * A and AAAA in parallel, as getaddrinfo asks them. IPv4 addresses come first (this is what the
 * upstream connection tries in order). When one family has answered, the other has 50 ms more,
 * so a server that drops AAAA queries costs 50 ms, not the deadline.
 */
async function bothFamilies(resolver: dns.Resolver, name: string): Promise<{ addresses: string[]; ttlMs: number }> {
  const settled = (p: Promise<RecordWithTtl[]>) =>
    p.then(
      (records) => ({ records }),
      (error: unknown) => ({ error }),
    );
  const v4 = settled(resolver.resolve4(name, { ttl: true }));
  const v6 = settled(resolver.resolve6(name, { ttl: true }));
  const first = await Promise.race([v4, v6]);
  let timer: NodeJS.Timeout | undefined;
  const grace =
    'records' in first && first.records.length > 0
      ? new Promise<{ late: true }>((resolve) => (timer = setTimeout(() => resolve({ late: true }), OTHER_FAMILY_GRACE_MS)))
      : undefined;
  const [a, aaaa] = await Promise.all(grace ? [Promise.race([v4, grace]), Promise.race([v6, grace])] : [v4, v6]);
  clearTimeout(timer);
  const records = [a, aaaa].flatMap((r) => ('records' in r ? r.records : []));
  if (records.length === 0) {
    // Neither family has an address: the A query's reason is the one reported.
    const reason = 'error' in a ? a.error : 'error' in aaaa ? aaaa.error : dnsError('ENODATA', name);
    throw reason;
  }
  return { addresses: records.map((r) => r.address), ttlMs: Math.min(...records.map((r) => r.ttl)) * 1000 };
}
