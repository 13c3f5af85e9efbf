/** Minimal `--name value` / `--flag` / `-o file` parsing; everything else is positional. */
export interface ParsedArgs {
  positional: string[];
  options: Record<string, string>;
}

export function parseArgs(argv: readonly string[], shortNames: Record<string, string> = {}): ParsedArgs {
  const positional: string[] = [];
  const options: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const long = /^--([^=]+)(?:=(.*))?$/.exec(arg);
    const short = /^-([a-zA-Z])$/.exec(arg);
    if (long || short) {
      const name = long ? long[1]!.replace(/-/g, '_') : (shortNames[short![1]!] ?? short![1]!);
      const inline = long?.[2];
      const next = argv[i + 1];
      if (inline !== undefined) options[name] = inline;
      else if (next !== undefined && (next === '-' || !next.startsWith('-'))) options[name] = argv[++i]!;
      else options[name] = '1';
    } else {
      positional.push(arg);
    }
  }
  return { positional, options };
}
