/**
 * The smallest Chromium DevTools client there is: Chromium started with --remote-debugging-pipe,
 * JSON messages separated by NUL on file descriptors 3 (to Chromium) and 4 (from it), flat sessions,
 * commands only.
 * For the bench's bare-CDP bound, which must not pay for a library's own work.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

interface Message {
  id?: number;
  result?: Record<string, unknown>;
  error?: { message: string };
}

export class CdpPipe {
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (r: Record<string, unknown>) => void; reject: (e: Error) => void }>();
  private readonly chunks: Buffer[] = [];
  private exitError?: Error;

  private constructor(
    private readonly proc: ChildProcess,
    private readonly out: Writable,
    input: Readable,
  ) {
    input.on('data', (chunk: Buffer) => this.onData(chunk));
    proc.once('exit', (code, signal) => {
      this.exitError = new Error(`Chromium exited (${signal ?? code})`);
      for (const p of this.pending.values()) p.reject(this.exitError);
      this.pending.clear();
    });
  }

  static launch(executablePath: string, args: string[]): CdpPipe {
    const proc = spawn(executablePath, ['--remote-debugging-pipe', ...args], { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });
    return new CdpPipe(proc, proc.stdio[3] as Writable, proc.stdio[4] as Readable);
  }

  send<T = Record<string, unknown>>(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<T> {
    if (this.exitError) return Promise.reject(this.exitError);
    const id = ++this.nextId;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (r: Record<string, unknown>) => void, reject });
      this.out.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    });
  }

  close(): void {
    this.proc.kill();
  }

  private onData(chunk: Buffer): void {
    let start = 0;
    let end = chunk.indexOf(0);
    while (end !== -1) {
      this.chunks.push(chunk.subarray(start, end));
      this.dispatch(JSON.parse(Buffer.concat(this.chunks).toString('utf8')) as Message);
      this.chunks.length = 0;
      start = end + 1;
      end = chunk.indexOf(0, start);
    }
    if (start < chunk.length) this.chunks.push(chunk.subarray(start));
  }

  private dispatch(message: Message): void {
    // Events are not needed: the bound waits for load with one evaluate.
    if (message.id === undefined) return;
    const pending = this.pending.get(message.id);
    this.pending.delete(message.id);
    if (message.error) pending?.reject(new Error(message.error.message));
    else pending?.resolve(message.result ?? {});
  }
}
