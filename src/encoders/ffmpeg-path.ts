import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** ffmpeg for /v1/animate: the configured path, else the first on PATH or in /usr/bin; undefined when there is none (animations answer 503). */
export function findFfmpeg(configured: string | undefined, pathEnv = process.env.PATH ?? ''): string | undefined {
  const candidates = configured
    ? [configured]
    : [...pathEnv.split(delimiter).filter(Boolean), '/usr/bin'].map((dir) => join(dir, 'ffmpeg'));
  return candidates.find((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
