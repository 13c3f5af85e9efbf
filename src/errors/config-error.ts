/** Thrown when the environment or an operator's file does not satisfy its schema; names every bad setting. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
