import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { Timings } from '../capture/timings.js';
import { loadConfig } from '../config/load.js';
import { AppError } from '../errors/app-error.js';
import { withExtension } from '../options/attachment-name.js';
import { formatOf } from '../formats/registry.js';
import { parseTakeOptions } from '../options/parse-take-options.js';
import { createLogger } from '../observability/logger.js';
import { createEngine } from '../service.js';
import { parseArgs } from './args.js';

/** `shutter take <url|file.html> [-o file] [--option value …]`: one capture, no server. */
export async function take(argv: readonly string[]): Promise<number> {
  const { positional, options } = parseArgs(argv, { o: 'output' });
  const source = positional[0];
  if (!source) {
    console.error('usage: shutter take <url|file.html> [-o file|-] [--format png] [--full_page] [--any_option value]');
    return 2;
  }
  const { output, ...raw } = options;
  const isFile = !/^[a-z][a-z0-9+.-]*:/i.test(source) && existsSync(source);
  const input = isFile ? { ...raw, html: readFileSync(source, 'utf8') } : { ...raw, url: source };
  const config = loadConfig();
  const engine = createEngine(config, createLogger(config.SHUTTER_LOG_LEVEL === 'info' ? 'warn' : config.SHUTTER_LOG_LEVEL));
  try {
    const parsed = parseTakeOptions(input, { countries: [...config.SHUTTER_PROXIES.keys()].sort(), maxPixels: config.SHUTTER_MAX_PIXELS });
    const timings = new Timings();
    const result = await engine.capture(parsed, timings);
    const file = output ?? withExtension('screenshot', formatOf(result.format).extension);
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
    await engine.close();
  }
}
