/**
 * Child processes of the bench (engines, fixture server) and their descendants: started with a
 * bounded output buffer, stopped politely then by force, and every process ever seen in their
 * trees killed at the end, even when the bench fails or is interrupted.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { processTree, readStat } from './proc-tree.js';

const OUTPUT_LINES = 60;

/** Every child the bench started, running or not: their trees are killed at the end. */
const children = new Set<Child>();

/** A free TCP port on 127.0.0.1 (asked of the kernel, then released). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A started child process. */
export class Child {
  readonly proc: ChildProcess;
  readonly pid: number;
  readonly startedAt = performance.now();
  private readonly output: string[] = [];
  exitCode: number | null | undefined;
  /** The signal that ended it, if one did. */
  exitSignal: NodeJS.Signals | null = null;
  readonly exited: Promise<void>;
  /** pid → start time of every process seen in its tree (a TreeSampler adds to it too). */
  readonly seen = new Map<number, number>();

  constructor(
    readonly name: string,
    argv: string[],
    env: Record<string, string>,
    options: { cwd: string; verbose: boolean },
  ) {
    this.proc = spawn(argv[0]!, argv.slice(1), {
      cwd: options.cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (this.proc.pid === undefined) throw new Error(`${name}: could not start ${argv.join(' ')}`);
    this.pid = this.proc.pid;
    const start = readStat(this.pid)?.start;
    if (start !== undefined) this.seen.set(this.pid, start);
    children.add(this);
    const keep = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line) continue;
        if (options.verbose) console.log(`[${name}] ${line}`);
        this.output.push(line.slice(0, 500));
        if (this.output.length > OUTPUT_LINES) this.output.shift();
      }
    };
    this.proc.stdout?.on('data', keep);
    this.proc.stderr?.on('data', keep);
    this.exited = new Promise((resolve) => {
      this.proc.once('exit', (code, signal) => {
        this.exitCode = code;
        this.exitSignal = signal;
        resolve();
      });
    });
  }

  /** Its last lines of output, for error messages. */
  tail(lines = 20): string {
    return this.output.slice(-lines).join('\n');
  }

  get alive(): boolean {
    return this.exitCode === undefined;
  }

  /** Every process of its tree, remembered so that none outlives the bench. */
  remember(): void {
    if (this.alive) for (const p of processTree(this.pid)) this.seen.set(p.pid, p.start);
  }

  /** SIGTERM, up to graceMs to exit, then SIGKILL to it and every process seen in its tree. */
  async stop(graceMs = 8_000): Promise<void> {
    this.remember();
    if (this.alive) {
      this.proc.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.exited, new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
      clearTimeout(timer);
    }
    this.killSeen();
    if (this.alive) await Promise.race([this.exited, new Promise<void>((r) => setTimeout(r, 2_000).unref())]);
  }

  /** SIGKILL to every process seen in its tree that is still the same process (not a reused pid). */
  killSeen(): void {
    for (const [pid, start] of this.seen) {
      const stat = readStat(pid);
      if (!stat || stat.start !== start) {
        this.seen.delete(pid);
        continue;
      }
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
  }
}

/** Last resort on exit or interruption: synchronous, kills whatever is left of every child's tree. */
export function killEverything(): void {
  for (const child of children) {
    child.remember();
    child.killSeen();
  }
}

/**
 * The bench's fixture site (bench/fixture-server.ts, from dist/) in a process of its own, once it
 * serves a page: its base URL and the child to stop.
 */
export async function startFixtureServer(root: string, verbose = false): Promise<{ child: Child; base: string }> {
  const port = await freePort();
  const child = new Child(
    'fixtures',
    [process.execPath, join(root, 'dist/bench/fixture-server.js')],
    { BENCH_PORT: String(port) },
    { cwd: root, verbose },
  );
  const base = `http://127.0.0.1:${port}`;
  const giveUp = performance.now() + 30_000;
  while (performance.now() < giveUp && child.alive) {
    const up = await fetch(`${base}/simple.html`, { signal: AbortSignal.timeout(2_000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { child, base };
    await new Promise((r) => setTimeout(r, 50));
  }
  await child.stop();
  throw new Error(`the fixture server did not start\n${child.tail()}`);
}

/** Until the engine at `base` answers HTTP at all (any status: not every engine has /healthz), or gives up after 60 s. */
export async function waitForAnswer(base: string, child: Child, timeoutMs = 60_000): Promise<void> {
  const giveUp = performance.now() + timeoutMs;
  while (performance.now() < giveUp && child.alive) {
    const up = await fetch(`${base}/v1/take`, { signal: AbortSignal.timeout(2_000) }).then(
      () => true,
      () => false,
    );
    if (up) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${child.name} did not start\n${child.tail()}`);
}
