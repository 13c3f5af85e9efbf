import sharp from 'sharp';

/** Channel spread (0–255) still counted as one colour: JPEG and AVIF blur a flat area by a few levels. */
const TOLERANCE = 6;
/**
 * Every format compresses a single colour to almost nothing (a flat 1280×800 PNG or JPEG is 5–6 KB,
 * 0.006 bytes per pixel): an image above this many bytes per pixel has content and is not decoded,
 * so the check costs nothing on ordinary pages (docs/performance.md, "Blank detection").
 */
const MAX_BLANK_BYTES_PER_PIXEL = 0.015;
const ALWAYS_CHECK_BYTES = 4096;

/** Whether an image is a single colour (or fully transparent): the "blank screenshot" of issue trackers. */
export async function isBlankImage(body: Buffer): Promise<boolean> {
  const { width, height } = await sharp(body, { failOn: 'none' }).metadata();
  if (!width || !height) return false;
  if (body.length > Math.max(ALWAYS_CHECK_BYTES, width * height * MAX_BLANK_BYTES_PER_PIXEL)) return false;
  const { data, info } = await sharp(body, { failOn: 'none' }).raw().toBuffer({ resolveWithObject: true });
  return isSingleColour(data, info.channels);
}

/** Raw pixels all within TOLERANCE of the first one, per channel; fully transparent counts as one colour. Stops at the first outlier. */
export function isSingleColour(data: Uint8Array, channels: number): boolean {
  const hasAlpha = channels === 2 || channels === 4;
  const colour = hasAlpha ? channels - 1 : channels;
  const first = data.subarray(0, channels);
  for (let i = 0; i < data.length; i += channels) {
    // Transparent pixels have no colour to compare.
    if (hasAlpha && data[i + colour] === 0 && first[colour] === 0) continue;
    for (let c = 0; c < channels; c++) {
      if (Math.abs(data[i + c]! - first[c]!) > TOLERANCE) return false;
    }
  }
  return true;
}
