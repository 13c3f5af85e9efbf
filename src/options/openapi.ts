import { z } from 'zod';
import { PARAMETER_NAMES, parameterMeta, takeParameters, takeSchema, type ParameterName } from './schema.js';

/** Our docs metadata is not JSON Schema; OpenAPI wants extensions prefixed with x-. */
const EXTENSION_KEYS = ['allowed', 'formats', 'example', 'default', 'group', 'choices'] as const;

type JsonSchema = Record<string, unknown>;

/** The take options as one JSON Schema object (OpenAPI components.schemas.TakeOptions), derived from the zod schema. */
export function takeOptionsJsonSchema(): { properties: Record<string, JsonSchema> } & JsonSchema {
  const body = z.toJSONSchema(takeSchema, { io: 'input', unrepresentable: 'any' }) as { properties: Record<string, JsonSchema> };
  delete (body as JsonSchema).$schema;
  for (const [name, property] of Object.entries(body.properties)) {
    for (const key of EXTENSION_KEYS) {
      if (key in property) {
        property[`x-${key}`] = property[key];
        delete property[key];
      }
    }
    delete property.defaultWhen;
    const meta = parameterMeta(name as ParameterName);
    const value = jsonDefault(name as ParameterName);
    if (value !== undefined) property.default = value;
    // Where another parameter changes it, e.g. timeout's short default for pdf, markdown and html input.
    if (meta.defaultWhen) property['x-default-when'] = meta.defaultWhen;
    // How the reference states it, e.g. timeout's "60, or 12 where the cap is 12".
    if (meta.default !== undefined) property['x-default'] = meta.default;
    if (name === 'hide_selectors') property['x-aliases'] = ['hide_selectors[]'];
  }
  return body;
}

/**
 * The take options as a query string (GET /v1/take): one property per parameter, described with
 * what it allows; hide_selectors under the `hide_selectors[]` name browsers' forms send.
 */
export function takeQueryJsonSchema(options = takeOptionsJsonSchema()): JsonSchema {
  const properties = Object.fromEntries(
    PARAMETER_NAMES.map((name) => [
      name === 'hide_selectors' ? 'hide_selectors[]' : name,
      { ...options.properties[name], description: `${parameterMeta(name).description} Allowed: ${parameterMeta(name).allowed}.` },
    ]),
  );
  return { type: 'object', properties };
}

/**
 * The JSON Schema default of a parameter: the schema's own default as a caller would send it
 * (timeout's is the url capture's; x-default-when gives the others).
 */
function jsonDefault(name: ParameterName): unknown {
  const meta = parameterMeta(name);
  const parsed = takeParameters[name].safeParse(undefined);
  if (!parsed.success || parsed.data === undefined) return undefined;
  const primitive = (v: unknown) => v === null || typeof v !== 'object';
  if (primitive(parsed.data) || (Array.isArray(parsed.data) && parsed.data.every(primitive))) return parsed.data;
  return meta.default; // parsed into a structure (pdf_margin): the text form
}
