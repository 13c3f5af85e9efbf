import { spawn } from 'node:child_process';

/** Reading videos back with the real ffprobe and ffmpeg (the /v1/animate tests). */

/** Runs a tool with `input` on stdin; its stdout. */
export function run(command: string, args: string[], input: Buffer | Uint8Array): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`${command} ${code}: ${err}`))));
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

export interface Probe {
  codec: string;
  width: number;
  height: number;
  rate: string;
  duration: number;
  frames: number;
}

/** What ffprobe reads from a video: its first stream, decoded frame by frame (-count_frames). */
export async function probe(video: Buffer | Uint8Array): Promise<Probe> {
  const json = await run(
    'ffprobe',
    [
      '-v',
      'error',
      '-count_frames',
      '-show_entries',
      'stream=codec_name,width,height,r_frame_rate,nb_read_frames:format=duration',
      '-of',
      'json',
      '-i',
      'pipe:0',
    ],
    video,
  );
  const parsed = JSON.parse(json.toString()) as { streams: Record<string, string | number>[]; format: { duration?: string } };
  const stream = parsed.streams[0]!;
  return {
    codec: String(stream.codec_name),
    width: Number(stream.width),
    height: Number(stream.height),
    rate: String(stream.r_frame_rate),
    duration: Number(parsed.format.duration),
    frames: Number(stream.nb_read_frames),
  };
}

/** Every frame as 8-bit grey, width × height bytes each. */
export async function greyFrames(video: Buffer, width: number, height: number): Promise<Buffer[]> {
  const raw = await run('ffmpeg', ['-v', 'error', '-i', 'pipe:0', '-f', 'rawvideo', '-pix_fmt', 'gray', 'pipe:1'], video);
  const size = width * height;
  return Array.from({ length: raw.length / size }, (_, i) => raw.subarray(i * size, (i + 1) * size));
}
