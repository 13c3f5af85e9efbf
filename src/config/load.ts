import { ConfigError } from '../errors/config-error.js';
import { configSchema, type Config } from './schema.js';

/** Reads and validates SHUTTER_* variables; empty strings count as unset. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, string> = {};
  for (const key of Object.keys(configSchema.shape)) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const result = configSchema.safeParse(raw);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${String(i.path[0])}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  return result.data;
}

/** Rows of (variable, default, description) for docs. */
export function describeConfig(): Array<{ name: string; default: string; description: string }> {
  return Object.entries(configSchema.shape).map(([name, schema]) => {
    const parsed = schema.safeParse(undefined);
    const value: unknown = parsed.success ? parsed.data : undefined;
    const empty =
      value === undefined || value === '' || (Array.isArray(value) && value.length === 0) || (value instanceof Map && value.size === 0);
    const def = empty ? '—' : String(value);
    return { name, default: def, description: schema.description ?? '' };
  });
}
