#!/usr/bin/env node
// Writes src/options.ts, the TakeOptions and AnimateOptions interfaces, from the server's options schema: the OpenAPI
// document that the built server (dist/ at the repository root) generates from its routes and zod schema, so the
// client's types cannot drift from what the server accepts.
//
//   node clients/typescript/scripts/generate-types.mjs           write src/options.ts
//   node clients/typescript/scripts/generate-types.mjs --check   exit 1 when src/options.ts differs
//
// Build the server first (`npx tsc -p tsconfig.build.json` at the repository root).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PACKAGE_DIR = new URL('../', import.meta.url);
const REPO_DIR = new URL('../../../', import.meta.url);
/** The file this script owns. */
export const OUTPUT = fileURLToPath(new URL('src/options.ts', PACKAGE_DIR));
const OPENAPI_MODULE = new URL('dist/src/http/route-table.js', REPO_DIR);

/** The server's OpenAPI document, from its built module. */
export async function loadOpenApi() {
  if (!existsSync(OPENAPI_MODULE)) {
    throw new Error(`${fileURLToPath(OPENAPI_MODULE)} is missing: build the server first (npx tsc -p tsconfig.build.json)`);
  }
  const { openApiDocument } = await import(pathToFileURL(fileURLToPath(OPENAPI_MODULE)).href);
  return openApiDocument('generator');
}

const isEmptySchema = (schema) => schema !== null && typeof schema === 'object' && Object.keys(schema).length === 0;
const literal = (value) => JSON.stringify(value);
const unique = (types) => [...new Set(types)];

/** A boolean as the server accepts it: true/false, 0/1 or their strings. The client sends real booleans. */
const isLenientBoolean = (members) => members.some((m) => m.type === 'boolean');
/** A number as the server accepts it: a number or its digits in a string. The client sends real numbers. */
const isLenientNumber = (members) =>
  members.some((m) => m.type === 'number' || m.type === 'integer') &&
  members.every((m) => m.type === 'number' || m.type === 'integer' || (m.type === 'string' && typeof m.pattern === 'string'));

/**
 * The TypeScript type of a JSON Schema. `stringItems` is the item type of a list whose item schema
 * the JSON Schema cannot state (the server splits and checks the items itself): the list's string form.
 */
export function tsType(schema, stringItems = 'unknown', named = new Map(), name = 'Item') {
  const inner = (s, items = stringItems) => tsType(s, items, named, name);
  if (schema === true || isEmptySchema(schema)) return stringItems;
  if (schema.anyOf) {
    const members = schema.anyOf;
    if (isLenientBoolean(members)) return 'boolean';
    if (isLenientNumber(members)) return 'number';
    const strings = members.some((m) => m.type === 'string') ? 'string' : 'unknown';
    return unique(members.map((m) => inner(m, strings))).join(' | ');
  }
  if (schema.const !== undefined) return literal(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map(literal).join(' | ');
  const choices = schema['x-choices'];
  switch (schema.type) {
    case 'string':
      return Array.isArray(choices) ? choices.map(literal).join(' | ') : 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array': {
      const item = inner(schema.items ?? {});
      return /^[\w.]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
    }
    case 'object': {
      if (schema.properties) {
        // An object with fields becomes a named interface (cookies → Cookie), declared once.
        const required = new Set(schema.required ?? []);
        const fields = Object.entries(schema.properties).map(
          ([field, property]) => `${field}${required.has(field) ? '' : '?'}: ${inner(property, 'unknown')};`,
        );
        const body = `{\n${fields.join('\n')}\n}`;
        for (const [existing, text] of named) if (text === body) return existing;
        let typeName = name;
        for (let n = 2; named.has(typeName); n++) typeName = `${name}${n}`;
        named.set(typeName, body);
        return typeName;
      }
      if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
        return `Record<string, ${inner(schema.additionalProperties, 'unknown')}>`;
      }
      return 'Record<string, unknown>';
    }
    default:
      return 'unknown';
  }
}

/** The name of an object type inside a parameter: cookies → Cookie, block_rules → BlockRule. */
const typeNameOf = (parameter) =>
  parameter
    .replace(/s$/, '')
    .split('_')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

