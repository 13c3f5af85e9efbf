/**
 * The HTTP face every baseline shares with Shutter, so the load generator sends the same request to
 * each: `GET /v1/take?url=…&format=png|jpg|pdf|markdown&full_page=1&quality=80`. Anything else, or a
 * format the baseline does not do, is a 400. Chromium for the baselines is BENCH_CHROMIUM (the
 * binary Shutter uses); the port is BENCH_PORT.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

/** `markdown`: only the floor, which answers the loaded page's HTML (it has no converter). */
export type BaselineFormat = 'png' | 'jpg' | 'pdf' | 'markdown';

/** One capture request, as a baseline understands it. */
export interface BaselineRequest {
  url: string;
  format: BaselineFormat;
  fullPage: boolean;
  quality: number;
  width: number;
  height: number;
  /** Capture only the first element this CSS selector matches. */
  selector?: string;
  /** Resize the image to this width, keeping the aspect ratio. */
  imageWidth?: number;
}

/** Parameters only some baselines do; one that does not say so answers them with a 400. */
export type BaselineExtra = 'selector' | 'image_width';

/** A capture with headers to send along, e.g. `x-bench-warning: load_timeout`. */
export interface BaselineAnswer {
  body: Buffer;
  headers?: Record<string, string>;
}

export interface BaselineServer {
  capture(request: BaselineRequest): Promise<Buffer | BaselineAnswer>;
  /** The formats it does (default png, jpg, pdf); others are a 400. */
  formats?: readonly BaselineFormat[];
  /** The parameters beyond the common ones it does (default none). */
  extras?: readonly BaselineExtra[];
  /** Called once before listening (e.g. the floor launches its warm browser here). */
  start?(): Promise<void>;
  /** Called on SIGTERM/SIGINT before the process exits: close browsers. */
  stop?(): Promise<void>;
}

const CONTENT_TYPES: Record<BaselineFormat, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  pdf: 'application/pdf',
  markdown: 'text/html; charset=utf-8',
};
const DEFAULT_FORMATS: readonly BaselineFormat[] = ['png', 'jpg', 'pdf'];
const KNOWN = new Set(['url', 'format', 'full_page', 'quality', 'viewport_width', 'viewport_height']);

/** Parses the query of a take request; a string is the reason for a 400. */
export function parseTake(rawUrl: string, extras: readonly BaselineExtra[] = []): BaselineRequest | string {
  const query = new URL(rawUrl, 'http://127.0.0.1').searchParams;
  for (const key of query.keys())
    if (!KNOWN.has(key) && !(extras as readonly string[]).includes(key)) return `unsupported parameter ${key}`;
  const url = query.get('url');
  if (!url || !/^https?:\/\//.test(url)) return 'url is required';
  const format = (query.get('format') ?? 'png').replace('jpeg', 'jpg');
  if (format !== 'png' && format !== 'jpg' && format !== 'pdf' && format !== 'markdown') return `unsupported format ${format}`;
  const flag = query.get('full_page');
  const selector = query.get('selector');
  const imageWidth = query.get('image_width');
  if (imageWidth !== null && !/^[1-9]\d{0,3}$/.test(imageWidth)) return 'image_width must be an integer from 1 to 9999';
  return {
    url,
    format,
    fullPage: flag === '1' || flag === 'true',
    quality: Number(query.get('quality') ?? 80),
    width: Number(query.get('viewport_width') ?? 1280),
    height: Number(query.get('viewport_height') ?? 800),
    ...(selector ? { selector } : {}),
    ...(imageWidth ? { imageWidth: Number(imageWidth) } : {}),
  };
}

/** The Chromium binary and launch arguments a do-it-yourself service would use. */
export function baselineChromium() {
  const executablePath = process.env.BENCH_CHROMIUM;
  if (!executablePath) throw new Error('BENCH_CHROMIUM must be set');
  return {
    executablePath,
    // Chromium refuses to start sandboxed as root.
    args: [
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
      // BENCH_BASELINE_HOST_RULES='MAP *.test ~NOTFOUND': the baselines' Chromium fails those names at
      // once, as behind a resolver that never stalls (the real-page comparison's fast-resolver case).
      ...(process.env.BENCH_BASELINE_HOST_RULES ? [`--host-resolver-rules=${process.env.BENCH_BASELINE_HOST_RULES}`] : []),
    ],
    // serveBaseline closes the browsers on a signal itself.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  };
}

/** Serves `GET /v1/take` on 127.0.0.1:BENCH_PORT with the given capture function. */
export async function serveBaseline(server: BaselineServer): Promise<void> {
  const port = Number(process.env.BENCH_PORT);
  if (!Number.isInteger(port) || port <= 0) throw new Error('BENCH_PORT must be set');
  await server.start?.();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'GET' || !req.url?.startsWith('/v1/take')) return res.writeHead(404).end();
    const request = parseTake(req.url, server.extras);
    if (typeof request === 'string') return res.writeHead(400, { 'content-type': 'text/plain' }).end(request);
    if (!(server.formats ?? DEFAULT_FORMATS).includes(request.format)) {
      return res.writeHead(400, { 'content-type': 'text/plain' }).end(`unsupported format ${request.format}`);
    }
    try {
      const answer = await server.capture(request);
      const { body, headers } = Buffer.isBuffer(answer) ? { body: answer, headers: {} } : answer;
      res.writeHead(200, { ...headers, 'content-type': CONTENT_TYPES[request.format], 'content-length': body.length }).end(body);
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(error instanceof Error ? error.message : String(error));
    }
  };
  const http = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    http.close();
    // Bounded: a browser that does not close in 5 s is left to the bench's process-tree kill.
    const timer = setTimeout(() => process.exit(0), 5_000);
    void (server.stop?.() ?? Promise.resolve()).finally(() => {
      clearTimeout(timer);
      process.exit(0);
    });
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

/** Runs a baseline's main, exiting non-zero with the error when it fails to start. */
export function runBaseline(server: BaselineServer): void {
  serveBaseline(server).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
