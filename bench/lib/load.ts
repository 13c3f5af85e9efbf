/**
 * The load generator: N requests over HTTP at a fixed concurrency, bounded in count and time.
 * Every answer is checked (status, and the body really is a PNG, JPEG, PDF, …) so a fast error
 * never passes for a fast capture.
 */

/** What a successful answer must be ('html': the floor's stand-in for markdown, the loaded page's HTML). */
export type Expect = 'png' | 'jpeg' | 'webp' | 'pdf' | 'markdown' | 'html' | 'upload';

/** One request as the load generator sends it. */
export interface RequestSpec {
  url: string;
  headers: Record<string, string>;
  expect: Expect;
  /**
   * HTTP statuses that are a measured outcome, not an error (e.g. 504 on a page that never
   * finishes loading): counted and timed apart from successes, never in `errors`.
   */
  tolerate?: readonly number[];
}

/** One request's outcome. */
export interface Outcome {
  ok: boolean;
  ms: number;
  bytes: number;
  /** HTTP status; 0 when no answer came. */
  status: number;
  /** A status the request's `tolerate` lists: not ok, but not an error either. */
  tolerated?: boolean;
  error?: string;
  /** Shutter's Server-Timing phases in ms (queue, navigate, wait, capture, encode). */
  phases?: Record<string, number>;
  /**
   * Warnings the answer carries: Shutter's `X-Shutter-Warning` tokens (e.g. partial_load) and the
   * baselines' `X-Bench-Warning` (e.g. load_timeout: the floor's goto timed out and it captured anyway).
   */
  warnings?: string[];
  /** Shutter's `X-Shutter-Cache` (HIT or MISS), when the request asked for the cache. */
  cache?: string;
}

/** The outcomes of a load run. */
export interface LoadResult {
  latencies: number[];
  bytes: number[];
  ok: number;
  errors: number;
  /** The first few distinct error messages. */
  errorSamples: string[];
  /** Answers with a tolerated status (see RequestSpec.tolerate), by status, and how long each took. */
  tolerated: Record<string, number>;
  toleratedLatencies: number[];
  /** The first few distinct tolerated answers (status and body start). */
  toleratedSamples: string[];
  /** Successful answers carrying each warning (X-Shutter-Warning / X-Bench-Warning token). */
  warnings: Record<string, number>;
  /** Successful answers by `X-Shutter-Cache` value (HIT, MISS), when there was one. */
  cache: Record<string, number>;
  /** From the first request's start to the last answer. */
  wallMs: number;
  phases: Record<string, number[]>;
}

