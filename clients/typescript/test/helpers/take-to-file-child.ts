// Runs takeToFile in a process of its own, so that the server's copy of the capture (the test's
// in-process Shutter) does not count, and reports how much memory the client held while streaming.
//   node --import tsx take-to-file-child.ts '<json: { baseUrl, apiKey, options, path }>'
import { readFile } from 'node:fs/promises';
import { ShutterClient, type TakeOptions } from '../../src/index.js';

const { baseUrl, apiKey, options, path } = JSON.parse(process.argv[2] ?? '{}') as {
  baseUrl: string;
  apiKey: string;
  options: TakeOptions;
  path: string;
};

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
// Live memory only: garbage collected before each sample, so chunks already written and dropped do not count.
const memory = () => {
  gc();
  return process.memoryUsage();
};
const baseline = memory();
let peakArrayBuffers = baseline.arrayBuffers;
let peakRss = baseline.rss;
const sample = () => {
  const now = memory();
  peakArrayBuffers = Math.max(peakArrayBuffers, now.arrayBuffers);
  peakRss = Math.max(peakRss, now.rss);
};
// Sampled from the moment the answer's headers arrive (the capture before it takes seconds).
let sampler: ReturnType<typeof setInterval> | undefined;
let samples = 0;
const meteredFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  sampler ??= setInterval(() => {
    samples++;
    sample();
  }, 5);
  return response;
};

const client = new ShutterClient({ apiKey, baseUrl, timeoutMs: 110_000, fetch: meteredFetch });
const result = await client.takeToFile(options, path);
sample();
clearInterval(sampler);

// The control: the same bytes read whole must show up in the same meter.
const whole = await readFile(path);
const control = memory().arrayBuffers - baseline.arrayBuffers;

process.stdout.write(
  JSON.stringify({
    result: { size: result.size, contentType: result.contentType, truncated: result.truncated, requestId: result.requestId },
    baseline: { arrayBuffers: baseline.arrayBuffers, rss: baseline.rss },
    peak: { arrayBuffers: peakArrayBuffers, rss: peakRss },
    streamingArrayBuffers: peakArrayBuffers - baseline.arrayBuffers,
    controlArrayBuffers: control,
    controlSize: whole.length,
    samples,
  }),
);
