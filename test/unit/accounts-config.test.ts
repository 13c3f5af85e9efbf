import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/errors/config-error.js';

/** The settings of accounts and limits: validated at start, naming the variable. */
describe('accounts configuration', () => {
  it('defaults to SQLite in the data dir, in-memory limits and open sign-ups', () => {
    const config = loadConfig({});
    expect(config.SHUTTER_DATABASE_URL).toBeUndefined();
    expect(config.SHUTTER_REDIS_URL).toBeUndefined();
    expect(config.SHUTTER_REDIS_PREFIX).toBe('shutter:');
    expect(config.SHUTTER_PLANS_FILE).toBeUndefined();
    expect(config.SHUTTER_SIGNUPS).toBe(true);
  });

  it('accepts Postgres and Redis URLs', () => {
    const config = loadConfig({
      SHUTTER_DATABASE_URL: 'postgresql://shutter:pw@db:5432/shutter',
      SHUTTER_REDIS_URL: 'rediss://cache:6380/2',
      SHUTTER_REDIS_PREFIX: 'prod:',
      SHUTTER_SIGNUPS: '0',
    });
    expect(config).toMatchObject({ SHUTTER_REDIS_PREFIX: 'prod:', SHUTTER_SIGNUPS: false });
  });

  it.each([
    ['SHUTTER_DATABASE_URL', 'mysql://db/shutter'],
    ['SHUTTER_DATABASE_URL', 'sqlite:./data/x.db'],
    ['SHUTTER_REDIS_URL', 'http://cache:6379'],
    ['SHUTTER_REDIS_PREFIX', 'has space'],
    ['SHUTTER_SIGNUPS', 'maybe'],
  ])('refuses %s=%s, naming it', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(name));
  });
});
