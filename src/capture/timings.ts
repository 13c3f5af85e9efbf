/** Phases reported in Server-Timing, in order. */
export const PHASES = ['queue', 'navigate', 'wait', 'capture', 'encode'] as const;
export type Phase = (typeof PHASES)[number];

/** Milliseconds spent per phase of one capture. */
export class Timings {
  readonly ms: Partial<Record<Phase, number>> = {};

  async measure<T>(phase: Phase, fn: () => Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await fn();
    } finally {
      this.ms[phase] = (this.ms[phase] ?? 0) + (performance.now() - start);
    }
  }

  /** `queue;dur=0.1, navigate;dur=120.5, …` */
  toServerTiming(): string {
    return PHASES.filter((p) => this.ms[p] !== undefined)
      .map((p) => `${p};dur=${this.ms[p]!.toFixed(1)}`)
      .join(', ');
  }
}
