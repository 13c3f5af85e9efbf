import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/** A command line the command cannot run; main prints the message and the usage, and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * `node:util` parseArgs, strict: an unknown option, a missing value or a stray argument is a
 * UsageError naming it. Values keep the option's type (string, boolean, string[] when multiple).
 */
export function parseCommandLine<const T extends Options>(
  argv: readonly string[],
  options: T,
  positionals: { min?: number; max: number; name?: string } = { max: 0 },
) {
  const parse = () => parseArgs({ args: [...argv], options, strict: true, allowPositionals: true, allowNegative: true });
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/\. To specify a positional argument.*$/s, ''));
  }
  const count = parsed.positionals.length;
  if (count < (positionals.min ?? 0)) throw new UsageError(`missing ${positionals.name ?? 'argument'}`);
  if (count > positionals.max) throw new UsageError(`unexpected argument '${parsed.positionals[positionals.max]}'`);
  return parsed;
}
