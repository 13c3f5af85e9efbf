import type { TakeOptions } from '../options/schema.js';

/** Query strings remembered per app. */
const REMEMBERED = 500;

/**
 * The options of recently seen GET /v1/take query strings: an embedded capture (an <img> of a signed
 * link, cache=1) asks with the same query string again and again, and validating ~100 parameters
 * costs more than the rest of a cache hit's CPU. The options are frozen, deeply, since requests share
 * them. Not remembered: invalid queries (their 400 is built each time), queries carrying an apikey
 * (no secret is kept), and cookies (a Max-Age is counted from the moment of parsing).
 */
export class ParsedQueries {
  private readonly seen = new Map<string, Readonly<TakeOptions>>();

  constructor(private readonly max = REMEMBERED) {}

  /** The options of `query` (the raw query string, with a tag for how it authenticated), parsing it with `parse` when new. */
  get(query: string, parse: () => TakeOptions): TakeOptions {
    const known = this.seen.get(query);
    if (known) {
      this.seen.delete(query);
      this.seen.set(query, known);
      return known;
    }
    const options = parse();
    if (options.cookies === undefined) {
      deepFreeze(options);
      if (this.seen.size >= this.max) this.seen.delete(this.seen.keys().next().value!);
      this.seen.set(query, options);
    }
    return options;
  }

  get size(): number {
    return this.seen.size;
  }
}

function deepFreeze(value: unknown): void {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value) || ArrayBuffer.isView(value)) return;
  Object.freeze(value);
  for (const inner of Object.values(value)) deepFreeze(inner);
}
