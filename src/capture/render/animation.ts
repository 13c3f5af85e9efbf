import type { CDPSession } from 'playwright-core';
import { AppError } from '../../errors/app-error.js';
import { startVideoEncoder, type VideoEncoder } from '../../encoders/video.js';
import type { AnimationOptions } from '../../options/schema.js';
import type { RenderContext, RenderedOutput } from './render-context.js';
import { scrollPlan } from './scroll-plan.js';

/** How this server encodes animations: ffmpeg (absent: not installed) and its threads. */
export interface VideoEncoding {
  ffmpegPath: string | undefined;
  threads: number;
}

/**
 * Sets the page to video time `ms`: every CSS animation, transition and Web Animation at the time it
 * has been playing since it was first seen, plus `ms` since then; the scroll at `y`. The document
 * timelines are frozen (Animation.setPlaybackRate 0), so nothing moves between two frames and a
 * frame shows the page at exactly its own time, however long the screenshot took.
 */
const SEEK = `(ms, y) => {
  const seen = (globalThis.__shutterAnimationClock ??= new WeakMap());
  for (const animation of document.getAnimations()) {
    let first = seen.get(animation);
    if (!first) seen.set(animation, (first = { at: Number(animation.currentTime ?? 0), ms }));
    try { animation.currentTime = first.at + (ms - first.ms); } catch {}
  }
  if (y !== null) window.scrollTo({ top: y, left: window.scrollX, behavior: 'instant' });
}`;

/**
 * The animation's last step, instead of a still image's render: one screenshot per frame at
 * i / fps of video time, piped to ffmpeg as it is taken. Frames are whole (each is a composited
 * screenshot, never a screencast frame caught mid-paint) and evenly timed by construction: the
 * video's clock is the frame index, not the wall clock, so its length is frames / fps under any load.
 */
export async function recordAnimation(ctx: RenderContext, encoding: VideoEncoding, signal: AbortSignal): Promise<RenderedOutput> {
  const { cdp, options, timings } = ctx;
  const animation = options.animation!;
  if (!encoding.ffmpegPath) throw ffmpegUnavailable();
  await cdp.send('Animation.enable');
  await cdp.send('Animation.setPlaybackRate', { playbackRate: 0 });
  const positionAt = animation.scenario === 'scroll' ? await scrollPath(cdp, animation) : undefined;
  const frames = Math.max(1, Math.round(animation.duration * animation.fps));
  const encoder = startVideoEncoder({
    ffmpegPath: encoding.ffmpegPath,
    format: animation.format,
    fps: animation.fps,
    threads: encoding.threads,
    ...(options.image_width !== undefined ? { width: options.image_width } : {}),
    ...(options.image_height !== undefined ? { height: options.image_height } : {}),
  });
  const abort = () => encoder.abort();
  signal.addEventListener('abort', abort, { once: true });
  try {
    await timings.measure('capture', () => recordFrames(cdp, encoder, frames, animation.fps, positionAt, signal));
    return { body: await timings.measure('encode', () => encoder.finish()), truncated: false };
  } catch (error) {
    encoder.abort();
    throw error;
  } finally {
    signal.removeEventListener('abort', abort);
  }
}

async function recordFrames(
  cdp: CDPSession,
  encoder: VideoEncoder,
  frames: number,
  fps: number,
  positionAt: ((ms: number) => number) | undefined,
  signal: AbortSignal,
): Promise<void> {
  const queued: Array<{ taken: Promise<void>; bytes: number }> = [];
  let queuedBytes = 0;
  for (let i = 0; i < frames && !signal.aborted; i++) {
    const ms = (i * 1000) / fps;
    await cdp.send('Runtime.evaluate', { expression: `(${SEEK})(${ms}, ${positionAt ? positionAt(ms) : 'null'})`, awaitPromise: false });
    // optimizeForSpeed: Chromium's fastest PNG (zlib level 1); ffmpeg decodes it at once anyway.
    const { data } = await cdp.send('Page.captureScreenshot', { format: 'png', optimizeForSpeed: true });
    const frame = Buffer.from(data, 'base64');
    // ffmpeg takes frames while Chromium paints the next ones. Waiting for it after every frame cost
    // 10–20 ms a frame on a loaded machine (docs/performance.md, "Animations"): a few frames may wait
    // in the pipe's stream instead, in order, bounded in count and bytes.
    const taken = encoder.write(frame);
    // Awaited below or at the end; a capture that fails first must not leave it unhandled.
    taken.catch(() => undefined);
    queued.push({ taken, bytes: frame.length });
    queuedBytes += frame.length;
    while (queued.length > MAX_QUEUED_FRAMES || (queued.length > 1 && queuedBytes > MAX_QUEUED_BYTES)) {
      const oldest = queued.shift()!;
      await oldest.taken;
      queuedBytes -= oldest.bytes;
    }
  }
  await Promise.all(queued.map((q) => q.taken));
}

/** Frames handed to ffmpeg that it may not have taken yet: at most this many, and this many bytes (unless one frame alone is more). */
const MAX_QUEUED_FRAMES = 6;
const MAX_QUEUED_BYTES = 24 * 1024 * 1024;

/** Where the scroll starts and stops: the page's end, or where scroll_till_selector is in view. */
async function scrollRange(cdp: CDPSession, animation: AnimationOptions): Promise<{ from: number; to: number; viewport: number }> {
  const { result, exceptionDetails } = await cdp.send('Runtime.evaluate', {
    returnByValue: true,
    expression: `((selector) => {
      const root = document.scrollingElement ?? document.documentElement;
      const viewport = window.innerHeight;
      const end = Math.max(0, root.scrollHeight - viewport);
      let to = end;
      if (selector !== null) {
        const element = document.querySelector(selector);
        if (!element) return { missing: true };
        const box = element.getBoundingClientRect();
        const top = box.top + window.scrollY;
        // In view: its bottom at the viewport's bottom, or its top at the top when it is taller.
        to = Math.min(end, Math.max(0, box.height <= viewport ? top + box.height - viewport : top));
      }
      return { from: Math.min(window.scrollY, to), to, viewport };
    })(${JSON.stringify(animation.scroll_till_selector ?? null)})`,
  });
  if (exceptionDetails) throw new AppError('selector_invalid', 'scroll_till_selector is not a selector the page accepts');
  const range = result.value as { missing?: boolean; from: number; to: number; viewport: number };
  if (range.missing) {
    throw new AppError('selector_not_found', `no element matches scroll_till_selector ${JSON.stringify(animation.scroll_till_selector)}`, {
      details: [{ parameter: 'scroll_till_selector', message: 'matches no element', value: animation.scroll_till_selector }],
    });
  }
  return range;
}

async function scrollPath(cdp: CDPSession, animation: AnimationOptions): Promise<(ms: number) => number> {
  const { from, to, viewport } = await scrollRange(cdp, animation);
  return scrollPlan({
    from,
    to,
    step: animation.scroll_by ?? viewport,
    stepMs: animation.scroll_duration,
    delayMs: animation.scroll_delay,
    easing: animation.scroll_easing,
    back: animation.scroll_back,
  });
}

/** 503: this server cannot encode video until its operator installs ffmpeg. */
export function ffmpegUnavailable(): AppError {
  return new AppError(
    'ffmpeg_unavailable',
    'animations need ffmpeg, which this server does not have; its operator can install it (make start does)',
    {
      retryAfterSeconds: 3600,
    },
  );
}
