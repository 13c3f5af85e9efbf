import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A 1280 px wide page of `height` CSS px of seeded pixel noise (two channels of 6 levels), which
 * PNG cannot compress much: at 20 000 px a full-page PNG of about 22 MB.
 */
export function noisyPage(height: number): string {
  return `<!doctype html><meta charset="utf-8"><title>noise</title>
<style>html, body { margin: 0; } canvas { display: block; }</style>
<body><script>
let s = 2463534242;
const rnd = () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s / 4294967296; };
for (let top = 0; top < ${height}; top += 1000) {
  const rows = Math.min(1000, ${height} - top);
  const canvas = document.createElement('canvas');
  canvas.width = 1280;
  canvas.height = rows;
  const ctx = canvas.getContext('2d');
  const image = ctx.createImageData(1280, rows);
  const d = image.data;
  for (let p = 0; p < d.length; p += 4) {
    d[p] = Math.floor(rnd() * 6) * 51;
    d[p + 1] = Math.floor(rnd() * 6) * 51;
    d[p + 2] = 128;
    d[p + 3] = 255;
  }
  ctx.putImageData(image, 0, 0);
  document.body.appendChild(canvas);
}
</script>`;
}

/** Serves noisyPage at /noise?h=<height> on 127.0.0.1. */
export async function startNoisyPageServer(): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://noise.invalid');
    const height = Math.min(Math.max(Number(url.searchParams.get('h')) || 1000, 1), 40_000);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(noisyPage(height));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
