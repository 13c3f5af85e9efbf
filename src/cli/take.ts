import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { ParseArgsConfig } from 'node:util';
import { Timings } from '../capture/timings.js';
import { loadConfig } from '../config/load.js';
import { AppError } from '../errors/app-error.js';
import { formatOf } from '../formats/registry.js';
import { withExtension } from '../options/attachment-name.js';
import { didYouMean } from '../options/did-you-mean.js';
import { parseTakeOptions } from '../options/parse-take-options.js';
import { parameterForms } from '../options/parameter-forms.js';
import { createService } from '../service.js';
import { createLogger } from '../observability/logger.js';
import { parseCommandLine, UsageError } from './args.js';

export const TAKE_USAGE = `usage: shutter take <url|file.html> [-o file|-] [--option value …]
  Every /v1/take parameter is an option: --format jpg --viewport_width 800 --full_page (--no-full_page).
  Without -o the file is screenshot.<format>; -o - writes it to standard output.`;

/** The command line's options: every capture parameter (booleans as flags, lists repeatable), plus -o. */
function takeOptions() {
  const options: NonNullable<ParseArgsConfig['options']> = { output: { type: 'string', short: 'o' } };
  for (const { name, kind } of parameterForms()) {
    if (name === 'url' || name === 'html') continue;
    options[name] = kind === 'boolean' ? { type: 'boolean' } : { type: 'string', multiple: kind === 'list' };
  }
  return options;
}

/** `shutter take <url|file.html> [-o file] [--option value …]`: one capture, no server. */
export async function take(argv: readonly string[]): Promise<number> {
  const options = takeOptions();
  let parsed;
  try {
    // --full-page is accepted for --full_page: the API's names use underscores, shells' habits dashes.
    const normalized = argv.map((a) =>
      a.replace(/^(--(?:no-)?)([a-z][\w-]*)/, (_, prefix: string, name: string) => prefix + name.replace(/-/g, '_')),
    );
    parsed = parseCommandLine(normalized, options, { min: 1, max: 1, name: 'the URL or HTML file to capture' });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const unknown = /Unknown option '--([^']+)'/.exec(error.message)?.[1];
    const hint = unknown && didYouMean(unknown, Object.keys(options));
    console.error(`shutter: ${error.message}${hint ? `; did you mean --${hint}?` : ''}\n${TAKE_USAGE}`);
    return 2;
  }
  const source = parsed.positionals[0]!;
  const { output, ...raw } = parsed.values as Record<string, string | boolean | string[] | undefined>;
  const isFile = !/^[a-z][a-z0-9+.-]*:/i.test(source) && existsSync(source);
  const input = isFile ? { ...raw, html: readFileSync(source, 'utf8') } : { ...raw, url: source };
  const config = loadConfig();
  const logger = createLogger(config.SHUTTER_LOG_LEVEL === 'info' ? 'warn' : config.SHUTTER_LOG_LEVEL);
  // No server and no quota: accounts in memory, no file store.
  const service = await createService(config, { logger, accounts: 'memory', store: null });
  try {
    const options = parseTakeOptions(input, { countries: [...config.SHUTTER_PROXIES.keys()].sort(), maxPixels: config.SHUTTER_MAX_PIXELS });
    await service.start();
    const timings = new Timings();
    const { result } = await service.take.take({ options, timings });
    const file = typeof output === 'string' ? output : withExtension('screenshot', formatOf(result.format).extension);
    if (file === '-') process.stdout.write(result.body);
    else writeFileSync(file, result.body);
    if (file !== '-') console.error(`${file}: ${result.body.length} bytes (${timings.toServerTiming()})`);
    return 0;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    console.error(`${error.code}: ${error.message}`);
    for (const d of error.extra.details ?? []) console.error(`  ${d.parameter}: ${d.message}`);
    return 1;
  } finally {
    await service.close();
  }
}
