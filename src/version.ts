import { existsSync, readFileSync } from 'node:fs';

// Built code lives in dist/src/, the sources in src/ (run directly with tsx, as tests do).
const packageJson = [new URL('../../package.json', import.meta.url), new URL('../package.json', import.meta.url)].find((url) =>
  existsSync(url),
)!;

/** The package version, read once from package.json. */
export const VERSION: string = (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version;
