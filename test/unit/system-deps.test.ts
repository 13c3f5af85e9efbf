import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Issue 38 (docs/fonts.md): the image must draw text with the fonts `make start` and CI draw it with.
// No container engine runs here, so the Dockerfile is read: both must go through one install script,
// and that script's package list is asked of the script itself.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPT = 'scripts/install-system-deps.sh';
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

function listed(env: Record<string, string> = {}): string[] {
  const run = spawnSync('bash', [join(ROOT, SCRIPT), '--list'], { env: { ...process.env, SHUTTER_FONTS: '', ...env }, encoding: 'utf8' });
  expect(run.status, run.stderr).toBe(0);
  return run.stdout.split('\n').filter(Boolean);
}

/** Instructions of the Dockerfile's last stage (the image that runs), continuation lines joined. */
function runtimeStage(): string[] {
  const lines = read('Dockerfile')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const from = lines.map((l, i) => (/^FROM\s/i.test(l) ? i : -1)).filter((i) => i >= 0);
  return lines.slice(from[from.length - 1]);
}

describe('one install script for make start, CI and the image', () => {
  it('make start and make test install through the script', () => {
    const makefile = read('Makefile');
    expect(makefile).toMatch(/^system-deps:\n\t@?bash scripts\/install-system-deps\.sh\s*$/m);
    expect(makefile).toMatch(/^deps: system-deps node-deps$/m);
    expect(makefile).toMatch(/^start: deps\b/m);
    expect(makefile).toMatch(/^test: deps\b/m);
  });

  it('the image runs the same script with the same default and installs no font of its own', () => {
    const stage = runtimeStage();
    expect(stage).toContain(`COPY ${SCRIPT} ${SCRIPT}`);
    const runs = stage.filter((l) => /^RUN\s/.test(l));
    expect(runs.filter((l) => l.includes(`bash ${SCRIPT}`))).toHaveLength(1);
    // A SHUTTER_FONTS set on the RUN line would beat the build argument, and another apt-get install or a
    // copied font would make the image's font list differ from make start's.
    expect(runs.join('\n')).not.toMatch(/SHUTTER_FONTS=|apt-get\s+install|fonts-|\.(ttf|otf|ttc)\b|fc-cache/);
    expect(stage.filter((l) => /^COPY\s/.test(l)).join('\n')).not.toMatch(/fonts|\.(ttf|otf|ttc)\b/);
    expect(stage).toContain('ARG SHUTTER_FONTS=full');
    expect(listed({ SHUTTER_FONTS: 'full' })).toEqual(listed());
  });

  it('full covers every script in common use; lean is a part of it', () => {
    const full = listed();
    for (const p of ['fonts-noto-core', 'fonts-noto-cjk', 'fonts-noto-color-emoji', 'fonts-dejavu-core', 'fonts-liberation']) {
      expect(full).toContain(p);
    }
    const lean = listed({ SHUTTER_FONTS: 'lean' });
    expect(lean.every((p) => full.includes(p))).toBe(true);
    expect(lean).not.toContain('fonts-noto-core');
    expect(lean).toContain('chromium-headless-shell');
  });

  it('refuses a SHUTTER_FONTS it does not know', () => {
    const run = spawnSync('bash', [join(ROOT, SCRIPT), '--list'], { env: { ...process.env, SHUTTER_FONTS: 'fat' }, encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/SHUTTER_FONTS must be full or lean/);
  });
});
