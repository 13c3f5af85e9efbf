import type { CDPSession } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { captureRaw } from '../../src/capture/render/screenshot.js';
import { parseTakeOptions } from '../../src/options/parse-take-options.js';

const options = parseTakeOptions({ url: 'https://example.com/', viewport_width: '640', viewport_height: '400' }, { countries: [] });
const limits = { maxFullPageHeight: 20_000, maxPixels: 50_000_000 };
const png = Buffer.from('fake png');

/**
 * A CDP session answering Page.captureScreenshot from a script of outcomes. The real refusal
 * ("Unable to capture screenshot" when no frame was presented yet) is rare and timing-bound, so
 * the retry is pinned down here; real captures are covered by the end-to-end tests.
 */
function scriptedSession(outcomes: Array<Error | 'ok'>): { cdp: CDPSession; calls: string[] } {
  const calls: string[] = [];
  const send = async (method: string) => {
    calls.push(method);
    if (method !== 'Page.captureScreenshot') return {};
    const next = outcomes.shift() ?? 'ok';
    if (next instanceof Error) throw next;
    return { data: png.toString('base64') };
  };
  return { cdp: { send } as unknown as CDPSession, calls };
}

const noFrame = () => new Error('cdpSession.send: Protocol error (Page.captureScreenshot): Unable to capture screenshot');

describe('the fast screenshot path', () => {
  it('waits for a frame and asks again when Chromium has none to copy yet', async () => {
    const { cdp, calls } = scriptedSession([noFrame(), 'ok']);
    const shot = await captureRaw(cdp, options, { format: 'png' }, limits);
    expect(shot.image.data.equals(png)).toBe(true);
    expect(calls).toEqual(['Page.captureScreenshot', 'Runtime.evaluate', 'Page.captureScreenshot']);
  });

  it('gives up after three refusals', async () => {
    const { cdp, calls } = scriptedSession([noFrame(), noFrame(), noFrame(), 'ok']);
    await expect(captureRaw(cdp, options, { format: 'png' }, limits)).rejects.toThrow('Unable to capture screenshot');
    expect(calls.filter((c) => c === 'Page.captureScreenshot')).toHaveLength(3);
  });

  it('does not retry other errors', async () => {
    const { cdp, calls } = scriptedSession([new Error('Target closed')]);
    await expect(captureRaw(cdp, options, { format: 'png' }, limits)).rejects.toThrow('Target closed');
    expect(calls).toEqual(['Page.captureScreenshot']);
  });
});
