import type { ChildProcess } from 'node:child_process';

/**
 * SIGTERM, up to `graceMs` for the child to exit, then SIGKILL. True when it exited on its own in
 * time: a service that outlives its shutdown grace is a finding, not only a slow test.
 */
export async function stopChild(child: ChildProcess, graceMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return true;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const inTime = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => (timer = setTimeout(r, graceMs, false)))]);
  clearTimeout(timer);
  if (!inTime) {
    child.kill('SIGKILL');
    await exited;
  }
  return inTime;
}
