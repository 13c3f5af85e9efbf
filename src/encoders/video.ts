import { spawn } from 'node:child_process';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { once } from 'node:events';

/** What an animation is encoded to: ffmpeg's own settings, never the request's options. */
export interface VideoSettings {
  ffmpegPath: string;
  format: 'mp4' | 'webm' | 'gif';
  fps: number;
  /** Output size; absent, the frames' own. Both: scaled to cover, then cut at the centre. */
  width?: number;
  height?: number;
  /** ffmpeg's threads at most: its CPU is bounded like a capture's (SHUTTER_CONCURRENCY); never more than MAX_THREADS. */
  threads: number;
}

/** Frames in, one file out. */
export interface VideoEncoder {
  /** One PNG frame; resolves once ffmpeg has taken it (back-pressure). */
  write(frame: Buffer): Promise<void>;
  /** No more frames: the file. */
  finish(): Promise<Buffer>;
  /** Stops ffmpeg (a capture that failed or ran out of time). */
  abort(): void;
}

/** Linux's unnamed file: it has no path, and the kernel frees it when the last descriptor closes. */
const O_TMPFILE = 0o20000000 | constants.O_DIRECTORY;

const STDERR_KEPT = 2000;

/**
 * ffmpeg keeps up with Chromium's frames on one or two threads (x264 veryfast: ~19 ms a 1280×800
 * frame on one), and more cost bytes: x264 with 4 threads made the bench's 125 frames 49 % bigger
 * (502,610 vs 336,839 bytes) for more CPU (docs/performance.md, "Animations").
 */
const MAX_THREADS = 2;

/**
 * Encodes PNG frames piped to ffmpeg's stdin. Each frame's time is its index / fps (image2pipe with
 * -framerate), never the wall clock, so the video lasts frames / fps whatever the machine's load.
 *
 * mp4 and webm write their index and duration at the end and want to seek back: a pipe cannot. The
 * output is an unnamed O_TMPFILE (no path, nothing left behind even if the process dies) that
 * ffmpeg opens through /proc/self/fd/3, which also lets the mp4 muxer move its index to the front
 * (faststart) so a browser plays it before the end arrives.
 */
export function startVideoEncoder(settings: VideoSettings): VideoEncoder {
  const output = openUnnamed();
  const args = [
    '-hide_banner',
    '-loglevel',
    'error',
    '-f',
    'image2pipe',
    '-framerate',
    String(settings.fps),
    '-c:v',
    'png',
    '-i',
    'pipe:0',
    '-threads',
    String(Math.min(MAX_THREADS, Math.max(1, settings.threads))),
    ...formatArgs(settings, output !== undefined),
    '-y',
    output === undefined ? 'pipe:1' : '/proc/self/fd/3',
  ];
  const child = spawn(settings.ffmpegPath, args, { stdio: ['pipe', output === undefined ? 'pipe' : 'ignore', 'pipe', output ?? 'ignore'] });
  const chunks: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    if (stderr.length < STDERR_KEPT) stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  });
  // A write after ffmpeg died fails with EPIPE: the exit code and its stderr tell why.
  child.stdin!.on('error', () => undefined);
  // Once only: finish and abort may both get here (a capture that times out aborts from its signal and
  // again from its error path), and a second close would throw in a detached promise, or close a
  // descriptor number some other capture has opened since.
  let released = false;
  const release = () => {
    if (released || output === undefined) return;
    released = true;
    closeSync(output);
  };

  return {
    async write(frame) {
      if (!child.stdin!.write(frame)) await Promise.race([once(child.stdin!, 'drain'), exited]);
    },
    async finish() {
      child.stdin!.end();
      try {
        const code = await exited;
        if (code !== 0) throw new Error(`ffmpeg exited with ${code}: ${stderr.trim().slice(0, 500)}`);
        if (released) throw new Error('ffmpeg was stopped');
        return output === undefined ? Buffer.concat(chunks) : readAll(output);
      } finally {
        release();
      }
    },
    abort() {
      child.kill('SIGKILL');
      // Detached: nothing may reject here (an unhandled rejection ends the process).
      void exited
        .catch(() => undefined)
        .then(release)
        .catch(() => undefined);
    },
  };
}

function formatArgs({ format, width, height }: VideoSettings, seekable: boolean): string[] {
  const scale = scaleFilter(width, height);
  switch (format) {
    case 'mp4':
      // yuv420p: what every player decodes; H.264 wants even sides.
      return [
        '-vf',
        [scale, 'scale=trunc(iw/2)*2:trunc(ih/2)*2', 'format=yuv420p'].filter(Boolean).join(','),
        '-c:v',
        'libx264',
        '-preset',
        'veryfast',
        '-crf',
        '23',
        '-movflags',
        seekable ? '+faststart' : 'frag_keyframe+empty_moov+default_base_moof',
        '-f',
        'mp4',
      ];
    case 'webm':
      return [
        '-vf',
        [scale, 'format=yuv420p'].filter(Boolean).join(','),
        '-c:v',
        'libvpx-vp9',
        '-b:v',
        '0',
        '-crf',
        '34',
        '-deadline',
        'realtime',
        '-cpu-used',
        '8',
        '-row-mt',
        '1',
        '-f',
        'webm',
      ];
    case 'gif':
      // One palette made from the whole video (not 256 fixed colours), then each frame mapped to it;
      // diff stats favour what moves, rectangle diffs keep unchanged areas as they were.
      return [
        '-filter_complex',
        `[0:v]${scale ? `${scale},` : ''}split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse=dither=bayer:bayer_scale=5:diff_mode=rectangle`,
        '-f',
        'gif',
      ];
  }
}

/** image_width/image_height: one alone keeps the aspect ratio; both give exactly that size, cut at the centre. */
function scaleFilter(width: number | undefined, height: number | undefined): string | undefined {
  if (width !== undefined && height !== undefined) {
    return `scale=${width}:${height}:force_original_aspect_ratio=increase,crop=${width}:${height}`;
  }
  if (width !== undefined) return `scale=${width}:-2`;
  if (height !== undefined) return `scale=-2:${height}`;
  return undefined;
}

/** An unnamed file in the temporary directory, or undefined where the file system has none (then mp4 is fragmented). */
function openUnnamed(): number | undefined {
  try {
    return openSync(tmpdir(), O_TMPFILE | constants.O_RDWR, 0o600);
  } catch {
    return undefined;
  }
}

function readAll(fd: number): Buffer {
  const { size } = fstatSync(fd);
  const body = Buffer.alloc(size);
  let read = 0;
  while (read < size) read += readSync(fd, body, read, size - read, read);
  return body;
}
