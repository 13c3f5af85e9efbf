import sharp, { type Sharp } from 'sharp';

/** One image an agent is shown. */
export interface FittedImage {
  data: Buffer;
  mimeType: string;
}

const ENCODE = {
  'image/png': (s: Sharp) => s.png(),
  'image/jpeg': (s: Sharp) => s.jpeg({ quality: 80 }),
  'image/webp': (s: Sharp) => s.webp({ quality: 80 }),
} as const;

/**
 * An image whose long edge is at most `maxEdge` px, as agents' vision models take them: scaled down
 * to fit, and a page taller than it is wide cut into slices top to bottom, each scaled to the width
 * that fits and at most `maxEdge` tall, so that a full page's text stays readable.
 */
export async function fitImage(body: Buffer, mimeType: string, maxEdge: number): Promise<FittedImage[]> {
  const encode = ENCODE[mimeType as keyof typeof ENCODE];
  const { width = 0, height = 0 } = await sharp(body).metadata();
  if (!encode || width === 0 || height === 0) return [{ data: body, mimeType }];
  if (Math.max(width, height) <= maxEdge) return [{ data: body, mimeType }];
  const scale = Math.min(1, maxEdge / width);
  const scaledHeight = Math.round(height * scale);
  if (scaledHeight <= maxEdge) {
    return [{ data: await encode(sharp(body).resize({ width: Math.round(width * scale), height: scaledHeight })).toBuffer(), mimeType }];
  }
  // Slices of the source that are maxEdge tall once scaled.
  const sliceHeight = Math.floor(maxEdge / scale);
  const slices: FittedImage[] = [];
  for (let top = 0; top < height; top += sliceHeight) {
    const h = Math.min(sliceHeight, height - top);
    const slice = sharp(body).extract({ left: 0, top, width, height: h });
    const resized = scale < 1 ? slice.resize({ width: Math.round(width * scale), height: Math.max(1, Math.round(h * scale)) }) : slice;
    slices.push({ data: await encode(resized).toBuffer(), mimeType });
  }
  return slices;
}
