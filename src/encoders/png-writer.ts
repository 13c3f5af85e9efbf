import { constants, crc32, deflateRaw, deflateRawSync, type ZlibOptions } from 'node:zlib';

/**
 * A lossless PNG writer for screenshots: each row gets the PNG filter that suits its content
 * (chosen per band of rows by compressing a few sample rows each way), and the filtered rows are
 * compressed by Node's zlib on libuv's thread pool, in segments that run in parallel.
 *
 * libvips (sharp) offers "no filter" or libpng's adaptive heuristic, and neither gets under
 * Chromium's own best-compression PNG on photo pages; png.ts uses this writer there
 * (docs/performance.md, "PNG size").
 */

/** Decoded 8-bit pixels, rows top to bottom, `channels` bytes a pixel. */
export interface Pixels {
  data: Buffer;
  width: number;
  height: number;
  channels: number;
}

/** PNG filter types (PNG spec, section 9.2). */
export const Filter = { None: 0, Sub: 1, Up: 2, Average: 3, Paeth: 4 } as const;
export type Filter = (typeof Filter)[keyof typeof Filter];

/** What an image is made of, from `analyseRows`. */
export interface RowAnalysis {
  /**
   * Per row, how much of it deflate could copy from earlier rows as it is: the least, over the
   * row's tiles (TILE_PX wide), of the share of sampled 4-byte runs that repeat (see analyseRows).
   */
  repeat: Float32Array;
  /** Share of tiles (one row high) that repeat almost nothing: photos, noise. */
  photoShare: number;
  /** Share of tiles that repeat little: photos, and gradients (which Chromium dithers). */
  naturalShare: number;
}

/** Below this repeat share a tile is a photo's (bench photos and heavy page: 0–0.07; UI and text ≥ 0.3). */
export const PHOTO_REPEAT = 0.1;
/** Below this a tile is natural content: photos and dithered gradients (gradient page 0.1–0.3). */
export const NATURAL_REPEAT = 0.3;
/** Width of the tiles a row is judged in: a photo beside text or margins is still seen as one. */
export const TILE_PX = 128;
/** Rows a tile must stay below a threshold for, one after the other, to count. */
const MIN_RUN = 16;

/** Earlier rows a row is compared with: [rows up, pixels right]. Chromium dithers gradients with an 8×8 pattern. */
const REPEAT_OFFSETS: ReadonlyArray<readonly [number, number]> = [
  [0, -1],
  [1, 0],
  [8, 0],
  [8, 8],
  [8, -8],
];
/** Bytes between two sampled 4-byte runs. */
const SAMPLE_STEP = 32;

/**
 * How much of each row deflate can copy from earlier rows as it is, without filtering: per tile of
 * TILE_PX, the share of sampled 4-byte runs equal to the same bytes one row up, eight rows up, or
 * eight rows up and eight pixels to either side (Chromium's gradient dither repeats every 8 rows;
 * a diagonal gradient's colours move one pixel a row). Flat colour, text and UI repeat a lot,
 * photos nothing.
 */
