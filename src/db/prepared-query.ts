import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type { Tables } from './tables.js';

/** A placeholder value no caller sends: marks where each argument goes among the compiled parameters. */
const SLOT = '\u0000shutter-slot:';

interface Compiled {
  query: CompiledQuery;
  /** For each compiled parameter, the argument it takes, or -1 for a constant of the query. */
  slots: number[];
}

/**
 * A query of the hot path (every authenticated request, every cache hit), built and compiled by
 * Kysely once per database and then run with the arguments of each call: building and compiling a
 * query costs more than running a short indexed one. `build` gets placeholders for the arguments and
 * must use each of them as a plain value (bound as a parameter, never inlined or transformed).
 * Inside a transaction (another Kysely instance), it is compiled for that transaction.
 */
export function preparedQuery<A extends unknown[], R>(
  build: (db: Kysely<Tables>, ...args: A) => Compilable<R>,
): (db: Kysely<Tables>, ...args: A) => Promise<R[]> {
  const compiled = new WeakMap<Kysely<Tables>, Compiled>();
  const compile = (db: Kysely<Tables>, arity: number): Compiled => {
    const placeholders = Array.from({ length: arity }, (_, i) => `${SLOT}${i}`) as A;
    const query = build(db, ...placeholders).compile();
    const slots = query.parameters.map((p) => (typeof p === 'string' && p.startsWith(SLOT) ? Number(p.slice(SLOT.length)) : -1));
    for (let i = 0; i < arity; i++) {
      if (slots.filter((slot) => slot === i).length !== 1) throw new Error(`preparedQuery: argument ${i} must be bound exactly once`);
    }
    return { query, slots };
  };
  return async (db, ...args) => {
    let entry = compiled.get(db);
    if (!entry) {
      entry = compile(db, args.length);
      compiled.set(db, entry);
    }
    const { query, slots } = entry;
    const parameters = query.parameters.map((p, i) => (slots[i]! >= 0 ? args[slots[i]!] : p));
    const result = await db.executeQuery<R>({ ...query, parameters } as CompiledQuery<R>);
    return result.rows;
  };
}