/** Keeps a comment's text from closing the comment. */
const commentSafe = (text) => String(text).replace(/\*\//g, '*\\/');

/** Breaks prose into lines of at most `width` characters. */
function wrap(text, width = 110) {
  const lines = [];
  let line = '';
  for (const word of String(text).split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** The JSDoc of one parameter: its description, what it allows, the formats it applies to, its default. */
function jsDoc(property) {
  const lines = [...wrap(property.description ?? '')];
  const facts = [];
  if (property['x-allowed']) facts.push(`Allowed: ${property['x-allowed']}.`);
  if (Array.isArray(property['x-formats'])) facts.push(`Only with format ${property['x-formats'].join(', ')}.`);
  if (Array.isArray(property['x-aliases'])) facts.push(`Also accepted by the server as ${property['x-aliases'].join(', ')}.`);
  if (facts.length) lines.push('', ...facts.flatMap((fact) => wrap(fact)));
  if (property['x-default'] !== undefined) lines.push(`@defaultValue ${property['x-default']}`);
  if (property['x-example'] !== undefined) lines.push(`@example ${literal(property['x-example'])}`);
  return ['/**', ...lines.map((l) => (l ? ` * ${commentSafe(l)}` : ' *')), ' */'];
}

/** The text of src/options.ts for an OpenAPI document (before formatting). */
export function renderOptions(openapi) {
  const schema = openapi?.components?.schemas?.TakeOptions;
  if (!schema?.properties) throw new Error('the OpenAPI document has no components.schemas.TakeOptions with properties');
  const out = [
    '// Generated by scripts/generate-types.mjs from the server’s options schema',
    '// (OpenAPI components.schemas.TakeOptions). Do not edit: run `node clients/typescript/scripts/generate-types.mjs`.',
    '',
    '/**',
    ' * The capture options of `GET/POST /v1/take`, as the server’s options schema defines them. Booleans',
    ' * and numbers are sent as JSON booleans and numbers; lists may be given as one string or an array.',
    ' */',
    'export interface TakeOptions {',
  ];
  const named = new Map();
  out.push(...fields(schema, named), '}');
  // /v1/animate's options: take's entries for the page options it accepts, then the video's (DESIGN §5.3).
  const animate = openapi.components.schemas.AnimateOptions;
  if (animate?.properties) {
    out.push(
      '',
      '/**',
      ' * The options of `POST /v1/animate`: the take options that apply to a page (the others are a 400',
      ' * parameter_not_applicable there), then the video’s: format, duration, fps, scenario and the scroll.',
      ' */',
      'export interface AnimateOptions {',
      ...fields(animate, named),
      '}',
    );
  }
  for (const [typeName, body] of named) {
    out.push('', `/** An item of a TakeOptions parameter in its JSON object form. */`, `export interface ${typeName} ${body}`);
  }
  out.push('', '/** Every parameter name of TakeOptions, in the schema’s order. */');
  out.push(`export const TAKE_OPTION_NAMES = ${literal(Object.keys(schema.properties))} as const;`, '');
  return out.join('\n');
}

/** One optional field per property, with its JSDoc; object types inside are declared once in `named`. */
function fields(schema, named) {
  return Object.entries(schema.properties).flatMap(([name, property]) => {
    const key = /^[A-Za-z_$][\w$]*$/.test(name) ? name : literal(name);
    return [...jsDoc(property), `${key}?: ${tsType(property, 'unknown', named, typeNameOf(name))};`];
  });
}

/** src/options.ts as the repository's Prettier settings lay it out. */
export async function generate() {
  const text = renderOptions(await loadOpenApi());
  const prettier = await import('prettier');
  const config = (await prettier.resolveConfig(OUTPUT)) ?? {};
  return prettier.format(text, { ...config, filepath: OUTPUT });
}

async function main() {
  const text = await generate();
  if (process.argv.includes('--check')) {
    const current = existsSync(OUTPUT) ? readFileSync(OUTPUT, 'utf8') : '';
    if (current !== text) {
      process.stderr.write(
        `${OUTPUT} differs from the server's options schema: run node clients/typescript/scripts/generate-types.mjs (after building the server)\n`,
      );
      process.exitCode = 1;
    }
    return;
  }
  if (process.argv.includes('--stdout')) process.stdout.write(text);
  else writeFileSync(OUTPUT, text);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
}
