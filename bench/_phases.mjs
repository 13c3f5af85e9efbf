import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import pino from 'pino';
const root = '/work/main/dist/src/';
const { loadConfig } = await import(root + 'config/load.js');
const { createEngine } = await import(root + 'service.js');
const { Timings } = await import(root + 'capture/timings.js');
const { parseTakeOptions } = await import(root + 'options/parse-take-options.js');
const html = readFileSync('/work/main/bench/fixtures/simple.html');
const server = createServer((q, r) => r.writeHead(200, { 'content-type': 'text/html' }).end(html));
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}/`;
const engine = createEngine(loadConfig({ SHUTTER_ALLOWED_PRIVATE_NETWORKS: '127.0.0.0/8' }), pino({ level: 'silent' }));
await engine.start();
const sums = {}; let total = 0; const N = 30;
for (let i = 0; i < N + 5; i++) {
  const t = new Timings(); const s = performance.now();
  await engine.capture(parseTakeOptions({ url }, { countries: [] }), t);
  if (i >= 5) { total += performance.now() - s; for (const [k, v] of Object.entries(t.ms)) sums[k] = (sums[k] ?? 0) + v; }
}
console.log('total', (total / N).toFixed(1), Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, (v / N).toFixed(1)])));
await engine.close(); server.close();
