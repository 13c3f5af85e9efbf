import pino, { type Logger } from 'pino';

/** Replaces the value of apikey in a URL's query string; keys must never reach a log line. */
export function redactUrl(url: string): string {
  return url.replace(/([?&]apikey=)[^&#]*/gi, '$1[REDACTED]');
}

/** The service logger: JSON lines, with credentials redacted wherever they could appear. */
export function createLogger(level: string, destination: 'stdout' | 'stderr' = 'stdout'): Logger {
  return pino(
    {
      level,
      redact: {
        paths: ['req.headers.apikey', 'req.headers.authorization', 'headers.apikey', 'headers.authorization', 'apikey', '*.apikey'],
        censor: '[REDACTED]',
      },
      serializers: {
        req: (req: { method?: string; url?: string; id?: string }) => ({
          id: req.id,
          method: req.method,
          url: redactUrl(req.url ?? ''),
        }),
      },
    },
    // `shutter mcp` speaks its protocol on stdout: its logs go to stderr.
    destination === 'stderr' ? pino.destination(2) : undefined,
  );
}
