import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { installRoot } from './util/install-root.js';

/** The package version, read once from package.json. */
export const VERSION: string = (JSON.parse(readFileSync(join(installRoot(), 'package.json'), 'utf8')) as { version: string }).version;
