import { z } from 'zod';
import { isValidSelector } from './selectors.js';

/**
 * Field builders shared by the options schema. Each accepts the typed JSON form and the
 * string form of a query string, and fails with a message that names the valid values.
 */

export const booleanField = () =>
  z
    .union([z.boolean(), z.literal(0), z.literal(1), z.enum(['1', '0', 'true', 'false'])], {
      error: 'must be a boolean: 1, 0, true or false',
    })
    .transform((v) => v === true || v === 1 || v === '1' || v === 'true');

const numeric = (pattern: RegExp, what: string) =>
  z.union([z.number(), z.string().trim().regex(pattern)], { error: `must be ${what}` }).transform((v) => Number(v));

export const integerField = (min: number, max: number) => {
  const what = `an integer from ${min} to ${max}`;
  return numeric(/^-?\d+$/, what).pipe(
    z
      .number()
      .int({ error: `must be ${what}` })
      .min(min, { error: `must be ${what}` })
      .max(max, { error: `must be ${what}` }),
  );
};

export const numberField = (min: number, max: number) => {
  const what = `a number from ${min} to ${max}`;
  return numeric(/^-?(\d+\.?\d*|\.\d+)$/, what).pipe(
    z
      .number()
      .min(min, { error: `must be ${what}` })
      .max(max, { error: `must be ${what}` }),
  );
};

/** Case-insensitive choice among values, with optional aliases (e.g. jpeg → jpg). */
export const enumField = <const T extends readonly [string, ...string[]]>(values: T, aliases: Readonly<Record<string, T[number]>> = {}) => {
  const names = [...values, ...Object.keys(aliases)];
  return z.string({ error: `must be one of: ${names.join(', ')}` }).transform((v, ctx) => {
    const key = v.trim().toLowerCase();
    const hit = (values as readonly string[]).includes(key) ? (key as T[number]) : Object.hasOwn(aliases, key) ? aliases[key] : undefined;
    if (hit === undefined) {
      ctx.addIssue({ code: 'custom', message: `must be one of: ${names.join(', ')}` });
      return z.NEVER;
    }
    return hit;
  });
};

export const textField = (maxChars: number, what = 'text') =>
  z.string({ error: `must be ${what}` }).max(maxChars, { error: `must be at most ${maxChars.toLocaleString('en-US')} characters` });

/** A string or a list of strings (repeated query parameter, JSON array). */
export const stringListField = () =>
  z
    .union([z.string(), z.array(z.string())], { error: 'must be a string or a list of strings' })
    .transform((v) => (Array.isArray(v) ? v : [v]));

/** One CSS selector (≤ 500 characters) that a standards parser accepts; the page has the last word (422 selector_invalid). */
export const selectorField = () =>
  textField(500, 'a CSS selector').refine((s) => isValidSelector(s), { message: 'is not a valid CSS selector' });

/**
 * A repeated parameter (query: repeat it or name[]; JSON: an array) of values each checked by
 * `item`, at most `max`. A single value counts as a list of one. With `commas`, for lists of names
 * that never hold one (formats, resource types), a value may also list them: `png,pdf`.
 */
export const listOf = <T extends z.ZodType>(item: T, max: number, { commas = false } = {}) =>
  z
    .union([z.string(), z.array(z.unknown())], { error: 'must be a value or a list of values' })
    .transform((v) => {
      const list = Array.isArray(v) ? v : [v];
      return commas ? list.flatMap((x) => (typeof x === 'string' && x.includes(',') ? x.split(',').map((s) => s.trim()) : [x])) : list;
    })
    .pipe(z.array(item).max(max, { error: `at most ${max} values` }));