export function analyseRows(px: Pixels): RowAnalysis {
  const { data, width, height, channels } = px;
  const stride = width * channels;
  const tileBytes = TILE_PX * channels;
  const tiles = Math.ceil(width / TILE_PX);
  const same = new Uint16Array(tiles);
  const samples = new Uint16Array(tiles);
  const best = new Float32Array(tiles);
  const repeat = new Float32Array(height);
  // Per tile column, how many rows in a row the tile has been a photo's / natural: only runs of
  // MIN_RUN rows count (a line of dense text, or the first rows of a dithered gradient, are not a photo).
  const photoRun = new Uint32Array(tiles);
  const naturalRun = new Uint32Array(tiles);
  let photo = 0;
  let natural = 0;
  const endRun = (run: Uint32Array, t: number): number => {
    const rows = run[t]! >= MIN_RUN ? run[t]! : 0;
    run[t] = 0;
    return rows;
  };
  repeat[0] = 1;
  for (let y = 1; y < height; y++) {
    const row = y * stride;
    // A tile too narrow to sample (an image a few pixels wide) counts as repeating.
    best.fill(stride < 4 + 2 * SAMPLE_STEP ? 1 : 0);
    for (const [up, right] of REPEAT_OFFSETS) {
      if (y < up || Math.abs(right) >= width) continue;
      same.fill(0);
      samples.fill(0);
      const shift = right * channels;
      const other = (y - up) * stride + shift;
      for (let i = Math.max(0, -shift), to = stride - Math.max(0, shift) - 4; i <= to; i += SAMPLE_STEP) {
        const t = (i / tileBytes) | 0;
        samples[t]!++;
        const a = row + i;
        const b = other + i;
        if (data[a] === data[b] && data[a + 1] === data[b + 1] && data[a + 2] === data[b + 2] && data[a + 3] === data[b + 3]) same[t]!++;
      }
      let settled = true;
      for (let t = 0; t < tiles; t++) {
        if (samples[t]! > 0) best[t] = Math.max(best[t]!, same[t]! / samples[t]!);
        else if (up === 0) best[t] = 1; // the last tile of a row, narrower than a sample step
        if (best[t]! < NATURAL_REPEAT) settled = false;
      }
      if (settled) break;
    }
    let least = 1;
    for (let t = 0; t < tiles; t++) {
      const share = best[t]!;
      least = Math.min(least, share);
      if (share < PHOTO_REPEAT) photoRun[t]!++;
      else photo += endRun(photoRun, t);
      if (share < NATURAL_REPEAT) naturalRun[t]!++;
      else natural += endRun(naturalRun, t);
    }
    repeat[y] = least;
  }
  for (let t = 0; t < tiles; t++) {
    photo += endRun(photoRun, t);
    natural += endRun(naturalRun, t);
  }
  const counted = tiles * Math.max(1, height - 1);
  return { repeat, photoShare: photo / counted, naturalShare: natural / counted };
}

/** Knobs of `writePng`; the defaults are what docs/performance.md ("PNG size") measured best. */
export interface WriteOptions {
  /** Rows that share one filter decision. */
  band: number;
  /** Rows in the middle of a band compressed each way to decide its filter. */
  probeRows: number;
  /** Filters tried for a band with natural content. */
  filters: readonly Filter[];
  /**
   * A band whose rows all repeat at least this much (RowAnalysis.repeat) is left unfiltered without
   * trying: text repeats more than its few sampled rows show (bench pages and text with a photo beside
   * it measured best at 0.1, dithered gradients at 0.1–0.3).
   */
  probeBelow: number;
  /** zlib level of bands left unfiltered or filtered with Sub (UI, text, dithered gradients). */
  level: number;
  /** zlib level of bands filtered with Up, Average or Paeth (photos: smooth ones gain 2–3 % from 6). */
  smoothLevel: number;
  /** Uncompressed bytes per deflate segment; segments are compressed in parallel. */
  segmentBytes: number;
  /** A run of bands wanting another zlib strategy than its neighbours' is merged into them when shorter. */
  minSegmentRows: number;
  /** Rows filtered between two yields to the event loop. */
  yieldRows: number;
}

export const DEFAULT_WRITE_OPTIONS: WriteOptions = {
  band: 16,
  probeRows: 4,
  filters: [Filter.None, Filter.Sub, Filter.Up, Filter.Average, Filter.Paeth],
  probeBelow: PHOTO_REPEAT,
  level: 5,
  smoothLevel: 6,
  segmentBytes: 2 * 1024 * 1024,
  minSegmentRows: 64,
  yieldRows: 256,
};

/**
 * The PNG of `px` (8-bit grey, grey+alpha, RGB or RGBA), pixel for pixel. Bands of rows that
 * repeat earlier rows are left unfiltered; every other band gets the filter under which a few of
 * its rows compressed smallest (zlib level 1).
 */
