/** The machine a run was measured on, for the report. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';

export interface Machine {
  cpu: string;
  cores: number;
  ramGiB: number;
  os: string;
  kernel: string;
  chromium: string;
  chromiumPath: string;
  node: string;
  /** 1-minute load average at start and end: how busy the machine was besides the bench. */
  loadStart: number;
  loadEnd?: number;
}

const osName = (): string => {
  try {
    return /^PRETTY_NAME="?([^"\n]*)"?/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? 'unknown';
  } catch {
    return 'unknown';
  }
};

const chromiumVersion = (path: string): string => {
  try {
    return execFileSync(path, ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim().split('\n')[0] ?? 'unknown';
  } catch {
    return 'unknown';
  }
};

/** Describes this machine (CPU model, cores, RAM, OS, Chromium and Node versions, load). */
export function describeMachine(chromiumPath: string): Machine {
  return {
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    cores: cpus().length,
    ramGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os: osName(),
    kernel: release(),
    chromium: chromiumVersion(chromiumPath),
    chromiumPath,
    node: process.version,
    loadStart: Math.round(loadavg()[0]! * 100) / 100,
  };
}

/** Records the load average at the end of the run. */
export function finishMachine(machine: Machine): void {
  machine.loadEnd = Math.round(loadavg()[0]! * 100) / 100;
}
