import { readFileSync, writeFileSync } from 'node:fs';
import { fillGenerated } from './reference.js';

/** `make docs`: refreshes the generated tables in README.md and docs/api.md. */
for (const file of ['README.md', 'docs/api.md']) {
  const before = readFileSync(file, 'utf8');
  const after = fillGenerated(before);
  if (after !== before) writeFileSync(file, after);
  process.stdout.write(`${file}: ${after === before ? 'up to date' : 'updated'}\n`);
}