const MAGIC: Partial<Record<Expect, (b: Buffer) => boolean>> = {
  png: (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  jpeg: (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  webp: (b) => b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP',
  pdf: (b) => b.toString('latin1', 0, 5) === '%PDF-',
};

/** Why this answer is not what `expect` asks for, or undefined when it is. */
export function checkBody(expect: Expect, contentType: string, body: Buffer): string | undefined {
  if (body.length === 0) return 'empty body';
  const magic = MAGIC[expect];
  if (magic) return magic(body) ? undefined : `body is not ${expect} (${contentType})`;
  if (expect === 'markdown') {
    return contentType.startsWith('text/markdown') && /^#|\n#/.test(body.toString('utf8')) ? undefined : `not markdown (${contentType})`;
  }
  if (expect === 'html') {
    return contentType.startsWith('text/html') && /<html[\s>]/i.test(body.toString('utf8', 0, 4096))
      ? undefined
      : `not html (${contentType})`;
  }
  try {
    const json = JSON.parse(body.toString('utf8')) as { url?: unknown; size?: unknown };
    return typeof json.url === 'string' && typeof json.size === 'number' && json.size > 0 ? undefined : 'upload answer without url/size';
  } catch {
    return `upload answer is not JSON (${contentType})`;
  }
}

/** `queue;dur=1.2, navigate;dur=20` → { queue: 1.2, navigate: 20 }. */
export function parseServerTiming(header: string | null): Record<string, number> | undefined {
  if (!header) return undefined;
  const phases: Record<string, number> = {};
  for (const part of header.split(',')) {
    const m = /^\s*([\w-]+)\s*;.*?dur=([\d.]+)/.exec(part);
    if (m) phases[m[1]!] = Number(m[2]);
  }
  return Object.keys(phases).length ? phases : undefined;
}

/** `partial_load, other` (one header or several) → ['partial_load', 'other']. */
export function parseWarnings(...headers: Array<string | null>): string[] | undefined {
  const tokens = headers
    .flatMap((h) => (h ?? '').split(','))
    .map((t) => t.trim())
    .filter(Boolean);
  return tokens.length ? tokens : undefined;
}

/** Sends one request and checks its answer; never throws. */
export async function send(spec: RequestSpec, timeoutMs: number): Promise<Outcome> {
  const start = performance.now();
  try {
    const res = await fetch(spec.url, { headers: spec.headers, signal: AbortSignal.timeout(Math.max(1, Math.round(timeoutMs))) });
    const body = Buffer.from(await res.arrayBuffer());
    const ms = performance.now() - start;
    const contentType = res.headers.get('content-type') ?? '';
    const problem = res.status === 200 ? checkBody(spec.expect, contentType, body) : `HTTP ${res.status}: ${body.toString('utf8', 0, 300)}`;
    const phases = parseServerTiming(res.headers.get('server-timing'));
    const warnings = parseWarnings(res.headers.get('x-shutter-warning'), res.headers.get('x-bench-warning'));
    const tolerated = res.status !== 200 && (spec.tolerate?.includes(res.status) ?? false);
    const cache = res.headers.get('x-shutter-cache')?.trim().toUpperCase();
    return {
      ok: !problem,
      ms,
      bytes: body.length,
      status: res.status,
      ...(tolerated ? { tolerated } : {}),
      ...(problem ? { error: problem } : {}),
      ...(phases ? { phases } : {}),
      ...(warnings ? { warnings } : {}),
      ...(cache ? { cache } : {}),
    };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    const message = (error as Error).name === 'TimeoutError' ? `timeout after ${timeoutMs} ms` : (cause ?? (error as Error).message);
    return { ok: false, ms: performance.now() - start, bytes: 0, status: 0, error: message };
  }
}

export interface LoadOptions {
  total: number;
  concurrency: number;
  /** No request starts after this moment (performance.now()). */
  deadline: number;
  requestTimeoutMs: number;
}

/** Runs `total` requests (request(i) builds the i-th) with `concurrency` in flight, until done or the deadline. */
export async function runLoad(request: (i: number) => RequestSpec, options: LoadOptions): Promise<LoadResult> {
  const result = emptyLoad();
  let issued = 0;
  const start = performance.now();
  let end = start;
  const worker = async () => {
    while (issued < options.total && performance.now() < options.deadline) {
      const outcome = await send(request(issued++), options.requestTimeoutMs);
      end = performance.now();
      if (outcome.tolerated) {
        result.tolerated[outcome.status] = (result.tolerated[outcome.status] ?? 0) + 1;
        result.toleratedLatencies.push(outcome.ms);
        const sample = outcome.error!.slice(0, 200);
        if (result.toleratedSamples.length < 3 && !result.toleratedSamples.includes(sample)) result.toleratedSamples.push(sample);
        continue;
      }
      if (!outcome.ok) {
        result.errors++;
        if (result.errorSamples.length < 5 && !result.errorSamples.includes(outcome.error!)) result.errorSamples.push(outcome.error!);
        continue;
      }
      result.ok++;
      result.latencies.push(outcome.ms);
      result.bytes.push(outcome.bytes);
      for (const [phase, ms] of Object.entries(outcome.phases ?? {})) (result.phases[phase] ??= []).push(ms);
      for (const warning of new Set(outcome.warnings)) result.warnings[warning] = (result.warnings[warning] ?? 0) + 1;
      if (outcome.cache) result.cache[outcome.cache] = (result.cache[outcome.cache] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency) }, worker));
  result.wallMs = end - start;
  return result;
}

/** A load run with nothing in it. */
export function emptyLoad(): LoadResult {
  return {
    latencies: [],
    bytes: [],
    ok: 0,
    errors: 0,
    errorSamples: [],
    tolerated: {},
    toleratedLatencies: [],
    toleratedSamples: [],
    warnings: {},
    cache: {},
    wallMs: 0,
    phases: {},
  };
}

const addCounts = (into: Record<string, number>, from: Record<string, number>) => {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
};

/**
 * Several load runs (the rounds of one engine in one scenario) as one: samples and counts added,
 * wall time summed, so throughput is successes over the time this engine was measured.
 */
export function mergeLoads(loads: readonly LoadResult[]): LoadResult {
  const all = emptyLoad();
  for (const l of loads) {
    all.latencies.push(...l.latencies);
    all.bytes.push(...l.bytes);
    all.ok += l.ok;
    all.errors += l.errors;
    for (const e of l.errorSamples) if (all.errorSamples.length < 5 && !all.errorSamples.includes(e)) all.errorSamples.push(e);
    addCounts(all.tolerated, l.tolerated);
    all.toleratedLatencies.push(...l.toleratedLatencies);
    for (const t of l.toleratedSamples)
      if (all.toleratedSamples.length < 3 && !all.toleratedSamples.includes(t)) all.toleratedSamples.push(t);
    addCounts(all.warnings, l.warnings);
    addCounts(all.cache, l.cache);
    all.wallMs += l.wallMs;
    for (const [phase, values] of Object.entries(l.phases)) (all.phases[phase] ??= []).push(...values);
  }
  return all;
}