export async function writePng(px: Pixels, analysis: RowAnalysis, options: Partial<WriteOptions> = {}): Promise<Buffer> {
  const o = { ...DEFAULT_WRITE_OPTIONS, ...options };
  const { width, height, channels } = px;
  const rowBytes = width * channels + 1;
  const filtered = Buffer.allocUnsafe(rowBytes * height);
  const probe = Buffer.allocUnsafe(rowBytes * o.probeRows);
  const bandFilters: Filter[] = [];
  const bandsPerYield = Math.max(1, Math.round(o.yieldRows / o.band));
  for (let y0 = 0; y0 < height; y0 += o.band) {
    const y1 = Math.min(height, y0 + o.band);
    let least = 1;
    for (let y = y0; y < y1; y++) least = Math.min(least, analysis.repeat[y]!);
    const filter = least < o.probeBelow ? bestFilter(px, y0, y1, o, probe) : Filter.None;
    bandFilters.push(filter);
    for (let y = y0; y < y1; y++) filterRow(px, y, filter, filtered, y * rowBytes);
    // Filtering is JavaScript on this thread: let other requests' work in between.
    if (bandFilters.length % bandsPerYield === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  const idat = await deflateSegments(filtered, rowBytes, segmentsOf(bandFilters, o, height));
  return Buffer.concat([PNG_SIGNATURE, chunk('IHDR', [header(px)]), ...idat.map((parts) => chunk('IDAT', parts)), chunk('IEND', [])]);
}

/** A run of rows compressed as deflate segments of one zlib strategy, at one level. */
interface Run {
  rows: number;
  strategy: number;
  level: number;
  segmentBytes: number;
}

/**
 * zlib's default strategy for bands filtered with None, Sub or Average (UI, text, dithered
 * gradients, grainy photos), Z_FILTERED (no matches of 5 bytes or less) for bands filtered with
 * Up or Paeth (smooth photos): each measured best on its kind, the other 2–4 % worse; o.level for
 * None and Sub, o.smoothLevel for the others. A run shorter than o.minSegmentRows joins its
 * neighbour (a segment starts without the previous one's window).
 */
function segmentsOf(bandFilters: readonly Filter[], o: WriteOptions, height: number): Run[] {
  const runs: Run[] = [];
  bandFilters.forEach((filter, b) => {
    const rows = Math.min(o.band, height - b * o.band);
    const strategy = filter === Filter.Up || filter === Filter.Paeth ? constants.Z_FILTERED : constants.Z_DEFAULT_STRATEGY;
    const level = filter === Filter.Sub || filter === Filter.None ? o.level : o.smoothLevel;
    const last = runs[runs.length - 1];
    if (last && last.strategy === strategy && last.level === level) last.rows += rows;
    else runs.push({ rows, strategy, level, segmentBytes: o.segmentBytes });
  });
  const merged: Run[] = [];
  for (const run of runs) {
    const last = merged[merged.length - 1];
    if (last && (run.rows < o.minSegmentRows || (last.strategy === run.strategy && last.level === run.level))) last.rows += run.rows;
    else if (last && last.rows < o.minSegmentRows) merged[merged.length - 1] = { ...run, rows: last.rows + run.rows };
    else merged.push({ ...run });
  }
  return merged;
}

/** The filter among o.filters whose output for a few rows in the middle of the band deflates smallest (zlib level 1). */
function bestFilter(px: Pixels, y0: number, y1: number, o: WriteOptions, scratch: Buffer): Filter {
  const rowBytes = px.width * px.channels + 1;
  const rows = Math.min(o.probeRows, y1 - y0);
  const start = y0 + ((y1 - y0 - rows) >> 1);
  let best = o.filters[0] ?? Filter.None;
  let bestSize = Infinity;
  for (const filter of o.filters) {
    for (let i = 0; i < rows; i++) filterRow(px, start + i, filter, scratch, i * rowBytes);
    const size = deflateRawSync(scratch.subarray(0, rows * rowBytes), PROBE_ZLIB).length;
    if (size < bestSize) {
      bestSize = size;
      best = filter;
    }
  }
  return best;
}

const PROBE_ZLIB: ZlibOptions = { level: 1 };

/** Row y of px with filter type `filter` at out[at] (its filter byte) and after. */
export function filterRow(px: Pixels, y: number, filter: Filter, out: Buffer, at: number): void {
  const { data } = px;
  const bpp = px.channels;
  const stride = px.width * bpp;
  const row = y * stride;
  const up = row - stride;
  const d = at + 1;
  // On the first row, Up is None and Average and Paeth predict from the left pixel only.
  const type = y === 0 && filter === Filter.Up ? Filter.None : filter;
  out[at] = type;
  switch (type) {
    case Filter.None:
      data.copy(out, d, row, row + stride);
      return;
    case Filter.Sub:
      for (let i = 0; i < bpp; i++) out[d + i] = data[row + i]!;
      for (let i = bpp; i < stride; i++) out[d + i] = (data[row + i]! - data[row + i - bpp]!) & 255;
      return;
    case Filter.Up:
      for (let i = 0; i < stride; i++) out[d + i] = (data[row + i]! - data[up + i]!) & 255;
      return;
    case Filter.Average:
      if (y === 0) {
        for (let i = 0; i < bpp; i++) out[d + i] = data[row + i]!;
        for (let i = bpp; i < stride; i++) out[d + i] = (data[row + i]! - (data[row + i - bpp]! >> 1)) & 255;
        return;
      }
      for (let i = 0; i < bpp; i++) out[d + i] = (data[row + i]! - (data[up + i]! >> 1)) & 255;
      for (let i = bpp; i < stride; i++) out[d + i] = (data[row + i]! - ((data[row + i - bpp]! + data[up + i]!) >> 1)) & 255;
      return;
    case Filter.Paeth:
      if (y === 0) {
        for (let i = 0; i < bpp; i++) out[d + i] = data[row + i]!;
        for (let i = bpp; i < stride; i++) out[d + i] = (data[row + i]! - data[row + i - bpp]!) & 255;
        return;
      }
      for (let i = 0; i < bpp; i++) out[d + i] = (data[row + i]! - data[up + i]!) & 255;
      for (let i = bpp; i < stride; i++) {
        const a = data[row + i - bpp]!;
        const b = data[up + i]!;
        const c = data[up + i - bpp]!;
        const pa = Math.abs(b - c);
        const pb = Math.abs(a - c);
        const pc = Math.abs(a + b - c - c);
        out[d + i] = (data[row + i]! - (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 255;
      }
      return;
  }
}

/**
 * One zlib stream in parts, one IDAT chunk each: raw deflate segments of whole rows compressed in
 * parallel on libuv's thread pool, each but the last ended with a sync flush (byte-aligned, not
 * final), so that their concatenation is one valid stream; the zlib header before the first, the
 * Adler-32 of everything after the last.
 */
async function deflateSegments(filtered: Buffer, rowBytes: number, runs: readonly Run[]): Promise<Buffer[][]> {
  const parts: Array<Promise<Buffer>> = [];
  let start = 0;
  for (const run of runs) {
    const runEnd = start + run.rows * rowBytes;
    const count = Math.max(1, Math.min(run.rows, Math.round((runEnd - start) / run.segmentBytes)));
    const per = Math.ceil(run.rows / count) * rowBytes;
    for (let at = start; at < runEnd; at += per) {
      const end = Math.min(runEnd, at + per);
      const options: ZlibOptions = {
        level: run.level,
        strategy: run.strategy,
        finishFlush: end === filtered.length ? constants.Z_FINISH : constants.Z_SYNC_FLUSH,
      };
      const input = filtered.subarray(at, end);
      parts.push(new Promise((resolve, reject) => deflateRaw(input, options, (error, out) => (error ? reject(error) : resolve(out)))));
    }
    start = runEnd;
  }
  // Computed on this thread while the thread pool compresses.
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(adler32(filtered));
  const segments = await Promise.all(parts);
  return segments.map((segment, i) => [...(i === 0 ? [ZLIB_HEADER] : []), segment, ...(i === segments.length - 1 ? [checksum] : [])]);
}

/** zlib header: deflate, 32 KiB window, default compression (RFC 1950). */
const ZLIB_HEADER = Buffer.from([0x78, 0x9c]);

/** Adler-32 (RFC 1950) of buf. */
export function adler32(buf: Uint8Array): number {
  let a = 1;
  let b = 0;
  const n = buf.length;
  for (let i = 0; i < n;) {
    // 5552: the most bytes before b can overflow 2^32 (zlib's NMAX).
    const end = Math.min(n, i + 5552);
    for (; i < end; i++) {
      a += buf[i]!;
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return ((b << 16) | a) >>> 0;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const COLOUR_TYPE: Record<number, number> = { 1: 0, 2: 4, 3: 2, 4: 6 };

function header(px: Pixels): Buffer {
  const colourType = COLOUR_TYPE[px.channels];
  if (colourType === undefined) throw new Error(`PNG: ${px.channels} channels`);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(px.width, 0);
  ihdr.writeUInt32BE(px.height, 4);
  ihdr[8] = 8; // bit depth; compression, filter method and interlace stay 0
  ihdr[9] = colourType;
  return ihdr;
}

/** A PNG chunk whose data is `parts` one after the other. */
function chunk(type: string, parts: readonly Buffer[]): Buffer {
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  const out = Buffer.allocUnsafe(12 + length);
  out.writeUInt32BE(length, 0);
  out.write(type, 4, 'latin1');
  let at = 8;
  for (const part of parts) at += part.copy(out, at);
  out.writeUInt32BE(crc32(out.subarray(4, at)), at);
  return out;
}
