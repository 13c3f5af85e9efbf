/**
 * Memory and CPU of a process and all its descendants (the service plus its browser, zygotes and
 * renderers), read from /proc: RSS and PSS from smaps_rollup (PSS splits shared pages between the
 * processes sharing them, so Chromium's many processes are not counted N times), CPU from stat.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** One process as /proc/<pid>/stat describes it. */
export interface ProcStat {
  pid: number;
  ppid: number;
  /** Start time in clock ticks since boot: with the pid, identifies the process across pid reuse. */
  start: number;
  /** utime + stime + cutime + cstime, in clock ticks (cu/cs: children it has reaped). */
  cpuTicks: number;
}

/** A moment's memory and CPU of a tree. */
export interface TreeSample {
  at: number;
  processes: number;
  rssKb: number;
  pssKb: number;
  cpuTicks: number;
}

let clockTicks: number | undefined;
/** Clock ticks per second (getconf CLK_TCK; 100 on Linux in practice). */
export function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** /proc/<pid>/stat, or undefined when the process is gone. */
export function readStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: fields start after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state); ppid is field 4, utime..cstime 14–17, starttime 22.
  const f = (n: number) => Number(fields[n - 3]);
  return { pid, ppid: f(4), start: f(22), cpuTicks: f(14) + f(15) + f(16) + f(17) };
}

/** The process and every descendant alive now (one pass over /proc). */
export function processTree(root: number): ProcStat[] {
  const children = new Map<number, ProcStat[]>();
  let rootStat: ProcStat | undefined;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (!stat) continue;
    if (stat.pid === root) rootStat = stat;
    const siblings = children.get(stat.ppid);
    if (siblings) siblings.push(stat);
    else children.set(stat.ppid, [stat]);
  }
  if (!rootStat) return [];
  const tree = [rootStat];
  for (let i = 0; i < tree.length && i < 10_000; i++) tree.push(...(children.get(tree[i]!.pid) ?? []));
  return tree;
}

/** RSS and PSS of one process in KiB from smaps_rollup (zeros when it is gone or unreadable). */
export function memoryKb(pid: number): { rssKb: number; pssKb: number } {
  try {
    const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);
    return { rssKb: field('Rss'), pssKb: field('Pss') };
  } catch {
    return { rssKb: 0, pssKb: 0 };
  }
}

/** Memory and CPU of the whole tree now; `seen` collects every process met (for the final kill). */
export function sampleTree(root: number, seen?: Map<number, number>): TreeSample {
  const tree = processTree(root);
  let rssKb = 0;
  let pssKb = 0;
  let cpuTicks = 0;
  for (const p of tree) {
    seen?.set(p.pid, p.start);
    const m = memoryKb(p.pid);
    rssKb += m.rssKb;
    pssKb += m.pssKb;
    cpuTicks += p.cpuTicks;
  }
  return { at: performance.now(), processes: tree.length, rssKb, pssKb, cpuTicks };
}

/** Peak memory of a tree over a period, sampled every intervalMs. */
export class TreeSampler {
  private timer?: NodeJS.Timeout;
  private first?: TreeSample;
  private last?: TreeSample;
  private peakRssKb = 0;
  private peakPssKb = 0;
  private peakProcesses = 0;
  private samples = 0;

  constructor(
    private readonly root: number,
    private readonly intervalMs: number,
    private readonly seen?: Map<number, number>,
  ) {}

  start(): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
  }

  /** Stops sampling (after a final sample) and returns the peaks and the CPU used meanwhile. */
  stop(): { peakRssKb: number; peakPssKb: number; peakProcesses: number; samples: number; cpuSeconds: number } {
    clearInterval(this.timer);
    this.sample();
    const cpuTicks = this.last && this.first ? Math.max(0, this.last.cpuTicks - this.first.cpuTicks) : 0;
    return {
      peakRssKb: this.peakRssKb,
      peakPssKb: this.peakPssKb,
      peakProcesses: this.peakProcesses,
      samples: this.samples,
      cpuSeconds: cpuTicks / ticksPerSecond(),
    };
  }

  private sample(): void {
    const s = sampleTree(this.root, this.seen);
    if (s.processes === 0) return;
    this.first ??= s;
    this.last = s;
    this.samples++;
    this.peakRssKb = Math.max(this.peakRssKb, s.rssKb);
    this.peakPssKb = Math.max(this.peakPssKb, s.pssKb);
    this.peakProcesses = Math.max(this.peakProcesses, s.processes);
  }
}
