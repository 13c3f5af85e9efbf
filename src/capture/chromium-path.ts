import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { ConfigError } from '../errors/config-error.js';

/** Browsers tried in order when SHUTTER_CHROMIUM_PATH is unset: the headless shell is lighter and faster. */
const CANDIDATES = ['chromium-headless-shell', 'chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome'];

const isExecutable = (path: string) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** Finds the Chromium binary, or explains what to install. */
export function findChromium(configured: string | undefined, pathEnv = process.env.PATH ?? ''): string {
  if (configured) {
    if (!isExecutable(configured)) {
      throw new ConfigError(`SHUTTER_CHROMIUM_PATH=${configured} is not an executable file`);
    }
    return configured;
  }
  const dirs = [...pathEnv.split(delimiter).filter(Boolean), '/usr/bin', '/usr/lib/chromium'];
  for (const name of CANDIDATES) {
    for (const dir of dirs) {
      const path = join(dir, name);
      if (isExecutable(path)) return path;
    }
  }
  throw new ConfigError(
    'no Chromium found. On Debian/Ubuntu run `make start` as root (it installs chromium-headless-shell), ' +
      'or `sudo apt-get install chromium-headless-shell`; elsewhere install Chromium and set SHUTTER_CHROMIUM_PATH.',
  );
}
