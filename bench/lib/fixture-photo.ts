import sharp from 'sharp';

/**
 * A deterministic photo-like image: two-colour gradient, soft waves and grain, so it costs real
 * decode and encode time. The bench's fixture server serves these; test/e2e/png-size.test.ts makes
 * the same ones (the fixture server runs from dist/ only).
 */
export async function fixturePhoto(width: number, height: number, variant: number): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  let seed = 1 + variant * 7919;
  const hue = (variant * 47) % 360;
  const base = [
    Math.round(128 + 100 * Math.cos((hue * Math.PI) / 180)),
    90 + (variant % 5) * 25,
    Math.round(128 + 100 * Math.sin((hue * Math.PI) / 180)),
  ];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      const grain = (seed % 25) - 12;
      const wave = 40 * Math.sin(x / (17 + variant)) * Math.cos(y / (23 + variant));
      const i = (y * width + x) * 3;
      for (let c = 0; c < 3; c++) {
        const v = base[c]! * (0.55 + (0.45 * (x + y)) / (width + height)) + wave * (c === 1 ? -1 : 1) + grain;
        pixels[i + c] = Math.max(0, Math.min(255, Math.round(v)));
      }
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 6 })
    .toBuffer();
}
