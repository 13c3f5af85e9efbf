#!/usr/bin/env node
// Writes clients/python/shutter_client/options.py (the TakeOptions TypedDict) from the server's
// options schema, as published in its OpenAPI document (components.schemas.TakeOptions).
//
//   npx tsc -p tsconfig.build.json                      # the generator reads the built server in dist/
//   node clients/python/scripts/generate_types.mjs      # rewrite options.py
//   node clients/python/scripts/generate_types.mjs --check   # exit 1 when options.py is out of date
//   node clients/python/scripts/generate_types.mjs --stdout  # print instead of writing
//
// Node built-ins only; the output depends on nothing but the schema, so it is reproducible.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..', '..');
const target = join(here, '..', 'shutter_client', 'options.py');
const openapiModule = join(repo, 'dist', 'src', 'http', 'route-table.js');

const PY_KEYWORDS = new Set(
  'False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(
    ' ',
  ),
);
const INTEGER_TEXT = '^-?\\d+$';

async function loadSchema() {
  if (!existsSync(openapiModule)) {
    throw new Error(`${relative(process.cwd(), openapiModule)} is missing: build the server first (npx tsc -p tsconfig.build.json)`);
  }
  const { openApiDocument } = await import(pathToFileURL(openapiModule).href);
  const version = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')).version;
  const document = await openApiDocument(version);
  const schema = document?.components?.schemas?.TakeOptions;
  if (!schema?.properties) throw new Error('the OpenAPI document has no components.schemas.TakeOptions.properties');
  const animate = document.components.schemas.AnimateOptions;
  if (!animate?.properties) throw new Error('the OpenAPI document has no components.schemas.AnimateOptions.properties');
  return { schema, animate };
}

/** Python source for one JSON Schema; named object types are collected in `typedDicts`. */
function pyType(schema, name, typedDicts, imports) {
  if (!schema || Object.keys(schema).length === 0) {
    imports.add('Any');
    return 'Any';
  }
  if (schema.anyOf) {
    const branches = schema.anyOf;
    // The boolean form: true/false, or 0/1 and their text in a query string.
    if (branches.some((b) => b.type === 'boolean') && branches.every((b) => b.type === 'boolean' || b.const !== undefined || b.enum)) {
      return 'bool';
    }
    // A number, or its text in a query string: the text branch's pattern tells integers from decimals.
    const number = branches.find((b) => (b.type === 'number' || b.type === 'integer') && b.const === undefined);
    if (number && branches.every((b) => b === number || (b.type === 'string' && b.pattern))) {
      const text = branches.find((b) => b.type === 'string');
      return number.type === 'integer' || text?.pattern === INTEGER_TEXT ? 'int' : 'float';
    }
    // A text or a list of texts (repeated query parameters): items left open in the schema are texts too.
    const hasText = branches.some((b) => b.type === 'string' && !b.pattern && !b.enum);
    const types = branches.map((b) =>
      b.type === 'array' && hasText && (!b.items || Object.keys(b.items).length === 0)
        ? (imports.add('List'), 'List[str]')
        : pyType(b, name, typedDicts, imports),
    );
    return union([...new Set(types)], imports);
  }
  if (schema.enum || schema['x-choices']) {
    imports.add('Literal');
    return `Literal[${(schema['x-choices'] ?? schema.enum).map((v) => JSON.stringify(v)).join(', ')}]`;
  }
  if (schema.const !== undefined) {
    imports.add('Literal');
    return `Literal[${JSON.stringify(schema.const)}]`;
  }
  switch (schema.type) {
    case 'string':
      return 'str';
    case 'integer':
      return 'int';
    case 'number':
      return 'float';
    case 'boolean':
      return 'bool';
    case 'array':
      imports.add('List');
      return `List[${pyType(schema.items, name, typedDicts, imports)}]`;
    case 'object':
      if (schema.properties) return typedDict(schema, name, typedDicts, imports);
      imports.add('Dict');
      return `Dict[str, ${schema.additionalProperties ? pyType(schema.additionalProperties, name, typedDicts, imports) : 'Any'}]`;
    default:
      imports.add('Any');
      return 'Any';
  }
}

function union(types, imports) {
  if (types.length === 1) return types[0];
  imports.add('Union');
  return `Union[${types.join(', ')}]`;
}

