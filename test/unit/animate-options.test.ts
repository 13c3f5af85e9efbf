import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors/app-error.js';
import { EASING, scrollPlan } from '../../src/capture/render/scroll-plan.js';
import { parseJobParams, JOB_ENDPOINT } from '../../src/options/job-params.js';
import { parseAnimateOptions } from '../../src/options/parse-animate-options.js';
import { parseTakeOptions } from '../../src/options/parse-take-options.js';

const context = { countries: [] };

function problems(raw: Record<string, unknown>) {
  try {
    parseAnimateOptions(raw, context);
  } catch (error) {
    if (error instanceof AppError) return error.extra.details ?? [];
    throw error;
  }
  throw new Error('parsed');
}

describe('parseAnimateOptions', () => {
  it('gives take’s page options and the animation’s defaults (DESIGN.md §5.3)', () => {
    const o = parseAnimateOptions({ url: 'https://example.com/', hide_selectors: '.ad' }, context);
    expect(o.format).toBe('mp4');
    expect(o.animation).toEqual({
      format: 'mp4',
      duration: 5,
      fps: 25,
      scenario: 'default',
      scroll_duration: 1000,
      scroll_delay: 500,
      scroll_easing: 'ease_in_out_quad',
      scroll_back: false,
    });
    expect(o.hide_selectors).toEqual(['.ad']);
    expect([o.viewport_width, o.viewport_height, o.timeout]).toEqual([1280, 800, 60]);
  });

  it('keeps the 90 s cap for html input too: a video plays for its duration', () => {
    expect(parseAnimateOptions({ html: '<p>hi</p>', timeout: 90 }, context).timeout).toBe(90);
    expect(() => parseTakeOptions({ html: '<p>hi</p>', timeout: 90 }, context)).toThrow(AppError);
  });

  it('reports every problem at once, naming options that do not apply', () => {
    const found = problems({
      url: 'https://example.com/',
      full_page: 1,
      selector: '#a',
      pdf_landscape: 1,
      fps: 0,
      scroll_back: 1,
      colour: 1,
    });
    const byName = Object.fromEntries(found.map((d) => [d.parameter, d.code]));
    expect(byName).toMatchObject({
      full_page: 'parameter_not_applicable',
      selector: 'parameter_not_applicable',
      pdf_landscape: 'parameter_not_applicable',
      fps: 'invalid_parameter',
      scroll_back: 'parameter_not_applicable',
      colour: 'unknown_parameter',
    });
  });

  it('caps gif at 15 fps and wants the timeout to hold duration and delay', () => {
    expect(problems({ url: 'https://example.com/', format: 'gif', fps: 16 })).toEqual([expect.objectContaining({ parameter: 'fps' })]);
    expect(parseAnimateOptions({ url: 'https://example.com/', format: 'gif', fps: 15 }, context).format).toBe('gif');
    expect(problems({ url: 'https://example.com/', duration: 10, delay: 5, timeout: 15 })).toEqual([
      expect.objectContaining({ parameter: 'timeout' }),
    ]);
  });

  it('suggests animate’s names for a misspelt one', () => {
    expect(problems({ url: 'https://example.com/', duratoin: 3 })).toEqual([expect.objectContaining({ suggestion: 'duration' })]);
  });

  it('a job stored by /v1/animate parses as an animation again; a take’s as a take', () => {
    const params = { url: 'https://example.com/', format: 'webm', duration: 2 };
    expect(parseJobParams({ ...params, [JOB_ENDPOINT]: 'animate' }, context).animation?.format).toBe('webm');
    expect(() => parseJobParams(params, context)).toThrow(AppError);
    expect(parseJobParams({ url: 'https://example.com/' }, context).animation).toBeUndefined();
  });

  it('/v1/take does not offer the video formats', () => {
    expect(() => parseTakeOptions({ url: 'https://example.com/', format: 'mp4' }, context)).toThrow(AppError);
  });
});

describe('scrollPlan', () => {
  const plan = scrollPlan({ from: 0, to: 1000, step: 400, stepMs: 1000, delayMs: 500, easing: 'linear', back: true });

  it('moves step by step along the easing, rests between steps, stops at the end, then comes back', () => {
    expect([0, 500, 1000, 1200, 1500, 2000, 2500].map(plan)).toEqual([0, 200, 400, 400, 400, 600, 800]);
    // The last step is shorter (800 → 1000 from 3 s), then 500 ms of rest, then back to the top in one step.
    expect([3500, 4000, 4500, 5000, 5500].map(plan)).toEqual([900, 1000, 1000, 500, 0]);
    expect(plan(60_000)).toBe(0);
  });

  it('the easings start and end at rest and are symmetric', () => {
    for (const ease of Object.values(EASING)) {
      expect([ease(0), ease(0.5), ease(1)]).toEqual([0, 0.5, 1]);
      expect(ease(0.25) + ease(0.75)).toBeCloseTo(1);
    }
    expect(EASING.ease_in_out_cubic(0.25)).toBeLessThan(EASING.ease_in_out_quad(0.25));
  });
});
