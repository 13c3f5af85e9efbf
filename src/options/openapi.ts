import { z } from 'zod';
import type { ParameterMeta } from './parameters/meta.js';
import { ANIMATE_TAKE_PARAMETERS } from './parse-animate-options.js';
import { animateSchema, parameterMeta, takeParameters, takeSchema, type ParameterName } from './schema.js';

/** Our docs metadata is not JSON Schema; OpenAPI wants extensions prefixed with x-. */
const EXTENSION_KEYS = ['allowed', 'formats', 'example', 'default', 'group', 'choices'] as const;

type JsonSchema = Record<string, unknown>;

/** The take options as one JSON Schema object (OpenAPI components.schemas.TakeOptions), derived from the zod schema. */
export function takeOptionsJsonSchema(): { properties: Record<string, JsonSchema> } & JsonSchema {
  return objectJsonSchema(takeSchema, (name) => ({
    meta: parameterMeta(name as ParameterName),
    schema: takeParameters[name as ParameterName],
  }));
}

/**
 * The /v1/animate options as one JSON Schema object (components.schemas.AnimateOptions): take's own
 * entries for the parameters that apply to an animation (ANIMATE_TAKE_PARAMETERS, the list its parser
 * uses), then the video's (parameters/animate.ts, whose `format` replaces take's). Both come from
 * the zod schemas the parsers validate with: nothing here is written twice.
 */
export function animateOptionsJsonSchema(take = takeOptionsJsonSchema()): { properties: Record<string, JsonSchema> } & JsonSchema {
  const own = objectJsonSchema(animateSchema, (name) => {
    const schema = animateSchema.shape[name as keyof typeof animateSchema.shape];
    return { meta: schema.meta() as ParameterMeta, schema };
  });
  const page = Object.fromEntries(ANIMATE_TAKE_PARAMETERS.map((name) => [name, take.properties[name]!]));
  return { type: 'object', properties: { ...page, ...own.properties } };
}

/** A zod object as JSON Schema, our docs metadata as x- extensions, each property's default as a caller would send it. */
function objectJsonSchema(
  schema: z.ZodObject,
  entry: (name: string) => { meta: ParameterMeta; schema: z.ZodType },
): { properties: Record<string, JsonSchema> } & JsonSchema {
  const body = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { properties: Record<string, JsonSchema> };
  delete (body as JsonSchema).$schema;
  for (const [name, property] of Object.entries(body.properties)) {
    for (const key of EXTENSION_KEYS) {
      if (key in property) {
        property[`x-${key}`] = property[key];
        delete property[key];
      }
    }
    delete property.defaultWhen;
    const { meta, schema: field } = entry(name);
    const value = jsonDefault(field, meta);
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
  return queryJsonSchema(options);
}

/** The /v1/animate options as a query string (GET /v1/animate), the same way. */
export function animateQueryJsonSchema(options = animateOptionsJsonSchema()): JsonSchema {
  return queryJsonSchema(options);
}

function queryJsonSchema(options: { properties: Record<string, JsonSchema> }): JsonSchema {
  const properties = Object.fromEntries(
    Object.entries(options.properties).map(([name, property]) => [
      name === 'hide_selectors' ? 'hide_selectors[]' : name,
      { ...property, description: `${String(property.description)} Allowed: ${String(property['x-allowed'])}.` },
    ]),
  );
  return { type: 'object', properties };
}

/**
 * The JSON Schema default of a parameter: the schema's own default as a caller would send it
 * (timeout's is the url capture's; x-default-when gives the others).
 */
function jsonDefault(schema: z.ZodType, meta: ParameterMeta): unknown {
  const parsed = schema.safeParse(undefined);
  if (!parsed.success || parsed.data === undefined) return undefined;
  const primitive = (v: unknown) => v === null || typeof v !== 'object';
  if (primitive(parsed.data) || (Array.isArray(parsed.data) && parsed.data.every(primitive))) return parsed.data;
  return meta.default; // parsed into a structure (pdf_margin): the text form
}
