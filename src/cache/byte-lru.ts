/**
 * A least-recently-used map bounded by the bytes of its values: adding past `maxBytes` drops the
 * entries used longest ago, and a value larger than `maxEntryBytes` is not kept at all.
 */
export class ByteLru<V> {
  private readonly entries = new Map<string, { value: V; bytes: number }>();
  private total = 0;

  constructor(
    readonly maxBytes: number,
    readonly maxEntryBytes = maxBytes,
  ) {}

  /** The value, now the most recently used; undefined when absent. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // A Map iterates in insertion order: re-inserting makes this entry the newest.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, bytes: number): void {
    this.delete(key);
    if (bytes > this.maxEntryBytes || bytes > this.maxBytes) return;
    this.entries.set(key, { value, bytes });
    this.total += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.total -= entry.bytes;
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.total -= entry.bytes;
  }

  /** Drops every entry `drop` says to. */
  prune(drop: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (drop(entry.value)) this.delete(key);
  }

  clear(): void {
    this.entries.clear();
    this.total = 0;
  }

  /** Bytes held now. */
  get bytes(): number {
    return this.total;
  }

  get size(): number {
    return this.entries.size;
  }
}
