import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/**
 * The folder Shutter is installed in (the one holding its package.json). The code runs from src/
 * (tsx), dist/src/ or dist/bundle/, so the depth differs: the nearest package.json above decides.
 */
export function installRoot(): string {
  if (root !== undefined) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('shutter: no package.json above its own code');
    dir = parent;
  }
  return (root = dir);
}
