import { z } from 'zod';
import { parameterMeta, takeSchema, type ParameterName } from '../options/schema.js';

/** The take parameters each tool offers: what an agent needs to see a page, read it or print it. */
const SOURCE: ParameterName[] = ['url', 'html'];
const PAGE: ParameterName[] = [
  'viewport_width',
  'viewport_height',
  'viewport_device',
  'device_scale_factor',
  'dark_mode',
  'wait_until',
  'wait_for_selector',
  'delay',
  'timeout',
  'block_ads',
  'block_cookie_banners',
  'block_chats',
  'hide_selectors',
];

export const TOOL_PARAMETERS = {
  take_screenshot: [...SOURCE, ...PAGE, 'full_page', 'selector', 'format', 'quality'],
  get_markdown: [...SOURCE, ...PAGE, 'selector', 'main_content'],
  get_pdf: [...SOURCE, ...PAGE, 'pdf_paper_format', 'pdf_landscape', 'pdf_print_background', 'pdf_margin', 'pdf_scale'],
} satisfies Record<string, string[]>;

/** The long edge of an image a tool answers with, unless the agent asks otherwise (Claude's own bound). */
export const DEFAULT_MAX_EDGE = 1568;

type JsonSchema = { type: 'object'; properties: Record<string, Record<string, unknown>>; [key: string]: unknown };

let properties: Record<string, Record<string, unknown>> | undefined;

/** The options schema as JSON Schema, its docs metadata left out (the description stays). */
function takeProperties(): Record<string, Record<string, unknown>> {
  properties ??= (z.toJSONSchema(takeSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema).properties;
  return properties;
}

/** A tool's input schema: the listed take parameters as the options schema defines them (only those that exist), plus `extra`. */
export function toolInputSchema(names: readonly string[], extra: Record<string, Record<string, unknown>> = {}): JsonSchema {
  const all = takeProperties();
  const picked = Object.fromEntries(
    names.filter((name) => name in all).map((name) => [name, agentSchema(name as ParameterName, all[name]!)]),
  );
  return { type: 'object', properties: { ...picked, ...extra } };
}

/**
 * One parameter as an agent should fill it: the JSON type it means (the API also takes query
 * strings: "1", "true"), and the reference's allowed values and default in its description.
 */
function agentSchema(name: ParameterName, property: Record<string, unknown>): Record<string, unknown> {
  const {
    anyOf,
    description,
    type,
    enum: choices,
    maxLength,
    items,
    minimum,
    maximum,
  } = property as Record<string, unknown> & {
    anyOf?: Array<Record<string, unknown>>;
  };
  const meta = parameterMeta(name);
  const text = `${String(description ?? meta.description)} Allowed: ${meta.allowed}.${meta.default ? ` Default: ${meta.default}.` : ''}`;
  const typed = anyOf?.[0] ?? { type, enum: choices, maxLength, items, minimum, maximum };
  return Object.fromEntries(Object.entries({ ...typed, description: text }).filter(([, v]) => v !== undefined));
}
