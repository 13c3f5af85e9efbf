import { readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';

/** How often the file's modification time is checked: edits are seen within this time. */
const RECHECK_MS = 2_000;

/**
 * /etc/hosts, read the way glibc's `files` source reads it: every name and alias of a line maps to
 * its address, in file order. c-ares' queries skip this file, so the resolver asks it first, as
 * `hosts: files dns` does. The file is re-read when its mtime changes (checked every 2 s, sync:
 * one stat of a small file, never queued on libuv's thread pool).
 */
export class HostsFile {
  private table = new Map<string, string[]>();
  private mtimeMs = -1;
  private checkedAt = -Infinity;

  constructor(private readonly path: string = '/etc/hosts') {}

  /** The addresses the file gives for a lower-case name without a trailing dot, if any. */
  lookup(name: string): string[] | undefined {
    this.refresh();
    return this.table.get(name);
  }

  private refresh(): void {
    const now = performance.now();
    if (now - this.checkedAt < RECHECK_MS) return;
    this.checkedAt = now;
    let mtimeMs: number;
    try {
      mtimeMs = statSync(this.path).mtimeMs;
    } catch {
      this.table = new Map();
      this.mtimeMs = -1;
      return;
    }
    if (mtimeMs === this.mtimeMs) return;
    this.mtimeMs = mtimeMs;
    try {
      this.table = parseHosts(readFileSync(this.path, 'utf8'));
    } catch {
      this.table = new Map();
    }
  }
}

/** Name → addresses, from hosts-file text (comments and malformed lines ignored). */
export function parseHosts(text: string): Map<string, string[]> {
  const table = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const [address, ...names] = line.replace(/#.*/, '').trim().split(/\s+/);
    // A zone index (fe80::1%eth0) cannot be connected to from here; glibc keeps it, we skip it.
    if (!address || names.length === 0 || isIP(address) === 0) continue;
    for (const raw of names) {
      const name = raw.toLowerCase().replace(/\.$/, '');
      const list = table.get(name) ?? [];
      if (!list.includes(address)) list.push(address);
      table.set(name, list);
    }
  }
  return table;
}
