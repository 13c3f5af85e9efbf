import { describeConfig } from '../config/load.js';
import { ERROR_STATUS } from '../errors/error-codes.js';
import { PARAMETER_NAMES, parameterMeta } from './schema.js';

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The parameter table of docs/api.md, generated from the options schema. */
export function parameterTable(): string {
  const rows = PARAMETER_NAMES.map((name) => {
    const m = parameterMeta(name);
    const formats = m.formats ? m.formats.join(', ') : 'all';
    return `| \`${name}\` | ${cell(m.allowed)} | ${cell(m.default ?? '—')} | ${formats} | ${cell(m.description)} |`;
  });
  return ['| Parameter | Type / allowed | Default | Formats | Meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** The error code table, generated from the one status mapping. */
export function errorTable(): string {
  const rows = Object.entries(ERROR_STATUS).map(([code, status]) => `| ${status} | \`${code}\` |`);
  return ['| Status | Code |', '|---|---|', ...rows].join('\n');
}

/** The configuration table, generated from the config schema. */
export function configTable(): string {
  const rows = describeConfig().map((r) => `| \`${r.name}\` | ${cell(r.default)} | ${cell(r.description)} |`);
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}

export const GENERATED = { parameters: parameterTable, errors: errorTable, config: configTable } as const;

/** Replaces each `<!-- generated:NAME -->…<!-- /generated:NAME -->` block with fresh output. */
export function fillGenerated(markdown: string): string {
  return markdown.replace(/<!-- generated:(\w+) -->[\s\S]*?<!-- \/generated:\1 -->/g, (block, name: string) => {
    const make = GENERATED[name as keyof typeof GENERATED];
    return make ? `<!-- generated:${name} -->\n${make()}\n<!-- /generated:${name} -->` : block;
  });
}
