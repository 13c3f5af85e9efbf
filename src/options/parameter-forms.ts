import { z } from 'zod';
import type { ParameterGroup } from './parameters/meta.js';
import { PARAMETER_NAMES, parameterMeta, takeSchema, type ParameterName } from './schema.js';

/** How a parameter is entered by hand: a flag, one of a list, several values, a number or text. */
export type ParameterKind = 'boolean' | 'choice' | 'list' | 'number' | 'text';

export interface ParameterForm {
  name: ParameterName;
  group: ParameterGroup;
  kind: ParameterKind;
  choices?: readonly string[];
  description: string;
  allowed: string;
  default?: string;
  example?: string;
}

let forms: ParameterForm[] | undefined;

/**
 * Every parameter as a form field, from the schema: its kind from the JSON Schema of what it
 * accepts, choices and texts from its metadata. The playground and the CLI's `take` read this.
 */
export function parameterForms(): readonly ParameterForm[] {
  forms ??= build();
  return forms;
}

function build(): ParameterForm[] {
  const { properties } = z.toJSONSchema(takeSchema, { io: 'input', unrepresentable: 'any' }) as {
    properties: Record<string, { type?: string; anyOf?: Array<{ type?: string }> }>;
  };
  return PARAMETER_NAMES.map((name) => {
    const meta = parameterMeta(name);
    const types = new Set([properties[name]?.type, ...(properties[name]?.anyOf ?? []).map((t) => t.type)]);
    const kind: ParameterKind = types.has('boolean')
      ? 'boolean'
      : types.has('array')
        ? 'list'
        : meta.choices
          ? 'choice'
          : types.has('number')
            ? 'number'
            : 'text';
    return {
      name,
      group: meta.group,
      kind,
      ...(meta.choices ? { choices: meta.choices } : {}),
      description: meta.description,
      allowed: meta.allowed,
      ...(meta.default !== undefined ? { default: meta.default } : {}),
      ...(meta.example !== undefined ? { example: meta.example } : {}),
    };
  });
}
