import type { Easing } from '../../options/parameters/animate.js';

/** Where the scroll goes and how: CSS px and ms. */
export interface ScrollPlanInput {
  /** Where the page is when the recording starts. */
  from: number;
  /** Where the scroll stops (the page's end, or scroll_till_selector in view). */
  to: number;
  /** px per step. */
  step: number;
  stepMs: number;
  delayMs: number;
  easing: Easing;
  /** After the last step and a delay, one more step back to the top. */
  back: boolean;
}

/** Progress 0..1 → position 0..1; symmetric so each step starts and ends at rest. */
export const EASING: Record<Easing, (x: number) => number> = {
  linear: (x) => x,
  ease_in_out_quad: (x) => (x < 0.5 ? 2 * x * x : 1 - (-2 * x + 2) ** 2 / 2),
  ease_in_out_cubic: (x) => (x < 0.5 ? 4 * x ** 3 : 1 - (-2 * x + 2) ** 3 / 2),
};

interface Move {
  from: number;
  to: number;
  startMs: number;
}

/**
 * The scroll position at each moment of the video: steps of `step` px from `from` to `to`, each
 * taking `stepMs` along the easing curve, `delayMs` of rest after each; then back to the top. Past
 * the last move the page rests where it ended. A function of time only, so frame i is at i / fps.
 */
export function scrollPlan(input: ScrollPlanInput): (ms: number) => number {
  const moves: Move[] = [];
  let at = input.from;
  let t = 0;
  const step = Math.max(1, input.step);
  while (at < input.to) {
    const next = Math.min(input.to, at + step);
    moves.push({ from: at, to: next, startMs: t });
    t += input.stepMs + input.delayMs;
    at = next;
  }
  if (input.back && at > 0) moves.push({ from: at, to: 0, startMs: t });
  const ease = EASING[input.easing];
  return (ms) => {
    let y = input.from;
    for (const move of moves) {
      if (ms < move.startMs) break;
      const progress = Math.min(1, (ms - move.startMs) / input.stepMs);
      y = move.from + (move.to - move.from) * ease(progress);
    }
    return Math.round(y);
  };
}