/** A TypedDict for an object with fixed properties, named after its parameter (cookies → Cookie). */
function typedDict(schema, name, typedDicts, imports) {
  const className = pascal(name.replace(/s$/, ''));
  if (typedDicts.has(className)) return className;
  imports.add('TypedDict');
  const required = new Set(schema.required ?? []);
  const line = ([key, property]) => `    ${key}: ${pyType(property, key, typedDicts, imports)}`;
  const entries = Object.entries(schema.properties);
  for (const [key] of entries) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) || PY_KEYWORDS.has(key)) throw new Error(`${name}.${key}: not a Python identifier`);
  }
  const requiredEntries = entries.filter(([key]) => required.has(key));
  const optionalEntries = entries.filter(([key]) => !required.has(key));
  let source = '';
  // Python 3.9 has no Required[]/NotRequired[]: required keys live in a total base class.
  if (requiredEntries.length > 0) {
    source += `class _${className}Required(TypedDict):\n${requiredEntries.map(line).join('\n')}\n\n\n`;
    source += `class ${className}(_${className}Required, total=False):\n`;
  } else {
    source += `class ${className}(TypedDict, total=False):\n`;
  }
  source += `    """One item of \`\`${name}\`\` in its object form (JSON bodies only)."""\n\n`;
  source += optionalEntries.length > 0 ? `${optionalEntries.map(line).join('\n')}\n` : '';
  typedDicts.set(className, source);
  return className;
}

const pascal = (text) =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join('');

/** A comment of the parameter's description, what it allows and its default, wrapped at 100 columns. */
function comment(property) {
  const parts = [];
  if (property.description) parts.push(property.description.trim());
  if (property['x-allowed']) parts.push(`Allowed: ${property['x-allowed']}.`);
  const shown = property['x-default'] ?? (property.default !== undefined ? JSON.stringify(property.default) : undefined);
  if (shown !== undefined) parts.push(`Default: ${shown}.`);
  if (property['x-formats']) parts.push(`Formats: ${property['x-formats'].join(', ')}.`);
  return wrap(parts.join(' '), 100 - 6).map((l) => `    # ${l}`);
}

function wrap(text, width) {
  const lines = [];
  let current = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (current && current.length + 1 + word.length > width) {
      lines.push(current);
      current = word;
    } else {
      current = current ? `${current} ${word}` : word;
    }
  }
  if (current) lines.push(current);
  return lines;
}

function render({ schema, animate }) {
  const imports = new Set(['TypedDict', 'Tuple']);
  const typedDicts = new Map();
  const fieldsOf = (object) =>
    Object.entries(object.properties).flatMap(([name, property]) => [
      ...comment(property),
      `    ${JSON.stringify(name)}: ${pyType(property, name, typedDicts, imports)},`,
    ]);
  const fields = fieldsOf(schema);
  const animateFields = fieldsOf(animate);
  const names = Object.keys(schema.properties);
  const order = ['Any', 'Dict', 'List', 'Literal', 'Tuple', 'TypedDict', 'Union'];
  const used = order.filter((name) => imports.has(name));
  const helpers = [...typedDicts.values()].join('\n\n');
  return `# Generated by clients/python/scripts/generate_types.mjs from the server's options schema
# (GET /openapi.json, components.schemas.TakeOptions and AnimateOptions). Do not edit: rebuild the server
# (npx tsc -p tsconfig.build.json) and run \`node clients/python/scripts/generate_types.mjs\`.
"""Capture options of \`\`/v1/take\`\` and \`\`/v1/animate\`\`, typed from the server's options schema."""

from typing import ${used.join(', ')}

__all__ = [${[...typedDicts.keys(), 'TakeOptions', 'AnimateOptions', 'TAKE_OPTION_NAMES'].map((n) => JSON.stringify(n)).join(', ')}]


${helpers}${helpers ? '\n\n' : ''}# The functional form, because some parameter names (\`\`async\`\`) are Python keywords. Every key is
# optional (total=False); the server checks what goes together and answers 400 naming each problem.
TakeOptions = TypedDict(
    "TakeOptions",
    {
${fields.map((l) => `    ${l}`).join('\n')}
    },
    total=False,
)

# /v1/animate: take's entries for the page options it accepts (the others are a 400
# parameter_not_applicable there), then the video's: format, duration, fps, scenario and the scroll.
AnimateOptions = TypedDict(
    "AnimateOptions",
    {
${animateFields.map((l) => `    ${l}`).join('\n')}
    },
    total=False,
)

#: Every parameter name the schema knows, in the schema's order.
TAKE_OPTION_NAMES: Tuple[str, ...] = (
${names.map((n) => `    ${JSON.stringify(n)},`).join('\n')}
)
`;
}

const args = new Set(process.argv.slice(2));
try {
  const source = render(await loadSchema());
  if (args.has('--stdout')) {
    process.stdout.write(source);
  } else if (args.has('--check')) {
    const current = existsSync(target) ? readFileSync(target, 'utf8') : '';
    if (current !== source) {
      process.stderr.write(
        `${relative(process.cwd(), target)} differs from the options schema: run \`node clients/python/scripts/generate_types.mjs\` and commit the result\n`,
      );
      process.exit(1);
    }
    process.stdout.write(`${relative(process.cwd(), target)} is up to date\n`);
  } else {
    writeFileSync(target, source);
    process.stdout.write(`wrote ${relative(process.cwd(), target)}\n`);
  }
} catch (error) {
  process.stderr.write(`generate_types: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
}
